-- The stride policy (weighted round robin, core/scheduling.ts): every account waiting for a pool
-- has a pass in the pool's ring; the next run comes from the account with the lowest pass (ties:
-- the smaller account id, as a sorted set orders them) that is under its limit, which then
-- advances by its stride, STRIDE / weight. An account that starts waiting joins at the pool's
-- current pass (vt), and no earlier than the pass it left with, so time spent idle earns no burst.
-- Given before it: P, K, STRIDE. The scheduler's state scripts call only these four functions.
local policy = {}
local function stride(account)
  local w = tonumber(redis.call('HGET', K.weight, account) or '1') or 1
  if w < 1 then w = 1 end
  return math.max(1, math.floor(STRIDE / w + 0.5))
end
-- The account has runs waiting in the pool again.
function policy.join(pool, account)
  local ring = K.pool(pool, 'ring')
  if not redis.call('ZSCORE', ring, account) then
    local vt = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'vt') or '0')
    local left = tonumber(redis.call('HGET', K.pool(pool, 'passes'), account) or '0')
    redis.call('ZADD', ring, math.max(vt, left), account)
  end
end
-- The account has no run waiting in the pool any more.
function policy.leave(pool, account)
  local ring = K.pool(pool, 'ring')
  local pass = redis.call('ZSCORE', ring, account)
  if pass then
    redis.call('HSET', K.pool(pool, 'passes'), account, pass)
    redis.call('ZREM', ring, account)
  end
end
-- The account whose run starts next, and its turn (handed back to charge); nil when no waiting
-- account may start one (all at their limits).
function policy.next(pool, eligible)
  local ring = K.pool(pool, 'ring')
  local offset = 0
  while true do
    local members = redis.call('ZRANGE', ring, offset, offset + 199, 'WITHSCORES')
    if #members == 0 then return nil end
    for i = 1, #members, 2 do
      if eligible(members[i]) then return members[i], tonumber(members[i + 1]) end
    end
    offset = offset + 200
  end
end
-- A run of the account started on its turn.
function policy.charge(pool, account, pass)
  redis.call('HSET', K.pool(pool, 'meta'), 'vt', pass)
  redis.call('ZADD', K.pool(pool, 'ring'), pass + stride(account), account)
end
