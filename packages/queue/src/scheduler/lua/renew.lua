-- ARGV[2]: lease length (ms); ARGV[3..]: runs whose worker still holds their lease. Returns those
-- still leased.
local expiry = serverNow() + tonumber(ARGV[2])
local held = {}
for i = 3, #ARGV do
  if redis.call('ZSCORE', K.leases, ARGV[i]) then
    redis.call('ZADD', K.leases, expiry, ARGV[i])
    held[#held + 1] = ARGV[i]
  end
end
return held
