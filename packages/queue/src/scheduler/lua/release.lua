-- ARGV[4..]: runs whose slots are free again (prediction ended, run ended); unknown ones are ignored.
local pools = purge()
for i = 4, #ARGV do
  local pool = release(ARGV[i], pools, true)
  if pool then pools[pool] = true end
end
return filled(pools)
