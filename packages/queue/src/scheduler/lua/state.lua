-- Shared by the scripts that change a pool: its waiting runs, leases and slots. Given before it:
-- P, K (keys.ts), serverNow (clock.lua), and `policy` (the fairness policy: join, leave, next,
-- charge). ARGV[2]: lease length (ms), ARGV[3]: the default concurrency limit of an account,
-- ARGV[4]: how long (ms) warm routing may pass over an account's oldest run (-1: routing off).
-- A script's own arguments start at ARGV[5].
local now, ttl, defaultLimit = serverNow(), tonumber(ARGV[2]), tonumber(ARGV[3])
local warmWait = tonumber(ARGV[4])
-- What the script answers: (run, slot, pool, input or '', kind) quints, kind '' for a run leased a
-- free slot (or given its slot by the run before it: see `promote`) and 'B' for one that is a batch
-- item (its job goes to the batch lane's queue), 'n' for a slot's next run and 'b' for a slot's
-- next run that is a batch item (see `nextRuns`).
local out = {}
local function answer(run, slot, pool, input, kind)
  out[#out + 1] = run
  out[#out + 1] = slot
  out[#out + 1] = pool
  out[#out + 1] = input or ''
  out[#out + 1] = kind
end
-- Set by a release from a worker that executes its leased runs itself (release.lua): the slots
-- whose current run this call gave that worker (slot -> pool), which may each get a next run, and
-- the next runs it already sent to their slots (run -> true until the script promotes them).
local keepNext, mine, claimed = false, {}, {}
local function split(v)
  local parts = {}
  for part in string.gmatch(v, '([^\t]+)') do parts[#parts + 1] = part end
  return parts
end
-- The server a slot is on (`<server>#<n>`), or nil for a render thread's (`worker#<n>`): a
-- server's places are shared by every pool naming it, a worker's threads are each model's own.
local function serverOf(slot)
  if string.sub(slot, 1, 7) == 'worker#' then return nil end
  return string.match(slot, '^(.*)#%d+$')
end
-- A run's lanes within its account: normal, low, and batch items (issue #61), which go only when
-- no account has a normal or low run waiting for the pool (interactive work first, everywhere).
local LANES = { 'n', 'l', 'b' }
local function waitingOf(pool, account)
  local n = 0
  for _, lane in ipairs(LANES) do n = n + redis.call('ZCARD', K.lane(pool, lane, account)) end
  return n
end
local function underLimit(account)
  local limit = tonumber(redis.call('HGET', K.limit, account) or defaultLimit) or defaultLimit
  return tonumber(redis.call('HGET', K.running, account) or '0') < limit
end
local function batchRunning(pool)
  return tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'batchrunning') or '0')
end
local function batchCap(pool)
  local share = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'batchshare') or '1')
  return math.max(1, math.floor(redis.call('SCARD', K.pool(pool, 'slots')) * share))
end
local function interactive(pool, account)
  return redis.call('ZCARD', K.lane(pool, 'n', account)) + redis.call('ZCARD', K.lane(pool, 'l', account)) > 0
end
-- The account whose normal or low run goes next in the pool, and its turn; nil when no account
-- under its limit has one waiting.
local function interactiveTurn(pool)
  return policy.next(pool, function(account)
    return underLimit(account) and interactive(pool, account)
  end)
end
-- After runs left an account's lanes: its entry in the pool's heads follows its oldest run in line.
local function refreshHead(pool, account)
  local oldest
  for _, lane in ipairs(LANES) do
    local head = redis.call('ZRANGE', K.lane(pool, lane, account), 0, 0, 'WITHSCORES')
    if head[2] and (not oldest or tonumber(head[2]) < oldest) then oldest = tonumber(head[2]) end
  end
  if oldest then
    redis.call('ZADD', K.pool(pool, 'heads'), oldest, account)
  else
    redis.call('ZREM', K.pool(pool, 'heads'), account)
  end
end
local function keyFull(key)
  local limit = redis.call('HGET', K.keylimit, key)
  return limit and tonumber(redis.call('HGET', K.keyrunning, key) or '0') >= tonumber(limit)
end
-- A key with room again: its parked runs (oldest first, as many as it has room for) go back to
-- their account's lanes, and their pools are marked for filling.
local function unpark(key, pools)
  local limit = redis.call('HGET', K.keylimit, key)
  local room = 1000000
  if limit then room = tonumber(limit) - tonumber(redis.call('HGET', K.keyrunning, key) or '0') end
  if room <= 0 then return end
  for _, pool in ipairs(redis.call('SMEMBERS', K.parkedPools(key))) do
    local left = 0
    for _, lane in ipairs(LANES) do
      local parked = K.parked(pool, lane, key)
      local popped = redis.call('ZPOPMIN', parked, room)
      for i = 1, #popped, 2 do
        local v = redis.call('HGET', K.waiting, popped[i])
        if v then
          local account = split(v)[2]
          redis.call('ZADD', K.lane(pool, lane, account), popped[i + 1], popped[i])
          redis.call('ZADD', K.pool(pool, 'heads'), 'LT', popped[i + 1], account)
          policy.join(pool, account)
        end
      end
      left = left + redis.call('ZCARD', parked)
    end
    if left == 0 then redis.call('SREM', K.parkedPools(key), pool) end
    pools[pool] = true
  end
end
-- A slot's next run (issue #62): `deck` HASH slot -> run <TAB> created ms <TAB> lane. It left its
-- lane but keeps its waiting entry and input until it gets the slot, so that it can go back in
-- line at its place (its worker died) and a cancel while it waits still finds it.
local function nextOf(slot)
  local d = redis.call('HGET', K.deck, slot)
  if not d then return nil end
  local f = split(d)
  return f[1], tonumber(f[2]), f[3]
end
-- The slot's current run let go of it: its next run takes it (it is running there already when
-- its worker claimed it, else the caller sends it, as any run leased now).
local function promote(run, slot, lane)
  redis.call('HDEL', K.deck, slot)
  local v = redis.call('HGET', K.lease, run)
  if not v then return end
  local f = split(v)
  local pool = f[1]
  f[4] = tostring(now)
  redis.call('HSET', K.lease, run, table.concat(f, '\t'))
  redis.call('ZADD', K.leases, now + ttl, run)
  redis.call('HSET', K.pool(pool, 'busy'), slot, run)
  if serverOf(slot) then redis.call('HSET', K.serving, slot, run) end
  redis.call('HDEL', K.waiting, run)
  redis.call('HDEL', K.wanted, run)
  local input = redis.call('HGET', K.input, run)
  if input then redis.call('HDEL', K.input, run) end
  redis.call('HINCRBY', K.pool(pool, 'meta'), 'queued', -1)
  if lane == 'b' then
    redis.call('SADD', K.pool(pool, 'batchruns'), run)
    redis.call('HINCRBY', K.pool(pool, 'meta'), 'batchrunning', 1)
  end
  if keepNext then mine[slot] = pool end
  if claimed[run] then
    claimed[run] = nil
  elseif lane == 'b' then
    answer(run, slot, pool, input, 'B')
  else
    answer(run, slot, pool, input, '')
  end
end
-- held: the run gave its slot back itself (not a lapsed or moved lease): how long it held it
-- is what the pool's next waiting runs can expect (their start estimates).
local release
function release(run, pools, held)
  local v = redis.call('HGET', K.lease, run)
  if not v then return nil end
  local f = split(v)
  local pool, slot, account, key = f[1], f[2], f[3], f[5]
  local leasedAt = tonumber(f[4])
  local nextRun, created, lane = nextOf(slot)
  redis.call('HDEL', K.lease, run)
  redis.call('ZREM', K.leases, run)
  if nextRun == run then
    -- A next run whose worker stopped renewing it never started: back in line, at its place
    -- (unless it was canceled meanwhile).
    redis.call('HDEL', K.deck, slot)
    if redis.call('HEXISTS', K.waiting, run) == 1 then
      redis.call('ZADD', K.lane(pool, lane, account), created, run)
      redis.call('ZADD', K.pool(pool, 'heads'), 'LT', created, account)
      policy.join(pool, account)
    else
      redis.call('HDEL', K.input, run)
      redis.call('HDEL', K.wanted, run)
      redis.call('HINCRBY', K.pool(pool, 'meta'), 'queued', -1)
    end
  else
    if held and leasedAt then
      redis.call('LPUSH', K.pool(pool, 'held'), math.max(0, now - leasedAt))
      redis.call('LTRIM', K.pool(pool, 'held'), 0, 99)
    end
    local current = false
    if redis.call('HGET', K.pool(pool, 'busy'), slot) == run then
      redis.call('HDEL', K.pool(pool, 'busy'), slot)
      current = true
    end
    local server = serverOf(slot)
    local loaded = redis.call('HGET', K.loaded, run)
    if loaded then
      redis.call('HDEL', K.loaded, run)
      if held and leasedAt then
        redis.call('HINCRBY', K.pool(pool, 'warmstats'), loaded .. 'ms\t' .. server, math.max(0, now - leasedAt))
      end
    end
    if server and redis.call('HGET', K.serving, slot) == run then
      redis.call('HDEL', K.serving, slot)
      current = true
      -- The place is free for every model on the server, not only this run's.
      if pools then
        for _, other in ipairs(redis.call('SMEMBERS', K.serverPools(server))) do pools[other] = true end
      end
    end
    if current and nextRun then
      if lane == 'b' and not claimed[nextRun] and interactiveTurn(pool) then
        -- A batch item its worker did not send (it heard interactive runs wait): back in line,
        -- and the place goes to them (the caller fills the pool).
        release(nextRun, pools)
      else
        promote(nextRun, slot, lane)
      end
    end
  end
  if redis.call('HINCRBY', K.running, account, -1) <= 0 then redis.call('HDEL', K.running, account) end
  if redis.call('SREM', K.pool(pool, 'batchruns'), run) == 1 then
    redis.call('HINCRBY', K.pool(pool, 'meta'), 'batchrunning', -1)
  end
  if key then
    if redis.call('HINCRBY', K.keyrunning, key, -1) <= 0 then redis.call('HDEL', K.keyrunning, key) end
    if pools then unpark(key, pools) end
  end
  return pool
end
-- Leases nobody renewed (their worker died, or their job was never taken) give their slots back.
-- (A next run promoted meanwhile holds a fresh lease: its worker may be alive, only late.)
local function purge()
  local pools = {}
  for _, run in ipairs(redis.call('ZRANGEBYSCORE', K.leases, '-inf', now, 'LIMIT', 0, 1000)) do
    if (tonumber(redis.call('ZSCORE', K.leases, run)) or now + 1) <= now then
      local pool = release(run, pools)
      if pool then pools[pool] = true end
    end
  end
  return pools
end
-- A slot's next run holds a lease (counted against its account's and key's limits, renewed by the
-- worker it went to) but not yet the slot: `busy` and `serving` name the slot's current run.
local function lease(pool, run, slot, account, key, nextOnly)
  if not nextOnly then
    redis.call('HSET', K.pool(pool, 'busy'), slot, run)
    if serverOf(slot) then redis.call('HSET', K.serving, slot, run) end
  end
  local v = pool .. '\t' .. slot .. '\t' .. account .. '\t' .. now
  if key then
    v = v .. '\t' .. key
    redis.call('HINCRBY', K.keyrunning, key, 1)
  end
  redis.call('HSET', K.lease, run, v)
  redis.call('ZADD', K.leases, now + ttl, run)
  redis.call('HINCRBY', K.running, account, 1)
end
-- Warm routing (personal weights). A server keeps the last `warmn` weights (sha256 prefixes) it
-- was sent, newest first (K.warm(server)): learned from the runs leased to it, forgotten when it
-- fails its health check (setSlots). Runs waiting name theirs in K.wanted.
local WARM_SCAN = 64
local function words(v)
  local found = {}
  for w in string.gmatch(v, '%S+') do found[#found + 1] = w end
  return found
end
-- Whether the server of a slot holds every weights of `wanted` (its list read once per dispatch).
local function holds(cache, slot, wanted)
  local server = serverOf(slot)
  if not server then return false end
  local set = cache[server]
  if not set then
    set = {}
    for _, sha in ipairs(redis.call('LRANGE', K.warm(server), 0, -1)) do set[sha] = true end
    cache[server] = set
  end
  for _, sha in ipairs(words(wanted)) do
    if not set[sha] then return false end
  end
  return true
end
-- A run that names weights took a slot: a hit (its server held them all) or a miss, counted per
-- server with the loads; its weights become the server's newest, the oldest past `n` unloaded.
local function loadWeights(pool, run, slot, n, cache)
  local wanted = redis.call('HGET', K.wanted, run)
  if not wanted then return end
  redis.call('HDEL', K.wanted, run)
  local server = serverOf(slot)
  if not server then return end
  local list = K.warm(server)
  local held = {}
  for _, sha in ipairs(redis.call('LRANGE', list, 0, -1)) do held[sha] = true end
  local loads = 0
  for _, sha in ipairs(words(wanted)) do
    if not held[sha] then loads = loads + 1 end
    redis.call('LREM', list, 0, sha)
    redis.call('LPUSH', list, sha)
  end
  redis.call('LTRIM', list, 0, n - 1)
  cache[server] = nil
  local outcome = 'h'
  if loads > 0 then outcome = 'm' end
  redis.call('HINCRBY', K.pool(pool, 'warmstats'), outcome .. '\t' .. server, 1)
  if loads > 0 then redis.call('HINCRBY', K.pool(pool, 'warmstats'), 'l\t' .. server, loads) end
  redis.call('HSET', K.loaded, run, outcome)
end
-- The run an account gives a free slot, and that slot's index in `free`: its oldest run (normal
-- lane first) on the last free slot; with warm routing, the oldest of its next WARM_SCAN runs
-- whose weights a free slot's server holds, on that slot. The oldest run is passed over so for at
-- most warmWait ms from the first time it was (K.pool(pool, 'passed')); then it goes first.
local function pick(pool, account, free, warmn, cache)
  local lane = 'b'
  for _, l in ipairs(LANES) do
    if redis.call('ZCARD', K.lane(pool, l, account)) > 0 then
      lane = l
      break
    end
  end
  local laneKey = K.lane(pool, lane, account)
  if warmWait < 0 or warmn <= 0 then
    local popped = redis.call('ZPOPMIN', laneKey)
    return lane, popped[1], popped[2], #free
  end
  local runs = redis.call('ZRANGE', laneKey, 0, WARM_SCAN - 1, 'WITHSCORES')
  if #runs == 0 then return lane, nil end
  local ids = {}
  for i = 1, #runs, 2 do ids[#ids + 1] = runs[i] end
  local wanted = redis.call('HMGET', K.wanted, unpack(ids))
  local passed = K.pool(pool, 'passed')
  local since = redis.call('HGET', passed, account)
  local sinceRun, sinceMs
  if since then sinceRun, sinceMs = string.match(since, '^([^\t]+)\t(%d+)$') end
  local choice, slot
  if not (sinceRun == ids[1] and now - tonumber(sinceMs) >= warmWait) then
    for i = 1, #ids do
      if wanted[i] then
        for j = #free, 1, -1 do
          if holds(cache, free[j], wanted[i]) then
            choice, slot = i, j
            break
          end
        end
      end
      if choice then break end
    end
  end
  choice, slot = choice or 1, slot or #free
  redis.call('ZREM', laneKey, ids[choice])
  if choice == 1 then
    if since then
      if sinceRun == ids[1] then
        local most = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'maxpassed') or '0')
        if now - tonumber(sinceMs) > most then redis.call('HSET', K.pool(pool, 'meta'), 'maxpassed', now - tonumber(sinceMs)) end
      end
      redis.call('HDEL', passed, account)
    end
  elseif sinceRun ~= ids[1] then
    redis.call('HSET', passed, account, ids[1] .. '\t' .. now)
  end
  return lane, ids[choice], runs[choice * 2], slot
end
-- Fills the pool's free slots: the account the policy names (among those under their limit) gives
-- its oldest normal run, else its oldest low run; a run whose key is at its own limit is parked.
local function dispatch(pool)
  local busy = {}
  local b = redis.call('HGETALL', K.pool(pool, 'busy'))
  for i = 1, #b, 2 do busy[b[i]] = true end
  local free = {}
  for _, slot in ipairs(redis.call('SMEMBERS', K.pool(pool, 'slots'))) do
    if not busy[slot] and not (serverOf(slot) and redis.call('HEXISTS', K.serving, slot) == 1) then
      free[#free + 1] = slot
    end
  end
  table.sort(free, function(x, y) return x > y end)
  local warmn = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'warmn') or '0')
  local cache = {}
  while #free > 0 do
    -- Accounts take turns among those with interactive runs waiting; batch items only after, and
    -- on at most the batches' share of the pool's places (meta batchshare, set by the feeder).
    local chosen, turn = interactiveTurn(pool)
    if not chosen and batchRunning(pool) < batchCap(pool) then chosen, turn = policy.next(pool, underLimit) end
    if not chosen then break end
    local lane, run, created, at = pick(pool, chosen, free, warmn, cache)
    refreshHead(pool, chosen)
    local key
    if run then key = split(redis.call('HGET', K.waiting, run) or '')[4] end
    if not run then
      policy.leave(pool, chosen)
    elseif key and keyFull(key) then
      -- Its key runs as many as it may: the run waits aside, and the account's next run is tried.
      redis.call('ZADD', K.parked(pool, lane, key), created, run)
      redis.call('SADD', K.parkedPools(key), pool)
      if waitingOf(pool, chosen) == 0 then policy.leave(pool, chosen) end
    else
      redis.call('HDEL', K.waiting, run)
      local input = redis.call('HGET', K.input, run)
      if input then redis.call('HDEL', K.input, run) end
      redis.call('HINCRBY', K.pool(pool, 'meta'), 'queued', -1)
      policy.charge(pool, chosen, turn)
      if waitingOf(pool, chosen) == 0 then policy.leave(pool, chosen) end
      local slot = table.remove(free, at)
      lease(pool, run, slot, chosen, key)
      local kind = ''
      if lane == 'b' then
        redis.call('SADD', K.pool(pool, 'batchruns'), run)
        redis.call('HINCRBY', K.pool(pool, 'meta'), 'batchrunning', 1)
        kind = 'B'
      end
      if warmn > 0 then
        loadWeights(pool, run, slot, warmn, cache)
      else
        redis.call('HDEL', K.wanted, run)
      end
      answer(run, slot, pool, input, kind)
      if keepNext then mine[slot] = pool end
    end
  end
end
-- Fills every pool named; what the script answers (`out`).
local function filled(pools)
  for pool in pairs(pools) do dispatch(pool) end
  return out
end
-- Whether the pool's slots keep a next run: its servers' kind sends the work from the worker that
-- leased the slot (the pool monitor sets meta nextheld) and its runs are short, the mean of the
-- last ones' hold at most nextheld ms. A next run is the only thing that can make a run arriving
-- later wait longer (one hold at most: it starts after the next run instead of at the next
-- release); the gain, a handover without a round trip to Redis, matters only for short runs.
local function keepsNext(pool, cache)
  if cache[pool] == nil then
    local limit = tonumber(redis.call('HGET', K.pool(pool, 'meta'), 'nextheld') or '0') or 0
    local ok = false
    if limit > 0 then
      local held = redis.call('LRANGE', K.pool(pool, 'held'), 0, -1)
      if #held >= 10 then
        local sum = 0
        for _, ms in ipairs(held) do sum = sum + tonumber(ms) end
        ok = sum / #held <= limit
      end
    end
    cache[pool] = ok
  end
  return cache[pool]
end
-- Gives each slot in `mine` (of a server only its pool uses: another model's runs would never find
-- the place free) a next run, as the policy orders them. A normal or low run is never the next
-- run of a batch item's slot: it takes the first place that frees instead (a release puts back a
-- batch item its worker did not send), so a batch item that started before it was known to wait
-- costs it one release, not one hold. A batch item's slot may keep a batch item when no
-- interactive run waits and the batches hold no more than their share: its worker sends it
-- without waiting for the release's round trip, unless it heard interactive runs wait (answered
-- as kind 'b', and by the release: see `interactiveWaiting`).
local function nextRuns()
  local cache = {}
  for slot, pool in pairs(mine) do
    local server = serverOf(slot)
    if server and keepsNext(pool, cache) and redis.call('HEXISTS', K.deck, slot) == 0
      and redis.call('SCARD', K.serverPools(server)) == 1 then
      local batchSlot = redis.call('SISMEMBER', K.pool(pool, 'batchruns'), redis.call('HGET', K.pool(pool, 'busy'), slot) or '') == 1
      while true do
        local chosen, turn = interactiveTurn(pool)
        -- An interactive run is no slot's next run while batch items hold places: bound to this
        -- slot it would wait a whole run, when the first of those places to free is its.
        if chosen and (batchSlot or batchRunning(pool) > 0) then break end
        if not chosen and batchSlot and batchRunning(pool) <= batchCap(pool) then chosen, turn = policy.next(pool, underLimit) end
        if not chosen then break end
        local lane, run, created = pick(pool, chosen, { slot }, 0, {})
        refreshHead(pool, chosen)
        if not run then
          policy.leave(pool, chosen)
          break
        end
        local key = split(redis.call('HGET', K.waiting, run) or '')[4]
        if key and keyFull(key) then
          redis.call('ZADD', K.parked(pool, lane, key), created, run)
          redis.call('SADD', K.parkedPools(key), pool)
          if waitingOf(pool, chosen) == 0 then policy.leave(pool, chosen) end
        else
          policy.charge(pool, chosen, turn)
          if waitingOf(pool, chosen) == 0 then policy.leave(pool, chosen) end
          lease(pool, run, slot, chosen, key, true)
          redis.call('HSET', K.deck, slot, run .. '\t' .. created .. '\t' .. lane)
          local kind = 'n'
          if lane == 'b' then kind = 'b' end
          answer(run, slot, pool, redis.call('HGET', K.input, run), kind)
          break
        end
      end
    end
  end
end
-- For the pools named where batch items hold places (no other can have a batch item as a slot's
-- next run), whether a normal or low run waits there (pool, '1' or '0' pairs joined by tabs): a
-- worker holding a batch item as a slot's next run sends it only when none does.
local function interactiveWaiting(pools)
  local flags = {}
  for pool in pairs(pools) do
    if batchRunning(pool) > 0 then
      flags[#flags + 1] = pool
      flags[#flags + 1] = interactiveTurn(pool) and '1' or '0'
    end
  end
  return table.concat(flags, '\t')
end
