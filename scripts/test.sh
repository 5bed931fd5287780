#!/usr/bin/env bash
# Runs every test (unit and integration, against the real Postgres and Redis on 127.0.0.1) and
# ends with a plain "N passed, N failed" line. Extra arguments go to jest.
. "$(dirname "$0")/lib.sh"
ensure_services
ensure_test_packages
if [ "${SKIP_BUILD:-}" != 1 ]; then install_and_build; fi

# Databases of interrupted earlier runs (each test file clones its own from a template).
for db in $(psql -h 127.0.0.1 -U postgres -tAc "SELECT datname FROM pg_database WHERE datname LIKE 'svc\_t\_%'"); do
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null
done

step "running tests"
report=$(mktemp)
status=0
# --openssl-legacy-provider: s3rver, the S3 server of the storage tests, makes the continuation
# token of a truncated listing with DES, which OpenSSL 3 keeps in its legacy provider. (Test
# processes only: the API and worker processes that tests spawn do not inherit it.)
NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning --openssl-legacy-provider" \
  node node_modules/jest/bin/jest.js --json --outputFile="$report" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const failedSuites = r.numFailedTestSuites - r.testResults.filter((t) => t.assertionResults.some((a) => a.status === "failed")).length;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests + Math.max(0, failedSuites)} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" || echo "0 passed, 1 failed"
rm -f "$report"
exit $status
