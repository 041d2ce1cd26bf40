"""Checks the runtime's Python bindings on an artifact compiled for the host
from test/e2e/mlp.mlir (x 64x32, three dense layers to 64x10): usage
bindings_api.py ARTIFACT REFERENCE_DIR, where REFERENCE_DIR holds the inputs
(e2e.py gen) and orchestra-run's outputs (out/output_0.npy). Prints one line
per check; raises on the first failure."""
import os
import sys

import numpy as np

import orchestra_rt

path, ref = sys.argv[1], sys.argv[2]
names = ["x", "w1", "b1", "w2", "b2", "w3", "b3"]
inputs = [np.load(os.path.join(ref, f"{n}.npy")) for n in names]
expected = np.load(os.path.join(ref, "out", "output_0.npy"))

artifact = orchestra_rt.Artifact(path)
print("entry:", artifact.entry_name, "topology:", artifact.topology_name)
print("devices:", artifact.devices)
print("inputs:", [(i.dtype, i.shape, i.byte_size) for i in artifact.inputs])
print("outputs:", [(o.dtype, o.shape) for o in artifact.outputs])

with orchestra_rt.Session(artifact) as session:
    (y,) = session.run(*inputs)
    assert y.dtype == np.float32 and y.shape == (64, 10)
    assert np.array_equal(y, expected), "differs from orchestra-run's output"
    print("run: same as orchestra-run")
    events = session.trace()
    assert events and all(e.end_ns >= e.start_ns for e in events)
    print("trace:", [(e.kind, e.device) for e in events])
    # Non-contiguous inputs are copied; lists are converted.
    x = np.asfortranarray(inputs[0])
    (y2,) = session.run(x, *[a.tolist() for a in inputs[1:]])
    assert np.array_equal(y2, expected)
    print("run: non-contiguous and list inputs")

    def error(*args):
        try:
            session.run(*args)
        except orchestra_rt.Error as e:
            return str(e)
        raise AssertionError("no error")

    print("error:", error(*inputs[:6]))
    print("error:", error(inputs[0].astype(np.float64), *inputs[1:]))
    print("error:", error(inputs[0][:, :16], *inputs[1:]))
    # A refused replacement of a kernel leaves the old one running.
    try:
        session.replace_kernel("nope", b"not a kernel binary")
        raise AssertionError("no error")
    except orchestra_rt.Error as e:
        print("replace:", e)
    assert np.array_equal(session.run(*inputs)[0], expected)

# An artifact in memory runs the same; a session stays valid after its
# artifact is closed.
with open(path, "rb") as f:
    data = f.read()
in_memory = orchestra_rt.Artifact(data)
session = orchestra_rt.Session(in_memory)
in_memory.close()
assert np.array_equal(session.run(*inputs)[0], expected)
session.close()
print("in memory: same")
try:
    session.run(*inputs)
except orchestra_rt.Error as e:
    print("error:", e)
try:
    orchestra_rt.Artifact(data[:100])
except orchestra_rt.Error as e:
    print("error:", e)
