-- Records a batch of run events (recorder.ts): each run's event in its capped stream, the queue
-- index of unlimited models' waiting runs, the models' recent run times, and one announcement of
-- the whole batch on the channel. Given before it: N (the key names, keys.ts) and the caps.
-- A QUEUED event of an unlimited model (with its queue time) joins the queue index only when it is
-- the run's first event: if the run's start was recorded before it (two processes record, in any
-- order), the run is no longer waiting.
local prefix, activeTtl, endedTtl = ARGV[1], ARGV[2], ARGV[3]
local events = cjson.decode(ARGV[4])
local queued, runTimes = prefix .. N.queued, prefix .. N.runTimes
local out = {}
for _, e in ipairs(events) do
  local stream = prefix .. N.stream .. e.r
  local id = redis.call('XADD', stream, 'MAXLEN', '~', EVENTS_PER_RUN, '*', 'e', e.d)
  redis.call('PEXPIRE', stream, e.x == 1 and endedTtl or activeTtl)
  if e.s == 'QUEUED' then
    if e.q and redis.call('XLEN', stream) == 1 then
      redis.call('ZADD', queued .. ':' .. e.m, e.q, e.r)
      redis.call('ZADD', queued, e.q, e.r)
    end
  elseif e.s then
    redis.call('ZREM', queued .. ':' .. e.m, e.r)
    redis.call('ZREM', queued, e.r)
  end
  if e.t then
    redis.call('LPUSH', runTimes .. ':' .. e.m, e.t)
    redis.call('LTRIM', runTimes .. ':' .. e.m, 0, RUN_TIMES_PER_MODEL - 1)
    redis.call('LPUSH', runTimes, e.t)
    redis.call('LTRIM', runTimes, 0, RUN_TIMES_ALL - 1)
  end
  out[#out + 1] = { r = e.r, i = id, d = e.d }
end
redis.call('PUBLISH', prefix .. N.channel, cjson.encode(out))
return #out
