"""Per-run overhead of kiln's Python binding over C, on the tiny digits model.

    python3 bench_overhead.py [--model MODEL] [--runs N] [--max-us LIMIT]

C time: a loop that calls kiln_session_run through ctypes directly (inputs
bound once), i.e. the run itself plus one ctypes call. Python time: the full
session.run({name: array}) with NumPy in and out (binding every input,
running, reading each output's info and copying it into a new array), once
feeding the same arrays every run (their bindings stand) and once alternating
between two sets (every run rebinds). Each takes the median of 7 batches. Prints "python_overhead_us_per_run X" (Python
minus C); with --max-us, exits 1 when X is above it.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kiln  # noqa: E402
from kiln import _lib  # noqa: E402


def median_us(fn, runs: int, batches: int = 7) -> float:
    times = []
    for _ in range(batches):
        start = time.perf_counter()
        fn(runs)
        times.append((time.perf_counter() - start) / runs * 1e6)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=os.path.join(HERE, "..", "..", "examples", "digits",
                                                        "digits.onnx"))
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--max-us", type=float, default=None)
    args = parser.parse_args()

    model = kiln.Model(args.model)
    session = model.session()
    feeds = {}
    for info in model.inputs:
        shape = tuple(1 if d is None else d for d in info.shape)
        feeds[info.name] = np.random.default_rng(0).standard_normal(shape).astype(info.dtype)
    session.run(feeds)  # plan, warm up

    c_run = _lib.lib().kiln_session_run
    handle = session._handle

    def c_loop(n: int) -> None:
        for _ in range(n):
            if c_run(handle):
                raise _lib.error(1, "c_loop")

    def empty_loop(n: int) -> None:
        for _ in range(n):
            pass

    def py_loop(n: int) -> None:
        run = session.run
        for _ in range(n):
            run(feeds)

    other = {name: value.copy() for name, value in feeds.items()}

    def py_loop_fresh(n: int) -> None:  # alternates two feed dicts: every run rebinds
        run = session.run
        for _ in range(n // 2):
            run(feeds)
            run(other)

    session.run(feeds)
    c_loop(1000)
    py_loop(1000)
    loop_us = median_us(empty_loop, args.runs)
    c_us = median_us(c_loop, args.runs) - loop_us
    py_us = median_us(py_loop, args.runs) - loop_us
    fresh_us = median_us(py_loop_fresh, args.runs) - loop_us
    overhead = py_us - c_us
    print("model %s: C run (via one ctypes call) %.2f us; session.run %.2f us"
          % (os.path.basename(args.model), c_us, py_us))
    print("python_overhead_us_per_run %.2f (same arrays each run; other arrays each run: %.2f)"
          % (overhead, fresh_us - c_us))
    session.close()
    model.close()
    if args.max_us is not None and overhead > args.max_us:
        print("FAIL: overhead %.2f us is above %.2f us" % (overhead, args.max_us))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
