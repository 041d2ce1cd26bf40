#!/usr/bin/env python3
"""A PyTorch model with data-dependent control flow, as users write and export
it: a TorchScript module (Debian's PyTorch 1.13) whose `if` tests the sum of
its input and whose `for` runs an input-given number of times, exported to
ONNX (If, Loop). Compiled once per topology and run for both branches and two
trip counts against PyTorch.

  torch_control_flow.py DIR TOPOLOGY...

A TOPOLOGY of gpu:nvidia or gpu:amd compiles for that GPU alone and runs the
plan in its emulator (case_runner.emulate). Prints a line per topology and
run; exits 1 on a mismatch. Needs torch, onnx, numpy and
orchestra-compile/orchestra-run on PATH.
"""

import os
import subprocess
import sys

import numpy as np
import torch

import case_runner


class Branchy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 16)
        self.b = torch.nn.Linear(16, 16)

    def forward(self, x, n: int):
        if bool(x.sum() > 0):
            y = torch.relu(self.a(x))
        else:
            y = torch.tanh(self.b(x))
        for _ in range(n):
            y = y * 0.5 + x
        return y


def main():
    directory, topologies = sys.argv[1], sys.argv[2:]
    os.makedirs(directory, exist_ok=True)
    torch.manual_seed(0)
    model = torch.jit.script(Branchy())
    example = torch.randn(4, 16)
    path = os.path.join(directory, "branchy.onnx")
    torch.onnx.export(model, (example, 3), path, opset_version=13,
                      input_names=["x", "n"], output_names=["y"])
    failures = 0
    for k, topology in enumerate(topologies):
        gpu = topology[4:] if topology.startswith("gpu:") else None
        artifact = os.path.join(directory, "branchy%d.orcx" % k)
        if not gpu:
            subprocess.run(["orchestra-compile", path, "--topology", topology,
                            "-o", artifact, "--quiet"], check=True)
        for sign in (1, -1):
            for trips in (3, 0):
                x = torch.randn(4, 16).abs() * sign
                inputs = {"x": os.path.join(directory, "x.npy"),
                          "n": os.path.join(directory, "n.npy")}
                np.save(inputs["x"], x.numpy())
                np.save(inputs["n"], np.array(trips, np.int64))
                out = os.path.join(directory, "out")
                if gpu:
                    case_dir = os.path.join(directory, "%s-%d-%d" % (
                        gpu, sign, trips))
                    os.makedirs(case_dir, exist_ok=True)
                    problem = case_runner.emulate(path, inputs, case_dir, gpu)
                    if problem:
                        sys.exit("%s: %s" % (topology, problem))
                    out = os.path.join(case_dir, "out")
                else:
                    subprocess.run(
                        ["orchestra-run", artifact, "--input",
                         "x=" + inputs["x"], "--input", "n=" + inputs["n"],
                         "--output-dir", out, "--quiet"], check=True)
                got = np.load(os.path.join(out, "output_0.npy"))
                want = model(x, trips).detach().numpy()
                ok = np.allclose(got, want, rtol=1e-5, atol=1e-5)
                failures += not ok
                print("%s: sum %s, %d trips: %s" % (
                    os.path.basename(topology), "> 0" if sign > 0 else "< 0",
                    trips, "match" if ok else "max error %g" %
                    np.abs(got - want).max()))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
