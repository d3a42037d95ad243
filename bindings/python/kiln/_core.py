"""Runtime, Model and Session: the handles of the C API as Python objects.

Lifetimes: a Model keeps its Runtime alive and a Session its Model, so the C
rule "destroy sessions, then their model, then its runtime" holds whatever
order Python collects them in. close() (or leaving a `with` block) destroys
the handle now; closing a model closes its open sessions, and closing a
runtime its models. A session runs one run at a time: concurrent run()
calls on one session wait for each other; use one session per thread.
"""
import ctypes
import os
import threading
import weakref
from typing import (Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple,
                    Union)

import numpy as np

from . import _dtypes
from . import _lib
from . import _values
from ._capi_gen import (DType, Kind, Option, Status, StringOption, kiln_model, kiln_options,
                        kiln_runtime, kiln_session, kiln_tensor)

byref = ctypes.byref
PathLike = Union[str, "os.PathLike[str]"]
Source = Union[PathLike, bytes, bytearray, memoryview, np.ndarray]

# Python keyword -> option key, per object the option applies to.
RUNTIME_OPTIONS: Dict[str, int] = {"threads": Option.THREADS}
MODEL_OPTIONS: Dict[str, int] = {
    "optimize": Option.OPTIMIZE, "allow_unsupported": Option.ALLOW_UNSUPPORTED,
    "max_model_mb": Option.MAX_MODEL_MB, "use_dnnl": Option.USE_DNNL}
SESSION_OPTIONS: Dict[str, int] = {
    "max_arena_mb": Option.MAX_ARENA_MB, "tune": Option.TUNE, "profile": Option.PROFILE,
    "plan_cache": Option.PLAN_CACHE, "keep_values": Option.KEEP_VALUES,
    "precision": Option.PRECISION, "device_graph": Option.DEVICE_GRAPH}
SESSION_STRING_OPTIONS: Dict[str, int] = {"tuning_cache": StringOption.TUNING_CACHE,
                                          "device": StringOption.DEVICE}

_KIND_NAMES = {Kind.TENSOR: "tensor", Kind.SEQUENCE: "sequence", Kind.OPTIONAL: "optional"}
_MAX_RANK = 8
# Outputs up to this size are copied out of C into a per-session staging
# array whose address is known, then copied into the array handed out: two
# small copies cost less than asking NumPy for a new array's address.
_STAGE_BYTES = 1 << 16


def _make_options(where: str, values: Mapping[str, Any], ints: Mapping[str, int],
                  strings: Mapping[str, int] = {}) -> Any:
    """A kiln_options handle holding `values` (None values are left at their defaults)."""
    c = _lib.lib()
    for key in values:
        if key not in ints and key not in strings:
            known = ", ".join(sorted(list(ints) + list(strings)))
            raise _lib.fail(Status.INVALID_ARGUMENT, where,
                            "unknown option %r; the options are: %s" % (key, known))
    options = ctypes.POINTER(kiln_options)()
    _lib.check(c.kiln_options_create(byref(options)), where)
    try:
        for key, value in values.items():
            if value is None:
                continue
            if key in strings:
                if not isinstance(value, (str, bytes, os.PathLike)):
                    raise _lib.fail(Status.INVALID_ARGUMENT, where, "option %s must be a str "
                                    "(or a path), got %s" % (key, type(value).__name__))
                _lib.check(c.kiln_options_set_string(options, strings[key], os.fsencode(value)),
                           where)
                continue
            if isinstance(value, (bool, np.bool_)):
                value = int(value)
            if not isinstance(value, (int, np.integer)):
                raise _lib.fail(Status.INVALID_ARGUMENT, where, "option %s must be an int, got "
                                "%r" % (key, value))
            if not -2**31 <= value < 2**31:
                raise _lib.fail(Status.INVALID_ARGUMENT, where, "option %s=%d is out of range"
                                % (key, value))
            _lib.check(c.kiln_options_set_int(options, ints[key], int(value)), where)
    except BaseException:
        c.kiln_options_destroy(options)
        raise
    return options


class _Handle:
    """A C handle destroyed exactly once: by close() or when collected. The
    finalizer holds the parent object, so a parent outlives its children."""

    def __init__(self, handle: Any, destroy: Any, parent: Any = None) -> None:
        self._handle = handle
        self._finalizer = weakref.finalize(self, _destroy, destroy, handle, parent)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def _destroy(self) -> None:
        self._handle = None
        self._finalizer()

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()  # type: ignore[attr-defined]


def _destroy(destroy: Any, handle: Any, parent: Any) -> None:
    destroy(handle)  # (parent: held until here)


class Runtime(_Handle):
    """The thread pool models and sessions run on; shareable across threads.

    threads: worker threads including the caller (default 1).
    """

    def __init__(self, threads: Optional[int] = None) -> None:
        c = _lib.lib()
        options = _make_options("Runtime", {"threads": threads}, RUNTIME_OPTIONS)
        handle = ctypes.POINTER(kiln_runtime)()
        try:
            _lib.check(c.kiln_runtime_create(options, byref(handle)), "Runtime")
        finally:
            c.kiln_options_destroy(options)
        super().__init__(handle, c.kiln_runtime_destroy)
        self.threads = 1 if threads is None else int(threads)
        self._models: "weakref.WeakSet[Model]" = weakref.WeakSet()
        self._lock = threading.Lock()

    def close(self) -> None:
        """Closes every model (and session) made on this runtime, then the runtime."""
        with self._lock:
            models = list(self._models)
        for model in models:
            model.close()
        if self._handle is not None:
            self._destroy()

    def __repr__(self) -> str:
        return "kiln.Runtime(threads=%d%s)" % (self.threads, ", closed" if self.closed else "")


_default_runtime: Optional[Runtime] = None
_default_lock = threading.Lock()


def default_runtime() -> Runtime:
    """The runtime models use when given none (made on first use, 1 thread)."""
    global _default_runtime
    with _default_lock:
        if _default_runtime is None or _default_runtime.closed:
            _default_runtime = Runtime()
        return _default_runtime


class ValueInfo(NamedTuple):
    """A declared model input or output."""
    name: str
    dtype: Optional[np.dtype]   # the NumPy dtype of its arrays; None if the model leaves it open
    type: Optional[str]         # its element type's name: 'float32', 'int64', 'bfloat16', ...
    shape: Optional[Tuple[Optional[int], ...]]  # None for dynamic dims; None if the rank is unknown
    kind: str = "tensor"        # 'tensor', 'sequence' or 'optional'

    def __repr__(self) -> str:
        extra = "" if self.kind == "tensor" else ", kind=%r" % self.kind
        return "ValueInfo(name=%r, type=%r, shape=%r%s)" % (self.name, self.type, self.shape, extra)


class MemoryInfo(NamedTuple):
    weight_bytes: int           # the model's weights, as loaded
    shared_prepared_bytes: int  # prepared copies of weights shared by all sessions
    given_back_bytes: int       # raw weight bytes returned to the system


class CacheInfo(NamedTuple):
    plans_kept: int    # plans kept now (one per input signature)
    plans_built: int   # plans built so far
    arena_bytes: int   # bytes of the arena the kept plans share


class PlanBytes(NamedTuple):
    arena_bytes: int         # the current plan's arena
    intermediate_bytes: int  # the sum of all intermediate tensors (a plan without reuse)


class ProfileStep(NamedTuple):
    name: str      # node name
    op: str        # op type ("Conv", or a fused step's own, e.g. "FusedConv")
    kernel: str    # "cpu", "dnnl", ...
    total_ns: int  # time spent in the step over `runs` runs
    runs: int


class NodeInfo(NamedTuple):
    name: str
    op_type: str
    domain: str
    supported: bool


def _describe(handle: Any, side: str) -> Tuple[ValueInfo, ...]:
    c = _lib.lib()
    where = "Model"
    fn = lambda what: getattr(c, "kiln_model_%s_%s" % (side, what))  # noqa: E731
    count = ctypes.c_int32(0)
    _lib.check(fn("count")(handle, byref(count)), where)
    infos = []
    for i in range(count.value):
        name = _values.read_string(fn("name"), where, handle, i)
        code = ctypes.c_int32(0)
        _lib.check(fn("dtype")(handle, i, byref(code)), where)
        kind = ctypes.c_int32(0)
        _lib.check(fn("kind")(handle, i, byref(kind)), where)
        shape = _values.read_shape(fn("shape"), where, handle, i)
        dims = None if shape is None else tuple(None if d < 0 else d for d in shape)
        infos.append(ValueInfo(name, _dtypes.NUMPY.get(code.value), _dtypes.name(code.value),
                               dims, _KIND_NAMES.get(kind.value, "kind%d" % kind.value)))
    return tuple(infos)


def _source_bytes(source: Any) -> Optional[bytes]:
    if isinstance(source, (str, os.PathLike)):
        return None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, np.ndarray) and source.dtype == np.uint8:
        return source.tobytes()
    raise _lib.fail(Status.INVALID_ARGUMENT, "Model", "source must be a file path or the "
                    "model's bytes, got %s" % type(source).__name__)


def _resolve_runtime(where: str, runtime: Optional["Runtime"], threads: Optional[int]
                     ) -> "Runtime":
    """The runtime a handle is made on: the one given, else a new one with
    `threads` workers, else the default one."""
    if runtime is None:
        runtime = default_runtime() if threads is None else Runtime(threads=threads)
    elif threads is not None:
        raise _lib.fail(Status.INVALID_ARGUMENT, where,
                        "pass either runtime or threads, not both")
    if runtime.closed:
        raise _lib.fail(Status.STATE, where, "the runtime is closed")
    return runtime


def _create_from(source: Any, data: Optional[bytes], runtime: "Runtime", opts: Any, handle: Any,
                 from_file: Any, from_memory: Any, what: str) -> None:
    """Makes a handle from a file (from_file(runtime, path, options, &out)) or
    from bytes (from_memory(runtime, data, size, options, &out)); failures
    raise naming the file, or the byte count."""
    if data is None:
        path = os.fspath(source)
        st = from_file(runtime._handle, os.fsencode(path), opts, byref(handle))
        if st:
            raise _lib.file_error(st, "%s(%r)" % (what, path), path)
    else:
        st = from_memory(runtime._handle, data, len(data), opts, byref(handle))
        if st:
            raise _lib.error(st, "%s(<%d bytes>)" % (what, len(data)))


class Model(_Handle):
    """A loaded ONNX model: immutable, thread-safe, shared by its sessions.

    Model(path_or_bytes, runtime=None, *, threads=None, optimize=None,
          allow_unsupported=None, max_model_mb=None, use_dnnl=None)

    runtime: the Runtime to run on (default: kiln.default_runtime(); or pass
    threads=N for a runtime of the model's own). Options left at None keep
    the C library's defaults (optimize 2, use_dnnl True, no size limit).
    """

    def __init__(self, source: Source, runtime: Optional[Runtime] = None, *,
                 threads: Optional[int] = None, **options: Any) -> None:
        c = _lib.lib()
        data = _source_bytes(source)
        runtime = _resolve_runtime("Model", runtime, threads)
        opts = _make_options("Model", options, MODEL_OPTIONS)
        handle = ctypes.POINTER(kiln_model)()
        try:
            _create_from(source, data, runtime, opts, handle, c.kiln_model_load_file,
                         c.kiln_model_load_memory, "Model")
        finally:
            c.kiln_options_destroy(opts)
        super().__init__(handle, c.kiln_model_destroy, runtime)
        self.runtime = runtime
        self.path: Optional[str] = None if data is not None else \
            os.fspath(source)  # type: ignore[arg-type]
        self._sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()
        self._lock = threading.Lock()
        try:
            self.inputs: Tuple[ValueInfo, ...] = _describe(handle, "input")
            self.outputs: Tuple[ValueInfo, ...] = _describe(handle, "output")
        except BaseException:
            self._destroy()
            raise
        with runtime._lock:
            runtime._models.add(self)

    @property
    def input_names(self) -> List[str]:
        return [i.name for i in self.inputs]

    @property
    def output_names(self) -> List[str]:
        return [o.name for o in self.outputs]

    def get_inputs(self) -> Tuple[ValueInfo, ...]:
        """The declared inputs (as ONNX Runtime's InferenceSession.get_inputs)."""
        return self.inputs

    def get_outputs(self) -> Tuple[ValueInfo, ...]:
        return self.outputs

    def _live(self, where: str) -> Any:
        handle = self._handle
        if handle is None:
            raise _lib.fail(Status.STATE, where, "the model is closed")
        return handle

    def session(self, **options: Any) -> "Session":
        """A new Session on this model; see Session for the options."""
        return Session(self, **options)

    def memory_info(self) -> MemoryInfo:
        """Bytes the model holds for all its sessions."""
        c = _lib.lib()
        w, s, g = ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0)
        _lib.check(c.kiln_model_memory_info(self._live("Model.memory_info"), byref(w), byref(s),
                                            byref(g)), "Model.memory_info")
        return MemoryInfo(w.value, s.value, g.value)

    @property
    def opsets(self) -> List[Tuple[str, int]]:
        """The opset imports: (domain, version); domain "" is ai.onnx."""
        c = _lib.lib()
        where = "Model.opsets"
        handle = self._live(where)
        count = ctypes.c_int32(0)
        _lib.check(c.kiln_model_opset_count(handle, byref(count)), where)
        result = []
        for i in range(count.value):
            needed, version = ctypes.c_int32(0), ctypes.c_int32(0)
            _lib.check(c.kiln_model_opset(handle, i, None, 0, byref(needed), byref(version)),
                       where)
            buf = ctypes.create_string_buffer(max(needed.value, 1))
            _lib.check(c.kiln_model_opset(handle, i, buf, len(buf), byref(needed),
                                          byref(version)), where)
            result.append((buf.value.decode(), version.value))
        return result

    @property
    def nodes(self) -> List[NodeInfo]:
        """The main graph's nodes in execution order."""
        c = _lib.lib()
        where = "Model.nodes"
        handle = self._live(where)
        count = ctypes.c_int32(0)
        _lib.check(c.kiln_model_node_count(handle, byref(count)), where)
        result = []
        for i in range(count.value):
            needed = ctypes.c_int32(0)
            _lib.check(c.kiln_model_node_op(handle, i, None, 0, None, 0, byref(needed)), where)
            op = ctypes.create_string_buffer(max(needed.value, 1))
            domain = ctypes.create_string_buffer(max(needed.value, 1))
            _lib.check(c.kiln_model_node_op(handle, i, op, len(op), domain, len(domain),
                                            byref(needed)), where)
            name = _values.read_string(c.kiln_model_node_name, where, handle, i)
            supported = ctypes.c_int32(0)
            _lib.check(c.kiln_model_node_supported(handle, i, byref(supported)), where)
            result.append(NodeInfo(name, op.value.decode(), domain.value.decode(),
                                   bool(supported.value)))
        return result

    def close(self) -> None:
        """Closes every open session of the model (a run in flight finishes first),
        then the model. Closing twice is fine."""
        with self._lock:
            sessions = list(self._sessions)
        for session in sessions:
            session.close()
        if self._handle is not None:
            self._destroy()

    def __repr__(self) -> str:
        what = repr(self.path) if self.path is not None else "<bytes>"
        return "kiln.Model(%s, inputs=%s, outputs=%s%s)" % (
            what, self.input_names, self.output_names, ", closed" if self.closed else "")


class DeviceBuffer(NamedTuple):
    """Memory already on a session's device (a session made with device=...),
    fed to Session.run in place of an array, or bound to an output with
    Session.bind_output_device. Nothing reads it on the host.

    address: the device pointer as an int (for CUDA, what cudaMalloc gave,
    a torch tensor's data_ptr(), a CuPy array's data.ptr); shape; dtype
    (a NumPy dtype); nbytes: the buffer's size (default: the shape's).
    """
    address: int
    shape: Tuple[int, ...]
    dtype: Any = np.float32
    nbytes: Optional[int] = None

    def size(self) -> int:
        if self.nbytes is not None:
            return int(self.nbytes)
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


class _Input:
    """Per-session state of one input: what it expects and its last bound shape."""
    __slots__ = ("name", "cname", "dtype", "code", "open", "declared", "static_count", "shape", "dims",
                 "rank", "kind", "bound")

    def __init__(self, info: ValueInfo, index: int) -> None:
        self.name = info.name
        self.cname = info.name.encode()
        self.dtype = info.dtype  # None: open, the array decides
        self.code = 0 if info.type is None else _dtypes.CODES.get(info.type, 0)
        self.open = info.type is None  # the model leaves the dtype open: the array decides
        self.declared = info.shape
        static = info.shape is not None and all(d is not None for d in info.shape)
        self.static_count = int(np.prod(info.shape, dtype=np.int64)) if static else -1
        self.shape: Optional[Tuple[int, ...]] = None
        self.dims: Any = None
        self.rank = 0
        self.kind = info.kind
        # The array C borrows now (kept alive, and so unmoved, until rebound).
        self.bound: Optional[np.ndarray] = None


_char_view = ctypes.c_char.from_buffer
_addressof = ctypes.addressof


def _address(arr: np.ndarray) -> int:
    """The address of a C-contiguous array's first byte. Through the buffer
    protocol this costs half of arr.ctypes.data, which builds a ctypes
    helper object every time; read-only and empty arrays take that road."""
    try:
        return _addressof(_char_view(arr))
    except (TypeError, ValueError):
        return arr.ctypes.data


def _shape_text(shape: Optional[Sequence[Optional[int]]]) -> str:
    """A shape as the C library writes it: 1x3x224x224, ? for a dynamic dim."""
    if shape is None:
        return "unknown"
    if len(shape) == 0:
        return "scalar"
    return "x".join("?" if d is None else str(d) for d in shape)


def _names(infos: Iterable[ValueInfo]) -> str:
    return ", ".join("'%s'" % i.name for i in infos)


def _unknown_name(side: str, name: Any, infos: Sequence[ValueInfo]) -> str:
    """The C library's text for a name the model does not have."""
    if not infos:
        return "unknown %s %r; the model has no %ss" % (side, name, side)
    return "unknown %s %r; the model's %ss are: %s" % (side, name, side, _names(infos))


class Session(_Handle):
    """Runs a model. One run at a time (concurrent calls wait); use one
    session per thread to run in parallel.

    Session(model, *, profile=None, plan_cache=None, max_arena_mb=None,
            tune=None, tuning_cache=None, device=None)

    profile: record per-step times (profile()); plan_cache: plans kept, one
    per input signature (1..1024, default 8); max_arena_mb: limit on the
    arena (0 = none); tune: time candidate kernels at creation, reading and
    writing the tuning_cache file when given; device: where the nodes run,
    "cpu" (default), "NAME" or "NAME:INDEX" of a device backend built in
    (docs/devices.md).
    """

    def __init__(self, model: Model, **options: Any) -> None:
        c = _lib.lib()
        if not isinstance(model, Model):
            raise _lib.fail(Status.INVALID_ARGUMENT, "Session", "expected a kiln.Model, got %s"
                            % type(model).__name__)
        opts = _make_options("Session", options, SESSION_OPTIONS, SESSION_STRING_OPTIONS)
        handle = ctypes.POINTER(kiln_session)()
        try:
            with model._lock:
                _lib.check(c.kiln_session_create(model._live("Session"), opts, byref(handle)),
                           "Session")
                super().__init__(handle, c.kiln_session_destroy, model)
                model._sessions.add(self)
        finally:
            c.kiln_options_destroy(opts)
        self.model = model
        self._run_lock = threading.Lock()     # one run (or idle-only call) at a time
        self._handle_lock = threading.Lock()  # cancel() vs close()
        self._inputs = {info.name: _Input(info, i) for i, info in enumerate(model.inputs)}
        self._outputs = {info.name: i for i, info in enumerate(model.outputs)}
        self._all_outputs = list(range(len(model.outputs)))
        self._staging: List[Any] = [None] * len(model.outputs)
        # Output-reading buffers, reused by every run (runs are serialized).
        self._out_dtype = ctypes.c_int32(0)
        self._out_rank = ctypes.c_int32(0)
        self._out_dims = (ctypes.c_int64 * _MAX_RANK)()
        self._out_dtype_ref = byref(self._out_dtype)
        self._out_rank_ref = byref(self._out_rank)
        self._c_set_input = c.kiln_session_set_input
        self._c_run = c.kiln_session_run
        self._c_info = c.kiln_session_output_info
        self._c_copy = c.kiln_session_output_copy

    @property
    def inputs(self) -> Tuple[ValueInfo, ...]:
        return self.model.inputs

    @property
    def outputs(self) -> Tuple[ValueInfo, ...]:
        return self.model.outputs

    def get_inputs(self) -> Tuple[ValueInfo, ...]:
        return self.model.inputs

    def get_outputs(self) -> Tuple[ValueInfo, ...]:
        return self.model.outputs

    # ---- running ----

    def run(self, feeds: Mapping[str, Any], output_names: Optional[Sequence[str]] = None
            ) -> List[Any]:
        """Runs the model on `feeds` ({input name: array}) and returns copies of
        the outputs named in output_names (default: all), in that order.

        Every input must be fed. Arrays must have the input's dtype (lists and
        scalars are converted to it). A sequence output comes back as a list
        of arrays, an optional one as None or its value. ONNX Runtime's
        argument order run(output_names, feeds) is accepted too.
        """
        if type(feeds) is not dict:
            feeds, output_names = self._normalize(feeds, output_names)
        with self._run_lock:
            handle = self._handle
            if handle is None:
                raise _lib.fail(Status.STATE, "Session.run", "the session is closed")
            try:
                self._bind(handle, feeds)
            except BaseException:
                self._unbind()
                raise
            st = self._c_run(handle)
            if st:
                raise _lib.error(st, "Session.run")
            indices = self._all_outputs if output_names is None else \
                self._output_indices(output_names)
            return [self._read(handle, i) for i in indices]

    def run_dict(self, feeds: Mapping[str, Any], output_names: Optional[Sequence[str]] = None
                 ) -> Dict[str, Any]:
        """run(), returning {output name: value}."""
        names = self.model.output_names if output_names is None else list(output_names)
        return dict(zip(names, self.run(feeds, names if output_names is not None else None)))

    def _normalize(self, feeds: Any, output_names: Any) -> Tuple[Dict[str, Any], Any]:
        if (feeds is None or isinstance(feeds, (list, tuple))) and isinstance(output_names,
                                                                             Mapping):
            feeds, output_names = output_names, feeds  # ONNX Runtime's order
        if not isinstance(feeds, Mapping):
            raise _lib.fail(Status.INVALID_ARGUMENT, "Session.run", "feeds must be a dict "
                            "{input name: array}, got %s" % type(feeds).__name__)
        if isinstance(output_names, str):
            output_names = [output_names]
        return dict(feeds), output_names

    def _output_indices(self, names: Sequence[str]) -> List[int]:
        indices = []
        for name in names:
            index = self._outputs.get(name)
            if index is None:
                raise _lib.fail(Status.NOT_FOUND, "Session.run",
                                _unknown_name("output", name, self.model.outputs))
            indices.append(index)
        return indices

    def _bind(self, handle: Any, feeds: Dict[str, Any]) -> None:
        inputs = self._inputs
        if len(feeds) != len(inputs) or not all(name in inputs for name in feeds):
            self._feed_names_error(feeds)
        set_input = self._c_set_input
        for name, value in feeds.items():
            inp = inputs[name]
            arr = value
            if arr is inp.bound and arr.shape == inp.shape:
                continue  # C still borrows this very array: its binding stands
            if type(arr) is not np.ndarray or arr.dtype is not inp.dtype or \
                    not arr.flags.c_contiguous:
                if type(value) is DeviceBuffer:
                    self._bind_device(handle, inp, value)
                    continue
                arr = self._convert(inp, value)
            if arr.shape != inp.shape:
                self._new_shape(inp, arr)
            inp.bound = None
            st = set_input(handle, inp.cname, inp.code, inp.dims, inp.rank, _address(arr),
                           arr.nbytes, 0)
            if st:
                raise _lib.error(st, "Session.run")
            inp.bound = arr

    def _bind_device(self, handle: Any, inp: _Input, buf: DeviceBuffer) -> None:
        where = "Session.run"
        dtype = np.dtype(buf.dtype)
        code = _dtypes.FROM_NUMPY.get(dtype.newbyteorder("="))
        if code is None:
            raise _lib.fail(Status.DTYPE, where, "input %r: device buffers of dtype %s are not "
                            "supported" % (inp.name, dtype))
        shape = tuple(int(d) for d in buf.shape)
        dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        inp.bound = None
        inp.shape = None  # the next array binds afresh
        st = _lib.lib().kiln_session_set_input_device(handle, inp.cname, code, dims, len(shape),
                                                      int(buf.address), buf.size())
        if st:
            raise _lib.error(st, where)

    def bind_output_device(self, output: Union[str, int], buffer: Optional[DeviceBuffer]
                           ) -> None:
        """Each later run also writes output `output` (a name or an index) into
        buffer, memory on the session's device; None unbinds. The run returns
        once the buffer holds the result."""
        where = "Session.bind_output_device"
        index = output if isinstance(output, int) else self._output_indices([output])[0]
        address, size = (None, 0) if buffer is None else (int(buffer.address), buffer.size())
        with self._run_lock:
            _lib.check(_lib.lib().kiln_session_bind_output_device(self._idle(where), index,
                                                                  address, size), where)

    def device_stream(self) -> int:
        """The session's stream on its device as an int (a cudaStream_t for
        CUDA): a run has waited for it before returning, so work queued after
        a run sees the results."""
        where = "Session.device_stream"
        stream = ctypes.c_void_p()
        with self._run_lock:
            _lib.check(_lib.lib().kiln_session_device_stream(self._idle(where), byref(stream)),
                       where)
        return int(stream.value or 0)

    def _unbind(self) -> None:
        for inp in self._inputs.values():
            inp.bound = None

    def _feed_names_error(self, feeds: Mapping[str, Any]) -> None:
        for name in feeds:
            if name not in self._inputs:
                raise _lib.fail(Status.NOT_FOUND, "Session.run",
                                _unknown_name("input", name, self.model.inputs))
        missing = [i for i in self.model.inputs if i.name not in feeds][0]
        raise _lib.fail(Status.INVALID_ARGUMENT, "Session.run", "input %r (%s, shape %s) is "
                        "missing from the feeds" % (missing.name, missing.type or missing.kind,
                                                    _shape_text(missing.shape)))

    def _convert(self, inp: _Input, value: Any) -> np.ndarray:
        where = "Session.run"
        if inp.kind != "tensor":
            raise _lib.fail(Status.UNSUPPORTED, where, "input %r is a %s; the Python binding "
                            "feeds tensors only" % (inp.name, inp.kind))
        if not isinstance(value, np.ndarray):
            if inp.open:
                arr = np.asarray(value)
            else:
                try:
                    arr = np.asarray(value, dtype=inp.dtype)
                except (TypeError, ValueError) as err:
                    raise _lib.fail(Status.DTYPE, where, "input %r expects %s values: %s"
                                    % (inp.name, inp.dtype.name, err))
        else:
            arr = value
        if inp.open:
            code = _dtypes.FROM_NUMPY.get(arr.dtype.newbyteorder("="))
            if code is None:
                raise _lib.fail(Status.DTYPE, where, "input %r: arrays of dtype %s are not "
                                "supported" % (inp.name, arr.dtype))
            arr = arr.astype(arr.dtype.newbyteorder("="), copy=False)
            inp.dtype, inp.code = arr.dtype, code
        elif arr.dtype != inp.dtype:
            if arr.dtype.newbyteorder("=") == inp.dtype:  # another byte order
                arr = arr.astype(inp.dtype)
            else:
                expect = inp.dtype.name if inp.code not in _dtypes.RAW_BITS else \
                    "%s (%s raw bits)" % (inp.dtype.name, _dtypes.name(inp.code))
                raise _lib.fail(Status.DTYPE, where, "input %r expects %s, got %s; convert it "
                                "with .astype(np.%s)" % (inp.name, expect, arr.dtype,
                                                        inp.dtype.name))
        if arr.dtype is not inp.dtype:
            arr = arr.view(inp.dtype)  # an equal dtype object; keep the identity check fast
        return np.asarray(arr, order="C")

    def _new_shape(self, inp: _Input, arr: np.ndarray) -> None:
        shape = arr.shape
        declared = inp.declared
        if declared is not None and inp.static_count >= 0 and tuple(shape) != declared:
            if arr.size != inp.static_count:
                raise _lib.fail(Status.SHAPE, "Session.run", "input %r: %d %s elements given "
                                "(shape %s), the model's shape %s needs %d"
                                % (inp.name, arr.size, inp.dtype.name, _shape_text(shape),
                                   _shape_text(declared), inp.static_count))
            raise _lib.fail(Status.SHAPE, "Session.run", "input %r has shape %s; the model "
                            "expects %s (same %d elements: reshape it)"
                            % (inp.name, _shape_text(shape), _shape_text(declared), arr.size))
        inp.dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        inp.rank = len(shape)
        inp.shape = shape

    def _read(self, handle: Any, index: int) -> Any:
        dims = self._out_dims
        st = self._c_info(handle, index, self._out_dtype_ref, dims, _MAX_RANK, self._out_rank_ref)
        if st:
            return self._read_slow(handle, index, st)
        code = self._out_dtype.value
        shape = dims[:self._out_rank.value]
        staged = self._staging[index]
        if staged is not None and staged[0] == shape and staged[1] == code:
            # A small output of the same signature as last time: copy it into
            # the staging array (its address is known), hand out a copy.
            st = self._c_copy(handle, index, staged[3], staged[4], None)
            if st:
                raise _lib.error(st, "Session.run")
            return staged[2].copy()
        dt = _dtypes.NUMPY.get(code)
        if dt is None or code == DType.STRING:
            return self._read_slow(handle, index, Status.DTYPE)
        out = np.empty(shape, dt)
        address = out.ctypes.data
        st = self._c_copy(handle, index, address, out.nbytes, None)
        if st:
            raise _lib.error(st, "Session.run")
        if out.nbytes <= _STAGE_BYTES:
            stage = np.empty(shape, dt)
            self._staging[index] = (shape, code, stage, stage.ctypes.data, stage.nbytes)
        return out

    def _read_slow(self, handle: Any, index: int, status: int) -> Any:
        """Outputs the fast path does not take: ranks over 8, sequences,
        optionals, strings; or the error."""
        if status not in (Status.DTYPE, Status.BUFFER_TOO_SMALL):
            raise _lib.error(status, "Session.run")
        c = _lib.lib()
        value = ctypes.POINTER(kiln_tensor)()
        _lib.check(c.kiln_session_output_value(handle, index, byref(value)), "Session.run")
        try:
            return _values.value(value, "Session.run")
        finally:
            c.kiln_tensor_destroy(value)

    def cancel(self) -> None:
        """Asks the run in flight (if any) to stop; it then raises kiln.CancelledError.
        Safe from any thread; a run started later is not affected."""
        with self._handle_lock:
            handle = self._handle
            if handle is not None:
                _lib.check(_lib.lib().kiln_session_cancel(handle), "Session.cancel")

    # ---- memory and profiling (wait for a run in flight) ----

    def _idle(self, where: str) -> Any:
        handle = self._handle
        if handle is None:
            raise _lib.fail(Status.STATE, where, "the session is closed")
        return handle

    def cache_info(self) -> CacheInfo:
        """The plan cache: plans kept, plans built so far, shared arena bytes."""
        c = _lib.lib()
        kept, built, arena = ctypes.c_int32(0), ctypes.c_int64(0), ctypes.c_int64(0)
        with self._run_lock:
            _lib.check(c.kiln_session_cache_info(self._idle("Session.cache_info"), byref(kept),
                                                 byref(built), byref(arena)),
                       "Session.cache_info")
        return CacheInfo(kept.value, built.value, arena.value)

    def plan_bytes(self) -> PlanBytes:
        """The current plan's arena bytes and the bytes of all its intermediates."""
        c = _lib.lib()
        arena, inter = ctypes.c_int64(0), ctypes.c_int64(0)
        with self._run_lock:
            _lib.check(c.kiln_session_plan_bytes(self._idle("Session.plan_bytes"), byref(arena),
                                                 byref(inter)), "Session.plan_bytes")
        return PlanBytes(arena.value, inter.value)

    def release_memory(self) -> None:
        """Gives back every kept plan and the arena; the next run plans again."""
        with self._run_lock:
            _lib.check(_lib.lib().kiln_session_release_memory(
                self._idle("Session.release_memory")), "Session.release_memory")
            self._unbind()

    def profile(self) -> List[ProfileStep]:
        """Per-step times of the current plan (a session made with profile=True)."""
        c = _lib.lib()
        where = "Session.profile"
        with self._run_lock:
            handle = self._idle(where)
            count = ctypes.c_int32(0)
            st = c.kiln_session_profile_count(handle, byref(count))
            if st:
                raise _lib.error(st, where)
            steps = []
            for i in range(count.value):
                total, runs = ctypes.c_int64(0), ctypes.c_int64(0)
                _lib.check(c.kiln_session_profile_time(handle, i, byref(total), byref(runs)),
                           where)
                steps.append(ProfileStep(
                    _values.read_string(c.kiln_session_profile_name, where, handle, i),
                    _values.read_string(c.kiln_session_profile_op, where, handle, i),
                    _values.read_string(c.kiln_session_profile_kernel, where, handle, i),
                    total.value, runs.value))
        return steps

    def values(self) -> Dict[str, np.ndarray]:
        """Every tensor the last run computed (a session made with keep_values=True), by its
        name in the graph as loaded, in the order the run computed them, as float32 arrays
        whatever their dtype was. Load the model with optimize=0 to see the file's own
        tensors: fusion removes those inside each fused group."""
        c = _lib.lib()
        where = "Session.values"
        values: Dict[str, np.ndarray] = {}
        with self._run_lock:
            handle = self._idle(where)
            count = ctypes.c_int32(0)
            _lib.check(c.kiln_session_value_count(handle, byref(count)), where)
            for i in range(count.value):
                name = _values.read_string(c.kiln_session_value_name, where, handle, i)
                key = name.encode("utf-8")
                shape = _values.read_shape(
                    lambda *a: c.kiln_session_value_info(handle, key, None, *a), where)
                arr = np.empty(shape or (), np.float32)
                _lib.check(c.kiln_session_value_copy(handle, key, arr.ctypes.data, arr.nbytes,
                                                     None), where)
                values[name] = arr
        return values

    def reset_profile(self) -> None:
        """Zeroes the profile's times and run counts."""
        with self._run_lock:
            _lib.check(_lib.lib().kiln_session_profile_reset(
                self._idle("Session.reset_profile")), "Session.reset_profile")

    def close(self) -> None:
        """Destroys the session (a run in flight on another thread finishes first)."""
        with self._run_lock:
            with self._handle_lock:
                if self._handle is not None:
                    self._destroy()
                self._unbind()
                self._staging = [None] * len(self._staging)

    def __repr__(self) -> str:
        return "kiln.Session(%r%s)" % (self.model, ", closed" if self.closed else "")
