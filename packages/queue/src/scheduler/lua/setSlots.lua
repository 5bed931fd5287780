-- ARGV[5]: pool; ARGV[6]: how many weights each of its servers keeps loaded (0: its runs take
-- none); ARGV[7]: the longest mean hold (ms) under which its slots keep a next run (0: never;
-- keepsNext); ARGV[8..]: its slots now (replaces the set; busy slots that left stay leased, and so
-- do their next runs: one that finds its server gone moves, as a run whose server died does).
local pools = purge()
local pool = ARGV[5]
local slots = K.pool(pool, 'slots')
redis.call('HSET', K.pool(pool, 'meta'), 'warmn', tonumber(ARGV[6]) or 0)
redis.call('HSET', K.pool(pool, 'meta'), 'nextheld', tonumber(ARGV[7]) or 0)
-- The pool is listed under each server it now has slots on, and leaves the others' lists.
local servers = {}
for i = 8, #ARGV do
  local server = serverOf(ARGV[i])
  if server then servers[server] = true end
end
for _, old in ipairs(redis.call('SMEMBERS', slots)) do
  local server = serverOf(old)
  if server and not servers[server] then
    redis.call('SREM', K.serverPools(server), pool)
    -- It failed its health check: a server that comes back has restarted, its weights unloaded.
    redis.call('DEL', K.warm(server))
  end
end
for server in pairs(servers) do redis.call('SADD', K.serverPools(server), pool) end
redis.call('DEL', slots)
for i = 8, #ARGV do redis.call('SADD', slots, ARGV[i]) end
redis.call('SADD', K.pools, pool)
pools[pool] = true
return filled(pools)
