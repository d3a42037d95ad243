#!/bin/sh
# curl_endpoints.sh KILN_EXE: every endpoint of `kiln serve` with curl, the
# way the docs show it: status codes, content types and bodies, JSON and a
# Triton-style binary request whose output bytes must equal `kiln run`'s.
set -eu
kiln=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
command -v curl >/dev/null 2>&1 || { echo "SKIP: curl is not installed"; exit 77; }
"$kiln" serve --help >/dev/null 2>&1 || {
  echo "SKIP: this kiln was built without the server (libmicrohttpd-dev libcjson-dev)"; exit 77; }

work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/repo/digits/1"
cp "$src/examples/digits/digits.onnx" "$work/repo/digits/1/model.onnx"
"$kiln" serve "$work/repo" --port 0 > "$work/out" 2> "$work/err" &
pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on //p' "$work/out")
[ -n "$url" ] || { echo "FAIL: the server did not start"; cat "$work/err"; exit 1; }

fails=0
# expect METHOD PATH STATUS [BODY-SUBSTRING] [curl args...]
expect() {
  method=$1 path=$2 want=$3 text=$4
  shift 4
  got=$(curl -s -o "$work/body" -w '%{http_code}' -X "$method" "$@" "$url$path")
  if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$work/body"; then
    echo "FAIL: $method $path: status $got (want $want), body: $(head -c 300 "$work/body")"
    fails=$((fails + 1))
  else
    echo "ok: $method $path -> $got"
  fi
}
expect GET /v2/health/live 200 '"live":true'
expect GET /v2/health/ready 200 '"ready":true'
expect GET /v2 200 '"name":"kiln"'
expect GET /v2/models/digits 200 '"shape":[-1,1,8,8]'
expect GET /v2/models/digits/versions/1 200 '"versions":["1"]'
expect GET /v2/models/digits/ready 200 '"ready":true'
expect GET /v2/models/digits/versions/1/ready 200 '"ready":true'
expect GET /v2/models/nope 404 '"error":'
expect POST /v2/repository/index 200 '"state":"READY"'
expect GET /metrics 200 'kiln_inference_requests_total{model="digits",version="1"}'

# JSON inference: 64 pixels of the first sample, from the .pb file's bytes
sample="$src/examples/digits/samples/digit_00_label_5.pb"
pixels=$(/usr/bin/python3 -c "
import onnx, onnx.numpy_helper as h, sys
t = onnx.TensorProto(); t.ParseFromString(open(sys.argv[1], 'rb').read())
print(','.join(repr(float(v)) for v in h.to_array(t).ravel()))" "$sample")
printf '{"id":"curl-1","inputs":[{"name":"image","datatype":"FP32","shape":[1,1,8,8],"data":[%s]}]}' \
  "$pixels" > "$work/req.json"
expect POST /v2/models/digits/infer 200 '"id":"curl-1"' -H 'Content-Type: application/json' \
  --data-binary @"$work/req.json"
expect POST /v2/models/digits/versions/1/infer 200 '"shape":[1,10]' --data-binary @"$work/req.json"
expect POST /v2/models/digits/infer 400 "is FP32 in the model; the request says INT32" \
  --data-binary '{"inputs":[{"name":"image","datatype":"INT32","shape":[1,1,8,8],"data":[0]}]}'
expect GET /v2/models/digits/infer 405 'takes POST'

# Binary: JSON header + raw float32 bytes; output bytes against kiln run
/usr/bin/python3 - "$sample" "$work" <<'PY'
import json, sys, onnx, onnx.numpy_helper as h
t = onnx.TensorProto(); t.ParseFromString(open(sys.argv[1], 'rb').read())
x = h.to_array(t)
head = json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 1, 8, 8],
                               "parameters": {"binary_data_size": x.nbytes}}],
                   "parameters": {"binary_data_output": True}}).encode()
open(sys.argv[2] + "/req.bin", "wb").write(head + x.tobytes())
open(sys.argv[2] + "/head_len", "w").write(str(len(head)))
PY
curl -s -D "$work/headers" -o "$work/resp.bin" -H "Inference-Header-Content-Length: $(cat "$work/head_len")" \
  -H 'Content-Type: application/octet-stream' --data-binary @"$work/req.bin" "$url/v2/models/digits/infer"
"$kiln" run "$src/examples/digits/digits.onnx" -i "$sample" -o "$work/ref" > /dev/null
if /usr/bin/python3 - "$work" <<'PY'
import re, sys, onnx, onnx.numpy_helper as h
w = sys.argv[1]
headers = open(w + "/headers").read()
n = int(re.search(r"Inference-Header-Content-Length: (\d+)", headers, re.I).group(1))
body = open(w + "/resp.bin", "rb").read()
t = onnx.TensorProto(); t.ParseFromString(open(w + "/ref/output_0.pb", "rb").read())
want = h.to_array(t).tobytes()
sys.exit(0 if body[n:] == want else 1)
PY
then echo "ok: binary output bytes equal kiln run's"; else echo "FAIL: binary output differs from kiln run"; fails=$((fails + 1)); fi

kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
pid=
[ "$rc" = 0 ] || { echo "FAIL: kiln serve exited $rc after SIGTERM"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "PASS: every endpoint answered as expected" || exit 1
