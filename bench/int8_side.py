"""The int8 half of bench/side_by_side.py (its --int8 flag).

Per model: the QDQ model `kiln quantize` writes (cached as MODEL_DIR/int8.onnx),
the agreement of Kiln's and ONNX Runtime's outputs on that same file, the
practical int8 peak (bench/dnnl_peak --int8) and the int8 table.
"""
import json
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INT8_NAME = "int8.onnx"
ENGINES = ("kiln8", "ort8")  # Kiln and ONNX Runtime on the QDQ model


def _compare_with_ort():
    # Imported here, not at the top: the float benchmark does not need numpy
    # and onnx in its own process.
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import compare_with_ort
    return compare_with_ort


def quantized_model(kiln, model_dir, requantize=False, threads=2):
    """MODEL_DIR/int8.onnx, made by `kiln quantize` when missing (or when
    requantize): calibrated on the model's own sample inputs, one sample per
    data set (input_K.pb beside model.onnx, and each test_data_set_N/ folder).
    Written to a temporary name first and renamed, so a reader never sees a
    half-written file. Returns (path, None) or (None, reason)."""
    out = os.path.join(model_dir, INT8_NAME)
    if os.path.exists(out) and not requantize:
        return out, None
    sets = _compare_with_ort().data_sets(model_dir)
    if not sets:
        return None, f"no input_K.pb in {model_dir} to calibrate on"
    with tempfile.TemporaryDirectory(prefix="kiln-int8-calib-") as calib:
        for i, s in enumerate(sets):  # --calib wants one sub-folder per sample
            sample = os.path.join(calib, f"s{i}")
            os.mkdir(sample)
            for f in os.listdir(s):
                if f.startswith("input_") and f.endswith(".pb"):
                    os.symlink(os.path.abspath(os.path.join(s, f)), os.path.join(sample, f))
        tmp = f"{out}.tmp-{os.getpid()}"
        p = subprocess.run([kiln, "quantize", os.path.join(model_dir, "model.onnx"), "-o", tmp,
                            "--calib", calib, "--threads", str(threads)],
                           capture_output=True, text=True)
    if p.returncode != 0:
        if os.path.exists(tmp):
            os.remove(tmp)
        why = (p.stderr.strip() or p.stdout.strip() or f"exit {p.returncode}").splitlines()[-1]
        return None, f"kiln quantize failed: {why}"
    os.replace(tmp, out)
    return out, None


def agreement(kiln, model_dir, qmodel):
    """Kiln's int8 outputs against ONNX Runtime's on the same QDQ file and
    inputs: (max|diff|/max|ref|, line). Reported, never a failure: two int8
    engines round (and fuse) differently, so they need not agree to 1e-4."""
    cwo = _compare_with_ort()
    args = types.SimpleNamespace(kiln=kiln, node="node",
                                 ort_script=os.path.join(ROOT, "tools", "ort", "run_ort.mjs"))
    name = os.path.basename(os.path.normpath(model_dir))
    worst = (0.0, 0.0, 0.0)
    try:
        with tempfile.TemporaryDirectory(prefix="kiln-int8-vs-ort-") as work:
            # where ORT's uint8 x int8 products saturate (no VNNI), it is
            # judged on the same function with uint8 weights, as elsewhere
            ref_model, note = cwo.ort_exact_reference.reference_model(
                os.path.abspath(qmodel), os.path.join(work, "u8_weights.onnx"))
            for i, s in enumerate(cwo.data_sets(model_dir)):
                inputs = [os.path.abspath(p) for p in cwo.numbered(s, "input")]
                worst = max(worst, cwo.compare_set(args, os.path.abspath(qmodel), ref_model,
                                                   inputs, os.path.join(work, str(i)),
                                                   {"kiln": 0.0, "ort": 0.0}))
    except RuntimeError as e:
        return None, f"{name} int8: no comparison ({e})"
    ratio, diff, ref = worst
    judged = " (ORT given uint8 weights: " + note + ")" if note else ""
    return ratio, (f"{name} int8 (Kiln vs ORT, same QDQ file): max|diff| = {diff:.3g}, "
                   f"max|ref| = {ref:.3g}, ratio = {ratio:.3g}{judged}")


def peak_gops(build, threads):
    """oneDNN's best u8 x s8 -> s32 matmul rate (GOP/s), or None without the tool."""
    tool = os.path.join(build, "bench", "dnnl_peak")
    if not os.path.exists(tool):
        return None
    out = subprocess.run([tool, "--threads", str(threads), "--int8", "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1]).get("gops")


def int8_row(row_f32, row_i8):
    """The ratios of one model at one thread count, from the medians over
    rounds: Kiln int8 / ORT int8 (below 1: Kiln faster) and the speed-ups
    int8 gives each engine over its own float32 (above 1: int8 faster)."""
    k8, o8 = row_i8["kiln8"]["median_ms"], row_i8["ort8"]["median_ms"]
    return {"kiln8_over_ort8": k8 / o8,
            "kiln_speedup": row_f32["kiln"]["median_ms"] / k8,
            "ort_speedup": row_f32["ort"]["median_ms"] / o8}


def print_table(report, names, threads, geomean):
    """One block per thread count; fills the percentages and geometric means
    into the report."""
    peaks = report.get("peak_gops_int8", {})
    print()
    print(f"int8 on {report.get('cpu', 'unknown CPU')} (QDQ models from `kiln quantize`;"
          " both engines run the same file)")
    head = (f"{'model':16} {'thr':>3} {'kiln i8':>8} {'ORT i8':>8} {'K8/O8':>6} "
            f"{'Kf32/K8':>7} {'Of32/O8':>7} {'K8 GOP/s':>8} {'K8 %pk':>7} {'O8 %pk':>7} "
            f"{'i8 diff':>8}")
    print(head)
    for t in threads:
        rows = [n for n in names if t in report["models"][n].get("int8", {}).get("threads", {})]
        for name in rows:
            entry = report["models"][name]
            q = entry["int8"]
            row = q["threads"][t]
            r = row["ratio"]
            gop = 2 * entry["gmacs"]
            row["kiln8"]["gops"] = gop / (row["kiln8"]["median_ms"] / 1000)
            row["ort8"]["gops"] = gop / (row["ort8"]["median_ms"] / 1000)
            line = (f"{name:16} {t:>3} {row['kiln8']['median_ms']:8.2f} "
                    f"{row['ort8']['median_ms']:8.2f} {r['kiln8_over_ort8']:6.3f} "
                    f"{r['kiln_speedup']:7.2f} {r['ort_speedup']:7.2f} "
                    f"{row['kiln8']['gops']:8.1f}")
            if peaks.get(t):
                for e in ENGINES:
                    row[e]["percent_of_peak"] = 100 * row[e]["gops"] / peaks[t]
                line += (f" {row['kiln8']['percent_of_peak']:6.1f}%"
                         f" {row['ort8']['percent_of_peak']:6.1f}%")
            else:
                line += f" {'-':>7} {'-':>7}"
            rel = q.get("rel_diff")
            line += f" {rel:8.2g}" if rel is not None else f" {'-':>8}"
            print(line)
        if rows:
            gm = {k: geomean(report["models"][n]["int8"]["threads"][t]["ratio"][k] for n in rows)
                  for k in ("kiln8_over_ort8", "kiln_speedup", "ort_speedup")}
            report.setdefault("int8_geomean", {})[t] = gm
            print(f"{'geomean':16} {t:>3} {'':8} {'':8} {gm['kiln8_over_ort8']:6.3f} "
                  f"{gm['kiln_speedup']:7.2f} {gm['ort_speedup']:7.2f}")
    for t in threads:
        if peaks.get(t):
            print(f"practical int8 peak (oneDNN u8s8s32 matmul 2048^3), threads {t}: "
                  f"{peaks[t]:.1f} GOP/s")
    print("(K8/O8: Kiln int8 / ORT int8 median latency, below 1 Kiln is faster; Kf32/K8 and"
          " Of32/O8: each engine's float32 / int8 latency, its int8 speed-up. GOP/s counts"
          " 2 per multiply-add of the float model's Conv/MatMul/Gemm, int8 or not: products"
          " left in float (attention's) count too. i8 diff: max|diff|/max|ref| of Kiln int8"
          " against ORT int8 outputs, reported, not checked)")
