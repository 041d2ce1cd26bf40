"""Runs a model compiled with dynamic dimensions at several sizes and
compares each output with ONNX Runtime's on the same inputs.

    dynamic_ops.py MODEL.onnx MODEL.orcx ORCHESTRA-RUN OUT-DIR N,N...

Every symbolic dimension of every input takes the size N in turn (token
inputs get ids in [0, 2)); prints one line per size and output.
"""
import os
import subprocess
import sys

import numpy as np
import onnxruntime as ort


def main():
    model, artifact, runner, out_dir = sys.argv[1:5]
    sizes = [int(n) for n in sys.argv[5].split(",")]
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    failed = False
    for n in sizes:
        run_dir = os.path.join(out_dir, "n%d" % n)
        os.makedirs(run_dir, exist_ok=True)
        feeds, args = {}, []
        for info in session.get_inputs():
            shape = [d if isinstance(d, int) else n for d in info.shape]
            if info.type == "tensor(bool)":
                value = rng.random(shape) > 0.5
            elif info.type == "tensor(int64)":
                value = rng.integers(0, 2, shape).astype(np.int64)
            else:
                value = rng.standard_normal(shape).astype(np.float32)
            path = os.path.join(run_dir, info.name + ".npy")
            np.save(path, value)
            feeds[info.name] = value
            args += ["--input", "%s=%s" % (info.name, path)]
        expected = session.run(None, feeds)
        subprocess.run([runner, artifact, *args, "--output-dir", run_dir,
                        "--quiet"], check=True)
        for k, want in enumerate(expected):
            got = np.load(os.path.join(run_dir, "output_%d.npy" % k))
            if got.shape != want.shape:
                print("size %d output %d: shape %s, expected %s" %
                      (n, k, got.shape, want.shape))
                failed = True
            elif not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                print("size %d output %d: max error %g" %
                      (n, k, np.abs(got.astype(np.float64) - want).max()))
                failed = True
            else:
                print("size %d output %d: match %s" % (n, k, list(got.shape)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
