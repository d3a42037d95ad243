#!/usr/bin/python3
"""Checks what `side_by_side.py --int8` wrote for one model (the quick ctest).

    check_int8_json.py RESULTS.json MODEL THREADS

Passes when the JSON holds both engines' int8 medians for MODEL at THREADS,
the ratios derived from them, the practical int8 peak, and an agreement
figure between Kiln's and ONNX Runtime's int8 outputs below 0.1 of the
largest output (the run itself never fails on agreement; this smoke test
does, because disagreement that large on squeezenet1_1 means a broken
kernel, not rounding).
"""
import json
import math
import sys


def main(path, model, threads):
    with open(path) as f:
        report = json.load(f)
    entry = report["models"][model]
    q = entry.get("int8")
    assert q and "error" not in q, f"{model}: int8 not timed: {q and q.get('error')}"
    row = q["threads"][threads]
    for engine in ("kiln8", "ort8"):
        ms = row[engine]["median_ms"]
        assert ms > 0, f"{engine} median {ms}"
    r = row["ratio"]
    expect = row["kiln8"]["median_ms"] / row["ort8"]["median_ms"]
    assert math.isclose(r["kiln8_over_ort8"], expect), r
    assert math.isclose(r["kiln_speedup"],
                        entry["threads"][threads]["kiln"]["median_ms"] / row["kiln8"]["median_ms"])
    rel = q["rel_diff"]
    assert rel is not None and 0 <= rel < 0.1, f"Kiln int8 vs ORT int8: {rel}"
    peak = report["peak_gops_int8"].get(threads)
    if peak is not None:  # dnnl_peak is built only with oneDNN
        assert peak > 0 and row["kiln8"]["percent_of_peak"] > 0
    print(f"PASS: {model} threads {threads}: kiln int8 {row['kiln8']['median_ms']:.2f} ms, "
          f"ORT int8 {row['ort8']['median_ms']:.2f} ms, agreement {rel:.3g}, "
          f"int8 peak {peak} GOP/s")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
