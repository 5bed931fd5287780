// The scheduler's state in Redis: runs waiting for a model's capacity pool, per account and lane,
// the accounts' turns (stride scheduling, core/scheduling.ts), the pool's slots and the leases
// that hold them. Every change is one Lua script, so any number of API and worker processes
// share a pool's slots exactly; every script that can free a slot or add a waiting run dispatches
// in the same call, and answers with the runs it leased a slot to (the caller enqueues their jobs).
//
// Keys, under `<prefix>:sched:`:
//   <pool>:n:<account>, <pool>:l:<account>  ZSET run -> created ms (normal and low lane)
//   <pool>:pn:<key>, <pool>:pl:<key>  ZSET run -> created ms: runs parked while their API key was at
//                  its own limit (they count as queued; they go back to their lane when it has room)
//   <pool>:ring    ZSET account -> pass (accounts with waiting runs)
//   <pool>:heads   ZSET account -> created ms of its oldest run in line (the pool's oldest waiting
//                  run in one read, however many accounts wait)
//   <pool>:passes  HASH account -> pass it left the ring with (it rejoins no earlier)
//   <pool>:meta    HASH vt (the pass of the last pick), queued (runs waiting)
//   <pool>:slots   SET slot ids (the capacity: healthy servers x concurrency, or render threads)
//   <pool>:busy    HASH slot -> run
//   <pool>:health  HASH server -> up | down
//   <pool>:held    LIST how long the last 100 runs released held their slot (ms), newest first
//   waiting        HASH run -> pool \t account \t lane \t key
//   input          HASH run -> its input (JSON), when small: handed to its dispatch
//   lease          HASH run -> pool \t slot \t account \t leased ms \t key
//   leases         ZSET run -> expiry ms
//   running        HASH account -> leases held (all pools)
//   limit, weight  HASH account -> its concurrency limit and weight (written with its runs)
//   keyrunning     HASH key -> leases held by the key's runs
//   keylimit       HASH key -> the key's own concurrency limit (when it has one)
//   parked:<key>   SET pools where the key has parked runs
//   pools          SET pools known (their metrics, the periodic tick)
import type { RedisClient } from "./redis.js";
import { STRIDE, ttlCache, type RunPriority, type WaitingAccount } from "@svc/core";

// Time is Redis's own (TIME), never the caller's: one clock for every worker and API host, and a
// call that waited in a client's queue while Redis was unreachable (ioredis keeps commands until
// it reconnects) does not lease or renew with the moment it was issued, which could be a lease's
// whole length ago: such a lease would lapse at once and its slot go to a second run.
const SERVER_NOW = `
local function serverNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

const COMMON = `${SERVER_NOW}
local P = ARGV[1]
local now, ttl, defaultLimit = serverNow(), tonumber(ARGV[2]), tonumber(ARGV[3])
local function split(v)
  local out = {}
  for part in string.gmatch(v, '([^\\t]+)') do out[#out + 1] = part end
  return out
end
local function stride(account)
  local w = tonumber(redis.call('HGET', P .. 'weight', account) or '1') or 1
  if w < 1 then w = 1 end
  return math.max(1, math.floor(${STRIDE} / w + 0.5))
end
local function waitingOf(pool, account)
  return redis.call('ZCARD', P .. pool .. ':n:' .. account) + redis.call('ZCARD', P .. pool .. ':l:' .. account)
end
-- After runs left an account's lanes: its entry in the pool's heads follows its oldest run in line.
local function refreshHead(pool, account)
  local oldest
  for _, lane in ipairs({ 'n', 'l' }) do
    local head = redis.call('ZRANGE', P .. pool .. ':' .. lane .. ':' .. account, 0, 0, 'WITHSCORES')
    if head[2] and (not oldest or tonumber(head[2]) < oldest) then oldest = tonumber(head[2]) end
  end
  if oldest then
    redis.call('ZADD', P .. pool .. ':heads', oldest, account)
  else
    redis.call('ZREM', P .. pool .. ':heads', account)
  end
end
local function leave(pool, account)
  local pass = redis.call('ZSCORE', P .. pool .. ':ring', account)
  if pass then
    redis.call('HSET', P .. pool .. ':passes', account, pass)
    redis.call('ZREM', P .. pool .. ':ring', account)
  end
end
local function join(pool, account)
  local ring = P .. pool .. ':ring'
  if not redis.call('ZSCORE', ring, account) then
    local vt = tonumber(redis.call('HGET', P .. pool .. ':meta', 'vt') or '0')
    local left = tonumber(redis.call('HGET', P .. pool .. ':passes', account) or '0')
    redis.call('ZADD', ring, math.max(vt, left), account)
  end
end
local function keyFull(key)
  local limit = redis.call('HGET', P .. 'keylimit', key)
  return limit and tonumber(redis.call('HGET', P .. 'keyrunning', key) or '0') >= tonumber(limit)
end
-- A key with room again: its parked runs (oldest first, as many as it has room for) go back to
-- their account's lanes, and their pools are marked for filling.
local function unpark(key, pools)
  local limit = redis.call('HGET', P .. 'keylimit', key)
  local room = 1000000
  if limit then room = tonumber(limit) - tonumber(redis.call('HGET', P .. 'keyrunning', key) or '0') end
  if room <= 0 then return end
  for _, pool in ipairs(redis.call('SMEMBERS', P .. 'parked:' .. key)) do
    local left = 0
    for _, lane in ipairs({ 'n', 'l' }) do
      local parked = P .. pool .. ':p' .. lane .. ':' .. key
      local popped = redis.call('ZPOPMIN', parked, room)
      for i = 1, #popped, 2 do
        local v = redis.call('HGET', P .. 'waiting', popped[i])
        if v then
          local account = split(v)[2]
          redis.call('ZADD', P .. pool .. ':' .. lane .. ':' .. account, popped[i + 1], popped[i])
          redis.call('ZADD', P .. pool .. ':heads', 'LT', popped[i + 1], account)
          join(pool, account)
        end
      end
      left = left + redis.call('ZCARD', parked)
    end
    if left == 0 then redis.call('SREM', P .. 'parked:' .. key, pool) end
    pools[pool] = true
  end
end
-- held: the run gave its slot back itself (not a lapsed or moved lease): how long it held it
-- is what the pool's next waiting runs can expect (their start estimates).
local function release(run, pools, held)
  local v = redis.call('HGET', P .. 'lease', run)
  if not v then return nil end
  local f = split(v)
  local pool, slot, account, key = f[1], f[2], f[3], f[5]
  local leasedAt = tonumber(f[4])
  if held and leasedAt then
    redis.call('LPUSH', P .. pool .. ':held', math.max(0, now - leasedAt))
    redis.call('LTRIM', P .. pool .. ':held', 0, 99)
  end
  redis.call('HDEL', P .. 'lease', run)
  redis.call('ZREM', P .. 'leases', run)
  if redis.call('HGET', P .. pool .. ':busy', slot) == run then redis.call('HDEL', P .. pool .. ':busy', slot) end
  if redis.call('HINCRBY', P .. 'running', account, -1) <= 0 then redis.call('HDEL', P .. 'running', account) end
  if key then
    if redis.call('HINCRBY', P .. 'keyrunning', key, -1) <= 0 then redis.call('HDEL', P .. 'keyrunning', key) end
    if pools then unpark(key, pools) end
  end
  return pool
end
-- Leases nobody renewed (their worker died, or their job was never taken) give their slots back.
local function purge()
  local pools = {}
  for _, run in ipairs(redis.call('ZRANGEBYSCORE', P .. 'leases', '-inf', now, 'LIMIT', 0, 1000)) do
    local pool = release(run, pools)
    if pool then pools[pool] = true end
  end
  return pools
end
local function lease(pool, run, slot, account, key)
  redis.call('HSET', P .. pool .. ':busy', slot, run)
  local v = pool .. '\\t' .. slot .. '\\t' .. account .. '\\t' .. now
  if key then
    v = v .. '\\t' .. key
    redis.call('HINCRBY', P .. 'keyrunning', key, 1)
  end
  redis.call('HSET', P .. 'lease', run, v)
  redis.call('ZADD', P .. 'leases', now + ttl, run)
  redis.call('HINCRBY', P .. 'running', account, 1)
end
-- Fills the pool's free slots: the account with the lowest pass under its limit gives its oldest
-- normal run (else its oldest low run), then advances by its stride.
local function dispatch(pool, out)
  local busy = {}
  local b = redis.call('HGETALL', P .. pool .. ':busy')
  for i = 1, #b, 2 do busy[b[i]] = true end
  local free = {}
  for _, slot in ipairs(redis.call('SMEMBERS', P .. pool .. ':slots')) do
    if not busy[slot] then free[#free + 1] = slot end
  end
  table.sort(free, function(x, y) return x > y end)
  local ring = P .. pool .. ':ring'
  while #free > 0 do
    local chosen, pass
    local offset = 0
    while not chosen do
      local members = redis.call('ZRANGE', ring, offset, offset + 199, 'WITHSCORES')
      if #members == 0 then break end
      for i = 1, #members, 2 do
        local a = members[i]
        local limit = tonumber(redis.call('HGET', P .. 'limit', a) or defaultLimit) or defaultLimit
        if tonumber(redis.call('HGET', P .. 'running', a) or '0') < limit then
          chosen, pass = a, tonumber(members[i + 1])
          break
        end
      end
      offset = offset + 200
    end
    if not chosen then break end
    local lane = 'n'
    local popped = redis.call('ZPOPMIN', P .. pool .. ':n:' .. chosen)
    if #popped == 0 then
      lane = 'l'
      popped = redis.call('ZPOPMIN', P .. pool .. ':l:' .. chosen)
    end
    refreshHead(pool, chosen)
    local key
    if #popped > 0 then key = split(redis.call('HGET', P .. 'waiting', popped[1]) or '')[4] end
    if #popped == 0 then
      redis.call('ZREM', ring, chosen)
    elseif key and keyFull(key) then
      -- Its key runs as many as it may: the run waits aside, and the account's next run is tried.
      redis.call('ZADD', P .. pool .. ':p' .. lane .. ':' .. key, popped[2], popped[1])
      redis.call('SADD', P .. 'parked:' .. key, pool)
      if waitingOf(pool, chosen) == 0 then leave(pool, chosen) end
    else
      local run = popped[1]
      redis.call('HDEL', P .. 'waiting', run)
      local input = redis.call('HGET', P .. 'input', run)
      if input then redis.call('HDEL', P .. 'input', run) end
      redis.call('HINCRBY', P .. pool .. ':meta', 'queued', -1)
      redis.call('HSET', P .. pool .. ':meta', 'vt', pass)
      redis.call('ZADD', ring, pass + stride(chosen), chosen)
      if waitingOf(pool, chosen) == 0 then leave(pool, chosen) end
      local slot = table.remove(free)
      lease(pool, run, slot, chosen, key)
      out[#out + 1] = run
      out[#out + 1] = slot
      out[#out + 1] = pool
      out[#out + 1] = input or ''
    end
  end
end
-- Fills every pool named; the runs leased, as (run, slot, pool, input or '') quads.
local function filled(pools)
  local out = {}
  for pool in pairs(pools) do dispatch(pool, out) end
  return out
end
`;

// ARGV[4]: JSON [{r: run, p: pool, a: account, t: created ms, l: "n" | "l", w: weight, c: limit,
// k: API key, kc: the key's limit or null, i: input JSON (optional)}].
// A run already waiting or leased is left as it is (the sweeper may add it again).
const ENQUEUE = `${COMMON}
local pools = purge()
for _, e in ipairs(cjson.decode(ARGV[4])) do
  redis.call('HSET', P .. 'weight', e.a, e.w)
  if e.c and e.c ~= cjson.null then redis.call('HSET', P .. 'limit', e.a, e.c) else redis.call('HDEL', P .. 'limit', e.a) end
  if e.kc and e.kc ~= cjson.null then redis.call('HSET', P .. 'keylimit', e.k, e.kc) else redis.call('HDEL', P .. 'keylimit', e.k) end
  if redis.call('HEXISTS', P .. 'lease', e.r) == 0 and redis.call('HEXISTS', P .. 'waiting', e.r) == 0 then
    if redis.call('ZADD', P .. e.p .. ':' .. e.l .. ':' .. e.a, 'NX', e.t, e.r) == 1 then
      redis.call('ZADD', P .. e.p .. ':heads', 'LT', e.t, e.a)
      redis.call('HSET', P .. 'waiting', e.r, e.p .. '\\t' .. e.a .. '\\t' .. e.l .. '\\t' .. e.k)
      if e.i then redis.call('HSET', P .. 'input', e.r, e.i) end
      redis.call('HINCRBY', P .. e.p .. ':meta', 'queued', 1)
      join(e.p, e.a)
    end
    redis.call('SADD', P .. 'pools', e.p)
    pools[e.p] = true
  end
end
return filled(pools)`;

// ARGV[4..]: runs whose slots are free again (prediction ended, run ended); unknown ones are ignored.
const RELEASE = `${COMMON}
local pools = purge()
for i = 4, #ARGV do
  local pool = release(ARGV[i], pools, true)
  if pool then pools[pool] = true end
end
return filled(pools)`;

// ARGV[4]: JSON [{a: account, w: weight, c: limit or null, p: [pools it waits for], k: [{k: key,
// c: its limit or null}]}]: settings changed by an operator or owner reach accounts and keys whose
// runs already wait; a higher limit fills slots now.
const ACCOUNTS = `${COMMON}
local pools = purge()
for _, e in ipairs(cjson.decode(ARGV[4])) do
  redis.call('HSET', P .. 'weight', e.a, e.w)
  if e.c and e.c ~= cjson.null then redis.call('HSET', P .. 'limit', e.a, e.c) else redis.call('HDEL', P .. 'limit', e.a) end
  for _, pool in ipairs(e.p) do pools[pool] = true end
  for _, k in ipairs(e.k) do
    if k.c and k.c ~= cjson.null then redis.call('HSET', P .. 'keylimit', k.k, k.c) else redis.call('HDEL', P .. 'keylimit', k.k) end
    unpark(k.k, pools)
  end
end
return filled(pools)`;

// ARGV[4]: pool; ARGV[5..]: its slots now (replaces the set; busy slots that left stay leased).
const SET_SLOTS = `${COMMON}
local pools = purge()
local pool = ARGV[4]
local key = P .. pool .. ':slots'
redis.call('DEL', key)
for i = 5, #ARGV do redis.call('SADD', key, ARGV[i]) end
redis.call('SADD', P .. 'pools', pool)
pools[pool] = true
return filled(pools)`;

// ARGV[4..]: pools to fill (after a lease expired, or as the periodic safety net).
const TICK = `${COMMON}
local pools = purge()
for i = 4, #ARGV do pools[ARGV[i]] = true end
local out = filled(pools)
local first = redis.call('ZRANGE', P .. 'leases', 0, 0, 'WITHSCORES')
out[#out + 1] = first[2] or ''
return out`;

// ARGV[4..]: runs that should wait no more (canceled while queued). Returns how many left a queue.
const REMOVE = `${COMMON}
local removed = 0
for i = 4, #ARGV do
  local v = redis.call('HGET', P .. 'waiting', ARGV[i])
  if v then
    local f = split(v)
    local pool, account, lane, key = f[1], f[2], f[3], f[4]
    redis.call('HDEL', P .. 'waiting', ARGV[i])
    redis.call('HDEL', P .. 'input', ARGV[i])
    local out = redis.call('ZREM', P .. pool .. ':' .. lane .. ':' .. account, ARGV[i])
    if out == 1 then refreshHead(pool, account) end
    if out == 0 and key then out = redis.call('ZREM', P .. pool .. ':p' .. lane .. ':' .. key, ARGV[i]) end
    if out == 1 then
      removed = removed + 1
      redis.call('HINCRBY', P .. pool .. ':meta', 'queued', -1)
    end
    if waitingOf(pool, account) == 0 then leave(pool, account) end
  end
end
return removed`;

// ARGV[2]: lease length (ms); ARGV[3..]: runs whose worker still holds their lease. Returns those
// still leased.
const RENEW = `${SERVER_NOW}
local P = ARGV[1]
local expiry = serverNow() + tonumber(ARGV[2])
local held = {}
for i = 3, #ARGV do
  if redis.call('ZSCORE', P .. 'leases', ARGV[i]) then
    redis.call('ZADD', P .. 'leases', expiry, ARGV[i])
    held[#held + 1] = ARGV[i]
  end
end
return held`;

// A waiting account's turn as a place needs it: (account, pass, weight, runs in line).
const ENTRY = `
local function entry(out, P, pool, account, pass)
  out[#out + 1] = account
  out[#out + 1] = pass
  out[#out + 1] = redis.call('HGET', P .. 'weight', account) or '1'
  out[#out + 1] = redis.call('ZCARD', P .. pool .. ':n:' .. account) + redis.call('ZCARD', P .. pool .. ':l:' .. account)
end
`;

// ARGV[2]: pool, ARGV[3]: run, ARGV[4]: the most waiting accounts to answer with. Where a waiting
// run stands: its account, lane index, 1 when every waiting account follows (else 0: too many to
// read in one script, which would hold Redis for milliseconds; only its own follows), then the
// accounts' entries. Empty when the run is not waiting.
const PLACE = `${ENTRY}
local P, pool, run, most = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local v = redis.call('HGET', P .. 'waiting', run)
if not v then return {} end
local f = {}
for part in string.gmatch(v, '([^\\t]+)') do f[#f + 1] = part end
local account, lane, key = f[2], f[3], f[4]
local index = redis.call('ZRANK', P .. pool .. ':' .. lane .. ':' .. account, run)
if index then
  if lane == 'l' then index = index + redis.call('ZCARD', P .. pool .. ':n:' .. account) end
else
  -- Parked behind its key's limit: placed after the account's runs in line (a bound, as limits are).
  index = key and redis.call('ZRANK', P .. pool .. ':p' .. lane .. ':' .. key, run)
  if not index then return {} end
  index = index + redis.call('ZCARD', P .. pool .. ':n:' .. account) + redis.call('ZCARD', P .. pool .. ':l:' .. account)
  if lane == 'l' then index = index + redis.call('ZCARD', P .. pool .. ':pn:' .. key) end
end
local ringKey = P .. pool .. ':ring'
local whole = redis.call('ZCARD', ringKey) <= most
local out = { account, index, whole and 1 or 0 }
local pass = redis.call('ZSCORE', ringKey, account)
if whole then
  local ring = redis.call('ZRANGE', ringKey, 0, -1, 'WITHSCORES')
  for i = 1, #ring, 2 do entry(out, P, pool, ring[i], ring[i + 1]) end
elseif pass then
  entry(out, P, pool, account, pass)
end
if not pass then
  -- Only parked runs wait: the account rejoins the ring when they go back in line.
  local vt = tonumber(redis.call('HGET', P .. pool .. ':meta', 'vt') or '0')
  local left = tonumber(redis.call('HGET', P .. pool .. ':passes', account) or '0')
  out[#out + 1] = account
  out[#out + 1] = math.max(vt, left)
  out[#out + 1] = redis.call('HGET', P .. 'weight', account) or '1'
  out[#out + 1] = index + 1
end
return out`;

// ARGV[2]: pool, ARGV[3]: first rank, ARGV[4]: how many. The waiting accounts' entries in pass
// order from that rank: a large ring is read in pieces, each a short script.
const RING = `${ENTRY}
local P, pool = ARGV[1], ARGV[2]
local first = tonumber(ARGV[3])
local ring = redis.call('ZRANGE', P .. pool .. ':ring', first, first + tonumber(ARGV[4]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #ring, 2 do entry(out, P, pool, ring[i], ring[i + 1]) end
return out`;

// ARGV[2]: pool. Capacity, leased slots, waiting runs, the oldest waiting run's creation (ms).
const STATS = `
local P, pool = ARGV[1], ARGV[2]
local oldest = redis.call('ZRANGE', P .. pool .. ':heads', 0, 0, 'WITHSCORES')[2] or ''
-- When each busy slot of the pool's capacity was leased (ms; a slot whose server left is not capacity).
local since = {}
for _, slot in ipairs(redis.call('SMEMBERS', P .. pool .. ':slots')) do
  local run = redis.call('HGET', P .. pool .. ':busy', slot)
  local v = run and redis.call('HGET', P .. 'lease', run)
  if v then since[#since + 1] = string.match(v, '^[^\t]*\t[^\t]*\t[^\t]*\t([^\t]+)') end
end
return {
  redis.call('SCARD', P .. pool .. ':slots'),
  redis.call('HLEN', P .. pool .. ':busy'),
  tonumber(redis.call('HGET', P .. pool .. ':meta', 'queued') or '0'),
  oldest,
  since,
  redis.call('LRANGE', P .. pool .. ':held', 0, -1),
}`;

// ARGV[4]: run, ARGV[5]: servers to avoid (\\t-separated). Moves a run's lease to a free slot of
// another server (its server died mid-prediction); the run keeps executing, so it goes first.
const RELOCATE = `${COMMON}
local run = ARGV[4]
local v = redis.call('HGET', P .. 'lease', run)
if not v then return nil end
local f = split(v)
local pool, account, key = f[1], f[3], f[5]
local avoid = {}
for s in string.gmatch(ARGV[5], '([^\\t]+)') do avoid[s] = true end
local busy = {}
local b = redis.call('HGETALL', P .. pool .. ':busy')
for i = 1, #b, 2 do busy[b[i]] = true end
for _, slot in ipairs(redis.call('SMEMBERS', P .. pool .. ':slots')) do
  local server = string.match(slot, '^(.*)#%d+$') or slot
  if not busy[slot] and not avoid[server] then
    release(run, nil)
    lease(pool, run, slot, account, key)
    return slot
  end
end
return nil`;

type Scripts = RedisClient & {
  svcSchedEnqueue(...args: (string | number)[]): Promise<string[]>;
  svcSchedRelease(...args: (string | number)[]): Promise<string[]>;
  svcSchedSetSlots(...args: (string | number)[]): Promise<string[]>;
  svcSchedAccounts(...args: (string | number)[]): Promise<string[]>;
  svcSchedTick(...args: (string | number)[]): Promise<string[]>;
  svcSchedRemove(...args: (string | number)[]): Promise<number>;
  svcSchedRenew(...args: (string | number)[]): Promise<string[]>;
  svcSchedPlace(...args: (string | number)[]): Promise<(string | number)[]>;
  svcSchedRing(...args: (string | number)[]): Promise<(string | number)[]>;
  svcSchedStats(...args: string[]): Promise<[number, number, number, string, string[], string[]]>;
  svcSchedRelocate(...args: (string | number)[]): Promise<string | null>;
};

function scripts(redis: RedisClient): Scripts {
  if (!("svcSchedEnqueue" in redis)) {
    // KEYS[1] is the key prefix, only so that Redis Cluster routes the script to the node of its
    // hash tag (every key it touches shares it); the scripts read the prefix from ARGV[1].
    const define = (name: string, lua: string) => redis.defineCommand(name, { numberOfKeys: 1, lua });
    define("svcSchedEnqueue", ENQUEUE);
    define("svcSchedRelease", RELEASE);
    define("svcSchedSetSlots", SET_SLOTS);
    define("svcSchedAccounts", ACCOUNTS);
    define("svcSchedTick", TICK);
    define("svcSchedRemove", REMOVE);
    define("svcSchedRenew", RENEW);
    define("svcSchedPlace", PLACE);
    define("svcSchedRing", RING);
    define("svcSchedStats", STATS);
    define("svcSchedRelocate", RELOCATE);
  }
  return redis as Scripts;
}

/** A run that got a slot: its job goes to the workers now. */
export interface Dispatched {
  runId: string;
  slot: string;
  pool: string;
  /** Its input, when it was small enough to wait with it: the worker can send it before the start commits. */
  input?: string;
}

export interface WaitingRun {
  runId: string;
  pool: string;
  accountId: string;
  createdAt: Date;
  priority: RunPriority;
  /** The account's weight and concurrency limit (null: the default), as the database has them. */
  weight: number;
  maxConcurrentRuns: number | null;
  /** The API key that made it, and that key's own concurrency limit (null: none). */
  keyId: string;
  keyMaxConcurrentRuns: number | null;
  /** Its input as JSON, kept while it waits when small (INPUT_KEPT_MAX_BYTES). */
  input?: string;
}

/** The largest input kept with a waiting run (a million waiting runs then hold at most 2 GB). */
export const INPUT_KEPT_MAX_BYTES = 2_048;

export interface PoolStats {
  capacity: number;
  leased: number;
  queued: number;
  /** Creation time of the run waiting longest, null when none waits. */
  oldestQueuedAt: Date | null;
  /** When the run on each busy slot of the capacity was leased its slot (ms). */
  busySince: number[];
  /** How long the last runs that gave their slot back held it (ms), newest first. */
  held: number[];
}

export interface SchedulerSettings {
  leaseMs: number;
  /** ACCOUNT_MAX_CONCURRENT_RUNS. */
  defaultLimit: number;
}

/** Waiting accounts read in one script (a place's); larger rings come in pieces of RING_PIECE. */
export const PLACE_RING_INLINE = 256;
const RING_PIECE = 500;
/** How stale the other accounts' turns in a place may be once the ring is too large to read at once. */
export const RING_SNAPSHOT_MS = 1_000;

/** (account, pass, weight, waiting) entries of a script's answer, from `from` on. */
const entries = (flat: (string | number)[], from: number): WaitingAccount[] => {
  const out: WaitingAccount[] = [];
  for (let i = from; i + 3 < flat.length; i += 4)
    out.push({
      accountId: String(flat[i]),
      pass: Number(flat[i + 1]),
      weight: Number(flat[i + 2]),
      waiting: Number(flat[i + 3]),
    });
  return out;
};

const quads = (flat: string[]): Dispatched[] => {
  const out: Dispatched[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4)
    out.push({
      runId: flat[i]!,
      slot: flat[i + 1]!,
      pool: flat[i + 2]!,
      ...(flat[i + 3] && { input: flat[i + 3] }),
    });
  return out;
};

export type Scheduler = ReturnType<typeof redisScheduler>;

export function redisScheduler(redis: RedisClient, prefix: string, settings: SchedulerSettings) {
  const r = scripts(redis);
  const P = `${prefix}:sched:`;
  const head = () => [P, P, settings.leaseMs, settings.defaultLimit] as const;
  /** Every waiting account's turn, read in pieces (an account that moved meanwhile counts once). */
  const ringSnapshot = ttlCache(async (pool: string) => {
    const seen = new Map<string, WaitingAccount>();
    for (let first = 0; ; first += RING_PIECE) {
      const piece = entries(await r.svcSchedRing(P, P, pool, first, RING_PIECE), 0);
      for (const a of piece) if (!seen.has(a.accountId)) seen.set(a.accountId, a);
      if (piece.length < RING_PIECE) return [...seen.values()];
    }
  }, RING_SNAPSHOT_MS);
  return {
    /** Adds runs to their pools' queues and dispatches; the runs (of any pool) that got a slot. */
    async enqueue(runs: readonly WaitingRun[]): Promise<Dispatched[]> {
      if (!runs.length) return [];
      const batch = runs.map((run) => ({
        r: run.runId,
        p: run.pool,
        a: run.accountId,
        t: run.createdAt.getTime(),
        l: run.priority === "low" ? "l" : "n",
        w: run.weight,
        c: run.maxConcurrentRuns,
        k: run.keyId,
        kc: run.keyMaxConcurrentRuns,
        ...(run.input !== undefined && run.input.length <= INPUT_KEPT_MAX_BYTES && { i: run.input }),
      }));
      return quads(await r.svcSchedEnqueue(...head(), JSON.stringify(batch)));
    },
    /** Frees the runs' slots (idempotent) and dispatches into them. */
    async release(runIds: readonly string[]): Promise<Dispatched[]> {
      if (!runIds.length) return [];
      return quads(await r.svcSchedRelease(...head(), ...runIds));
    },
    /**
     * An account's weight and limit, and its keys' limits, as the database has them now, for
     * accounts with runs waiting in `pools`; dispatches what a higher limit or weight allows at once.
     */
    async refreshAccounts(
      accounts: readonly {
        accountId: string;
        weight: number;
        maxConcurrentRuns: number | null;
        pools: string[];
        keys: { keyId: string; maxConcurrentRuns: number | null }[];
      }[],
    ): Promise<Dispatched[]> {
      if (!accounts.length) return [];
      const batch = accounts.map((a) => ({
        a: a.accountId,
        w: a.weight,
        c: a.maxConcurrentRuns,
        p: a.pools,
        k: a.keys.map((k) => ({ k: k.keyId, c: k.maxConcurrentRuns })),
      }));
      return quads(await r.svcSchedAccounts(...head(), JSON.stringify(batch)));
    },
    /** Sets a pool's slots (its capacity now) and dispatches into any that are free. */
    async setSlots(pool: string, slots: readonly string[]): Promise<Dispatched[]> {
      return quads(await r.svcSchedSetSlots(...head(), pool, ...slots));
    },
    /** Gives back expired leases, fills the pools; also when the next lease expires (ms), if any. */
    async tick(pools: readonly string[]): Promise<{ dispatched: Dispatched[]; nextExpiry: number | null }> {
      const flat = await r.svcSchedTick(...head(), ...pools);
      const last = flat.pop();
      return { dispatched: quads(flat), nextExpiry: last ? Number(last) : null };
    },
    /** Takes runs out of their queues (canceled while waiting); how many were waiting. */
    async remove(runIds: readonly string[]): Promise<number> {
      if (!runIds.length) return 0;
      return r.svcSchedRemove(...head(), ...runIds);
    },
    /** Extends the leases of runs this worker executes; those that still hold one. */
    async renew(runIds: readonly string[]): Promise<string[]> {
      if (!runIds.length) return [];
      return r.svcSchedRenew(P, P, settings.leaseMs, ...runIds);
    },
    /** Moves a run to a free slot on a server not in `avoid`; the slot, or null when none is free. */
    async relocate(runId: string, avoid: readonly string[]): Promise<string | null> {
      return r.svcSchedRelocate(...head(), runId, avoid.join("\t"));
    },
    /**
     * Where a waiting run stands (core's runsBefore computes its place); null when not waiting.
     * With more than PLACE_RING_INLINE accounts waiting, the others' turns come from a snapshot
     * of the pool's ring at most RING_SNAPSHOT_MS old, shared by this process's reads.
     */
    async place(
      pool: string,
      runId: string,
    ): Promise<{ own: WaitingAccount; index: number; accounts: WaitingAccount[] } | null> {
      const flat = await r.svcSchedPlace(P, P, pool, runId, PLACE_RING_INLINE);
      if (!flat.length) return null;
      const listed = entries(flat, 3);
      const own = listed.find((a) => a.accountId === String(flat[0]));
      if (!own) return null;
      const accounts =
        Number(flat[2]) === 1
          ? listed
          : [...(await ringSnapshot(pool)).filter((a) => a.accountId !== own.accountId), own];
      return { own, index: Number(flat[1]), accounts };
    },
    async stats(pool: string): Promise<PoolStats> {
      const [capacity, leased, queued, oldest, since, held] = await r.svcSchedStats(P, P, pool);
      return {
        capacity: Number(capacity),
        leased: Number(leased),
        queued: Math.max(0, Number(queued)),
        oldestQueuedAt: oldest ? new Date(Number(oldest)) : null,
        busySince: since.map(Number).filter(Number.isFinite),
        held: held.map(Number).filter(Number.isFinite),
      };
    },
    /** Pools that have had runs or slots. */
    pools: (): Promise<string[]> => redis.smembers(`${P}pools`),
    /** Where runs stand: waiting, leased (with the slot and when, ms), or neither. */
    async states(
      runIds: readonly string[],
    ): Promise<Map<string, { waiting: boolean; slot: string | null; leasedAt: number | null }>> {
      if (!runIds.length) return new Map();
      const [waiting, leases] = await Promise.all([
        redis.hmget(`${P}waiting`, ...runIds),
        redis.hmget(`${P}lease`, ...runIds),
      ]);
      return new Map(
        runIds.map((id, i) => [
          id,
          {
            waiting: waiting[i] !== null,
            slot: leases[i] ? leases[i]!.split("\t")[1]! : null,
            leasedAt: leases[i] ? Number(leases[i]!.split("\t")[3]) : null,
          },
        ]),
      );
    },
    /** When a run's lease was granted (ms), for the dispatch latency; null when it holds none. */
    async leasedAt(runId: string): Promise<number | null> {
      const v = await redis.hget(`${P}lease`, runId);
      return v ? Number(v.split("\t")[3]) : null;
    },
    /** A server's health as the pool's monitor last saw it. */
    async setHealth(pool: string, server: string, up: boolean): Promise<void> {
      await redis.hset(`${P}${pool}:health`, server, up ? "up" : "down");
    },
    async health(pool: string): Promise<Record<string, string>> {
      return redis.hgetall(`${P}${pool}:health`);
    },
    /** One process per pool at a time does a periodic duty (health checks): true when it is this one. */
    async claimDuty(pool: string, ms: number): Promise<boolean> {
      return (await redis.set(`${P}${pool}:duty`, "1", "PX", ms, "NX")) === "OK";
    },
  };
}
