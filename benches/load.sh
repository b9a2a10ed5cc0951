#!/usr/bin/env bash
# Load on `memdir serve` from wrk (Debian's package), on loopback, in one run:
# each route's rate beside `/healthz`'s (the floor: the loopback round trip and
# the framework, no key, no store), as a ratio. docs/PERFORMANCE.md ("Under
# load") has the figures and what they mean.
#
#   benches/load.sh [MEMDIR_BINARY]
#
# Without an argument it builds the release binary. Environment: SECS (each
# wrk run, default 10), CONNS (default 64), THREADS (wrk's, default 2),
# MODEL (a sentence-transformers folder: the server's `--recall-model`, so the
# facts route fuses the model's cosine with the lexical score; default none).
# Not part of CI: a benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk > /dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
bin="${1:-}"
if [ -z "$bin" ]; then
  cargo build --release -q -p memdir
  bin="$PWD/target/release/memdir"
fi
secs="${SECS:-10}" conns="${CONNS:-64}" threads="${THREADS:-2}"
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"' EXIT
root="$work/root" conf="$work/conf" owner="agt_load"
mkdir -p "$root" "$conf" && chmod 700 "$conf"
md() { "$bin" --root "$root" --owner "$owner" "$@"; }
md init > /dev/null
# The store the issue names: a 20,000-character budget under curation: auto,
# 150 facts, so that every new fact archives an old one once it is full.
cat > "$root/memdir.yaml" << 'YAML'
budgets:
  memory: 20000
curation: auto
YAML
topics=(deploy staging VPN billing tickets onboarding invoices backups tests releases)
{
  echo '['
  for i in $(seq 1 150); do
    t="${topics[$((i % 10))]}"
    [ "$i" -gt 1 ] && echo ','
    printf '{"op":"add","scope":"memory","text":"Fact %d: the %s runbook says step %d takes about %d minutes"}' "$i" "$t" "$((i % 7))" "$((i % 13 + 2))"
  done
  echo ']'
} | md batch > /dev/null
key="$(md --json key create --keys "$conf/keys.yaml" | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')"
model=()
[ -n "${MODEL:-}" ] && model=(--recall-model "$MODEL")
"$bin" --root "$root" "${model[@]}" serve --listen 127.0.0.1:0 --keys "$conf/keys.yaml" 2> "$work/serve.log" > /dev/null &
server=$!
for _ in $(seq 1 200); do
  grep -q "listening on " "$work/serve.log" 2> /dev/null && break
  sleep 0.05
done
base="$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$work/serve.log" | head -1)"
[ -n "$base" ] || { cat "$work/serve.log" >&2; exit 1; }

cat > "$work/post.lua" << 'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"deploy runbook"}'
LUA
cat > "$work/remember.lua" << 'LUA'
local n = 0
local id = tostring(math.random(1, 1e9))
request = function()
  n = n + 1
  local body = string.format('{"text":"Load fact %s-%d: the build cache lives on the second disk","scope":"memory"}', id, n)
  wrk.headers["Content-Type"] = "application/json"
  return wrk.format("POST", "/v1/memory/remember", wrk.headers, body)
end
local shown = false
response = function(status, headers, body)
  if status >= 300 and not shown then
    shown = true
    io.stderr:write("a refused remember: " .. status .. " " .. body)
  end
end
LUA

rate() { # NAME ARGS...: wrk's requests/s, and any non-2xx answers
  local name="$1"
  shift
  local out
  out="$(wrk -t"$threads" -c"$conns" -d"${secs}s" "$@")"
  local total took non2xx rps
  # Answered with 2xx only: a refusal is not counted.
  total="$(sed -n 's/^ *\([0-9]*\) requests in \([0-9.]*\)s.*/\1/p' <<< "$out")"
  took="$(sed -n 's/^ *[0-9]* requests in \([0-9.]*\)s.*/\1/p' <<< "$out")"
  non2xx="$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<< "$out")"
  rps="$(python3 -c "print(($total - ${non2xx:-0}) / $took)")"
  printf '%-34s %10.0f req/s%s\n' "$name" "$rps" "${non2xx:+  ($non2xx non-2xx)}" >&2
  echo "$rps"
}
auth=(-H "Authorization: Bearer $key")
echo "memdir load: $conns connections, ${secs} s each, model: ${MODEL:-none}, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
health="$(rate "GET /healthz (floor)" "$base/healthz")"
# PERF=FILE, PERF_POST=FILE, PERF_WRITE=FILE: the server's profile during the
# GET recall, the POST recall and the remember runs (perf record).
[ -n "${PERF:-}" ] && { perf record -F 499 --call-graph dwarf,32768 -o "$PERF" -p "$server" 2> /dev/null & perf=$!; }
get="$(rate "GET /v1/memory/recall" "${auth[@]}" "$base/v1/memory/recall?q=deploy%20runbook")"
[ -n "${PERF:-}" ] && { kill -INT "$perf"; wait "$perf" || true; }
[ -n "${PERF_POST:-}" ] && { perf record -F 499 --call-graph dwarf,32768 -o "$PERF_POST" -p "$server" 2> /dev/null & perf=$!; }
post="$(rate "POST /api/v1/memories/recall" "${auth[@]}" -s "$work/post.lua" "$base/api/v1/memories/recall")"
[ -n "${PERF_POST:-}" ] && { kill -INT "$perf"; wait "$perf" || true; }
health2="$(rate "GET /healthz (floor, again)" "$base/healthz")"
[ -n "${PERF_WRITE:-}" ] && { perf record -F 499 --call-graph dwarf,32768 -o "$PERF_WRITE" -p "$server" 2> /dev/null & perf=$!; }
remember="$(rate "POST /v1/memory/remember" "${auth[@]}" -s "$work/remember.lua" "$base/v1/memory/remember")"
[ -n "${PERF_WRITE:-}" ] && { kill -INT "$perf"; wait "$perf" || true; }
sample="$(curl -s -X POST "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"text":"A last load fact: the cache is warm after the second run","scope":"memory"}' "$base/v1/memory/remember")"
echo "a remember after the load: $sample" >&2
python3 - "$health" "$health2" "$get" "$post" "$remember" << 'PY'
import sys
h1, h2, get, post, rem = map(float, sys.argv[1:])
floor = (h1 + h2) / 2
print(f"floor /healthz: {floor:.0f} req/s (runs {h1:.0f}, {h2:.0f})")
print(f"GET  /v1/memory/recall:          {get:.0f} req/s = {100 * get / floor:.1f}% of /healthz (target 30%)")
print(f"POST /api/v1/memories/recall:    {post:.0f} req/s = {100 * post / floor:.1f}% of /healthz (target 30%)")
print(f"POST /v1/memory/remember:        {rem:.0f} acknowledged writes/s (target 2,000)")
PY
kill -TERM "$server" && wait "$server" || true
server=""
grep -h "writes answered in" "$work/serve.log" | sed 's/^.*memdir serve: /group commit: /' || true
