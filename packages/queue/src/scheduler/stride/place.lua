-- ARGV[2]: pool, ARGV[3]: run, ARGV[4]: the most waiting accounts to answer with. Where a waiting
-- run stands: its account, lane index, 1 when every waiting account follows (else 0: too many to
-- read in one script, which would hold Redis for milliseconds; only its own follows), then the
-- accounts' entries (turns.lua). Empty when the run is not waiting.
local pool, run, most = ARGV[2], ARGV[3], tonumber(ARGV[4])
local v = redis.call('HGET', K.waiting, run)
if not v then return {} end
local f = {}
for part in string.gmatch(v, '([^\t]+)') do f[#f + 1] = part end
local account, lane, key = f[2], f[3], f[4]
local index = redis.call('ZRANK', K.lane(pool, lane, account), run)
if index then
  if lane ~= 'n' then index = index + redis.call('ZCARD', K.lane(pool, 'n', account)) end
  if lane == 'b' then index = index + redis.call('ZCARD', K.lane(pool, 'l', account)) end
else
  -- Parked behind its key's limit: placed after the account's runs in line (a bound, as limits are).
  index = key and redis.call('ZRANK', K.parked(pool, lane, key), run)
  if not index then return {} end
  index = index + redis.call('ZCARD', K.lane(pool, 'n', account)) + redis.call('ZCARD', K.lane(pool, 'l', account))
    + redis.call('ZCARD', K.lane(pool, 'b', account))
  if lane ~= 'n' then index = index + redis.call('ZCARD', K.parked(pool, 'n', key)) end
  if lane == 'b' then index = index + redis.call('ZCARD', K.parked(pool, 'l', key)) end
end
local ringKey = K.pool(pool, 'ring')
local whole = redis.call('ZCARD', ringKey) <= most
local out = { account, index, whole and 1 or 0 }
local pass = redis.call('ZSCORE', ringKey, account)
if whole then
  local ring = redis.call('ZRANGE', ringKey, 0, -1, 'WITHSCORES')
  for i = 1, #ring, 2 do entry(out, pool, ring[i], ring[i + 1]) end
elseif pass then
  entry(out, pool, account, pass)
end
if not pass then
  -- Only parked runs wait: the account rejoins the ring when they go back in line.
  local vt = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'vt') or '0')
  local left = tonumber(redis.call('HGET', K.pool(pool, 'passes'), account) or '0')
  out[#out + 1] = account
  out[#out + 1] = math.max(vt, left)
  out[#out + 1] = redis.call('HGET', K.weight, account) or '1'
  out[#out + 1] = index + 1
end
return out
