#!/usr/bin/python3
"""Checks what `side_by_side.py --bf16` wrote for one model (the quick ctest).

    check_bf16_json.py RESULTS.json MODEL THREADS

Passes when the JSON holds Kiln's bf16 median for MODEL at THREADS, the
float32 / bf16 speed-up derived from it, and an accuracy that fits the CPU:
where it has bf16 instructions the outputs differ from float32 (bf16 ran)
by no more than bf16's rounding can explain on squeezenet1_1 (SQNR above
30 dB); where it has none the bf16 session computes float32 exactly.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
import cpu_info  # noqa: E402


def main(path, model, threads):
    with open(path) as f:
        report = json.load(f)
    entry = report["models"][model]
    b = entry.get("bf16")
    assert b, f"{model}: no bf16 entry"
    row = b["threads"][threads]
    ms = row["kilnbf"]["median_ms"]
    assert ms > 0, f"bf16 median {ms}"
    assert math.isclose(row["speedup"], entry["threads"][threads]["kiln"]["median_ms"] / ms)
    sqnr = b["sqnr_db"]
    if cpu_info.has_bf16():
        assert 30 < sqnr < math.inf, f"bf16 on a bf16 CPU: outputs' SQNR {sqnr} dB"
    else:
        assert sqnr == math.inf, f"no bf16 here, yet outputs differ from float32: {sqnr} dB"
    print(f"PASS: {model} threads {threads}: kiln f32 / bf16 {row['speedup']:.2f}, "
          f"outputs' SQNR {sqnr} dB")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
