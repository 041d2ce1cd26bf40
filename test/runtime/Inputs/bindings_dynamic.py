"""Runs an artifact compiled for a dynamic sequence length (test/e2e/
dynamic-seq.mlir: attention over x[seq, 64]) through the Python bindings at
two lengths, against numpy, then out of its range."""

import sys

import numpy as np
import orchestra_rt

artifact = orchestra_rt.Artifact(sys.argv[1])
print("dims:", artifact.dims)
print("inputs:", [(i.dtype, i.shape) for i in artifact.inputs])
with orchestra_rt.Session(artifact) as session:
    rng = np.random.default_rng(7)
    for seq in (3, 100):
        x = rng.uniform(-1, 1, (seq, 64)).astype(np.float32)
        (y,) = session.run(x)
        s = x.astype(np.float64) @ x.T
        e = np.exp(s - s.max(axis=1, keepdims=True))
        ref = (e / e.sum(axis=1, keepdims=True)) @ x
        ok = y.shape == (seq, 64) and np.allclose(y, ref, rtol=1e-4, atol=1e-4)
        print(f"seq {seq}:", "matches numpy" if ok else "MISMATCH")
    try:
        session.run(np.zeros((129, 64), np.float32))
    except orchestra_rt.Error as e:
        print("error:", e)
