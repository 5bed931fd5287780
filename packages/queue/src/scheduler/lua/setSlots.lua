-- ARGV[4]: pool; ARGV[5..]: its slots now (replaces the set; busy slots that left stay leased).
local pools = purge()
local pool = ARGV[4]
local slots = K.pool(pool, 'slots')
redis.call('DEL', slots)
for i = 5, #ARGV do redis.call('SADD', slots, ARGV[i]) end
redis.call('SADD', K.pools, pool)
pools[pool] = true
return filled(pools)
