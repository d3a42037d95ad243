#!/bin/sh
# soak_wrk.sh [SECONDS]: `kiln serve` under wrk for SECONDS (default 20, or
# $KILN_SERVE_SOAK_SECONDS), 2 threads x 8 connections, each request a real
# digits sample as JSON (wrk_infer.lua). A repository with just digits is
# built in a temporary folder; the server ($KILN_EXE or build/kiln) listens
# on a port the system picks. After a 3 s warm-up it checks:
#   - no response other than 200 (wrk's "Non-2xx or 3xx responses" line is
#     absent and the Lua script counted 0 non-200 and 0 odd bodies),
#   - no socket errors (connect, read, write, timeout),
#   - VmRSS grew by at most 2 % from after the warm-up to the end,
#   - SIGTERM then gives exit code 0.
# Prints wrk's summary with requests/s and latency percentiles (p50, p99).
# Exit 0: pass; 1: a check failed; 77: skipped (no wrk, no server in this
# build, or no python3 with onnx to write the request).
set -u

secs=${1:-${KILN_SERVE_SOAK_SECONDS:-20}}
case $secs in
  ''|*[!0-9]*) echo "usage: soak_wrk.sh [SECONDS]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
kiln=${KILN_EXE:-$source_dir/build/kiln}
python=/usr/bin/python3
[ -x "$python" ] || python=python3

if ! command -v wrk >/dev/null 2>&1; then
  echo "SKIP: wrk is not installed (Debian package wrk)"
  exit 77
fi
if ! "$kiln" serve --help >/dev/null 2>&1; then
  echo "SKIP: $kiln was built without the server (Debian: libmicrohttpd-dev libcjson-dev)"
  exit 77
fi
if ! "$python" -c 'import onnx, numpy' 2>/dev/null; then
  echo "SKIP: python3 with onnx and numpy is needed to write the request (python3-onnx)"
  exit 77
fi

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  if [ -s "$tmp/server.err" ]; then
    echo "--- server stderr (last lines)"
    tail -n 20 "$tmp/server.err"
  fi
  exit 1
}

mkdir -p "$tmp/repo/digits/1"
cp "$source_dir/examples/digits/digits.onnx" "$tmp/repo/digits/1/model.onnx" || fail "no digits model"
sample=$source_dir/examples/digits/samples/digit_00_label_5.pb
"$python" - "$sample" "$tmp/body.json" <<'PY' || fail "could not write the request body"
import json, sys
import onnx
from onnx import numpy_helper
t = onnx.TensorProto()
with open(sys.argv[1], "rb") as f:
    t.ParseFromString(f.read())
x = numpy_helper.to_array(t).astype("float32")
doc = {"inputs": [{"name": "image", "datatype": "FP32", "shape": list(x.shape),
                   "data": [float(v) for v in x.ravel()]}]}
with open(sys.argv[2], "w") as f:
    json.dump(doc, f)
PY
KILN_WRK_BODY=$tmp/body.json
export KILN_WRK_BODY

"$kiln" serve "$tmp/repo" --host 127.0.0.1 --port 0 >"$tmp/server.out" 2>"$tmp/server.err" &
pid=$!
url=
tries=0
while [ $tries -lt 300 ]; do
  url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$tmp/server.out")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || fail "kiln serve exited before listening"
  sleep 0.1
  tries=$((tries + 1))
done
[ -n "$url" ] || fail "kiln serve did not say where it listens within 30 s"
echo "kiln serve (pid $pid) on $url; wrk -t2 -c8, ${secs} s after a 3 s warm-up"

rss_kib() {
  awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"
}

script=$here/wrk_infer.lua
# Checks one wrk output file ($1, what it was: $2); a problem is noted in
# $problems and the run goes on, so every number is still measured.
problems=
note() {
  echo "problem: $*"
  problems="$problems
  - $*"
}
check_wrk() {
  out=$1
  what=$2
  if grep -q "Non-2xx or 3xx responses" "$out"; then
    note "$what: $(grep 'Non-2xx or 3xx responses' "$out" | sed 's/^ *//')"
  fi
  if grep -q "Socket errors" "$out"; then
    note "$what: $(grep 'Socket errors' "$out" | sed 's/^ *//')"
  fi
  line=$(grep '^lua: responses' "$out")
  if [ -z "$line" ]; then
    note "$what: the Lua script printed no counts"
    return
  fi
  n=$(echo "$line" | sed -n 's/.*responses \([0-9]*\),.*/\1/p')
  non200=$(echo "$line" | sed -n 's/.*non-200 \([0-9]*\),.*/\1/p')
  odd=$(echo "$line" | sed -n 's/.*bad 200 bodies \([0-9]*\).*/\1/p')
  [ "$n" -gt 0 ] || note "$what: no responses at all"
  [ "$non200" -eq 0 ] || note "$what: the Lua script counted $non200 non-200 responses"
  [ "$odd" -eq 0 ] || note "$what: $odd responses were 200 without a digits answer"
  grep '^lua: thread' "$out" | sed "s/^/  $what /"
}

wrk -t2 -c8 -d3s -s "$script" "$url" >"$tmp/warm.txt" 2>&1 || { cat "$tmp/warm.txt"; fail "wrk warm-up failed"; }
check_wrk "$tmp/warm.txt" "warm-up"
rss_before=$(rss_kib)

wrk -t2 -c8 -d"${secs}s" --latency -s "$script" "$url" >"$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt"; fail "wrk failed"; }
rss_after=$(rss_kib)
cat "$tmp/run.txt"
check_wrk "$tmp/run.txt" "soak"

rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/run.txt")
p50=$(awk '$1 == "50%" {print $2}' "$tmp/run.txt")
p99=$(awk '$1 == "99%" {print $2}' "$tmp/run.txt")
total=$(awk '/requests in/ {print $1}' "$tmp/run.txt")
growth=$(awk -v a="$rss_before" -v b="$rss_after" 'BEGIN {printf "%.2f", (b - a) * 100.0 / a}')
echo "soak: ${secs} s, $total requests, $rps requests/s, latency p50 $p50, p99 $p99"
echo "soak: VmRSS after warm-up $rss_before KiB, at the end $rss_after KiB, growth $growth %"
awk -v g="$growth" 'BEGIN {exit !(g <= 2.0)}' || note "VmRSS grew by $growth % (limit 2 %)"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
if [ "$rc" -eq 0 ]; then
  echo "soak: SIGTERM -> exit 0"
else
  note "kiln serve exited $rc after SIGTERM"
fi
if [ -n "$problems" ]; then
  fail "$problems"
fi
echo "PASS"
