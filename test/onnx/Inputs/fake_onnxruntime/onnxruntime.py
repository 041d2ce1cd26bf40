"""A stand-in for onnxruntime that misbehaves on purpose, for the
conformance runner's peer tests (conformance-onnxruntime.test): on
PYTHONPATH before the real one, it makes the peer of
`orchestra-onnx-conformance --peer=onnxruntime` fail to start, crash or hang,
chosen by FAKE_ONNXRUNTIME:

  missing  importing it fails, as without onnxruntime
  unstable a model whose path contains 'int64' spins forever; 'relu' kills
           the process with SIGSEGV; 'add_wrong' closes the process's stdin
           (it ends when it reads the next request, which the runner then
           fails to write); any cannot load
"""
import os
import signal

mode = os.environ.get("FAKE_ONNXRUNTIME", "missing")
if mode == "missing":
    raise ImportError("No module named 'onnxruntime'")

__version__ = "0.0-fake"


def set_default_logger_severity(level):
    pass


def set_seed(seed):
    pass


class OrtValue:
    pass


class GraphOptimizationLevel:
    ORT_ENABLE_ALL = 99


class SessionOptions:
    pass


class InferenceSession:

    def __init__(self, path, options=None, providers=None):
        if "int64" in path:
            while True:
                pass
        if "relu" in path:
            os.kill(os.getpid(), signal.SIGSEGV)
        if "add_wrong" in path:
            os.close(0)
        raise RuntimeError("fake onnxruntime: cannot load %s" %
                           os.path.basename(os.path.dirname(path)))
