#!/usr/bin/env python3
"""The GPU end-to-end checks, compiled on one machine and run on another.

  gpu_bundle.py prepare DIR [--build BUILD] [--models [NAME,...]]
                        [--only NAME,...] [--topology T] [--host-cpu CPU]
                        [--host-threads N] [--no-programs]
      compile every program below for its topology into DIR/<case>/, with
      the runtime library (and the OpenMP runtime its CPU kernels need) and
      a manifest (needs the compiler, no GPU);
      --models adds the ONNX real models (all four, or those named) on
      cpu+hopper (needs torch and torchvision to export them; ResNet-18
      makes the bundle ~47 MB larger); --topology compiles every case for T
      instead (`host` checks the bundle's own machinery on a machine without
      a GPU); --host-cpu compiles the CPU tasks for CPU (an LLVM CPU name,
      e.g. x86-64-v3) instead of this machine's CPU, for a GPU machine whose
      processor lacks some of this one's features (the runtime refuses
      kernels that need features the machine lacks); --host-threads N
      compiles them for N threads (the GPU machine's cores); --no-programs leaves
      the programs out (a bundle of models only)
  gpu_bundle.py emulate DIR [--build BUILD] [--only NAME,...]
      run the cases whose plans are all GPU steps through the PTX emulator
      (python/ptx_emulator: run-plan) on this machine,
      no GPU needed, and check them like `run`; cases with CPU steps are
      reported as not emulated
  gpu_bundle.py run DIR [--only NAME,...]
      generate each case's inputs, run its artifact through the runtime's
      Python bindings (python/orchestra_rt) and check the outputs against
      numpy (the programs) or PyTorch's (the models); needs a CUDA GPU,
      numpy and the bundle's liborchestra_rt.so, not the compiler. Prints a
      line per case and exits 1 if any failed.

programs-on-gpu.test runs both steps where lit finds a GPU; on a GPU machine
without LLVM and MLIR, prepare here and run there.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
E2E = os.path.join(ROOT, "test", "e2e", "Inputs", "e2e.py")
# The PTX emulator is the package python/ptx_emulator: run as
# `python3 -m ptx_emulator` with python/ on PYTHONPATH (set here for the
# subprocesses too).
PYTHON_DIR = os.path.join(ROOT, "python")
os.environ["PYTHONPATH"] = os.pathsep.join(
    [PYTHON_DIR] + [p for p in [os.environ.get("PYTHONPATH")] if p])
EMULATOR = [sys.executable, "-m", "ptx_emulator"]
# The environment of the Python tools this script starts (the emulator,
# e2e.py), which do not load the runtime library: without the sanitized
# build's preloaded ASan runtime (%rt_python sets LD_PRELOAD for the `run`
# command), whose allocator would otherwise serve every allocation of theirs
# at about twice the time.
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
MODELS_PY = os.path.join(ROOT, "test", "e2e", "onnx", "Inputs",
                         "torch_models.py")
HOPPER = "test/e2e/gpu/Inputs/hopper.json"
# hopper.json without warpgroup MMA: the mma.sync kernels.
HOPPER_MMA = "test/e2e/gpu/Inputs/hopper-mma.json"
CPU_HOPPER = "topologies/cpu+hopper.json"
# hopper.json with these target keys added.
DERIVED = {
    "hopper-wgmma": {"wgmma": True},
    "hopper-wgmma-256": {"wgmma": True, "wgmma_tile": "128x256"},
}
WGMMA, WGMMA_256 = "hopper-wgmma", "hopper-wgmma-256"

# name, program, topology, inputs (e2e.py gen), check (e2e.py arguments
# after the input and output directories are filled in).
PROGRAMS = [
    # The README's example: its weights are constants of the program (the
    # bias sunk into a kernel as a global of its module).
    ("example", "examples/mlp.mlir", HOPPER, "x:f32:8x32",
     ["check-example-mlp"]),
    ("mlp", "test/e2e/mlp.mlir", HOPPER,
     "x:f32:64x32 w1:f32:32x64 b1:f32:64 w2:f32:64x64 b2:f32:64 w3:f32:64x10 "
     "b3:f32:10", ["check", "mlp"]),
    ("softmax", "test/e2e/softmax.mlir", HOPPER, "x:f32:32x100",
     ["check", "softmax"]),
    ("layernorm", "test/e2e/layernorm.mlir", HOPPER,
     "x:f32:16x64 gamma:f32:64 beta:f32:64", ["check", "layernorm"]),
    ("tr", "test/e2e/transpose-reshape.mlir", HOPPER, "x:f32:8x16x4 y:f32:32x16",
     ["check", "transpose_reshape"]),
    ("conv", "test/e2e/conv.mlir", HOPPER,
     "x:f32:2x12x12x8 w:f32:3x3x8x16 b:f32:16", ["check", "conv"]),
    ("dtypes", "test/e2e/dtypes.mlir", HOPPER,
     "a:i32:16x16 b:i32:16x16 c:i32:8x32 h:f16:64", ["check", "dtypes"]),
    ("tb", "test/e2e/two-branch.mlir", CPU_HOPPER,
     "x:f32:192x192 wa:f32:192x192 wa2:f32:192x192 wb:f32:192x192 "
     "wb2:f32:192x192", ["check", "two_branch"]),
    # Matmuls whose sizes are not multiples of any tile (SIMT, f32; a
    # batch_matmul, GEMVs with fused bias and ReLU, K = 1030).
    ("rem", "test/e2e/matmul-remainders.mlir", HOPPER,
     "a:f32:50x37 b:f32:37x45 bias:f32:45 x:f32:3x50x37 y:f32:3x37x45 "
     "p:f32:130x200 q:f32:200x100 v:f32:1x300 w:f32:300x70 g:f32:1x96 "
     "h:f32:96x1100 hb:f32:1100 l:f32:20x1030 rr:f32:1030x1100 "
     "ta:f32:1030x50 tb:f32:50x40", ["check", "matmul_remainders"]),
    # Convolution, matmuls (f32, i64), iota-like index math and slices on
    # cpu+hopper: the scheduler splits them between the CPU and the GPU.
    ("mixed", "test/e2e/mixed-ops.mlir", CPU_HOPPER,
     "img:f32:1x9x9x4 w:f32:3x3x4x5 a:f32:33x17 b:f32:17x9 ia:i64:5x6 "
     "ib:i64:6x3 r:f32:13", ["check", "mixed_ops"]),
    # The acceptance programs: tensor cores (f16) and the SIMT path (f32).
    ("mm16", "test/Target/NVIDIA/Inputs/matmul-bias-relu-f16.mlir", CPU_HOPPER,
     "a:f16:512x1024 b:f16:1024x512 bias:f16:512",
     ["check-matmul-bias-relu", "0.5"]),
    ("mm32", "test/Target/NVIDIA/Inputs/matmul-bias-relu-f32.mlir", CPU_HOPPER,
     "a:f32:1024x1024 b:f32:1024x1024 bias:f32:1024",
     ["check-matmul-bias-relu", "1e-3"]),
    # ... and the f16 one on the GPU alone (what the emulator can run; the
    # f32 one's 1024^3 SIMT multiply-adds take it minutes).
    ("mm16g", "test/Target/NVIDIA/Inputs/matmul-bias-relu-f16.mlir", HOPPER,
     "a:f16:512x1024 b:f16:1024x512 bias:f16:512",
     ["check-matmul-bias-relu", "0.5"]),
    # The mma.sync K loop with 1, 2 and 3 pipeline stages (K = 32, 64,
    # 96; the second accumulates in f32).
    ("k32", "test/e2e/gpu/Inputs/mma-k32-f16.mlir", HOPPER_MMA,
     "a:f16:256x32 b:f16:32x512 bias:f16:512", ["check-matmul-bias-relu", "0.1"]),
    ("k64", "test/e2e/gpu/Inputs/mma-k64-f32acc.mlir", HOPPER_MMA,
     "a:f16:256x64 b:f16:64x512 bias:f32:512",
     ["check-matmul-bias-relu", "1e-3"]),
    ("k96", "test/e2e/gpu/Inputs/mma-k96-f16.mlir", HOPPER_MMA,
     "a:f16:128x96 b:f16:96x256 bias:f16:256", ["check-matmul-bias-relu", "0.2"]),
    # f16 with sizes that are no multiple of a tile (the SIMT path).
    ("mmrem", "test/e2e/gpu/Inputs/mma-remainder-f32acc.mlir", HOPPER,
     "a:f16:200x72 b:f16:72x136 bias:f32:136",
     ["check-matmul-bias-relu", "1e-3"]),
    # 128x128 tensor-core blocks in dynamic shared memory.
    ("big", "test/e2e/gpu/Inputs/mma-2048-f32acc.mlir", HOPPER_MMA,
     "a:f16:2048x256 b:f16:256x2048 bias:f32:2048",
     ["check-matmul-bias-relu", "1e-3"]),
    # ... and with the Hopper defaults, warpgroup MMA, in 128x128 blocks too:
    # a grid of 8x4 of them (the kernel of 2048x2048, whose 256 blocks take
    # the emulator a minute).
    ("bigwg", "test/e2e/gpu/Inputs/mma-512x1024-f32acc.mlir", HOPPER,
     "a:f16:512x256 b:f16:256x1024 bias:f32:1024",
     ["check-matmul-bias-relu", "1e-3"]),
    # bf16 operands, f32 accumulation, the result rounded to bf16 (half an
    # ulp of |x| < 16 is 2^-5).
    ("bf16", "test/e2e/gpu/Inputs/mma-bf16.mlir", HOPPER_MMA,
     "a:bf16:256x64 b:bf16:64x512 bias:f32:512",
     ["check-matmul-bias-relu", "0.04"]),
    # Warpgroup MMA (wgmma = true): f16 and bf16 (K = 512: results up to
    # |x| < 64, whose bf16 half ulp is 0.125).
    ("wg16", "test/e2e/gpu/Inputs/wgmma-f16.mlir", WGMMA,
     "a:f16:256x256 b:f16:256x256 bias:f32:256",
     ["check-matmul-bias-relu", "1e-3"]),
    ("wgbf", "test/e2e/gpu/Inputs/wgmma-bf16.mlir", WGMMA,
     "a:bf16:256x512 b:bf16:512x384 bias:f32:384",
     ["check-matmul-bias-relu", "0.13"]),
    # ... and in 128x256 blocks (wgmma_tile = "128x256").
    ("wg256", "test/Target/NVIDIA/Inputs/wgmma-f16-tile256.mlir", WGMMA_256,
     "a:f16:256x256 b:f16:256x512 bias:f32:512",
     ["check-matmul-bias-relu", "1e-3"]),
]
MODELS = ["mlp", "small_cnn", "transformer_encoder_layer", "resnet18"]
# What --models NAME,... may also name (test/e2e/onnx/Inputs/torch_models.py).
OTHER_MODELS = ["mobilenet_v2"]


def derive_topology(build, path, out, keys, units=None):
    """Writes to `out` the topology `path` with target keys set
    ({selector: {key: value}}, a selector a device name or an arch) and
    compute units changed ({selector: count}), through orchestra-topology
    (which checks the result against the registry)."""
    command = [os.path.join(build, "bin", "orchestra-topology"), path,
               "-o", out]
    for selector, values in keys.items():
        for key, value in values.items():
            command += ["--set", f"{selector}.{key}={json.dumps(value)}"]
    for selector, count in (units or {}).items():
        command += ["--compute-units", f"{selector}={count}"]
    subprocess.run(command, check=True)
    return out


def with_host(build, path, out_dir, cpu=None, threads=None):
    """The topology file `path` with its CPU devices' code generated for the
    LLVM CPU `cpu` (target key "cpu") and for `threads` threads (target key
    "num_threads" and the compute units), written into out_dir; `path`
    itself when neither is set or the topology has no CPU device."""
    if not (cpu or threads) or path == "host":
        return path
    with open(path) as f:
        devices = json.load(f)["devices"]
    cpus = [d["name"] for d in devices if d["arch"] in ("x86_64", "aarch64")]
    if not cpus:
        return path
    name = os.path.splitext(os.path.basename(path))[0]
    suffix = "".join(f".{v}" for v in (cpu, threads and f"{threads}t") if v)
    keys = {device: {} for device in cpus}
    for device in cpus:
        if cpu:
            keys[device]["cpu"] = cpu
        if threads:
            keys[device]["num_threads"] = threads
    return derive_topology(build, path,
                           os.path.join(out_dir, f"{name}{suffix}.json"), keys,
                           {device: threads for device in cpus} if threads
                           else None)


def copy_runtime(build, out_dir):
    """Copies the runtime library into out_dir, with the OpenMP runtime the
    CPU kernels link against (the runtime loads it from beside itself on a
    machine that has no LLVM)."""
    shutil.copy(os.path.join(build, "lib", "liborchestra_rt.so"), out_dir)
    omp_dir = "/usr/lib/llvm-22/lib"
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("ORCHESTRA_OPENMP_LIB:"):
                omp_dir = os.path.dirname(line.split("=", 1)[1].strip())
    omp = os.path.join(omp_dir, "libomp.so.5")
    if not os.path.exists(omp):
        sys.exit(f"gpu_bundle: {omp} does not exist (the CPU kernels' OpenMP "
                 f"runtime)")
    shutil.copy(omp, out_dir)  # the file the link names, not the link


def topology_path(build, topology, out_dir, host=None):
    """The topology file of a case; host: with_host's cpu and threads."""
    host = host or {}
    if topology == "host" or os.path.isabs(topology):
        return with_host(build, topology, out_dir, **host)
    if topology not in DERIVED and os.path.exists(topology):
        # Relative to where it runs.
        return with_host(build, os.path.abspath(topology), out_dir, **host)
    if topology not in DERIVED:
        return with_host(build, os.path.join(ROOT, topology), out_dir, **host)
    return derive_topology(build, os.path.join(ROOT, HOPPER),
                           os.path.join(out_dir, topology + ".json"),
                           {"nvidia_hopper": DERIVED[topology]})


def selected(names, only):
    if not only:
        return names
    wanted = set(only.split(","))
    unknown = wanted - set(names)
    if unknown:
        sys.exit(f"gpu_bundle: no case named {', '.join(sorted(unknown))} "
                 f"(the cases: {', '.join(names)})")
    return [n for n in names if n in wanted]


def prepare(args):
    compiler = os.path.join(args.build, "bin", "orchestra-compile")
    library = os.path.join(args.build, "lib", "liborchestra_rt.so")
    for path in (compiler, library):
        if not os.path.exists(path):
            sys.exit(f"gpu_bundle: {path} does not exist (build first)")
    os.makedirs(args.dir, exist_ok=True)
    host = {"cpu": args.host_cpu, "threads": args.host_threads}
    cases = []
    programs = {p[0]: p for p in PROGRAMS}
    for name in [] if args.no_programs else selected(list(programs),
                                                      args.only):
        _, program, topology, specs, check = programs[name]
        case_dir = os.path.join(args.dir, name)
        os.makedirs(case_dir, exist_ok=True)
        if args.topology:
            topology = args.topology
        start = time.perf_counter()
        subprocess.run([compiler, os.path.join(ROOT, program), "--topology",
                        topology_path(args.build, topology, args.dir, host),
                        "-o", os.path.join(case_dir, "program.orcx"),
                        "--dump-device-code", os.path.join(case_dir, "ptx"),
                        "--quiet"], check=True)
        cases.append({"name": name, "kind": "program", "program": program,
                      "topology": topology, "inputs": specs.split(),
                      "check": check,
                      "compile_seconds": time.perf_counter() - start})
        print(f"prepared {name}", flush=True)
    for model in args.models.split(",") if args.models else []:
        case_dir = os.path.join(args.dir, "model_" + model)
        subprocess.run([sys.executable, MODELS_PY, "export", model,
                        case_dir], check=True)
        topology = args.topology or CPU_HOPPER
        start = time.perf_counter()
        subprocess.run([compiler, os.path.join(case_dir, "model.onnx"),
                        "--topology",
                        topology_path(args.build, topology, args.dir, host),
                        "-o", os.path.join(case_dir, "program.orcx"),
                        "--dump-device-code", os.path.join(case_dir, "ptx"),
                        "--quiet"], check=True)
        os.remove(os.path.join(case_dir, "model.onnx"))
        cases.append({"name": "model_" + model, "kind": "model",
                      "model": model, "topology": topology,
                      "compile_seconds": time.perf_counter() - start})
        print(f"prepared model_{model}", flush=True)
    copy_runtime(args.build, args.dir)
    with open(os.path.join(args.dir, "manifest.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
    print(f"gpu_bundle: {len(cases)} case(s) in {args.dir}; run them with "
          f"gpu_bundle.py run {args.dir}")


def check_command(case, inputs_dir, out_dir):
    """The e2e.py command that checks a program case's outputs."""
    check = case["check"]
    if check[0] == "check-example-mlp":
        return [sys.executable, E2E, check[0],
                os.path.join(ROOT, case["program"]),
                os.path.join(inputs_dir, "x.npy"), out_dir]
    return [sys.executable, E2E, check[0]] + (
        [check[1], inputs_dir, out_dir] if check[0] == "check"
        else [inputs_dir, out_dir] + check[1:])


def emulate_case(args, case, case_dir):
    """Emulates one program case; returns (failure or None, detail), or None
    when its plan has CPU steps."""
    constants = os.path.join(case_dir, "constants")
    describe = subprocess.run(
        [os.path.join(args.build, "bin", "orchestra-run"), "--describe=json",
         "--dump-constants", constants, os.path.join(case_dir, "program.orcx")],
        check=True, capture_output=True, text=True).stdout
    if any(device["driver"] != "cuda"
           for device in json.loads(describe)["devices"]):
        return None
    plan = os.path.join(case_dir, "plan.json")
    with open(plan, "w") as f:
        f.write(describe)
    inputs_dir = os.path.join(case_dir, "inputs")
    out_dir = os.path.join(case_dir, "emulated")
    subprocess.run([sys.executable, E2E, "gen", inputs_dir] + case["inputs"],
                   check=True, env=TOOL_ENV)
    command = EMULATOR + ["run-plan", plan,
               os.path.join(case_dir, "ptx"), "--output-dir", out_dir,
               "--constants", constants]
    for spec in case["inputs"]:
        command += ["--input", os.path.join(inputs_dir,
                                            spec.split(":")[0] + ".npy")]
    emulated = subprocess.run(command, capture_output=True, text=True,
                              env=TOOL_ENV)
    if emulated.returncode:
        text = (emulated.stdout + emulated.stderr).strip()
        return text, text
    result = subprocess.run(check_command(case, inputs_dir, out_dir),
                            capture_output=True, text=True, env=TOOL_ENV)
    text = (emulated.stdout.strip() + "; " + result.stdout + result.stderr
            ).strip().replace("\n", "; ")
    return (None if result.returncode == 0 else text), text


def emulate(args):
    with open(os.path.join(args.dir, "manifest.json")) as f:
        cases = [c for c in json.load(f)["cases"] if c["kind"] == "program"]
    names = selected([c["name"] for c in cases], args.only)
    failed, skipped = [], []
    for case in cases:
        if case["name"] not in names:
            continue
        start = time.perf_counter()
        outcome = emulate_case(args, case, os.path.join(args.dir, case["name"]))
        seconds = time.perf_counter() - start
        if outcome is None:
            skipped.append(case["name"])
            print(f"not emulated {case['name']}: its plan has steps on the CPU",
                  flush=True)
            continue
        error, detail = outcome
        print(f"{'FAIL' if error else 'ok'} {case['name']} emulated "
              f"({seconds:.1f} s): {detail}", flush=True)
        if error:
            failed.append(case["name"])
    emulated = len(names) - len(skipped)
    print(f"gpu_bundle: {emulated - len(failed)} of {emulated} emulated case(s) "
          f"passed" + (f"; failed: {', '.join(failed)}" if failed else "") +
          (f"; not emulated: {', '.join(skipped)}" if skipped else ""))
    return 1 if failed else 0


def print_profile(session, inputs, top):
    """Runs the session five more times and prints the `top` steps of the
    last run that took longest (GPU time for GPU steps, host time for the
    others), with the run's totals."""
    for _ in range(5):
        session.run(*inputs)
    events = session.trace()
    wall_ms = max((e.end_ns for e in events), default=0) / 1e6
    gpu_ms = sum(e.device_ns for e in events) / 1e6
    print(f"  profile: {len(events)} step(s), {wall_ms:.3f} ms from the "
          f"first step's start to the last one's end, {gpu_ms:.3f} ms on "
          f"the GPU")

    def cost(e):
        return e.device_ns if e.device_ns else e.duration_ns

    for e in sorted(events, key=cost, reverse=True)[:top]:
        where = "GPU" if e.device_ns else "host"
        print(f"  {cost(e) / 1e3:10.1f} us ({where}) {e.kind:6s} "
              f"{str(e.device):12s} {e.name}  [host {e.start_ns / 1e3:.1f}.."
              f"{e.end_ns / 1e3:.1f} us]")


def run_case(orchestra_rt, np, case, case_dir, profile=0):
    """Runs one case; returns None, or why it failed. With `profile`, also
    prints the slowest steps of a warm run."""
    artifact = orchestra_rt.Artifact(os.path.join(case_dir, "program.orcx"))
    if case["kind"] == "program":
        inputs_dir = os.path.join(case_dir, "inputs")
        subprocess.run([sys.executable, E2E, "gen", inputs_dir] +
                       case["inputs"], check=True, env=TOOL_ENV)
        names = [spec.split(":")[0] for spec in case["inputs"]]
        inputs = [np.load(os.path.join(inputs_dir, n + ".npy")) for n in names]
    else:
        inputs = [np.load(os.path.join(case_dir, "input_0.npy"))]
    with orchestra_rt.Session(artifact) as session:
        outputs = session.run(*inputs)
        events = session.trace()
        if profile:
            print_profile(session, inputs, profile)
    out_dir = os.path.join(case_dir, "out")
    os.makedirs(out_dir, exist_ok=True)
    for i, output in enumerate(outputs):
        np.save(os.path.join(out_dir, f"output_{i}.npy"), output)
    gpu_ms = sum(e.device_ns for e in events) / 1e6
    if case["kind"] == "program":
        command = check_command(case, inputs_dir, out_dir)
    else:
        command = [sys.executable, MODELS_PY, "compare", case_dir, out_dir]
    result = subprocess.run(command, capture_output=True, text=True,
                            env=TOOL_ENV)
    text = (result.stdout + result.stderr).strip().replace("\n", "; ")
    launches = sum(e.kind == "launch" for e in events)
    detail = f"{launches} launch(es), GPU {gpu_ms:.3f} ms: {text}"
    return (None if result.returncode == 0 else detail), detail


def run(args):
    with open(os.path.join(args.dir, "manifest.json")) as f:
        cases = json.load(f)["cases"]
    names = selected([c["name"] for c in cases], args.only)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import numpy as np
    import orchestra_rt
    library = os.path.join(args.dir, "liborchestra_rt.so")
    if "ORCHESTRA_RT_LIBRARY" not in os.environ and os.path.exists(library):
        orchestra_rt.load_library(library)
    failed = []
    for case in cases:
        if case["name"] not in names:
            continue
        start = time.perf_counter()
        try:
            error, detail = run_case(orchestra_rt, np, case,
                                     os.path.join(args.dir, case["name"]),
                                     args.profile)
        except (orchestra_rt.Error, subprocess.CalledProcessError) as e:
            error = detail = str(e)
        except Exception as e:  # a case's failure, whatever it is
            error = detail = f"{type(e).__name__}: {e}"
        seconds = time.perf_counter() - start
        status = "FAIL" if error else "ok"
        print(f"{status} {case['name']} on {case['topology']} "
              f"({seconds:.1f} s): {detail}", flush=True)
        if error:
            failed.append(case["name"])
    print(f"gpu_bundle: {len(names) - len(failed)} of {len(names)} case(s) "
          f"passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[1],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="compile the cases into DIR")
    p.add_argument("dir")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--models", nargs="?", const=",".join(MODELS),
                   metavar="NAME,...",
                   help="add the ONNX real models (default: %(const)s)")
    p.add_argument("--host-threads", type=int, metavar="N",
                   help="compile the CPU tasks for N threads (the GPU "
                        "machine's cores) instead of the topology's")
    p.add_argument("--no-programs", action="store_true",
                   help="only the models (with --models)")
    p.add_argument("--host-cpu", metavar="CPU",
                   help="generate the CPU tasks' code for this LLVM CPU "
                        "(e.g. x86-64-v3) instead of this machine's")
    p.add_argument("--only", metavar="NAME,...")
    p.add_argument("--topology", metavar="T",
                   help="compile every case for T ('host' or a path)")
    e = sub.add_parser("emulate", help="emulate and check the GPU-only cases "
                       "of DIR")
    e.add_argument("dir")
    e.add_argument("--build", default=os.path.join(ROOT, "build"))
    e.add_argument("--only", metavar="NAME,...")
    r = sub.add_parser("run", help="run and check the cases of DIR")
    r.add_argument("dir")
    r.add_argument("--only", metavar="NAME,...")
    r.add_argument("--profile", type=int, default=0, metavar="N",
                   help="after the check, run each case five more times and "
                        "print the N steps of the last run that took longest")
    args = parser.parse_args()
    if args.command == "prepare":
        if args.models:
            known = MODELS + OTHER_MODELS
            unknown = set(args.models.split(",")) - set(known)
            if unknown:
                parser.error(f"no model named {', '.join(sorted(unknown))} "
                             f"(the models: {', '.join(known)})")
        prepare(args)
        return 0
    if args.command == "emulate":
        return emulate(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
