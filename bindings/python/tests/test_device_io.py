"""Zero-copy device I/O from Python: kiln.DeviceBuffer fed to Session.run,
Session.bind_output_device and Session.device_stream. Device addresses are
plain ints (a torch tensor's data_ptr(), a CuPy array's data.ptr).

Only the refusals can run here: a session gets a device from a backend
built into libkiln.so, and this machine has no GPU; the engine's test
double device is linked into the C test suites only (tests/test_device_io.c
runs these calls to success on it), never into the library Python loads."""
import numpy as np
import pytest

import kiln
from kiln import Status
from conftest import digit_samples


def image():
    return digit_samples()[0][2]


def test_device_buffer_size_defaults_to_the_shape():
    assert kiln.DeviceBuffer(0x1000, (2, 3)).size() == 24
    assert kiln.DeviceBuffer(0x1000, (2, 3), np.float16).size() == 12
    assert kiln.DeviceBuffer(0x1000, (2, 3), nbytes=100).size() == 100


def test_cpu_session_refuses_device_memory_and_keeps_running(digits):
    session = digits.session()
    want = session.run({"image": image()})[0]
    buf = kiln.DeviceBuffer(0x10000, image().shape, np.float32)
    with pytest.raises(kiln.UnsupportedError,
                       match=r"^Session\.run: input 'image': the session runs on cpu; set "
                             r"KILN_SOPT_DEVICE") as info:
        session.run({"image": buf})
    assert info.value.code == Status.UNSUPPORTED
    with pytest.raises(kiln.UnsupportedError,
                       match=r"^Session\.bind_output_device: output '.*': the session runs "
                             r"on cpu"):
        session.bind_output_device(0, kiln.DeviceBuffer(0x10000, (1, 10)))
    with pytest.raises(kiln.UnsupportedError, match=r"^Session\.device_stream: the session "
                                                     r"runs on cpu"):
        session.device_stream()
    # the refused calls left the session as it was
    got = session.run({"image": image()})[0]
    np.testing.assert_array_equal(got, want)


def test_unknown_output_name_is_named(digits):
    session = digits.session()
    with pytest.raises(kiln.NotFoundError, match="nope"):
        session.bind_output_device("nope", None)
