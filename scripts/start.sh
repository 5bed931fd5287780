#!/usr/bin/env bash
# Quick start: builds everything, migrates and seeds the database, creates the demo account and
# its console user, prints a live and a test API key and the console's sign-in, and runs the API
# (which serves the console) and the worker until Ctrl-C.
. "$(dirname "$0")/lib.sh"
load_env
export DATABASE_URL=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/svc}
export PORT=${PORT:-3000}
export PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://localhost:$PORT}
# The key that encrypts webhook secrets at rest: made once, kept in var/ so restarts can read them.
if [ -z "${SECRETS_KEY:-}" ]; then
  mkdir -p var
  [ -f var/secrets.env ] || echo "SECRETS_KEY=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')" > var/secrets.env
  . var/secrets.env
  export SECRETS_KEY
fi

ensure_services
install_and_build
step "migrating $DATABASE_URL"
pnpm --silent db:migrate
step "seeding the catalogue"
pnpm --silent db:seed
step "demo account"
pnpm --silent svc demo

node apps/worker/dist/main.js &
WORKER=$!
sh apps/api/bin/api.sh &
API=$!
trap 'kill -TERM $API $WORKER 2>/dev/null; wait' INT TERM EXIT
ready=
for _ in $(seq 1 100); do
  kill -0 $API 2>/dev/null || break
  if curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  echo "the API did not become ready on port $PORT (is the port taken? see its log above)" >&2
  exit 1
fi
cat <<TXT

The service is running (Ctrl-C stops it):
  Console:  $PUBLIC_BASE_URL/console   (sign in with the "console sign-in" above; the "operator
            sign-in" also opens the operator pages: accounts, catalogue, audit log)
  API:      $PUBLIC_BASE_URL/api/v1    (docs: $PUBLIC_BASE_URL/docs)
Try:  curl -s $PUBLIC_BASE_URL/api/v1/models -H "Authorization: Bearer <live key above>"
TXT
wait
