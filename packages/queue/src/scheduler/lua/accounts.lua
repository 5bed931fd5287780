-- ARGV[5]: JSON [{a: account, w: weight, c: limit or null, p: [pools it waits for], k: [{k: key,
-- c: its limit or null}]}]: settings changed by an operator or owner reach accounts and keys whose
-- runs already wait; a higher limit fills slots now.
local pools = purge()
for _, e in ipairs(cjson.decode(ARGV[5])) do
  redis.call('HSET', K.weight, e.a, e.w)
  if e.c and e.c ~= cjson.null then redis.call('HSET', K.limit, e.a, e.c) else redis.call('HDEL', K.limit, e.a) end
  for _, pool in ipairs(e.p) do pools[pool] = true end
  for _, k in ipairs(e.k) do
    if k.c and k.c ~= cjson.null then redis.call('HSET', K.keylimit, k.k, k.c) else redis.call('HDEL', K.keylimit, k.k) end
    unpark(k.k, pools)
  end
end
return filled(pools)
