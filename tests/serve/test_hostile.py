"""A hostile-request corpus against a real `kiln serve` on loopback.

One server (--model-control --max-body-mb 1 --connection-timeout-s 2
--max-connections 64) gets malformed JSON, lying shapes, datatypes and
binary sizes, oversized bodies and headers, unknown models, versions and
endpoints, path traversal, a slowloris connection, a connection flood and
model unloads racing inference. Every request must get a 4xx (never a 5xx,
never a dropped connection, except where the HTTP layer legitimately
closes), and after every case the server must still answer
GET /v2/health/live with 200 and classify a real digit correctly. The
server must finally exit 0 on SIGTERM.

Requests go over raw sockets (the bytes are exactly what the case says);
each case prints one line `hostile: CASE -> what was seen` (shown live,
outside pytest's capture)."""
import concurrent.futures as cf
import json
import os
import select
import socket
import struct
import subprocess
import tempfile
import threading
import time

import numpy as np
import onnx.numpy_helper
import pytest
import requests

from serve_fixture import DIGIT_SAMPLES, KILN, Server, make_repository

pytestmark = pytest.mark.skipif(
    subprocess.run([KILN, "serve", "--help"], capture_output=True).returncode != 0,
    reason="this kiln was built without the server (libmicrohttpd-dev, libcjson-dev)")

CONNECTION_TIMEOUT_S = 2
MAX_CONNECTIONS = 64
MAX_BODY = 1 << 20


# ---------------------------------------------------------------- helpers

def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return onnx.numpy_helper.to_array(t)


SAMPLE = os.path.join(DIGIT_SAMPLES, "digit_00_label_5.pb")
SAMPLE_LABEL = 5
IMAGE = load_pb(SAMPLE).astype(np.float32)          # [1, 1, 8, 8]
PIXELS = [float(v) for v in IMAGE.ravel()]


def image_input(**over):
    doc = {"name": "image", "datatype": "FP32", "shape": [1, 1, 8, 8], "data": PIXELS}
    doc.update(over)
    return doc


def digits_doc(**over):
    doc = {"inputs": [image_input()]}
    doc.update(over)
    return doc


def jbytes(doc):
    return json.dumps(doc).encode()


_summary_lock = threading.Lock()
_config = None


def say(line):
    """One summary line per case, printed past pytest's capture."""
    with _summary_lock:
        capman = _config.pluginmanager.getplugin("capturemanager") if _config else None
        if capman:
            with capman.global_and_fixture_disabled():
                print(f"\nhostile: {line}", flush=True)
        else:
            print(f"hostile: {line}", flush=True)


@pytest.fixture(autouse=True, scope="module")
def _keep_config(request):
    global _config
    _config = request.config
    yield


class Reply:
    """What one raw exchange gave: status (int) or None, and `seen`, a short
    word for the report: the status, 'closed' (EOF with no response),
    'reset', or 'hang'."""

    def __init__(self, raw, how):
        self.raw, self.how = raw, how
        self.status, self.headers, self.body = None, {}, b""
        if raw.startswith(b"HTTP/"):
            head, _, self.body = raw.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            self.status = int(lines[0].split()[1])
            for line in lines[1:]:
                k, _, v = line.partition(b":")
                self.headers[k.strip().lower().decode()] = v.strip().decode(errors="replace")

    @property
    def seen(self):
        if self.status is not None:
            return str(self.status)
        return self.how if not self.raw else f"garbage {self.raw[:40]!r}"

    def error_doc(self):
        """The {"error": "..."} body (decoded leniently: UTF-8 validity is its
        own test)."""
        return json.loads(self.body.decode("utf-8", errors="replace"))


def read_all(sock, deadline):
    out = b""
    how = "closed"
    while True:
        left = deadline - time.time()
        if left <= 0:
            return out, "hang"
        sock.settimeout(left)
        try:
            chunk = sock.recv(1 << 16)
        except socket.timeout:
            return out, "hang"
        except (ConnectionResetError, BrokenPipeError):
            return out, "reset"
        if not chunk:
            return out, how
        out += chunk


def exchange(port, data, timeout=15.0, body=b""):
    """Sends `data` (and then `body`, unless the server answered first) on a
    fresh connection and reads until the server closes it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    deadline = time.time() + timeout
    try:
        try:
            sock.sendall(data)
            if body:
                r, _, _ = select.select([sock], [], [], 0.2)
                if not r:
                    sock.sendall(body)
        except (ConnectionResetError, BrokenPipeError):
            pass  # the server may answer and close before reading it all
        raw, how = read_all(sock, deadline)
        return Reply(raw, how)
    finally:
        sock.close()


def http(method, path, body=b"", headers=None, content_length=True):
    """A request's bytes; Connection: close so the reply ends at EOF."""
    lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: 127.0.0.1", b"Connection: close"]
    for k, v in (headers or {}).items():
        lines.append(k.encode() + b": " + (v if isinstance(v, bytes) else str(v).encode()))
    if content_length and body is not None and method not in ("GET", "HEAD") or body:
        lines.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


def port_of(srv):
    return int(srv.url.rsplit(":", 1)[1])


def infer_digit(url, session=None):
    r = (session or requests).post(url + "/v2/models/digits/infer", data=jbytes(digits_doc()),
                                   timeout=30)
    assert r.status_code == 200, r.text
    logits = r.json()["outputs"][0]["data"]
    return int(np.argmax(logits))


def assert_still_serving(srv, case):
    assert srv.proc.poll() is None, f"after {case}: the server exited ({srv.proc.returncode})"
    r = requests.get(srv.url + "/v2/health/live", timeout=10)
    assert r.status_code == 200, f"after {case}: /v2/health/live gave {r.status_code}"
    assert infer_digit(srv.url) == SAMPLE_LABEL, f"after {case}: wrong digit"


@pytest.fixture(scope="module")
def server():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"))
    with Server(repo, "--model-control", "--max-body-mb", "1",
                "--connection-timeout-s", str(CONNECTION_TIMEOUT_S),
                "--max-connections", str(MAX_CONNECTIONS)) as s:
        s.tmp = tmp
        yield s


# ---------------------------------------------------------------- the corpus

def binary(doc, blob, header_length=None):
    """(request bytes) for a Triton binary request: JSON then blob."""
    head = jbytes(doc)
    hl = len(head) if header_length is None else header_length
    return http("POST", "/v2/models/digits/infer", head + blob,
                {"Inference-Header-Content-Length": hl,
                 "Content-Type": "application/octet-stream"})


def binary_image(size=None, **over):
    inp = {"name": "image", "datatype": "FP32", "shape": [1, 1, 8, 8],
           "parameters": {"binary_data_size": 256 if size is None else size}}
    inp.update(over)
    return {"inputs": [inp]}


def strings_binary(blob, shape, size=None):
    head = jbytes({"inputs": [{"name": "text", "datatype": "BYTES", "shape": shape,
                               "parameters": {"binary_data_size":
                                              len(blob) if size is None else size}}]})
    return http("POST", "/v2/models/strings/infer", head + blob,
                {"Inference-Header-Content-Length": len(head)})


def prefixed(*items):
    return b"".join(struct.pack("<I", len(s)) + s for s in items)


def infer(body, model="digits", **headers):
    return http("POST", f"/v2/models/{model}/infer", body, headers)


GOOD = jbytes(digits_doc())
IMG = IMAGE.tobytes()
nested = "[" * 900 + "0.5" + "]" * 900

# (name, request bytes, allowed statuses); every allowed status is a 4xx.
CASES = [
    # malformed JSON
    ("json truncated", infer(GOOD[:len(GOOD) // 2]), {400}),
    ("json empty body", infer(b""), {400}),
    ("json array not object", infer(b"[1, 2, 3]"), {400}),
    ("json string not object", infer(b'"inputs"'), {400}),
    ("json null", infer(b"null"), {400}),
    ("json trailing garbage", infer(GOOD + b"}}}"), {400}),
    ("json 100k nested arrays", infer(b"[" * 100_000), {400}),
    ("json 100k nested in data",
     infer(b'{"inputs":[{"name":"image","datatype":"FP32","shape":[1,1,8,8],"data":'
           + b"[" * 100_000 + b"1" + b"]" * 100_000 + b"}]}"), {400}),
    ("json 900 nested in data (under cJSON's limit)",
     infer(jbytes({"inputs": [image_input(data=json.loads(nested))]})), {400}),
    ("json invalid utf-8 outside strings", infer(b'{"inputs":\xff\xfe}'), {400}),
    ("json invalid utf-8 in input name",
     infer(GOOD.replace(b'"name": "image"', b'"name": "im\xc3\x28age"')), {400}),
    ("json NaN literal", infer(GOOD.replace(b'"data": [', b'"data": [NaN, ')), {400}),
    ("json NaN literal in place of a value", infer(GOOD.replace(b'"data": [0.0', b'"data": [NaN')), {400}),
    ("json Infinity literal", infer(GOOD.replace(b'"data": [', b'"data": [Infinity, ')), {400}),
    ("json NUL byte inside a string", infer(GOOD.replace(b'"image"', b'"ima\x00ge"')), {400}),
    # datatypes
    ("datatype name lowercase fp32", infer(jbytes(digits_doc(inputs=[image_input(datatype="fp32")]))), {400}),
    ("datatype name FLOAT32", infer(jbytes(digits_doc(inputs=[image_input(datatype="FLOAT32")]))), {400}),
    ("datatype empty", infer(jbytes(digits_doc(inputs=[image_input(datatype="")]))), {400}),
    ("datatype not a string", infer(jbytes(digits_doc(inputs=[image_input(datatype=11)]))), {400}),
    ("datatype missing",
     infer(jbytes({"inputs": [{"name": "image", "shape": [1, 1, 8, 8], "data": PIXELS}]})), {400}),
    ("datatype FP64 for an FP32 input", infer(jbytes(digits_doc(inputs=[image_input(datatype="FP64")]))), {400}),
    ("datatype INT64 for an FP32 input",
     infer(jbytes(digits_doc(inputs=[image_input(datatype="INT64", data=[0] * 64)]))), {400}),
    ("datatype BYTES for an FP32 input",
     infer(jbytes(digits_doc(inputs=[image_input(datatype="BYTES", data=["a"] * 64)]))), {400}),
    ("elements are strings for FP32", infer(jbytes(digits_doc(inputs=[image_input(data=["1"] * 64)]))), {400}),
    ("elements are booleans for FP32", infer(jbytes(digits_doc(inputs=[image_input(data=[True] * 64)]))), {400}),
    ("elements are objects for FP32", infer(jbytes(digits_doc(inputs=[image_input(data=[{}] * 64)]))), {400}),
    ("BYTES elements are numbers",
     infer(jbytes({"inputs": [{"name": "text", "datatype": "BYTES", "shape": [2], "data": [1, 2]}]}),
           "strings"), {400}),
    ("FP32 for a BYTES input",
     infer(jbytes({"inputs": [{"name": "text", "datatype": "FP32", "shape": [1], "data": [1]}]}),
           "strings"), {400}),
    # shapes and counts
    ("63 elements for [1,1,8,8]", infer(jbytes(digits_doc(inputs=[image_input(data=PIXELS[:63])]))), {400}),
    ("65 elements for [1,1,8,8]", infer(jbytes(digits_doc(inputs=[image_input(data=PIXELS + [0.0])]))), {400}),
    ("no elements for [1,1,8,8]", infer(jbytes(digits_doc(inputs=[image_input(data=[])]))), {400}),
    ("data not an array", infer(jbytes(digits_doc(inputs=[image_input(data=1.0)]))), {400}),
    ("data missing",
     infer(jbytes({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 1, 8, 8]}]})), {400}),
    ("fixed dim mismatch [1,1,8,9]",
     infer(jbytes(digits_doc(inputs=[image_input(shape=[1, 1, 8, 9], data=[0.0] * 72)]))), {400}),
    ("negative dim [-1,1,8,8]", infer(jbytes(digits_doc(inputs=[image_input(shape=[-1, 1, 8, 8])]))), {400}),
    ("negative dims [1,1,-8,-8]", infer(jbytes(digits_doc(inputs=[image_input(shape=[1, 1, -8, -8])]))), {400}),
    ("huge dim [1000000000,1,8,8]",
     infer(jbytes(digits_doc(inputs=[image_input(shape=[1000000000, 1, 8, 8])]))), {400}),
    ("int64-max dim", infer(jbytes(digits_doc(inputs=[image_input(shape=[2**63 - 1, 1, 8, 8])]))), {400}),
    ("dims overflowing int64 when multiplied",
     infer(jbytes(digits_doc(inputs=[image_input(shape=[2**40, 1, 2**40, 2**40])]))), {400}),
    ("dim 1e300", infer(GOOD.replace(b'"shape": [1, 1, 8, 8]', b'"shape": [1e300, 1, 8, 8]')), {400}),
    ("fractional dim", infer(GOOD.replace(b'"shape": [1, 1, 8, 8]', b'"shape": [0.5, 1, 8, 8]')), {400}),
    ("dim is a string", infer(jbytes(digits_doc(inputs=[image_input(shape=["1", 1, 8, 8])]))), {400}),
    ("zero batch [0,1,8,8] with data", infer(jbytes(digits_doc(inputs=[image_input(shape=[0, 1, 8, 8])]))), {400}),
    ("rank 2 [1,64]", infer(jbytes(digits_doc(inputs=[image_input(shape=[1, 64])]))), {400}),
    ("rank 5 [1,1,1,8,8]", infer(jbytes(digits_doc(inputs=[image_input(shape=[1, 1, 1, 8, 8])]))), {400}),
    ("rank 0 []", infer(jbytes(digits_doc(inputs=[image_input(shape=[], data=[1.0])]))), {400}),
    ("rank 100", infer(jbytes(digits_doc(inputs=[image_input(shape=[1] * 100, data=[1.0])]))), {400}),
    ("shape not an array", infer(jbytes(digits_doc(inputs=[image_input(shape=64)]))), {400}),
    ("huge BYTES shape [1e12]",
     infer(jbytes({"inputs": [{"name": "text", "datatype": "BYTES", "shape": [10**12], "data": ["a"]}]}),
           "strings"), {400}),
    # inputs and outputs
    ("inputs empty", infer(jbytes({"inputs": []})), {400}),
    ("inputs missing", infer(jbytes({"outputs": [{"name": "logits"}]})), {400}),
    ("inputs an object", infer(jbytes({"inputs": image_input()})), {400}),
    ("input entry not an object", infer(jbytes({"inputs": [1]})), {400}),
    ("input without a name", infer(jbytes({"inputs": [{k: v for k, v in image_input().items() if k != "name"}]})), {400}),
    ("input name not a string", infer(jbytes(digits_doc(inputs=[image_input(name=7)]))), {400}),
    ("duplicate input", infer(jbytes({"inputs": [image_input(), image_input()]})), {400}),
    ("unknown input name", infer(jbytes(digits_doc(inputs=[image_input(name="picture")]))), {400}),
    ("unknown input plus the real one", infer(jbytes({"inputs": [image_input(), image_input(name="extra")]})), {400}),
    ("unknown output name", infer(jbytes(digits_doc(outputs=[{"name": "probabilities"}]))), {400}),
    ("output without a name", infer(jbytes(digits_doc(outputs=[{}]))), {400}),
    ("outputs not an array", infer(jbytes(digits_doc(outputs={"name": "logits"}))), {400}),
    ("non-string id (number)", infer(jbytes(digits_doc(id=42))), {400}),
    ("non-string id (object)", infer(jbytes(digits_doc(id={"a": 1}))), {400}),
    ("non-string id (null)", infer(jbytes(digits_doc(id=None))), {400}),
    # Triton binary extension: sizes that lie
    ("binary_data_size too large", binary(binary_image(1000), IMG), {400}),
    ("binary_data_size too small", binary(binary_image(100), IMG), {400}),
    ("binary_data_size right, leftover bytes", binary(binary_image(256), IMG + b"\0" * 44), {400}),
    ("binary_data_size negative", binary(binary_image(-256), IMG), {400}),
    ("binary_data_size fractional", binary(binary_image(255.5), IMG), {400}),
    ("binary_data_size a string", binary(binary_image("256"), IMG), {400}),
    ("binary_data_size 2^64", binary(binary_image(2**64), IMG), {400}),
    ("binary_data_size and data both", binary(binary_image(256, data=PIXELS), IMG), {400}),
    ("binary bytes missing entirely", binary(binary_image(256), b""), {400}),
    ("binary with huge shape", binary(binary_image(256, shape=[10**9, 1, 8, 8]), IMG), {400}),
    ("Inference-Header-Content-Length > body", binary(binary_image(), IMG, header_length=10**6), {400}),
    ("Inference-Header-Content-Length not a number", binary(binary_image(), IMG, header_length="abc"), {400}),
    ("Inference-Header-Content-Length negative", binary(binary_image(), IMG, header_length=-5), {400}),
    ("Inference-Header-Content-Length 12abc", binary(binary_image(), IMG, header_length="12abc"), {400}),
    ("Inference-Header-Content-Length 2^70", binary(binary_image(), IMG, header_length=2**70), {400}),
    ("Inference-Header-Content-Length empty", binary(binary_image(), IMG, header_length=""), {400}),
    ("Inference-Header-Content-Length cuts the JSON", binary(binary_image(), IMG, header_length=10), {400}),
    ("Inference-Header-Content-Length 0", binary(binary_image(), IMG, header_length=0), {400}),
    ("BYTES prefix says 100, 5 bytes follow", strings_binary(struct.pack("<I", 100) + b"hello", [1]), {400}),
    ("BYTES prefix 0xffffffff", strings_binary(struct.pack("<I", 0xFFFFFFFF) + b"hello", [1]), {400}),
    ("BYTES body ends inside a prefix", strings_binary(prefixed(b"ab") + b"\x01\x00", [2]), {400}),
    ("BYTES leftover after the elements", strings_binary(prefixed(b"ab", b"cd") + b"xyz", [2]), {400}),
    ("BYTES shape says 3, two elements", strings_binary(prefixed(b"ab", b"cd"), [3]), {400}),
    ("BYTES binary_data_size > body", strings_binary(prefixed(b"ab"), [1], size=4096), {400}),
    ("BYTES binary_data_size < elements", strings_binary(prefixed(b"abcdef"), [1], size=5), {400}),
    # models, versions, endpoints, methods
    ("unknown model", infer(GOOD, "nosuchmodel"), {404}),
    ("unknown version", http("POST", "/v2/models/digits/versions/7/infer", GOOD), {404}),
    ("non-numeric version", http("POST", "/v2/models/digits/versions/latest/infer", GOOD), {404}),
    ("unknown version metadata", http("GET", "/v2/models/digits/versions/99"), {404}),
    ("unavailable model (broken) infer", infer(GOOD, "broken"), {400}),
    ("unavailable model (broken) metadata", http("GET", "/v2/models/broken"), {400}),
    ("wrong method GET infer", http("GET", "/v2/models/digits/infer"), {405}),
    ("wrong method PUT infer", http("PUT", "/v2/models/digits/infer", GOOD), {405}),
    ("wrong method DELETE live", http("DELETE", "/v2/health/live"), {405}),
    ("wrong method POST live", http("POST", "/v2/health/live", b"{}"), {405}),
    ("wrong method GET repository index", http("GET", "/v2/repository/index"), {405}),
    ("wrong method GET load", http("GET", "/v2/repository/models/digits/load"), {405}),
    ("unknown endpoint /v3", http("GET", "/v3"), {404}),
    ("unknown endpoint /v2/foo", http("GET", "/v2/foo"), {404}),
    ("unknown action /v2/models/digits/explode", http("POST", "/v2/models/digits/explode", GOOD), {404}),
    ("too many path segments", http("GET", "/v2/models/digits/versions/1/a/b/c/d/e/f"), {404}),
    ("path of 3000 bytes", http("GET", "/v2/models/" + "a" * 3000), {404, 414}),
    ("path traversal ..%2F..%2Fetc infer", http("POST", "/v2/models/..%2F..%2Fetc/infer", GOOD), {400, 404}),
    ("path traversal %2e%2e infer", http("POST", "/v2/models/%2e%2e/infer", GOOD), {400, 404}),
    ("path traversal .. metadata", http("GET", "/v2/models/../versions/1"), {400, 404}),
    ("path traversal load ..", http("POST", "/v2/repository/models/../load", b""), {400, 404}),
    ("path traversal load ..%2F..%2Ftmp", http("POST", "/v2/repository/models/..%2F..%2Ftmp/load", b""), {400, 404}),
    ("path traversal load %2Fetc", http("POST", "/v2/repository/models/%2Fetc/load", b""), {400, 404}),
    # %00 decodes to a NUL that ends the path at "/v2/models/digits" (405 for
    # POST there): harmless, since nothing after it is used
    ("path with NUL escape", http("POST", "/v2/models/digits%00x/infer", GOOD), {400, 404, 405}),
    ("load unknown model", http("POST", "/v2/repository/models/nosuchmodel/load", b""), {400, 404}),
    ("unload unknown model", http("POST", "/v2/repository/models/nosuchmodel/unload", b""), {400, 404}),
    ("load the broken model", http("POST", "/v2/repository/models/broken/load", b""), {400}),
    ("classification parameter on an output",
     infer(jbytes(digits_doc(outputs=[{"name": "logits", "parameters": {"classification": 3}}]))), {400}),
]

# Not valid by the letter of the standards, but accepted by the libraries
# the server is built on, by their design; a 4xx would be better, a 200 is
# tolerated (and printed): no crash, no 5xx, the answer is the right one.
TOLERATED = [
    # cJSON skips every byte <= 0x20 as whitespace, NUL included
    ("json NUL byte between tokens", infer(GOOD[:20] + b"\x00" + GOOD[20:]), {200, 400}),
    # RFC 9112 3.2 says 400; libmicrohttpd checks it only with
    # MHD_OPTION_STRICT_FOR_CLIENT 1, which its docs advise against in production
    ("HTTP/1.1 without Host", b"GET /v2/health/live HTTP/1.1\r\nConnection: close\r\n\r\n",
     {200, 400}),
]

# Requests the HTTP layer (libmicrohttpd) answers or closes itself: a 4xx
# or a clean close is right; its bodies are HTML, not {"error": ...}.
HTTP_LAYER_CASES = [
    ("huge header (100 KB)",
     http("GET", "/v2/health/live", headers={"X-Big": b"a" * 100_000})),
    ("huge header on infer (100 KB)",
     http("POST", "/v2/models/digits/infer", GOOD, headers={"X-Big": b"a" * 100_000})),
    ("10000 small headers",
     b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(10000)) + b"\r\n"),
    ("garbage request line", b"HELLO THERE\r\n\r\n"),
    ("binary garbage", bytes(range(256)) * 4 + b"\r\n\r\n"),
    ("Content-Length not a number",
     b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: abc\r\n\r\n{}"),
    ("Content-Length negative",
     b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: -1\r\n\r\n{}"),
    ("two different Content-Lengths",
     b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n"
     b"Content-Length: 9\r\n\r\n{}"),
    ("bad chunk size",
     b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
    ("malformed HTTP version", b"GET /v2/health/live HTTP/1.x\r\nHost: x\r\nConnection: close\r\n\r\n"),
]

# The one 5xx that is right: RFC 9110 15.6.6, 505 HTTP Version Not Supported.
VERSION_CASE = ("unknown HTTP version 9.9",
                b"GET /v2/health/live HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n")


def check_error_reply(case, reply, allowed):
    assert reply.status is not None, f"{case}: no response ({reply.seen})"
    assert reply.status in allowed, (
        f"{case}: status {reply.status}, wanted {sorted(allowed)}: {reply.body[:300]!r}")
    doc = reply.error_doc()
    assert isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"], (
        f"{case}: the body is not {{\"error\": \"...\"}}: {reply.body[:300]!r}")


@pytest.mark.parametrize("case,data,allowed", CASES, ids=[c[0] for c in CASES])
def test_corpus(server, case, data, allowed):
    assert all(400 <= s < 500 for s in allowed)
    reply = exchange(port_of(server), data)
    say(f"{case} -> {reply.seen}")
    check_error_reply(case, reply, allowed)
    assert_still_serving(server, case)


@pytest.mark.parametrize("case,data,allowed", TOLERATED, ids=[c[0] for c in TOLERATED])
def test_tolerated(server, case, data, allowed):
    reply = exchange(port_of(server), data)
    say(f"{case} -> {reply.seen} (tolerated: {sorted(allowed)})")
    assert reply.status in allowed, f"{case}: {reply.seen} {reply.body[:200]!r}"
    if reply.status == 200 and b'"model_name"' in reply.body:
        logits = json.loads(reply.body)["outputs"][0]["data"]
        assert int(np.argmax(logits)) == SAMPLE_LABEL
    assert_still_serving(server, case)


@pytest.mark.parametrize("case,data", HTTP_LAYER_CASES, ids=[c[0] for c in HTTP_LAYER_CASES])
def test_http_layer(server, case, data):
    reply = exchange(port_of(server), data)
    say(f"{case} -> {reply.seen}")
    assert reply.how != "hang", f"{case}: no answer and no close in 15 s"
    if reply.status is not None:
        assert 400 <= reply.status < 500, f"{case}: {reply.status} {reply.body[:200]!r}"
    else:
        assert reply.how in ("closed", "reset") and not reply.raw, f"{case}: {reply.seen}"
    assert_still_serving(server, case)


def test_unknown_http_version(server):
    case, data = VERSION_CASE
    reply = exchange(port_of(server), data)
    say(f"{case} -> {reply.seen}")
    assert reply.status in (400, 505) or (reply.status is None and reply.how == "closed"), reply.seen
    assert_still_serving(server, case)


def test_body_over_limit_content_length(server):
    """Content-Length over --max-body-mb: 413 before the body is sent."""
    body = b"{" + b" " * (MAX_BODY + 4096) + b"}"
    head = http("POST", "/v2/models/digits/infer", body)[:-len(body)]
    reply = exchange(port_of(server), head, body=body)
    say(f"body over 1 MiB (Content-Length) -> {reply.seen}")
    check_error_reply("body over 1 MiB", reply, {413})
    assert_still_serving(server, "body over 1 MiB")


def test_body_over_limit_chunked(server):
    """No Content-Length (chunked): refused with 413 once the body passes
    the limit."""
    chunk = b" " * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // len(chunk) + 4))
    data = (b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + b"1\r\n{\r\n" + body + b"0\r\n\r\n")
    reply = exchange(port_of(server), data)
    say(f"body over 1 MiB (chunked) -> {reply.seen}")
    check_error_reply("chunked body over 1 MiB", reply, {413})
    assert_still_serving(server, "chunked body over 1 MiB")


def test_body_over_limit_with_requests(server):
    """What an ordinary client sees when it sends 1.5 MiB in one go."""
    body = jbytes(digits_doc()) + b" " * (MAX_BODY + MAX_BODY // 2)
    try:
        r = requests.post(server.url + "/v2/models/digits/infer", data=body, timeout=15)
        seen, text = str(r.status_code), r.text
    except requests.ConnectionError as e:  # the server closed before reading it all
        seen, text = f"connection error ({e})", ""
    say(f"body over 1 MiB (requests.post) -> {seen}")
    assert seen == "413", f"requests.post of 1.5 MiB got {seen} {text[:200]}"
    assert_still_serving(server, "1.5 MiB with requests")


def test_error_bodies_are_valid_utf8_json(server):
    """RFC 8259: JSON text is UTF-8. An error message may quote the
    request, but must not cut a multi-byte character in half or pass
    invalid bytes through."""
    port = port_of(server)
    problems = []
    cases = [
        # the parse error quotes 20 bytes from 'x' on: the 10th 'é' is cut
        ("quoted fragment of valid UTF-8", infer(b'{"inputs": x' + "é".encode() * 15)),
        ("input name in invalid UTF-8",
         infer(GOOD.replace(b'"name": "image"', b'"name": "\xff\xfe"'))),
        ("input name of 1000 'é'", infer(jbytes(digits_doc(inputs=[image_input(name="é" * 1000)])))),
    ]
    for case, data in cases:
        reply = exchange(port, data)
        try:
            json.loads(reply.body.decode("utf-8"))
            ok = True
        except (UnicodeDecodeError, ValueError) as e:
            ok = False
            problems.append(f"{case}: {reply.status} {e}: {reply.body[-60:]!r}")
        say(f"utf-8 of error body, {case} -> {reply.seen}, body {'valid' if ok else 'INVALID'} UTF-8 JSON")
        assert reply.status == 400, f"{case}: {reply.seen}"
    assert_still_serving(server, "utf-8 error bodies")
    assert not problems, "error bodies that are not UTF-8 JSON:\n" + "\n".join(problems)


def test_invalid_utf8_id_is_refused(server):
    """An id with invalid UTF-8 is not JSON (RFC 8259 8.1); echoing it
    back would make the response invalid JSON too."""
    reply = exchange(port_of(server), infer(jbytes(digits_doc(id="ID")).replace(b'"ID"', b'"\xff\xfe"')))
    say(f"invalid utf-8 in id -> {reply.seen}")
    assert reply.status is not None
    assert reply.status != 200 or _valid_utf8(reply.body), (
        f"200 with the invalid bytes echoed: {reply.body[:80]!r}")
    assert 400 <= reply.status < 500, reply.seen
    assert_still_serving(server, "invalid utf-8 id")


def _valid_utf8(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# ---------------------------------------------------------------- connections

def test_stalled_body_is_closed(server):
    """Content-Length 1000, 10 bytes sent, then nothing: the server closes
    the connection after --connection-timeout-s, and serves others
    meanwhile."""
    sock = socket.create_connection(("127.0.0.1", port_of(server)))
    sock.sendall(b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                 b'{"inputs":')
    start = time.time()
    assert_still_serving(server, "stalled body (meanwhile)")
    raw, how = read_all(sock, start + CONNECTION_TIMEOUT_S * 5 + 5)
    took = time.time() - start
    sock.close()
    seen = f"{how} after {took:.1f} s" + (f", {raw[:12]!r}" if raw else "")
    say(f"stalled body -> {seen}")
    assert how != "hang", f"still open after {took:.0f} s"
    assert not raw or raw.startswith(b"HTTP/1.1 4"), raw[:100]
    assert_still_serving(server, "stalled body")


def test_slowloris(server):
    """Headers one byte every 0.5 s: others are served meanwhile, and the
    server closes the connection eventually (here: within 10x
    --connection-timeout-s, at least 20 s)."""
    port = port_of(server)
    sock = socket.create_connection(("127.0.0.1", port))
    request = (b"GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: "
               + b"slow" * 2000 + b"\r\n\r\n")
    limit = max(20.0, CONNECTION_TIMEOUT_S * 10)
    start = time.time()
    closed, served, sent = None, 0, 0
    for byte in request:
        try:
            sock.send(bytes([byte]))
            sent += 1
        except (BrokenPipeError, ConnectionResetError) as e:
            closed = type(e).__name__
            break
        r, _, _ = select.select([sock], [], [], 0.5)
        if r:
            try:
                data = sock.recv(4096)
            except ConnectionResetError:
                data = b""
            closed = "closed" if not data else f"answered {data[:12]!r}"
            break
        if sent % 4 == 0:  # every 2 s: another client still gets through
            assert requests.get(server.url + "/v2/health/live", timeout=5).status_code == 200
            served += 1
        if time.time() - start > limit:
            break
    took = time.time() - start
    sock.close()
    say(f"slowloris -> {closed or 'STILL OPEN'} after {took:.1f} s, {sent} bytes sent, "
        f"{served} other requests served meanwhile")
    assert served >= 1
    assert closed is not None, (
        f"a connection sending its headers one byte per 0.5 s was still open after {took:.0f} s "
        f"({sent} bytes) with --connection-timeout-s {CONNECTION_TIMEOUT_S}: the timeout is "
        f"reset by every byte, so it never ends a slow request")
    assert_still_serving(server, "slowloris")


def test_many_concurrent_connections(server):
    """48 clients at once, each on its own connection with a real digit:
    all 200 with the right class."""
    def one(_):
        with requests.Session() as s:
            return [infer_digit(server.url, s) for _ in range(3)]
    with cf.ThreadPoolExecutor(48) as pool:
        results = list(pool.map(one, range(48)))
    wrong = [r for r in results if r != [SAMPLE_LABEL] * 3]
    say(f"48 concurrent clients x 3 inferences -> {144 - len(wrong) * 3}/144 right")
    assert not wrong
    assert_still_serving(server, "48 concurrent clients")


def test_connection_flood_over_the_limit(server):
    """100 idle connections against --max-connections 64: the ones over the
    limit are closed at once, the idle ones after --connection-timeout-s,
    and then the server serves again."""
    port = port_of(server)
    socks = []
    for _ in range(100):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    start = time.time()
    open_ = list(socks)
    closed_at = []
    deadline = start + CONNECTION_TIMEOUT_S * 5 + 5
    while open_ and time.time() < deadline:
        r, _, _ = select.select(open_, [], [], 0.5)
        for s in r:
            try:
                data = s.recv(4096)
            except ConnectionResetError:
                data = b""
            if not data:
                closed_at.append(time.time() - start)
                open_.remove(s)
    for s in socks:
        s.close()
    early = sum(1 for t in closed_at if t < 1.0)
    say(f"100 idle connections -> {len(socks)} opened, {early} closed within 1 s, "
        f"{len(closed_at)} closed by the server in {time.time() - start:.1f} s, "
        f"{len(open_)} left open")
    assert not open_, f"{len(open_)} idle connections still open after {deadline - start:.0f} s"
    assert_still_serving(server, "connection flood")


def pipelined_gets(port, path, count, timeout=30):
    """`count` keep-alive GETs of `path` written at once (HTTP/1.1
    pipelining); returns [(status, body)] in order."""
    one = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        sock.sendall(one * count)
        buf, out = b"", []
        while len(out) < count:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                head = buf[:end].decode(errors="replace")
                length = 0
                for line in head.split("\r\n")[1:]:
                    k, _, v = line.partition(":")
                    if k.strip().lower() == "content-length":
                        length = int(v)
                if len(buf) >= end + 4 + length:
                    out.append((int(head.split()[1]), buf[end + 4:end + 4 + length]))
                    buf = buf[end + 4 + length:]
                    continue
            chunk = sock.recv(1 << 16)
            if not chunk:
                raise AssertionError(f"{path}: closed after {len(out)} of {count} responses")
            buf += chunk
        return out
    finally:
        sock.close()


def test_concurrent_routing(server):
    """Threads on different endpoints at once each get their own answer:
    the URL must be split per request, never through shared state (libc's
    strtok keeps its place in one static pointer for the whole process, so
    two threads splitting at once can continue in each other's path; under
    wrk that shows as an occasional 404 "no such endpoint" for a right
    path). 8 connections pipeline GETs on 6 paths for about 8 s."""
    expect = {"/v2/health/live": b'"live":true', "/v2/models/digits/ready": b'"digits"',
              "/v2/models/strings/versions/1/ready": b'"strings"',
              "/v2/models/slow/versions/1/ready": b'"slow"',
              "/v2/models/digits/versions/2/ready": b'"digits"',
              "/v2/models/digits/versions/1/ready": b'"digits"'}
    paths = list(expect) + list(expect)[:2]
    port = port_of(server)
    wrong, counts = [], []
    end = time.time() + 8

    def go(path):
        n = 0
        while time.time() < end:
            for status, body in pipelined_gets(port, path, 400):
                n += 1
                if status != 200 or expect[path] not in body:
                    wrong.append((path, status, body[:100]))
        counts.append(n)
    threads = [threading.Thread(target=go, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    say(f"concurrent routing, {sum(counts)} pipelined GETs on 8 connections, 6 paths -> "
        f"{len(wrong)} wrong" + (f", first: {wrong[0]}" if wrong else ""))
    assert not wrong, wrong[:5]
    assert_still_serving(server, "concurrent routing")


def test_concurrent_unload_and_load(server):
    """Threads post slow-model requests while another thread unloads and
    loads `slow` over and over: every answer is 200, 400, 404 or 503 (no
    other 5xx, no hang, no dropped connection), and all is well after."""
    x = np.random.default_rng(1).standard_normal((64, 768)).astype(np.float32)
    body = jbytes({"inputs": [{"name": "x", "datatype": "FP32", "shape": [64, 768],
                               "parameters": {"binary_data_size": x.nbytes}}],
                   "parameters": {"binary_data_output": True}})
    headers = {"Inference-Header-Content-Length": str(len(body))}
    payload = body + x.tobytes()
    stop = threading.Event()
    seen, bad, control = {}, [], {}
    lock = threading.Lock()

    def client():
        with requests.Session() as s:
            while not stop.is_set():
                try:
                    r = s.post(server.url + "/v2/models/slow/infer", data=payload,
                               headers=headers, timeout=30)
                    code = r.status_code
                except requests.RequestException as e:
                    code = f"error {type(e).__name__}"
                with lock:
                    seen[code] = seen.get(code, 0) + 1
                    if code not in (200, 400, 404, 503):
                        bad.append((code, getattr(r, "text", "")[:200] if isinstance(code, int) else ""))

    def controller():
        end = time.time() + 6
        with requests.Session() as s:
            while time.time() < end:
                for action in ("unload", "load"):
                    try:
                        r = s.post(f"{server.url}/v2/repository/models/slow/{action}", timeout=60)
                        code = r.status_code
                    except requests.RequestException as e:
                        code = f"error {type(e).__name__}"
                    with lock:
                        key = f"{action} {code}"
                        control[key] = control.get(key, 0) + 1
                    # loaded long enough for requests to queue and run
                    time.sleep(0.3 if action == "load" else 0.05)
        stop.set()

    clients = [threading.Thread(target=client) for _ in range(6)]
    ctl = threading.Thread(target=controller)
    for t in clients + [ctl]:
        t.start()
    ctl.join(120)
    stop.set()
    for t in clients:
        t.join(60)
    hung = [t for t in clients + [ctl] if t.is_alive()]
    say(f"concurrent unload/load of slow -> infer {dict(sorted(seen.items(), key=str))}, "
        f"control {dict(sorted(control.items()))}")
    assert not hung, f"{len(hung)} threads still waiting after the test"
    assert not bad, bad[:5]
    assert all(k in ("unload 200", "load 200") for k in control), control
    r = requests.post(server.url + "/v2/repository/models/slow/load", timeout=60)
    assert r.status_code == 200, r.text
    r = requests.post(server.url + "/v2/models/slow/infer", data=payload, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    assert_still_serving(server, "concurrent unload/load")


def test_sigterm_with_a_trickling_upload():
    """SIGTERM while a client trickles a request body (one byte per 0.5 s,
    never finishing): that request was never accepted, so the drain must
    not wait the whole --drain-timeout-s for it and then exit 1; the
    server exits 0 (here within the 5 s drain timeout + 3 s)."""
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"))
    with Server(repo, "--connection-timeout-s", str(CONNECTION_TIMEOUT_S),
                "--drain-timeout-s", "5") as srv:
        sock = socket.create_connection(("127.0.0.1", port_of(srv)))
        sock.sendall(b"POST /v2/models/digits/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 100000\r\n\r\n{")
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                try:
                    sock.send(b" ")
                except OSError:
                    return
                time.sleep(0.5)
        t = threading.Thread(target=trickle)
        t.start()
        time.sleep(1.0)
        assert requests.get(srv.url + "/v2/health/live", timeout=5).status_code == 200
        start = time.time()
        code = srv.stop()
        took = time.time() - start
        stop.set()
        t.join()
        sock.close()
        say(f"SIGTERM with a trickling upload -> exit {code} after {took:.1f} s")
        assert code == 0 and took < 8, (
            f"exit {code} after {took:.1f} s: {srv.log()[-400:]}")


def test_zz_stop_returns_0(server):
    """Last: SIGTERM after all of the above, exit code 0."""
    code = server.stop()
    say(f"SIGTERM after the corpus -> exit {code}")
    assert code == 0, server.log()[-3000:]
