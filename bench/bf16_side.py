"""The bf16 part of bench/side_by_side.py (--bf16): Kiln's float32 model
timed once more with `kiln bench --bf16` (KILN_PRECISION_BF16: oneDNN's
convolutions and matrix products in bfloat16 where the CPU has AVX512-BF16
or AMX), and what that costs in accuracy: `kiln diff MODEL --optimize 2
--b-bf16` on the model's inputs, the graph outputs' SQNR and relative L2
against float32. ONNX Runtime has no such session option, so the column is
Kiln's own float32 / bf16 speed-up."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import cpu_info  # noqa: E402

ENGINE = "kilnbf"  # Kiln, float32 model, bf16 session


def output_names(kiln, model):
    """The graph outputs' names, from `kiln info`."""
    text = subprocess.run([kiln, "info", model], check=True, capture_output=True,
                          text=True).stdout
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("outputs ("):
            inside = True
        elif inside and line.startswith("  "):
            names.append(line.strip().rsplit(":", 1)[0])
        elif inside:
            break
    return names


def accuracy(kiln, model_dir):
    """(worst output SQNR dB, worst output relative L2, line) of the bf16
    session against float32 on the model's inputs; SQNR inf when bit-identical."""
    model = os.path.join(model_dir, "model.onnx")
    cmd = [kiln, "diff", model, "--optimize", "2", "--b-bf16", "--top", "0"]
    for f in sorted(os.listdir(model_dir)):
        if f.startswith("input_") and f.endswith(".pb"):
            cmd += ["-i", os.path.join(model_dir, f)]
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    outs = set(output_names(kiln, model))
    sqnr, rel = float("inf"), 0.0
    # rows: SQNR, rel L2, max abs, elements, tensor <- node (op)
    for m in re.finditer(r"^\s*(\S+)\s+(\S+)\s+\S+\s+\d+\s+(\S+)\s+<-", text, re.M):
        if m.group(3) in outs:
            sqnr = min(sqnr, float(m.group(1)))
            rel = max(rel, float(m.group(2)))
    name = os.path.basename(os.path.normpath(model_dir))
    return sqnr, rel, (f"{name} bf16 against float32 (kiln diff --b-bf16): outputs' SQNR "
                       f"{sqnr:.1f} dB, relative L2 {rel:.3g}")


def bf16_row(row_f32, stats):
    return {"kilnbf": stats, "speedup": row_f32["kiln"]["median_ms"] / stats["median_ms"]}


def print_table(report, names, threads, geomean):
    print()
    note = "" if cpu_info.has_bf16() else " (no bf16 instructions here: bf16 sessions compute float32)"
    print(f"bf16 on {report.get('cpu', 'unknown CPU')}: Kiln float32 model, "
          f"KILN_PRECISION_BF16 session{note}")
    print(f"{'model':16} {'thr':>3} {'kiln f32':>9} {'kiln bf16':>9} {'f32/bf16':>8} "
          f"{'out SQNR':>9} {'rel L2':>8}")
    for t in threads:
        rows = [n for n in names if t in report["models"][n].get("bf16", {}).get("threads", {})]
        for n in rows:
            e = report["models"][n]
            b = e["bf16"]["threads"][t]
            print(f"{n:16} {t:>3} {e['threads'][t]['kiln']['median_ms']:9.2f} "
                  f"{b['kilnbf']['median_ms']:9.2f} {b['speedup']:8.2f} "
                  f"{e['bf16']['sqnr_db']:7.1f}dB {e['bf16']['rel_l2']:8.2g}")
        if rows:
            gm = geomean(report["models"][n]["bf16"]["threads"][t]["speedup"] for n in rows)
            report.setdefault("bf16_geomean", {})[t] = gm
            print(f"{'geomean':16} {t:>3} {'':9} {'':9} {gm:8.2f}")
    print("(f32/bf16: Kiln's float32 / bf16 median latency, above 1 bf16 is faster; out SQNR "
          "and rel L2: the graph outputs of the bf16 session against float32 on the model's "
          "inputs; exported models' random weights amplify rounding, so read accuracy on "
          "trained ones: docs/quantization.md)")
