-- ARGV[2]: pool, ARGV[3]: first rank, ARGV[4]: how many. The waiting accounts' entries
-- (turns.lua) in pass order from that rank: a large ring is read in pieces, each a short script.
local pool = ARGV[2]
local first = tonumber(ARGV[3])
local ring = redis.call('ZRANGE', K.pool(pool, 'ring'), first, first + tonumber(ARGV[4]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ring, 2 do entry(out, pool, ring[i], ring[i + 1]) end
return out
