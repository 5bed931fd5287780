#!/bin/sh
# The API process, as every launcher starts it (scripts/start.sh, the container image, Compose,
# Kubernetes, the tests and benchmarks). V8's young generation is held to 4 MB semi-spaces and its
# old generation grows by half at a time, instead of V8's defaults (16 MB semi-spaces, a growth
# factor of up to 4x): at 200 runs/s the API held ~45 MB more with them, for no throughput
# (docs/benchmarks.md, "Memory"). The API's garbage is short-lived requests, which a small young
# generation collects as well. NODE: the node binary (default: the first on PATH).
exec "${NODE:-node}" --max-semi-space-size=4 --heap-growing-percent=50 "$(dirname "$0")/../dist/main.js" "$@"
