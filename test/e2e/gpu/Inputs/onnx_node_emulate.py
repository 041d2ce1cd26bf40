#!/usr/bin/env python3
"""The ONNX backend node tests on an NVIDIA or AMD GPU, without a GPU: each
test's model is compiled for a GPU-only topology and its plan run through
the PTX emulator (python/ptx_emulator: run-plan) or, with --gpu amd, the
AMD one (python/amdgpu_emulator: run-plan), and the
outputs are compared with the test's expected outputs (floats: rtol 1e-3,
atol 1e-7 as orchestra-onnx-conformance; integers and bools exactly).

  onnx_node_emulate.py [--build BUILD] [--gpu nvidia|amd] [--data-dir DIR]
                       [--filter REGEX] [--tests NAME,...] [--topology FILE]
                       [--jobs N]
                       [--timeout SECONDS] [--report FILE] [--expect FILE]

Prints per test PASS, FAIL (a wrong output, an emulator error: a
miscompiled kernel or one the emulator cannot model; or a compile error
that is not 'unsupported'), HOSTFAIL (a wrong output that the model
compiled for this machine's CPU gives too: not the GPU's doing), CPU (no
GPU of the topology can run a task of the model: it stays on the CPU where
there is one) or UNSUPPORTED (the importer does not take the model), then
the counts. Exits 1 if a test failed; with --expect FILE (a test name per
line, '#' comments), 1 if a test FILE lists does not pass, whatever the
others do. Needs the compiler, numpy and the onnx Python package, no GPU.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
# The PTX emulator is the package python/ptx_emulator: run as
# `python3 -m ptx_emulator` with python/ on PYTHONPATH (set here for the
# subprocesses too).
PYTHON_DIR = os.path.join(ROOT, "python")
os.environ["PYTHONPATH"] = os.pathsep.join(
    [PYTHON_DIR] + [p for p in [os.environ.get("PYTHONPATH")] if p])
EMULATORS = {"nvidia": [sys.executable, "-m", "ptx_emulator"],
             "amd": [sys.executable, "-m", "amdgpu_emulator"]}
DATA = "/usr/share/libonnx-testdata/data/node"
RTOL, ATOL = 1e-3, 1e-7
sys.path.insert(0, PYTHON_DIR)
import ptx_emulator  # noqa: E402  (its plan parser and dtypes)


def load_tensor(path):
    """The tensor of an ONNX .pb file, and whether it is bf16 (whose bits it
    holds as uint16)."""
    import onnx
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    array = numpy_helper.to_array(tensor)
    bf16 = tensor.data_type == onnx.TensorProto.BFLOAT16
    return (array.view(np.uint16) if bf16 else array), bf16


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def as_dtype(array, dtype):
    """`array` in `dtype`: the same bits where only signedness differs (the
    importer keeps unsigned tensors in signless integers)."""
    if array.dtype == dtype:
        return array
    if array.dtype.kind in "iu" and np.dtype(dtype).kind in "iu" and \
            array.dtype.itemsize == np.dtype(dtype).itemsize:
        return array.view(dtype)
    return array.astype(dtype)


def compare(expected, actual):
    """None, or why `actual` is not `expected`."""
    if expected.shape != actual.shape:
        return f"shape {actual.shape}, expected {expected.shape}"
    if expected.dtype.kind in "iub":
        actual = as_dtype(actual, expected.dtype)
        bad = np.count_nonzero(expected != actual)
        return f"{bad} of {expected.size} elements differ" if bad else None
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    if np.allclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    with np.errstate(invalid="ignore"):
        diff = np.abs(a - e)
    diff[(np.isnan(a) & np.isnan(e)) | (a == e)] = 0
    diff[np.isnan(diff)] = np.inf
    i = np.unravel_index(np.argmax(diff), diff.shape)
    return (f"max abs error {diff[i]:.3g} at {list(map(int, i))}: "
            f"{a[i]:.6g}, expected {e[i]:.6g}")


def host_outputs(args, test_dir, tmp, emulate_command):
    """The outputs of the model compiled for and run on this machine, with
    the inputs the emulation took; None if it does not compile or run."""
    artifact = os.path.join(tmp, "host.orcx")
    inputs = [emulate_command[i + 1] for i, a in enumerate(emulate_command)
              if a == "--input"]
    out = os.path.join(tmp, "host-out")
    try:
        subprocess.run([os.path.join(args.build, "bin", "orchestra-compile"),
                        os.path.join(test_dir, "model.onnx"), "--topology",
                        "host", "-o", artifact, "--quiet"], check=True,
                       capture_output=True, timeout=args.timeout)
        subprocess.run([os.path.join(args.build, "bin", "orchestra-run"),
                        artifact, "--output-dir", out, "--quiet"] +
                       [x for path in inputs for x in ("--input", path)],
                       check=True, capture_output=True, timeout=args.timeout)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    return [np.load(os.path.join(out, f"output_{i}.npy"))
            for i in range(len(glob.glob(os.path.join(out, "output_*.npy"))))]


def run_test(args, test_dir):
    """(status, detail) of one node test."""
    name = os.path.basename(test_dir.rstrip("/"))
    with tempfile.TemporaryDirectory() as tmp:
        artifact = os.path.join(tmp, "m.orcx")
        try:
            compiled = subprocess.run(
                [os.path.join(args.build, "bin", "orchestra-compile"),
                 os.path.join(test_dir, "model.onnx"), "--topology",
                 args.topology, "-o", artifact, "--dump-device-code",
                 os.path.join(tmp, "ptx"), "--quiet"],
                capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return "FAIL", "compile timed out"
        if compiled.returncode:
            error = next((line for line in compiled.stderr.splitlines()
                          if "error:" in line), compiled.stderr.strip())
            error = re.sub(r"^.*?error: ", "", error)
            if "can run this op's task" in error:
                return "CPU", error
            if "unsupported" in error or "no default-domain opset" in error:
                return "UNSUPPORTED", error
            return "FAIL", "compile: " + error
        describe = subprocess.run(
            [os.path.join(args.build, "bin", "orchestra-run"), "--describe=json",
             "--dump-constants", os.path.join(tmp, "constants"), artifact],
            capture_output=True, text=True, check=True).stdout
        plan = os.path.join(tmp, "plan.json")
        with open(plan, "w") as f:
            f.write(describe)
        declared = ptx_emulator.parse_plan(describe)["inputs"]
        dtypes = [ptx_emulator.PLAN_DTYPES[d] for _, d, _, _ in declared]
        data = os.path.join(test_dir, "test_data_set_0")
        inputs = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                        key=lambda p: int(re.findall(r"\d+", p)[-1]))
        command = EMULATORS[args.gpu] + ["run-plan", plan,
                   os.path.join(tmp, "ptx"), "--output-dir",
                   os.path.join(tmp, "out"), "--constants",
                   os.path.join(tmp, "constants")]
        if args.gpu == "amd":
            command += ["--emulator",
                        os.path.join(args.build, "bin", "orchestra-amdgpu-emulate")]
        if len(inputs) != len(dtypes):
            return "FAIL", (f"the artifact takes {len(dtypes)} input(s), the "
                            f"test has {len(inputs)}")
        for i, (path, dtype) in enumerate(zip(inputs, dtypes)):
            npy = os.path.join(tmp, f"input_{i}.npy")
            array = load_tensor(path)[0]
            if tuple(array.shape) != tuple(declared[i][2]):
                return "HOSTFAIL", (f"the test's input {i} has shape "
                                    f"{list(array.shape)}, the model's "
                                    f"{list(declared[i][2])} (no device can "
                                    f"run it)")
            np.save(npy, as_dtype(array, dtype))
            command += ["--input", npy]
        try:
            emulated = subprocess.run(command, capture_output=True, text=True,
                                      timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return "FAIL", "emulation timed out"
        if emulated.returncode:
            text = (emulated.stdout + emulated.stderr).strip().splitlines()
            return "FAIL", "emulator: " + (text[-1] if text else "failed")
        outputs = sorted(glob.glob(os.path.join(data, "output_*.pb")),
                         key=lambda p: int(re.findall(r"\d+", p)[-1]))
        import onnx
        declared = [o.type.tensor_type.elem_type for o in onnx.load(
            os.path.join(test_dir, "model.onnx"),
            load_external_data=False).graph.output]
        for i, path in enumerate(outputs):
            expected, bf16 = load_tensor(path)
            # Some tests store bf16 outputs as UINT16: the model says.
            bf16 |= i < len(declared) and \
                declared[i] == onnx.TensorProto.BFLOAT16
            got = np.load(os.path.join(tmp, "out", f"output_{i}.npy"))
            if bf16:  # values, not bits: NaNs differ in their payloads
                expected, got = bf16_values(expected), bf16_values(got)
            why = compare(expected, got)
            if why:
                # Where the CPU gives the same wrong answer, the model (or
                # the test's data) is the trouble, not the GPU's kernels.
                host = host_outputs(args, test_dir, tmp, command)
                mine = host[i] if host is not None and i < len(host) else None
                if mine is not None and bf16:
                    mine = bf16_values(mine)
                if mine is not None and compare(expected, mine) and \
                        compare(as_dtype(mine, got.dtype)
                                if mine.dtype.kind in "iub" else mine,
                                got) is None:
                    return "HOSTFAIL", f"output {i}: {why} (the CPU's too)"
                return "FAIL", f"output {i}: {why}"
        steps = len(json.loads(describe)["steps"])
        return "PASS", f"{steps} GPU step(s)"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--data-dir", default=DATA)
    parser.add_argument("--filter", default="", metavar="REGEX")
    parser.add_argument("--tests", default="", metavar="NAME,...")
    parser.add_argument("--gpu", choices=sorted(EMULATORS), default="nvidia")
    parser.add_argument("--topology", help="default: test/e2e/gpu/Inputs/"
                        "hopper.json (nvidia), topologies/mi300x.json (amd)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--report", metavar="FILE",
                        help="also write every test's line to FILE")
    parser.add_argument("--expect", metavar="FILE",
                        help="the tests that must pass (one per line)")
    parser.add_argument("--sample", type=int, default=1, metavar="N",
                        help="run every Nth test of the selection (a fixed "
                        "sample, offset by N/2 for --gpu amd so that the two "
                        "GPUs cover different tests): the lit suite on a "
                        "sanitized build, where compiles take twice as long")
    args = parser.parse_args()
    if not args.topology:
        args.topology = (
            os.path.join(ROOT, "test", "e2e", "gpu", "Inputs", "hopper.json")
            if args.gpu == "nvidia" else
            os.path.join(ROOT, "topologies", "mi300x.json"))
    names = sorted(os.listdir(args.data_dir))
    if args.tests:
        wanted = args.tests.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"no node test named {', '.join(unknown)}")
        names = wanted
    names = [n for n in names if re.search(args.filter, n)]
    expected = None
    if args.expect:
        with open(args.expect) as f:
            expected = {line.split("#")[0].strip() for line in f} - {""}
        unknown = sorted(expected - set(os.listdir(args.data_dir)))
        if unknown:
            parser.error(f"{args.expect} names tests that do not exist: "
                         f"{', '.join(unknown[:5])}")
        if not args.tests and not args.filter:
            names = sorted(expected)
    if args.sample > 1:
        offset = args.sample // 2 if args.gpu == "amd" else 0
        names = names[offset::args.sample]
    start = time.perf_counter()
    counts = {}
    lines = []
    passed = set()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_test, args,
                               os.path.join(args.data_dir, n)): n
                   for n in names}
        for future in concurrent.futures.as_completed(futures):
            try:
                status, detail = future.result()
            except Exception as e:  # a test's failure, whatever it is
                status, detail = "FAIL", f"{type(e).__name__}: {e}"
            counts[status] = counts.get(status, 0) + 1
            if status == "PASS":
                passed.add(futures[future])
            line = f"{status} {futures[future]}: {detail}"
            lines.append(line)
            print(line, flush=True)
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(sorted(lines)) + "\n")
    print(f"onnx_node_emulate: {len(names)} test(s) in "
          f"{time.perf_counter() - start:.0f} s: " +
          ", ".join(f"{counts.get(s, 0)} {s.lower()}"
                    for s in ("PASS", "FAIL", "HOSTFAIL", "CPU",
                              "UNSUPPORTED")))
    if expected is not None:
        missing = sorted((expected & set(names)) - passed)
        if missing:
            print(f"onnx_node_emulate: {len(missing)} test(s) that "
                  f"{args.expect} expects to pass did not: "
                  f"{', '.join(missing)}")
        return 1 if missing else 0
    return 1 if counts.get("FAIL") else 0


if __name__ == "__main__":
    sys.exit(main())
