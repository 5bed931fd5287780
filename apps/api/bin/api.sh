#!/bin/sh
# The API process, as every launcher starts it (scripts/start.sh, the container image, Compose,
# Kubernetes, the tests and benchmarks), with V8 set for a process whose garbage is short-lived
# requests (docs/benchmarks.md, "Memory"):
# - the young generation held to 4 MB semi-spaces and the old generation grown by half at a time,
#   instead of 16 MB semi-spaces and growth of up to 4x: ~45 MB less at 200 runs/s, the same
#   throughput;
# - WebAssembly compiled by the baseline compiler only: Prisma's query compiler (the API's cold
#   paths) is WebAssembly, and optimizing it took ~55 MB at the first query, for no measurable
#   gain on those paths. (The worker keeps V8's defaults: undici parses its model servers'
#   answers with WebAssembly on its hot path.)
# NODE: the node binary (default: the first on PATH).
exec "${NODE:-node}" --max-semi-space-size=4 --heap-growing-percent=50 --liftoff-only \
  "$(dirname "$0")/../dist/main.js" "$@"
