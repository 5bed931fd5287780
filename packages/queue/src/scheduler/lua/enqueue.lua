-- ARGV[5]: JSON [{r: run, p: pool, a: account, t: created ms, l: "n" | "l" | "b", w: weight, c: limit,
-- k: API key, kc: the key's limit or null, i: input JSON (optional), wt: the weights it loads,
-- space-separated (optional), h: true when the caller executes no runs (the API): the runs this
-- call leases in its pool are handed to the workers (below)}]. ARGV[6]: how long (ms) a hand-off
-- list no worker takes is kept (the sweeper gives its leases jobs after that).
-- A run already waiting or leased is left as it is (the sweeper may add it again). A normal or low
-- run left waiting where batch items hold places is announced (K.interactive): workers stop
-- sending batch items first as slots' next runs (state.lua nextRuns).
local pools = purge()
local entries = cjson.decode(ARGV[5])
local handoff = {}
for _, e in ipairs(entries) do
  redis.call('HSET', K.weight, e.a, e.w)
  if e.c and e.c ~= cjson.null then redis.call('HSET', K.limit, e.a, e.c) else redis.call('HDEL', K.limit, e.a) end
  if e.kc and e.kc ~= cjson.null then redis.call('HSET', K.keylimit, e.k, e.kc) else redis.call('HDEL', K.keylimit, e.k) end
  if redis.call('HEXISTS', K.lease, e.r) == 0 and redis.call('HEXISTS', K.waiting, e.r) == 0 then
    if redis.call('ZADD', K.lane(e.p, e.l, e.a), 'NX', e.t, e.r) == 1 then
      redis.call('ZADD', K.pool(e.p, 'heads'), 'LT', e.t, e.a)
      redis.call('HSET', K.waiting, e.r, e.p .. '\t' .. e.a .. '\t' .. e.l .. '\t' .. e.k)
      if e.i then redis.call('HSET', K.input, e.r, e.i) end
      if e.wt then redis.call('HSET', K.wanted, e.r, e.wt) end
      redis.call('HINCRBY', K.pool(e.p, 'meta'), 'queued', 1)
      policy.join(e.p, e.a)
    end
    redis.call('SADD', K.pools, e.p)
    pools[e.p] = true
  end
  if e.h then handoff[e.p] = true end
end
filled(pools)
-- Runs leased in a pool whose kind executes where leased, for a caller that executes none, go to
-- their lane's hand-off list with the lease's time, for a worker to take (BLPOP) and execute
-- where it is: no job for the caller to write, none for a worker to move. They leave the answer.
if next(handoff) then
  local answered, lists = {}, {}
  for i = 1, #out, 5 do
    local run, slot, pool, input, kind = out[i], out[i + 1], out[i + 2], out[i + 3], out[i + 4]
    if handoff[pool] and (kind == '' or kind == 'B') then
      local list = K.handoff(kind == 'B' and 'batch' or 'interactive')
      redis.call('RPUSH', list, now .. '\t' .. run .. '\t' .. slot .. '\t' .. pool .. '\t' .. input)
      lists[list] = true
    else
      for j = 0, 4 do answered[#answered + 1] = out[i + j] end
    end
  end
  for list in pairs(lists) do redis.call('PEXPIRE', list, ARGV[6]) end
  out = answered
end
local announced = {}
for _, e in ipairs(entries) do
  if e.l ~= 'b' and not announced[e.p] and redis.call('HEXISTS', K.waiting, e.r) == 1 and batchRunning(e.p) > 0 then
    announced[e.p] = true
    redis.call('PUBLISH', K.interactive, e.p)
  end
end
return out
