"""Python bindings of the OrchestraOS runtime (``liborchestra_rt``).

Loads a compiled artifact (``.orcx``), runs it on numpy arrays and reads the
trace of the last run, through the runtime's C API (``orchestra_rt.h``) and
ctypes: nothing but the runtime library and numpy is needed, so an artifact
compiled on one machine runs on another that has neither LLVM nor MLIR::

    import numpy as np
    import orchestra_rt

    artifact = orchestra_rt.Artifact("mlp.orcx")
    print(artifact.inputs)            # [TensorInfo(name='x', dtype='f32', ...)]
    with orchestra_rt.Session(artifact) as session:
        (y,) = session.run(x, w1, b1)
        for event in session.trace():
            print(event.name, event.duration_ns)

The library is ``$ORCHESTRA_RT_LIBRARY`` when set, else
``build/lib/liborchestra_rt.so`` of the checkout this package is in, else
the ``orchestra_rt`` library the dynamic loader finds; ``load_library(path)``
picks another before the first use. Every failure of the runtime raises
``orchestra_rt.Error`` with the runtime's message. bf16 tensors are passed as
their ``uint16`` bits (or as ``ml_dtypes.bfloat16`` arrays, when that package
is there) and returned as ``uint16``.
"""

import ctypes
import ctypes.util
import os
from collections import namedtuple

import numpy as np

__all__ = ["Artifact", "Error", "Session", "TensorInfo", "TraceEvent",
           "load_library"]


class Error(RuntimeError):
    """A failure the runtime reported (its message), or a wrong argument."""


TensorInfo = namedtuple("TensorInfo", "name dtype shape byte_size")
TensorInfo.__doc__ = """An input or output of an artifact's entry: its name,
element type ("f32", "bf16", ...), shape (a tuple) and size in bytes."""


# The names of orx_step_kind_t's values (orchestra_rt.h).
_STEP_KINDS = {0: "launch", 1: "copy", 2: "select"}


class TraceEvent(namedtuple("TraceEvent", "name kind device start_ns end_ns "
                            "predicted_start predicted_finish device_ns "
                            "selected", defaults=(None,))):
    """One step of the last run: its name, kind ("launch", "copy" or
    "select"), the device whose queue ran it, its start and end in
    nanoseconds from the start of the run (host times), the scheduler's
    predicted start and finish in seconds (None when there is no prediction),
    a GPU step's time on the GPU in nanoseconds (CUDA events around it; 0 for
    other steps), and for a select step (a commit) whether it took its true
    values (None for other steps)."""

    @property
    def duration_ns(self):
        return self.end_ns - self.start_ns


class BranchRecord(namedtuple("BranchRecord", "kernel branch_id location "
                              "device hardware_id invocation_count "
                              "then_count else_count warps divergent_warps "
                              "input_shape_hash")):
    """What the counters of one branch of a kernel compiled with
    --profile-branches say on one device over the runs since the session was
    made or its profile reset (orx_branch_record_t)."""


# The numpy type of each orx_dtype_t (orchestra_rt.h); bf16 travels as uint16.
_NUMPY_TYPES = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
    "i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
    "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
    "u64": np.uint64,
}


class _TensorInfoC(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_uint32),
                ("rank", ctypes.c_size_t),
                ("dims", ctypes.POINTER(ctypes.c_int64)),
                ("byte_size", ctypes.c_size_t)]


class _TraceEventC(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_uint32),
                ("device", ctypes.c_uint32), ("start_ns", ctypes.c_uint64),
                ("end_ns", ctypes.c_uint64),
                ("predicted_start", ctypes.c_double),
                ("predicted_finish", ctypes.c_double),
                ("device_ns", ctypes.c_uint64)]


class _BranchRecordC(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char_p), ("branch_id", ctypes.c_uint32),
                ("location", ctypes.c_char_p), ("device", ctypes.c_char_p),
                ("hardware_id", ctypes.c_char_p),
                ("invocation_count", ctypes.c_uint64),
                ("then_count", ctypes.c_uint64),
                ("else_count", ctypes.c_uint64), ("warps", ctypes.c_uint64),
                ("divergent_warps", ctypes.c_uint64),
                ("input_shape_hash", ctypes.c_uint64)]


_lib = None


def _default_library():
    path = os.environ.get("ORCHESTRA_RT_LIBRARY")
    if path:
        return path
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    built = os.path.join(checkout, "build", "lib", "liborchestra_rt.so")
    if os.path.exists(built):
        return built
    found = ctypes.util.find_library("orchestra_rt")
    if found:
        return found
    raise Error("cannot find liborchestra_rt: set ORCHESTRA_RT_LIBRARY to "
                "its path (build/lib/liborchestra_rt.so of a build)")


def load_library(path=None):
    """Loads the runtime library (`path`, or the default one, see the module's
    documentation) unless one is loaded; returns it."""
    global _lib
    if _lib is not None:
        return _lib
    path = path or _default_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise Error(f"cannot load the runtime library '{path}': {e}") from None
    status, size_t, p = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
    signatures = {
        "orx_status_message": (ctypes.c_char_p, [status]),
        "orx_status_free": (None, [status]),
        "orx_dtype_name": (ctypes.c_char_p, [ctypes.c_uint32]),
        "orx_artifact_load_file": (status, [ctypes.c_char_p,
                                            ctypes.POINTER(p)]),
        "orx_artifact_load_memory": (status, [ctypes.c_void_p, size_t,
                                              ctypes.POINTER(p)]),
        "orx_artifact_free": (None, [p]),
        "orx_artifact_entry_name": (ctypes.c_char_p, [p]),
        "orx_artifact_topology_name": (ctypes.c_char_p, [p]),
        "orx_artifact_producer": (ctypes.c_char_p, [p]),
        "orx_artifact_hash": (ctypes.c_uint64, [p]),
        "orx_session_replace_artifact": (status, [p, p]),
        "orx_artifact_num_devices": (size_t, [p]),
        "orx_artifact_device_name": (ctypes.c_char_p, [p, size_t]),
        "orx_artifact_device_arch": (ctypes.c_char_p, [p, size_t]),
        "orx_artifact_num_inputs": (size_t, [p]),
        "orx_artifact_num_outputs": (size_t, [p]),
        "orx_artifact_input_info": (status, [p, size_t,
                                             ctypes.POINTER(_TensorInfoC)]),
        "orx_artifact_output_info": (status, [p, size_t,
                                              ctypes.POINTER(_TensorInfoC)]),
        "orx_session_create": (status, [p, ctypes.POINTER(p)]),
        "orx_session_free": (None, [p]),
        "orx_session_run": (status, [p, ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(size_t), size_t,
                                     ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(size_t), size_t]),
        "orx_artifact_num_dims": (size_t, [p]),
        "orx_artifact_dim_info": (status, [p, size_t,
                                           ctypes.POINTER(ctypes.c_char_p),
                                           ctypes.POINTER(ctypes.c_int64),
                                           ctypes.POINTER(ctypes.c_int64)]),
        "orx_session_set_input_shape": (status, [p, size_t,
                                                 ctypes.POINTER(ctypes.c_int64),
                                                 size_t]),
        "orx_session_output_shape": (status, [p, size_t,
                                              ctypes.POINTER(ctypes.c_int64),
                                              size_t, ctypes.POINTER(size_t)]),
        "orx_session_trace_size": (size_t, [p]),
        "orx_session_trace_event": (status, [p, size_t,
                                             ctypes.POINTER(_TraceEventC)]),
        "orx_session_trace_selected": (ctypes.c_int, [p, size_t]),
        "orx_session_replace_kernel": (status, [p, ctypes.c_char_p,
                                                ctypes.c_char_p, size_t,
                                                ctypes.c_char_p]),
        "orx_session_branch_profile_size": (status, [p,
                                                     ctypes.POINTER(size_t)]),
        "orx_session_branch_profile_record": (
            status, [p, size_t, ctypes.POINTER(_BranchRecordC)]),
        "orx_session_branch_profile_reset": (status, [p]),
    }
    for name, (restype, argtypes) in signatures.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise Error(f"'{path}' is not the OrchestraOS runtime: it has no "
                        f"{name}") from None
        function.restype, function.argtypes = restype, argtypes
    _lib = lib
    return lib


def _check(status, context=None):
    """Raises Error with the message of a failed call's status."""
    if status:
        lib = load_library()
        message = lib.orx_status_message(status).decode()
        lib.orx_status_free(status)
        raise Error(f"{context}: {message}" if context else message)


def _info(raw):
    dtype = load_library().orx_dtype_name(raw.dtype)
    return TensorInfo(raw.name.decode(),
                      dtype.decode() if dtype else f"unknown ({raw.dtype})",
                      tuple(raw.dims[i] for i in range(raw.rank)),
                      raw.byte_size)


class Artifact:
    """A compiled artifact, read and validated from a file path or from
    bytes."""

    def __init__(self, source):
        lib = load_library()
        handle = ctypes.c_void_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            data = bytes(source)
            _check(lib.orx_artifact_load_memory(data, len(data),
                                                ctypes.byref(handle)),
                   "cannot load the artifact")
            self.path = None
        else:
            self.path = os.fspath(source)
            _check(lib.orx_artifact_load_file(self.path.encode(),
                                              ctypes.byref(handle)),
                   f"cannot load '{self.path}'")
        self._handle = handle

    def close(self):
        """Releases the artifact (sessions made from it stay valid)."""
        if self._handle:
            load_library().orx_artifact_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __del__(self):
        if _lib is not None and getattr(self, "_handle", None):
            self.close()

    def _get(self):
        if not self._handle:
            raise Error("the artifact was closed")
        return self._handle

    @property
    def entry_name(self):
        return load_library().orx_artifact_entry_name(self._get()).decode()

    @property
    def topology_name(self):
        return load_library().orx_artifact_topology_name(self._get()).decode()

    @property
    def producer(self):
        return load_library().orx_artifact_producer(self._get()).decode()

    @property
    def hash(self):
        """The FNV-1a hash of the payload (what names the artifact to the
        feedback service)."""
        return load_library().orx_artifact_hash(self._get())

    @property
    def devices(self):
        """(name, arch) of each device of the topology."""
        lib, h = load_library(), self._get()
        return [(lib.orx_artifact_device_name(h, i).decode(),
                 lib.orx_artifact_device_arch(h, i).decode())
                for i in range(lib.orx_artifact_num_devices(h))]

    def _infos(self, count, get, what):
        h = self._get()
        infos = []
        for i in range(count(h)):
            raw = _TensorInfoC()
            _check(get(h, i, ctypes.byref(raw)), f"{what} {i}")
            infos.append(_info(raw))
        return infos

    @property
    def dims(self):
        """(name, min, max) of each dynamic dim (an input's dimension of
        size -1 takes its size from the run's input, within the range)."""
        lib, h = load_library(), self._get()
        dims = []
        for i in range(lib.orx_artifact_num_dims(h)):
            name, low, high = (ctypes.c_char_p(), ctypes.c_int64(),
                               ctypes.c_int64())
            _check(lib.orx_artifact_dim_info(h, i, ctypes.byref(name),
                                             ctypes.byref(low),
                                             ctypes.byref(high)))
            dims.append((name.value.decode(), low.value, high.value))
        return dims

    @property
    def inputs(self):
        lib = load_library()
        return self._infos(lib.orx_artifact_num_inputs,
                           lib.orx_artifact_input_info, "input")

    @property
    def outputs(self):
        lib = load_library()
        return self._infos(lib.orx_artifact_num_outputs,
                           lib.orx_artifact_output_info, "output")


def _as_input(array, info, index):
    """`array` as a C-contiguous numpy array of `info`'s type and shape (a
    list or scalar is converted to that type; an array must have it)."""
    expected = _NUMPY_TYPES.get(info.dtype)
    if expected is None:
        raise Error(f"input {index} ('{info.name}') has the unknown element "
                    f"type {info.dtype}")
    if not isinstance(array, np.ndarray):
        try:
            array = np.asarray(array, dtype=None if info.dtype == "bf16"
                               else expected)
        except (TypeError, ValueError) as e:
            raise Error(f"input {index} ('{info.name}'): {e}") from None
    if info.dtype == "bf16" and array.dtype.name == "bfloat16":
        array = array.view(np.uint16)
    matches = len(array.shape) == len(info.shape) and all(
        want in (-1, got) for want, got in zip(info.shape, array.shape))
    if array.dtype != np.dtype(expected) or not matches:
        shape = "x".join("?" if d == -1 else str(d)
                         for d in info.shape) or "scalar"
        got = "x".join(map(str, array.shape)) or "scalar"
        hint = " (bf16 data is passed as its uint16 bits)" \
            if info.dtype == "bf16" else ""
        raise Error(f"input {index} ('{info.name}') must be {info.dtype} "
                    f"{shape}{hint}, not {array.dtype.name} {got}")
    return np.ascontiguousarray(array)


class Session:
    """An artifact prepared for running on this machine's devices: arenas
    allocated, constants copied, kernels loaded. Use it as a context manager
    or close() it; one run at a time."""

    def __init__(self, artifact):
        if not isinstance(artifact, Artifact):
            artifact = Artifact(artifact)
        lib = load_library()
        self.inputs, self.outputs = artifact.inputs, artifact.outputs
        handle = ctypes.c_void_p()
        where = f"'{artifact.path}'" if artifact.path else "the artifact"
        _check(lib.orx_session_create(artifact._get(), ctypes.byref(handle)),
               f"cannot prepare {where}")
        self._handle = handle

    def close(self):
        if self._handle:
            load_library().orx_session_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if _lib is not None and getattr(self, "_handle", None):
            self.close()

    def run(self, *inputs):
        """Runs the plan on `inputs` (numpy arrays, in entry-argument order);
        returns the outputs as a list of new numpy arrays."""
        if not self._handle:
            raise Error("the session was closed")
        if len(inputs) != len(self.inputs):
            raise Error(f"the entry takes {len(self.inputs)} inputs, not "
                        f"{len(inputs)}")
        arrays = [_as_input(a, info, i)
                  for i, (a, info) in enumerate(zip(inputs, self.inputs))]
        lib = load_library()
        # Dynamic inputs run at their arrays' shapes; outputs get theirs.
        for i, (array, info) in enumerate(zip(arrays, self.inputs)):
            if -1 in info.shape:
                shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
                _check(lib.orx_session_set_input_shape(
                    self._handle, i, shape, array.ndim))
        shapes = []
        for i, info in enumerate(self.outputs):
            if -1 not in info.shape:
                shapes.append(info.shape)
                continue
            shape = (ctypes.c_int64 * max(len(info.shape), 1))()
            rank = ctypes.c_size_t()
            _check(lib.orx_session_output_shape(
                self._handle, i, shape, len(info.shape), ctypes.byref(rank)))
            shapes.append(tuple(shape[k] for k in range(rank.value)))
        outputs = [np.empty(shape, _NUMPY_TYPES[info.dtype])
                   for shape, info in zip(shapes, self.outputs)]
        n, m = len(arrays), len(outputs)
        in_ptrs = (ctypes.c_void_p * max(n, 1))(
            *[a.ctypes.data for a in arrays])
        in_sizes = (ctypes.c_size_t * max(n, 1))(*[a.nbytes for a in arrays])
        out_ptrs = (ctypes.c_void_p * max(m, 1))(
            *[o.ctypes.data for o in outputs])
        out_sizes = (ctypes.c_size_t * max(m, 1))(*[o.nbytes for o in outputs])
        _check(load_library().orx_session_run(self._handle, in_ptrs, in_sizes,
                                              n, out_ptrs, out_sizes, m),
               "the run failed")
        return outputs

    def replace_kernel(self, symbol, binary, format="elf-shared-object"):
        """Replaces kernel SYMBOL in every step that launches it by the
        kernel of that symbol in BINARY (bytes, a kernel binary of FORMAT for
        the same devices), from the next run on; waits for a run in
        progress. Raises Error (and the old kernel stays) when the binary is
        refused."""
        if not self._handle:
            raise Error("the session was closed")
        data = bytes(binary)
        _check(load_library().orx_session_replace_kernel(
            self._handle, symbol.encode(), data, len(data), format.encode()))

    def replace_artifact(self, artifact):
        """Replaces the session's plan by ARTIFACT's (an Artifact whose
        entry has the same inputs and outputs) from the next run on; waits
        for a run in progress. Raises Error (and the old plan stays) when it
        is refused."""
        if not self._handle:
            raise Error("the session was closed")
        _check(load_library().orx_session_replace_artifact(self._handle,
                                                           artifact._get()))

    def branch_profile(self):
        """The branch counters of the artifact's profiled kernels, a list
        of BranchRecord (empty without --profile-branches); waits for a run
        in progress."""
        if not self._handle:
            raise Error("the session was closed")
        lib = load_library()
        count = ctypes.c_size_t()
        _check(lib.orx_session_branch_profile_size(self._handle,
                                                   ctypes.byref(count)))
        records = []
        for i in range(count.value):
            raw = _BranchRecordC()
            _check(lib.orx_session_branch_profile_record(self._handle, i,
                                                         ctypes.byref(raw)))
            records.append(BranchRecord(
                raw.kernel.decode(), raw.branch_id, raw.location.decode(),
                raw.device.decode(), raw.hardware_id.decode(),
                raw.invocation_count, raw.then_count, raw.else_count,
                raw.warps, raw.divergent_warps, raw.input_shape_hash))
        return records

    def reset_branch_profile(self):
        """Zeroes the branch counters and launch counts."""
        if not self._handle:
            raise Error("the session was closed")
        _check(load_library().orx_session_branch_profile_reset(self._handle))

    def trace(self):
        """The steps of the last run (empty before the first run)."""
        if not self._handle:
            raise Error("the session was closed")
        lib = load_library()
        events = []
        for i in range(lib.orx_session_trace_size(self._handle)):
            raw = _TraceEventC()
            _check(lib.orx_session_trace_event(self._handle, i,
                                               ctypes.byref(raw)))
            selected = lib.orx_session_trace_selected(self._handle, i)
            events.append(TraceEvent(
                raw.name.decode(),
                _STEP_KINDS.get(raw.kind, "unknown"),
                raw.device, raw.start_ns, raw.end_ns,
                raw.predicted_start if raw.predicted_start >= 0 else None,
                raw.predicted_finish if raw.predicted_finish >= 0 else None,
                raw.device_ns, None if selected < 0 else bool(selected)))
        return events
