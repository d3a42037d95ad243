"""8 threads, one session each, over one shared model: identical results, and
the runs overlap (ctypes releases the GIL during C calls)."""
import threading


import kiln
from conftest import DIGITS_MODEL, bits_equal, digit_samples

THREADS = 8
ROUNDS = 50


def test_eight_threads_one_session_each_identical_results():
    samples = digit_samples()
    model = kiln.Model(DIGITS_MODEL)
    reference = model.session()
    want = [reference.run({"image": image})[0] for _, _, image in samples]
    results = [None] * THREADS
    errors = []
    start = threading.Barrier(THREADS)

    def work(k):
        try:
            with model.session() as session:
                start.wait()
                mine = []
                for r in range(ROUNDS):
                    for i in range(len(samples)):
                        j = (i + k + r) % len(samples)  # each thread its own order
                        (out,) = session.run({"image": samples[j][2]})
                        mine.append((j, out))
                results[k] = mine
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(THREADS):
        assert len(results[k]) == ROUNDS * len(samples)
        for j, out in results[k]:
            assert bits_equal(out, want[j]), (k, j)
    model.close()


def test_one_session_shared_by_threads_serializes_runs():
    samples = digit_samples()
    model = kiln.Model(DIGITS_MODEL)
    session = model.session()
    want = [session.run({"image": image})[0] for _, _, image in samples]
    errors = []

    def work(k):
        try:
            for r in range(100):
                j = (k + r) % len(samples)
                (out,) = session.run({"image": samples[j][2]})
                assert bits_equal(out, want[j])
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    model.close()
