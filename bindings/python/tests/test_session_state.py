"""cancel, the plan cache (cache_info / release_memory), plan_bytes,
memory_info and profiling."""
import threading
import time

import numpy as np
import pytest

import kiln
from conftest import DIGITS_MODEL, bits_equal, digit_samples, locate_model


def test_cache_info_and_release_memory(digits):
    session = digits.session(plan_cache=2)
    image = digit_samples()[0][2]
    assert session.cache_info().plans_kept in (0, 1)
    (a,) = session.run({"image": image})
    info = session.cache_info()
    assert info.plans_kept >= 1 and info.plans_built >= 1 and info.arena_bytes > 0
    built = info.plans_built
    session.run({"image": np.concatenate([image] * 2)})   # a second signature
    session.run({"image": np.concatenate([image] * 3)})   # a third: the cache keeps 2
    info = session.cache_info()
    assert info.plans_kept == 2 and info.plans_built == built + 2
    plan = session.plan_bytes()
    assert plan.arena_bytes > 0 and plan.intermediate_bytes > 0  # (the arena is shared: sized to the largest plan)
    session.release_memory()
    info = session.cache_info()
    assert info.plans_kept == 0 and info.arena_bytes == 0
    (b,) = session.run({"image": image})  # plans again
    assert bits_equal(a, b)
    assert session.cache_info().plans_built == built + 3


def test_memory_info(digits):
    info = digits.memory_info()
    assert info.weight_bytes > 0
    assert info.shared_prepared_bytes >= 0 and info.given_back_bytes >= 0
    assert info == (info.weight_bytes, info.shared_prepared_bytes, info.given_back_bytes)


def test_profile(digits):
    session = digits.session(profile=True)
    image = digit_samples()[0][2]
    for _ in range(3):
        session.run({"image": image})
    steps = session.profile()
    assert steps
    for step in steps:
        assert step.name and step.op and step.kernel
        assert step.runs == 3 and step.total_ns >= 0
    session.reset_profile()
    assert all(s.runs == 0 for s in session.profile())
    with pytest.raises(kiln.StateError, match=r"^Session\.profile: "):
        digits.session().profile()


def test_device_option(digits):
    image = digit_samples()[0][2]
    on_cpu = digits.session(device="cpu").run({"image": image})
    default = digits.session().run({"image": image})
    assert len(on_cpu) == len(default)
    for a, b in zip(on_cpu, default):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(kiln.InvalidArgumentError, match=r"unknown device 'nosuch': the backends built in "
                       r"are .*cpu \(available\)"):
        digits.session(device="nosuch")


def test_values():
    """keep_values: every tensor of the file's graph, the last one the output."""
    model = kiln.Model(DIGITS_MODEL, optimize=0)
    session = model.session(keep_values=True)
    with pytest.raises(kiln.StateError, match=r"^Session\.values: .*no successful run"):
        session.values()
    image = digit_samples()[0][2]
    (logits,) = session.run({"image": image})
    values = session.values()
    names = list(values)
    assert names[-1] == "logits" and len(names) == 7
    assert values["logits"].shape == logits.shape
    assert np.array_equal(values["logits"], logits)
    relu = values["/features/features.2/Relu_output_0"]
    assert relu.shape == (1, 8, 8, 8) and relu.min() == 0 and relu.max() > 0
    with pytest.raises(kiln.StateError, match="KILN_OPT_KEEP_VALUES"):
        model.session().values()


def test_cancel_idle_does_not_affect_later_runs(digits):
    session = digits.session()
    session.cancel()
    (out,) = session.run({"image": digit_samples()[0][2]})
    assert out.shape == (1, 10)
    session.close()
    session.cancel()  # a closed session: nothing to cancel


def test_cancel_stops_a_run_in_flight():
    try:
        path, inputs = locate_model("squeezenet1_1")
        model = kiln.Model(path)
        feeds = {model.inputs[0].name: kiln.load_tensor(inputs[0])}
    except pytest.skip.Exception:
        model = kiln.Model(DIGITS_MODEL)
        feeds = {"image": np.zeros((20000, 1, 8, 8), np.float32)}  # a big batch
    session = model.session()
    (want,) = session.run(feeds)
    t0 = time.perf_counter()
    session.run(feeds)
    run_s = time.perf_counter() - t0
    cancelled = 0
    for attempt in range(20):
        outcome = []

        def work():
            try:
                session.run(feeds)
                outcome.append("done")
            except kiln.CancelledError as err:
                assert err.code == kiln.Status.CANCELLED
                assert str(err).startswith("Session.run: ")
                outcome.append("cancelled")

        t = threading.Thread(target=work)
        t.start()
        time.sleep(run_s * 0.3)
        session.cancel()
        t.join()
        if outcome == ["cancelled"]:
            cancelled += 1
            break
    assert cancelled, "no run was cancelled in 20 tries (a run takes %.1f ms)" % (run_s * 1e3)
    (after,) = session.run(feeds)  # a later run is not affected
    assert bits_equal(after, want)
    model.close()
