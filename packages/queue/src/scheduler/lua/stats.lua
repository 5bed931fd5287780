-- ARGV[2]: pool. Capacity, leased slots, waiting runs, the oldest waiting run's creation (ms),
-- when each busy slot of the capacity was leased (ms; a slot whose server left is not capacity),
-- how long the last runs released held their slot, and how many of its slots hold a next run that
-- is not a batch item (those start before any run in line; a batch item yields to interactive runs).
local pool = ARGV[2]
local oldest = redis.call('ZRANGE', K.pool(pool, 'heads'), 0, 0, 'WITHSCORES')[2] or ''
local since = {}
local nexts = 0
for _, slot in ipairs(redis.call('SMEMBERS', K.pool(pool, 'slots'))) do
  local deck = redis.call('HGET', K.deck, slot)
  if deck and string.sub(deck, -2) ~= '\tb' then nexts = nexts + 1 end
  local run = redis.call('HGET', K.pool(pool, 'busy'), slot)
  local v = run and redis.call('HGET', K.lease, run)
  if v then since[#since + 1] = string.match(v, '^[^\t]*\t[^\t]*\t[^\t]*\t([^\t]+)') end
end
return {
  redis.call('SCARD', K.pool(pool, 'slots')),
  redis.call('HLEN', K.pool(pool, 'busy')),
  tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'queued') or '0'),
  oldest,
  since,
  redis.call('LRANGE', K.pool(pool, 'held'), 0, -1),
  nexts,
}
