"""The Open Inference Protocol's REST response shapes, written down from the
KServe v2 / Triton protocol documents as small checks of our own: each
check raises AssertionError naming the field that is wrong."""

DATATYPES = {"BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32",
             "INT64", "FP16", "FP32", "FP64", "BYTES", "BF16"}


def _is_str_list(v):
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _shape(v, where, allow_dynamic):
    assert isinstance(v, list), f"{where}: shape must be an array"
    for d in v:
        assert isinstance(d, int) and not isinstance(d, bool), f"{where}: shape entries are ints"
        assert d >= (-1 if allow_dynamic else 0), f"{where}: dim {d} out of range"


def server_metadata(doc):
    assert isinstance(doc, dict), "server metadata is an object"
    assert isinstance(doc.get("name"), str), "server metadata: name is a string"
    assert isinstance(doc.get("version"), str), "server metadata: version is a string"
    assert _is_str_list(doc.get("extensions")), "server metadata: extensions is a string array"


def model_metadata(doc):
    assert isinstance(doc.get("name"), str), "model metadata: name"
    if "versions" in doc:
        assert _is_str_list(doc["versions"]), "model metadata: versions is a string array"
    assert isinstance(doc.get("platform"), str), "model metadata: platform"
    for key in ("inputs", "outputs"):
        assert isinstance(doc.get(key), list), f"model metadata: {key} is an array"
        for t in doc[key]:
            assert isinstance(t.get("name"), str), f"model metadata: {key}[].name"
            assert t.get("datatype") in DATATYPES, f"model metadata: {key}[].datatype {t.get('datatype')}"
            _shape(t.get("shape"), f"model metadata {key} {t.get('name')}", True)


def model_ready(doc):
    assert isinstance(doc.get("name"), str) and isinstance(doc.get("ready"), bool), "model ready"


def infer_response(doc):
    assert isinstance(doc.get("model_name"), str), "infer response: model_name"
    if "model_version" in doc:
        assert isinstance(doc["model_version"], str), "infer response: model_version is a string"
    if "id" in doc:
        assert isinstance(doc["id"], str), "infer response: id is a string"
    assert isinstance(doc.get("outputs"), list), "infer response: outputs is an array"
    for t in doc["outputs"]:
        assert isinstance(t.get("name"), str), "infer response: outputs[].name"
        assert t.get("datatype") in DATATYPES, "infer response: outputs[].datatype"
        _shape(t.get("shape"), f"infer response output {t.get('name')}", False)
        binary = t.get("parameters", {}).get("binary_data_size")
        if binary is None:
            assert isinstance(t.get("data"), list), f"output {t['name']}: data is an array"
        else:
            assert isinstance(binary, int) and binary >= 0, "binary_data_size is a byte count"
            assert "data" not in t, f"output {t['name']}: binary outputs carry no data"


def error_response(doc):
    assert isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"], \
        "error responses are {\"error\": \"...\"}"


def repository_index(doc):
    assert isinstance(doc, list), "repository index is an array"
    for m in doc:
        assert isinstance(m.get("name"), str), "index: name"
        if "version" in m:
            assert isinstance(m["version"], str), "index: version"
        if "state" in m:
            assert m["state"] in ("READY", "UNAVAILABLE", "LOADING", "UNLOADING"), "index: state"
        if "reason" in m:
            assert isinstance(m["reason"], str), "index: reason"
