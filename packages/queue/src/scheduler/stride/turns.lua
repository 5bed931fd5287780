-- A waiting account's turn as a place needs it: (account, pass, weight, runs in line).
local function entry(out, pool, account, pass)
  out[#out + 1] = account
  out[#out + 1] = pass
  out[#out + 1] = redis.call('HGET', K.weight, account) or '1'
  out[#out + 1] = redis.call('ZCARD', K.lane(pool, 'n', account)) + redis.call('ZCARD', K.lane(pool, 'l', account))
    + redis.call('ZCARD', K.lane(pool, 'b', account))
end
