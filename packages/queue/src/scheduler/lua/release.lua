-- ARGV[5]: '1' when the caller executes the runs it is leased itself (it may keep slots' next
-- runs), ARGV[6]: how many runs follow whose slots are free again (prediction ended, run ended;
-- unknown ones are ignored), then next runs the caller has already sent to those slots (claimed).
-- Answers the runs leased (quints, state.lua's `out`), then whether interactive runs wait in the
-- pools it touched (state.lua's `interactiveWaiting`; '' unless it keeps next runs), then the claimed runs that were not given
-- their slot, tab-separated ('' when none): their work must be withdrawn.
keepNext = ARGV[5] == '1'
local n = tonumber(ARGV[6])
for i = 7 + n, #ARGV do claimed[ARGV[i]] = true end
-- The releases go first: a claim is good while its lease is, and the purge must not take it.
local pools = {}
for i = 7, 6 + n do
  local pool = release(ARGV[i], pools, true)
  if pool then pools[pool] = true end
end
for pool in pairs(purge()) do pools[pool] = true end
filled(pools)
nextRuns()
out[#out + 1] = keepNext and interactiveWaiting(pools) or ''
local rejected = {}
for run in pairs(claimed) do rejected[#rejected + 1] = run end
out[#out + 1] = table.concat(rejected, '\t')
return out
