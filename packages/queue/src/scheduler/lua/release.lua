-- ARGV[5..]: runs whose slots are free again (prediction ended, run ended); unknown ones are ignored.
local pools = purge()
for i = 5, #ARGV do
  local pool = release(ARGV[i], pools, true)
  if pool then pools[pool] = true end
end
return filled(pools)
