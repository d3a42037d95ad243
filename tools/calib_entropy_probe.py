#!/usr/bin/python3
"""Why the entropy method clips: Kiln's KL-divergence threshold search
(core/calib/calib_threshold.c, entropy_threshold, asymmetric positive side:
256 levels), written again in NumPy and run on one tensor of a model over
the calibration images of tests/data/quant_nets/mnist.npz, at the
histogram's 2048 bins and with neighbouring bins merged.

  KILN_LIBRARY=BUILD/libkiln.so /usr/bin/python3 tools/calib_entropy_probe.py \
      [MODEL [TENSOR]]

Prints the threshold with exact zeros in bin 0 (as Kiln counts them) and
without, how concentrated the histogram is, and the threshold at 1024, 512
and 256 bins (docs/quantization.md, "Accuracy").
"""
import os
import sys

import numpy as np
import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
import kiln  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "quant_nets")
LEVELS = 256   # uint8 over [0, T]: a Relu output's side


def search(hist, count, width):
    """Kiln's candidate loop: P the first `bins` bins with the rest folded
    into the last, Q those bins merged into LEVELS levels and spread evenly
    over the bins that held any; the threshold of least KL(P || Q)."""
    best, best_bins = np.inf, len(hist)
    for bins in range(LEVELS, len(hist) + 1):
        p = hist[:bins].copy()
        p[-1] += count - hist[:bins].sum()
        q = np.zeros(bins)
        for k in range(LEVELS):
            a, b = k * bins // LEVELS, (k + 1) * bins // LEVELS
            seg = hist[a:b]
            occupied = (seg > 0).sum()
            if occupied:
                q[a:b] = np.where(seg > 0, seg.sum() / occupied, 0)
        pn, qn = p / p.sum(), q / q.sum()
        mask = pn > 0
        qq = np.where(qn > 0, qn, 1e-4 / bins)
        kl = np.sum(pn[mask] * np.log(pn[mask] / qq[mask]))
        if kl < best:
            best, best_bins = kl, bins
    return best_bins * width


def main():
    model_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(DATA, "mnist_cnn.onnx")
    tensor = sys.argv[2] if len(sys.argv) > 2 else "/features/features.5/Relu_output_0"
    model = onnx.load(model_path)
    model.graph.output.append(onnx.helper.make_tensor_value_info(tensor, onnx.TensorProto.FLOAT,
                                                                 None))
    data = np.load(os.path.join(DATA, "mnist.npz"))
    calib = (data["calib_images"].astype(np.float32) / 255)[:, None]
    with kiln.Model(model.SerializeToString(), optimize=False) as m, m.session() as session:
        x = np.concatenate([session.run({"image": calib[i:i + 50]})[-1].ravel()
                            for i in range(0, len(calib), 50)])
    if x.min() < 0:
        sys.exit("%s has negative values: this probe covers a Relu output's side" % tensor)
    amax = float(x.max())
    top = 2.0 ** np.ceil(np.log2(amax))   # Kiln's histogram range: a power of two
    width = top / 2048
    nonzero = x[x != 0]
    print("%s: %d values, %.1f %% exact zeros, max %.4f, histogram range %g"
          % (tensor, x.size, 100 * np.mean(x == 0), amax, top))
    hist = np.histogram(x, bins=2048, range=(0, top))[0].astype(float)
    hist_nz = np.histogram(nonzero, bins=2048, range=(0, top))[0].astype(float)
    threshold = search(hist, x.size, width)
    print("threshold at 2048 bins, zeros in bin 0 (as Kiln): %.4f" % threshold)
    print("threshold at 2048 bins, exact zeros left out:     %.4f"
          % search(hist_nz, nonzero.size, width))
    print("nonzero values clipped at %.4f: %.2f %%"
          % (threshold, 100 * np.mean(nonzero > threshold)))
    low = np.sort(hist_nz[1:LEVELS])[::-1]
    share = np.searchsorted(np.cumsum(low), low.sum() / 2) / low.size
    print("bins 1..%d: half the mass in %.1f %% of them" % (LEVELS - 1, 100 * share))
    for merge in (2, 4, 8):
        merged = hist.reshape(-1, merge).sum(1)
        print("threshold at %4d bins: %.4f" % (merged.size, search(merged, x.size, width * merge)))


if __name__ == "__main__":
    main()
