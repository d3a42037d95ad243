"""Finding, loading and checking libkiln, and turning C statuses into errors.

The library is looked for, in order:
  1. the file named by the environment variable KILN_LIBRARY;
  2. libkiln.so packaged inside this package (wheels built by build_wheel.sh);
  3. the system: ctypes.util.find_library("kiln"), then pkg-config's libdir
     for kiln, then the dynamic loader's own search (libkiln.so.0).
It is loaded on first use, and its ABI version must equal the one the
bindings were generated for.
"""
import ctypes
import ctypes.util
import os
import subprocess
import sys
import threading
from typing import List, Optional

from . import _capi_gen as capi
from .errors import FileReadError, KilnError, Status, error_for, user_message

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_path: Optional[str] = None

_PACKAGED = ("libkiln.so", "libkiln.so.0", "libkiln.dylib", "kiln.dll")


class LibraryError(KilnError, ImportError):
    """libkiln could not be found or loaded, or its ABI version differs."""
    code = Status.UNSUPPORTED


def _pkg_config_candidates() -> List[str]:
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "kiln"], capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    libdir = out.stdout.strip()
    if out.returncode != 0 or not libdir:
        return []
    return [os.path.join(libdir, name) for name in ("libkiln.so", "libkiln.so.0", "libkiln.dylib")]


def candidates() -> List[str]:
    """Where the library is looked for, in order (KILN_LIBRARY alone when set)."""
    env = os.environ.get("KILN_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    found = [os.path.join(here, name) for name in _PACKAGED
             if os.path.exists(os.path.join(here, name))]
    system = ctypes.util.find_library("kiln")
    if system:
        found.append(system)
    found += [p for p in _pkg_config_candidates() if os.path.exists(p)]
    found.append("libkiln.dylib" if sys.platform == "darwin" else "libkiln.so.0")
    return found


def _load() -> ctypes.CDLL:
    global _lib, _path
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in candidates():
            try:
                lib = ctypes.CDLL(path)
            except OSError as err:
                tried.append("%s (%s)" % (path, err))
                continue
            try:
                capi.bind(lib)
            except AttributeError as err:
                raise LibraryError("kiln: %s is not a usable libkiln: %s" % (path, err))
            abi = lib.kiln_abi_version()
            if abi != capi.ABI_VERSION:
                raise LibraryError(
                    "kiln: %s has ABI version %d, but this Python package was built for ABI "
                    "version %d; install matching versions" % (path, abi, capi.ABI_VERSION))
            _lib, _path = lib, path
            return lib
        how = ("KILN_LIBRARY is set" if os.environ.get("KILN_LIBRARY") else
               "set KILN_LIBRARY to the path of libkiln.so, or install a wheel that bundles it")
        raise LibraryError("kiln: cannot load libkiln (%s); tried: %s" % (how, "; ".join(tried)))


def lib() -> ctypes.CDLL:
    """The loaded, bound library (loaded on first call)."""
    return _lib if _lib is not None else _load()


def library_path() -> str:
    """The path (or name) the library was loaded from."""
    lib()
    assert _path is not None
    return _path


def last_error() -> str:
    """The calling thread's last C error message."""
    c = lib()
    n = c.kiln_last_error(None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    c.kiln_last_error(buf, n + 1)
    return buf.value.decode("utf-8", "replace")


def error(status: int, where: str, detail: Optional[str] = None) -> KilnError:
    """The error for a failed C call made just now on this thread; `where` is the
    Python method ("Session.run"), `detail` overrides the C message."""
    text = user_message(last_error()) if detail is None else detail
    return error_for(status, "%s: %s" % (where, text) if where else text)


def check(status: int, where: str) -> None:
    if status:
        raise error(status, where)


def fail(code: int, where: str, message: str) -> KilnError:
    """An error found on the Python side, worded like the C library's."""
    return error_for(code, "%s: %s" % (where, message))


def file_error(status: int, where: str, path: str) -> KilnError:
    err = error(status, where)
    if isinstance(err, FileReadError):
        err.filename = path
    return err
