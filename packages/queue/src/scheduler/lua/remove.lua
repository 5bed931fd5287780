-- ARGV[5..]: runs that should wait no more (canceled while queued). Returns how many left a queue.
local removed = 0
for i = 5, #ARGV do
  local v = redis.call('HGET', K.waiting, ARGV[i])
  if v then
    local f = split(v)
    local pool, account, lane, key = f[1], f[2], f[3], f[4]
    redis.call('HDEL', K.waiting, ARGV[i])
    redis.call('HDEL', K.input, ARGV[i])
    redis.call('HDEL', K.wanted, ARGV[i])
    local out = redis.call('ZREM', K.lane(pool, lane, account), ARGV[i])
    if out == 1 then refreshHead(pool, account) end
    if out == 0 and key then out = redis.call('ZREM', K.parked(pool, lane, key), ARGV[i]) end
    if out == 1 then
      removed = removed + 1
      redis.call('HINCRBY', K.pool(pool, 'meta'), 'queued', -1)
    end
    if waitingOf(pool, account) == 0 then policy.leave(pool, account) end
  end
end
return removed
