-- ARGV[5..]: pools to fill (after a lease expired, or as the periodic safety net). Answers the
-- runs leased, then when the next lease expires (ms, '' when none is held).
local pools = purge()
for i = 5, #ARGV do pools[ARGV[i]] = true end
local out = filled(pools)
local first = redis.call('ZRANGE', K.leases, 0, 0, 'WITHSCORES')
out[#out + 1] = first[2] or ''
return out
