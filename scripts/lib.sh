# Shared by scripts/start.sh, scripts/test.sh and .ci/run. Source it; do not run it.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1
export PRISMA_HIDE_UPDATE_MESSAGE=1
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

step() { printf '\n== %s\n' "$*"; }

ensure_pnpm() {
  if ! command -v pnpm >/dev/null 2>&1; then
    step "installing pnpm"
    npm install -g pnpm@10 >/dev/null 2>&1 || corepack enable pnpm
  fi
}

# Postgres and Redis on 127.0.0.1 (the machine's services); started here if they are down.
ensure_services() {
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    step "starting postgres"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    step "starting redis"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log --maxmemory-policy noeviction
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
  fi
  pg_isready -h 127.0.0.1 -p 5432 >/dev/null || { echo "postgres does not answer on 127.0.0.1:5432" >&2; exit 1; }
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { echo "redis does not answer on 127.0.0.1:6379" >&2; exit 1; }
}

# A Debian package a test step needs, installed when its binary is missing.
ensure_debian_package() { # package binary why
  local package=$1 binary=$2 why=$3
  if [ ! -x "$binary" ]; then
    step "installing $package ($why)"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
  fi
  [ -x "$binary" ] || { echo "$package is not at $binary" >&2; exit 1; }
}

# The console's browser tests drive Debian's Chromium (playwright-core cannot download browsers
# here); the pooled e2e project runs the service behind Debian's PgBouncer. Test-time steps:
# starting the service needs neither.
ensure_test_packages() {
  ensure_debian_package chromium "${CHROMIUM_PATH:-/usr/bin/chromium}" "browser tests"
  ensure_debian_package pgbouncer "${PGBOUNCER_BIN:-/usr/sbin/pgbouncer}" "e2e tests behind a pooler"
}

install_and_build() {
  ensure_pnpm
  step "installing dependencies"
  pnpm install --frozen-lockfile --reporter=silent
  step "generating the Prisma client"
  pnpm --silent db:generate >/dev/null
  step "building"
  pnpm --silent build --output-logs=errors-only
}

load_env() {
  if [ -f "$ROOT/.env" ]; then set -a; . "$ROOT/.env"; set +a; fi
}
