-- ARGV[5]: run, ARGV[6]: servers to avoid (\t-separated). Moves a run's lease to a free slot of
-- another server (its server died mid-prediction); the run keeps executing, so it goes first.
-- Answers the slot, then the run that took the old slot (its next run: state.lua's `out` quints),
-- or nil when no slot is free.
local run = ARGV[5]
local v = redis.call('HGET', K.lease, run)
if not v then return nil end
local f = split(v)
local pool, account, key = f[1], f[3], f[5]
local avoid = {}
for s in string.gmatch(ARGV[6], '([^\t]+)') do avoid[s] = true end
local busy = {}
local b = redis.call('HGETALL', K.pool(pool, 'busy'))
for i = 1, #b, 2 do busy[b[i]] = true end
for _, slot in ipairs(redis.call('SMEMBERS', K.pool(pool, 'slots'))) do
  local server = string.match(slot, '^(.*)#%d+$') or slot
  if not busy[slot] and not avoid[server] and redis.call('HEXISTS', K.serving, slot) == 0 then
    release(run, nil)
    lease(pool, run, slot, account, key)
    table.insert(out, 1, slot)
    return out
  end
end
return nil
