"""`kiln serve` against real HTTP clients (Python requests, raw sockets) on
loopback: every endpoint of the Open Inference Protocol, JSON and Triton's
binary tensor extension, outputs compared byte for byte with `kiln run`,
dynamic batching, backpressure, timeouts, model control, metrics, the
request log and the SIGTERM drain."""
import concurrent.futures as cf
import json
import os
import re
import struct
import subprocess
import tempfile
import threading
import time

import numpy as np
import onnx.numpy_helper
import pytest
import requests

import protocol_schema as schema
from serve_fixture import (DIGITS, DIGIT_SAMPLES, KILN, Server, make_repository,
                           wait_until)

pytestmark = pytest.mark.skipif(
    subprocess.run([KILN, "serve", "--help"], capture_output=True).returncode != 0,
    reason="this kiln was built without the server (libmicrohttpd-dev, libcjson-dev)")


def samples():
    names = sorted(f for f in os.listdir(DIGIT_SAMPLES) if f.endswith(".pb"))
    return [os.path.join(DIGIT_SAMPLES, n) for n in names[:6]]


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return onnx.numpy_helper.to_array(t)


def kiln_run_bytes(sample, tmp):
    """Raw bytes of `kiln run`'s output for one sample: the reference."""
    out = os.path.join(tmp, os.path.basename(sample) + ".out")
    subprocess.run([KILN, "run", DIGITS, "-i", sample, "-o", out], check=True,
                   capture_output=True)
    return load_pb(os.path.join(out, "output_0.pb"))


def json_request(x, **extra):
    doc = {"inputs": [{"name": "image", "datatype": "FP32", "shape": list(x.shape),
                       "data": x.ravel().tolist()}]}
    doc.update(extra)
    return doc


def binary_request(inputs, outputs_binary=True, extra=None):
    """(body, headers) with every input as binary data after the JSON."""
    doc = {"inputs": [], "parameters": {"binary_data_output": outputs_binary}}
    blobs = b""
    for name, datatype, arr in inputs:
        if datatype == "BYTES":
            raw = b"".join(struct.pack("<I", len(s)) + s for s in arr)
            shape = [len(arr)]
        else:
            raw = arr.tobytes()
            shape = list(arr.shape)
        doc["inputs"].append({"name": name, "datatype": datatype, "shape": shape,
                              "parameters": {"binary_data_size": len(raw)}})
        blobs += raw
    doc.update(extra or {})
    header = json.dumps(doc).encode()
    return header + blobs, {"Inference-Header-Content-Length": str(len(header)),
                            "Content-Type": "application/octet-stream"}


def split_binary_response(resp):
    n = int(resp.headers["Inference-Header-Content-Length"])
    doc = json.loads(resp.content[:n])
    blobs, at = {}, n
    for out in doc["outputs"]:
        size = out.get("parameters", {}).get("binary_data_size")
        if size is not None:
            blobs[out["name"]] = resp.content[at:at + size]
            at += size
    assert at == len(resp.content), "the binary part holds exactly the announced sizes"
    return doc, blobs


@pytest.fixture(scope="module")
def server():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"))
    with Server(repo, "--log-requests") as s:
        yield s
        assert s.stop() == 0, s.log()


def test_health_and_server_metadata(server):
    r = requests.get(server.url + "/v2/health/live")
    assert r.status_code == 200 and r.json() == {"live": True}
    r = requests.get(server.url + "/v2/health/ready")
    assert r.status_code == 200 and r.json() == {"ready": True}
    doc = requests.get(server.url + "/v2").json()
    schema.server_metadata(doc)
    assert doc["name"] == "kiln" and "binary_tensor_data" in doc["extensions"]


def test_model_metadata_and_readiness(server):
    doc = requests.get(server.url + "/v2/models/digits").json()
    schema.model_metadata(doc)
    assert sorted(doc["versions"]) == ["1", "2"]
    assert doc["inputs"] == [{"name": "image", "datatype": "FP32", "shape": [-1, 1, 8, 8]}]
    assert doc["outputs"] == [{"name": "logits", "datatype": "FP32", "shape": [-1, 10]}]
    doc = requests.get(server.url + "/v2/models/digits/versions/1").json()
    schema.model_metadata(doc)
    assert doc["versions"] == ["1"]
    for path in ("/v2/models/digits/ready", "/v2/models/digits/versions/2/ready"):
        r = requests.get(server.url + path)
        assert r.status_code == 200, path
        schema.model_ready(r.json())
        assert r.json()["ready"] is True
    r = requests.get(server.url + "/v2/models/broken/ready")
    assert r.status_code == 400 and r.json() == {"name": "broken", "ready": False}
    for path in ("/v2/models/nope", "/v2/models/digits/versions/9", "/v2/models/nope/ready"):
        r = requests.get(server.url + path)
        assert r.status_code == 404, path
        schema.error_response(r.json())
    index = requests.post(server.url + "/v2/repository/index").json()
    schema.repository_index(index)
    states = {(m["name"], m["version"]): m["state"] for m in index}
    assert states[("digits", "1")] == "READY" and states[("broken", "1")] == "UNAVAILABLE"
    broken = [m for m in index if m["name"] == "broken"][0]
    assert "not a valid ONNX model" in broken["reason"]


def test_json_inference_matches_kiln_run(server):
    tmp = tempfile.mkdtemp()
    for sample in samples():
        x = load_pb(sample)
        want = kiln_run_bytes(sample, tmp)
        for path in ("/v2/models/digits/infer", "/v2/models/digits/versions/2/infer"):
            r = requests.post(server.url + path, json=json_request(x, id=os.path.basename(sample)))
            assert r.status_code == 200, r.text
            doc = r.json()
            schema.infer_response(doc)
            assert doc["id"] == os.path.basename(sample)
            assert doc["model_version"] == ("2" if "versions/2" in path else "2")
            out = doc["outputs"][0]
            assert out["name"] == "logits" and out["shape"] == [1, 10]
            got = np.array(out["data"], dtype=np.float32)
            # 9 significant digits round-trip float32 exactly
            assert got.tobytes() == want.tobytes()


def test_binary_inference_gives_kiln_run_bytes(server):
    tmp = tempfile.mkdtemp()
    for sample in samples():
        x = load_pb(sample)
        want = kiln_run_bytes(sample, tmp)
        body, headers = binary_request([("image", "FP32", x)])
        r = requests.post(server.url + "/v2/models/digits/versions/1/infer", data=body,
                          headers=headers)
        assert r.status_code == 200, r.text
        doc, blobs = split_binary_response(r)
        schema.infer_response(doc)
        assert doc["outputs"][0]["parameters"]["binary_data_size"] == 40
        assert blobs["logits"] == want.tobytes()


def test_binary_input_json_output_and_per_output_flag(server):
    x = load_pb(samples()[0])
    body, headers = binary_request([("image", "FP32", x)], outputs_binary=False)
    r = requests.post(server.url + "/v2/models/digits/infer", data=body, headers=headers)
    assert r.status_code == 200 and "Inference-Header-Content-Length" not in r.headers
    assert r.headers["Content-Type"].startswith("application/json")
    doc = json_request(x, outputs=[{"name": "logits", "parameters": {"binary_data": True}}])
    r = requests.post(server.url + "/v2/models/digits/infer", json=doc)
    doc, blobs = split_binary_response(r)
    assert len(blobs["logits"]) == 40


def test_batch_of_rows_in_one_request(server):
    xs = np.concatenate([load_pb(s) for s in samples()])
    r = requests.post(server.url + "/v2/models/digits/infer", json=json_request(xs))
    out = r.json()["outputs"][0]
    assert out["shape"] == [len(xs), 10]
    tmp = tempfile.mkdtemp()
    want = np.concatenate([kiln_run_bytes(s, tmp) for s in samples()])
    # a 6-row run blocks its products differently from 1-row runs: equal to
    # float rounding, not to the bit
    got = np.array(out["data"], dtype=np.float32).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_bytes_tensors_json_and_binary(server):
    words = ["hello", "wörld", "", "a\"quote"]
    r = requests.post(server.url + "/v2/models/strings/infer", json={
        "id": "s1", "inputs": [{"name": "text", "datatype": "BYTES", "shape": [4], "data": words}],
        "outputs": [{"name": "count"}, {"name": "same"}]})
    assert r.status_code == 200, r.text
    doc = r.json()
    schema.infer_response(doc)
    assert [o["name"] for o in doc["outputs"]] == ["count", "same"]  # the order asked for
    assert doc["outputs"][0]["data"] == [4] and doc["outputs"][0]["datatype"] == "INT64"
    assert doc["outputs"][1]["data"] == words and doc["outputs"][1]["datatype"] == "BYTES"
    raw = [w.encode() for w in words] + [bytes(range(1, 20))]
    body, headers = binary_request([("text", "BYTES", raw)])
    r = requests.post(server.url + "/v2/models/strings/infer", data=body, headers=headers)
    doc, blobs = split_binary_response(r)
    same, at = [], 0
    while at < len(blobs["same"]):
        (n,) = struct.unpack_from("<I", blobs["same"], at)
        same.append(blobs["same"][at + 4:at + 4 + n])
        at += 4 + n
    assert same == raw
    assert struct.unpack("<q", blobs["count"]) == (5,)


def test_requested_outputs_only(server):
    r = requests.post(server.url + "/v2/models/strings/infer", json={
        "inputs": [{"name": "text", "datatype": "BYTES", "shape": [1], "data": ["x"]}],
        "outputs": [{"name": "count"}]})
    assert [o["name"] for o in r.json()["outputs"]] == ["count"]


def test_errors_say_what_is_wrong(server):
    url = server.url + "/v2/models/digits/infer"
    x = load_pb(samples()[0])
    cases = [
        (json_request(x.astype(np.float64)) | {"inputs": [{"name": "image", "datatype": "FP64",
                                                          "shape": [1, 1, 8, 8], "data": [0] * 64}]},
         "input 'image' is FP32 in the model; the request says FP64"),
        ({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 1, 8, 8], "data": [0] * 63}]},
         "\"data\" has 63 elements; shape needs 64"),
        ({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1, 1, 9, 8], "data": [0] * 72}]},
         "dim 2 is 8 in the model, 9 in the request"),
        ({"inputs": [{"name": "pixels", "datatype": "FP32", "shape": [1], "data": [0]}]},
         "model 'digits' has no input 'pixels'"),
        ({"inputs": []}, "input 'image' is missing"),
        ({"inputs": [{"name": "image", "datatype": "FLOAT", "shape": [1], "data": [0]}]},
         "unknown datatype 'FLOAT'"),
        (json_request(x, outputs=[{"name": "probs"}]), "model 'digits' has no output 'probs'"),
    ]
    for doc, message in cases:
        r = requests.post(url, json=doc)
        assert r.status_code == 400, (doc, r.text)
        schema.error_response(r.json())
        assert message in r.json()["error"], r.json()["error"]
    r = requests.post(url, data=b"{not json")
    assert r.status_code == 400 and "not a JSON object" in r.json()["error"]
    assert requests.get(url).status_code == 405
    assert requests.post(server.url + "/v2/models/nope/infer", json={}).status_code == 404
    assert requests.post(server.url + "/v2/models/broken/infer", json={}).status_code == 400
    assert requests.get(server.url + "/v3/anything").status_code == 404
    r = requests.post(server.url + "/v2/repository/models/digits/unload")
    assert r.status_code == 400 and "--model-control" in r.json()["error"]


def parse_metrics(text):
    """{(name, labels): value}; checks the text format's grouping rules."""
    samples, seen_families, current = {}, set(), None
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            family = line.split()[2]
            assert family not in seen_families, f"{family}: TYPE twice (lines must be grouped)"
            seen_families.add(family)
            current = family
            continue
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r'([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)', line)
        assert m, f"not a sample line: {line!r}"
        name = m.group(1)
        assert name == current or name.startswith(current + "_"), \
            f"{name} outside its family's group ({current})"
        samples[(name, m.group(2) or "")] = float(m.group(3))
    return samples


def test_metrics_count_requests(server):
    before = parse_metrics(requests.get(server.url + "/metrics").text)
    key = ("kiln_inference_requests_total", '{model="digits",version="1"}')
    x = load_pb(samples()[0])
    for _ in range(5):
        requests.post(server.url + "/v2/models/digits/versions/1/infer", json=json_request(x))
    requests.post(server.url + "/v2/models/digits/versions/1/infer", json={"inputs": []})
    r = requests.get(server.url + "/metrics")
    assert r.headers["Content-Type"].startswith("text/plain")
    after = parse_metrics(r.text)
    assert after[key] - before.get(key, 0) == 6
    fail = ("kiln_inference_failures_total", '{model="digits",version="1"}')
    assert after[fail] - before.get(fail, 0) == 1
    count = ("kiln_compute_seconds_count", '{model="digits",version="1"}')
    assert after[count] - before.get(count, 0) == 5
    assert after[("kiln_http_requests_total", '{code="200"}')] >= 5


def test_request_log_lines(server):
    requests.post(server.url + "/v2/models/digits/infer",
                  json=json_request(load_pb(samples()[0]), id="log-me"))
    assert wait_until(lambda: '"log-me"' in server.log())
    line = [l for l in server.log().splitlines() if '"log-me"' in l][-1]
    entry = json.loads(line)
    assert entry["status"] == 200 and entry["model"] == "digits" and entry["batch"] == 1
    assert entry["method"] == "POST" and entry["path"] == "/v2/models/digits/infer"
    for key in ("time", "queue_us", "compute_us", "bytes_in", "bytes_out", "total_us"):
        assert key in entry, key


def test_dynamic_batching_merges_and_splits_rows():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"), config={
        "digits": {"max_batch_size": 8, "max_queue_delay_us": 50000, "instances": 1}})
    xs = [load_pb(s) for s in samples()]
    want = [kiln_run_bytes(s, tmp) for s in samples()]
    with Server(repo) as s:
        url = s.url + "/v2/models/digits/versions/1/infer"

        def one(i):
            return requests.post(url, json=json_request(xs[i % len(xs)]))
        with cf.ThreadPoolExecutor(16) as pool:
            results = list(pool.map(one, range(32)))
        for i, r in enumerate(results):
            assert r.status_code == 200
            got = np.array(r.json()["outputs"][0]["data"], dtype=np.float32).reshape(1, 10)
            ref = want[i % len(xs)]
            # merged runs round differently from a 1-row run; another
            # request's rows would be off by whole logits
            assert np.abs(got - ref).max() <= 1e-5 * np.abs(ref).max(), \
                f"request {i} got another's rows: {got} vs {ref}"
        m = parse_metrics(requests.get(s.url + "/metrics").text)
        labels = '{model="digits",version="1"}'
        rows = m[("kiln_batch_size_sum", labels)]
        served = m[("kiln_batch_size_count", labels)]
        assert served == 32
        # each request observes the rows of the run that served it: above 1
        # on average only if runs merged requests
        assert rows / served > 1.5, f"mean rows per run {rows / served:.2f}: nothing merged"
        assert s.stop() == 0


def slow_request(rows=64, rid=None):
    doc = {"inputs": [{"name": "x", "datatype": "FP32", "shape": [rows, 768],
                       "data": [0.01] * (rows * 768)}]}
    if rid:
        doc["id"] = rid
    return doc


def test_full_queue_answers_503_and_timeouts():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"), config={
        "slow": {"queue_capacity": 1, "instances": 1}})
    with Server(repo) as s:
        url = s.url + "/v2/models/slow/infer"
        # prepared binary bodies: the requests arrive together, not at the
        # pace a client can write JSON
        body, headers = binary_request([("x", "FP32", np.full((256, 768), 0.01, np.float32))])
        with cf.ThreadPoolExecutor(10) as pool:
            results = list(pool.map(lambda i: requests.post(url, data=body, headers=headers),
                                    range(10)))
        codes = sorted(r.status_code for r in results)
        assert codes.count(200) >= 2 and codes.count(503) >= 1, codes
        assert set(codes) <= {200, 503}
        full = [r for r in results if r.status_code == 503][0]
        assert "queued" in full.json()["error"] and full.headers.get("Retry-After") == "1"
        assert s.stop() == 0
    repo = make_repository(os.path.join(tmp, "repo2"), config={
        "slow": {"timeout_ms": 5, "instances": 1, "queue_capacity": 16}})
    with Server(repo) as s:
        url = s.url + "/v2/models/slow/infer"
        body, headers = binary_request([("x", "FP32", np.full((256, 768), 0.01, np.float32))],
                                       outputs_binary=False)
        with cf.ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda i: requests.post(url, data=body, headers=headers),
                                    range(6)))
        timed_out = [r for r in results if r.status_code == 503]
        assert timed_out and all("timed out after 5 ms" in r.json()["error"] for r in timed_out)
        assert any(r.status_code == 200 for r in results)
        assert s.stop() == 0


def test_model_control_unload_and_load():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"))
    with Server(repo, "--model-control") as s:
        x = load_pb(samples()[0])
        base = s.url + "/v2/repository/models/digits/"
        assert requests.post(base + "unload").status_code == 200
        assert requests.get(s.url + "/v2/models/digits/ready").status_code == 400
        r = requests.post(s.url + "/v2/models/digits/infer", json=json_request(x))
        assert r.status_code == 400 and "not ready" in r.json()["error"]
        index = requests.post(s.url + "/v2/repository/index").json()
        assert {m["state"] for m in index if m["name"] == "digits"} == {"UNAVAILABLE"}
        assert requests.post(base + "unload").status_code == 404
        assert requests.post(base + "load").status_code == 200
        assert requests.post(s.url + "/v2/models/digits/infer", json=json_request(x)).status_code == 200
        r = requests.post(s.url + "/v2/repository/models/nope/load")
        assert r.status_code == 404
        assert s.stop() == 0


def test_sigterm_drain_loses_no_accepted_request():
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"), config={"slow": {"instances": 1}})
    with Server(repo, "--log-requests") as s:
        url = s.url + "/v2/models/slow/infer"
        received, lock, stop = {}, threading.Lock(), threading.Event()

        def client(k):
            n = 0
            while not stop.is_set():
                rid = f"c{k}-{n}"
                n += 1
                try:
                    r = requests.post(url, json=slow_request(32, rid), timeout=60)
                    with lock:
                        received[rid] = r.status_code
                except requests.ConnectionError:
                    with lock:
                        received[rid] = "refused"
                    time.sleep(0.01)
        threads = [threading.Thread(target=client, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        assert s.stop() == 0, s.log()
        stop.set()
        for t in threads:
            t.join()
        accepted = {}
        for line in s.log().splitlines():
            if line.startswith("{"):
                entry = json.loads(line)
                if "id" in entry:
                    accepted[entry["id"]] = entry["status"]
        ok = [rid for rid, st in accepted.items() if st == 200]
        assert len(ok) >= 3, "the drain started before the load did"
        for rid, status in accepted.items():
            assert received.get(rid) == status, f"{rid}: server answered {status}, client got " \
                                                f"{received.get(rid)}"
        assert set(accepted.values()) <= {200, 503}
        assert all(v in (200, 503, "refused") for v in received.values())


def test_command_line_errors():
    r = subprocess.run([KILN, "serve"], capture_output=True, text=True)
    assert r.returncode == 2 and "no model repository" in r.stderr
    r = subprocess.run([KILN, "serve", "/nonexistent/repo"], capture_output=True, text=True)
    assert r.returncode == 1 and "No such file or directory" in r.stderr
    r = subprocess.run([KILN, "serve", "/tmp", "--port", "http"], capture_output=True, text=True)
    assert r.returncode == 2 and "--port wants a whole number" in r.stderr
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"), config={"digits": {"max_batch": 4}})
    with Server(repo) as s:
        index = requests.post(s.url + "/v2/repository/index").json()
        reasons = [m.get("reason", "") for m in index if m["name"] == "digits"]
        assert reasons and all('unknown setting "max_batch"' in x for x in reasons)
        assert s.stop() == 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_waiting_requests_burn_no_cpu():
    """Handlers wait for their queued request and an idle worker for work
    without spinning: with one single-threaded instance busy and five
    requests queued behind it, the process uses about one core."""
    tmp = tempfile.mkdtemp()
    repo = make_repository(os.path.join(tmp, "repo"), config={
        "slow": {"instances": 1, "threads": 1}})
    with Server(repo) as s:
        url = s.url + "/v2/models/slow/infer"
        idle_before = cpu_seconds(s.proc.pid)
        time.sleep(1.0)
        idle = cpu_seconds(s.proc.pid) - idle_before
        assert idle < 0.05, f"the idle server used {idle:.2f} s of CPU in 1 s"
        body, headers = binary_request([("x", "FP32", np.full((256, 768), 0.01, np.float32))])
        start_cpu, start = cpu_seconds(s.proc.pid), time.time()
        with cf.ThreadPoolExecutor(6) as pool:
            codes = list(pool.map(
                lambda i: requests.post(url, data=body, headers=headers).status_code, range(6)))
        used = (cpu_seconds(s.proc.pid) - start_cpu) / (time.time() - start)
        assert codes == [200] * 6
        print(f"CPU while busy: {used:.2f} cores")
        assert used < 1.5, f"{used:.2f} cores busy for one single-threaded instance: a wait spins"
        assert s.stop() == 0
