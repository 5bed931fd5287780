-- Time is Redis's own (TIME), never the caller's: one clock for every worker and API host, and a
-- call that waited in a client's queue while Redis was unreachable (ioredis keeps commands until
-- it reconnects) does not lease or renew with the moment it was issued, which could be a lease's
-- whole length ago: such a lease would lapse at once and its slot go to a second run.
local function serverNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
