#!/usr/bin/env python3
"""Every NVIDIA GPU check and benchmark, prepared here and run in one go on
a GPU machine that has no compiler.

  gpu_session.py prepare DIR [--build BUILD] [--host-cpu CPU]
                             [--host-threads N] [--shapes 4096,2048]
      compile everything a GPU session runs into two parts, each a folder
      that can travel to the GPU machine on its own (the ResNet-18 artifact
      alone is ~47 MB):
        DIR/core    the e2e bundle (the GPU programs and the ONNX models mlp,
                    small_cnn, transformer_encoder_layer and mobilenet_v2 on
                    cpu+hopper), the GEMM benchmark's artifacts (f16 and bf16
                    operands with the compiler's defaults, mma.sync, and
                    wgmma 128x128 on Hopper) and Blackwell kernels (compiled only, for the
                    SASS check);
        DIR/resnet  ResNet-18 on cpu+hopper.
      The CPU tasks are compiled for --host-cpu (default x86-64-v3: the GPU
      machine's processor need not have this one's features) and
      --host-threads threads (default 16: the GPU machine's cores).

  gpu_session.py run PART [--out OUT] [--budget SECONDS] [--without-gpu]
      run one part's steps in order, each against what is left of the
      budget (default 540 s): the device's description; the SASS check
      (below); each case of the e2e bundle (gpu_bundle.py run --only CASE,
      60 s each); the GEMM benchmarks
      against cuBLAS (gemm_gpu_bench.py --artifacts); the model benchmarks
      against PyTorch (model_latency_gpu.py --artifacts); the slowest
      steps of each model (gpu_bundle.py run --profile 12). Writes OUT/
      session.log (every step's output) and OUT/summary.md (each step's
      status and time, and the benchmarks' tables). Exits 1 if a step
      failed, 2 if there is no CUDA device (unless --without-gpu: then it
      runs the steps anyway, which checks a part whose bundle was prepared
      with --topology host).

  gpu_session.py sass DIR... [--cuobjdump PATH]
      disassemble every cubin under the folders with cuobjdump and check
      that the machine code has the instructions its PTX asks for:
      mma.sync -> HMMA, wgmma.mma_async -> HGMMA, tcgen05.mma -> UTC*MMA,
      cp.async -> LDGSTS, ldmatrix -> LDSM, TMA loads and stores -> UTMALDG
      and UTMASTG. Needs no GPU, only cuobjdump (CUDA's binary utilities).

docs/PERFORMANCE.md ("NVIDIA GPUs") has the commands that prepare and run a
session.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUNDLE_PY = os.path.join(ROOT, "test", "e2e", "gpu", "Inputs", "gpu_bundle.py")
GEMM_PY = os.path.join(HERE, "gemm_gpu_bench.py")
MODELS_PY = os.path.join(HERE, "model_latency_gpu.py")

# The GEMM benchmark's variants: folder name, gemm_gpu_bench.py arguments.
GEMMS = [
    # The compiler's defaults (warpgroup MMA, 128x256 blocks where there are
    # enough of them) ...
    ("gemm-f16", ["--dtype", "f16"]),
    ("gemm-bf16", ["--dtype", "bf16"]),
    # ... mma.sync ...
    ("gemm-f16-mma", ["--dtype", "f16", "--mma-sync"]),
    ("gemm-bf16-mma", ["--dtype", "bf16", "--mma-sync"]),
    # ... and warpgroup MMA in 128x128 blocks at every size.
    ("gemm-f16-wgmma128", ["--dtype", "f16", "--wgmma"]),
    ("gemm-bf16-wgmma128", ["--dtype", "bf16", "--wgmma"]),
]
# Compiled for Blackwell, for the SASS check only (no project machine has a
# Blackwell GPU).
BLACKWELL = [
    ("sass-blackwell-tma", ["--dtype", "f16", "--arch", "nvidia_blackwell"]),
    ("sass-blackwell-tcgen05", ["--dtype", "bf16", "--arch",
                                "nvidia_blackwell", "--tcgen05"]),
]
CORE_MODELS = "mlp,small_cnn,transformer_encoder_layer,mobilenet_v2"

# PTX instruction -> the SASS instruction it must become.
SASS_RULES = [
    (re.compile(r"\bmma\.sync\.aligned"), "HMMA", re.compile(r"\bHMMA\.")),
    (re.compile(r"\bwgmma\.mma_async"), "HGMMA", re.compile(r"\bHGMMA\.")),
    (re.compile(r"\btcgen05\.mma\b"), "UTC*MMA",
     re.compile(r"\bUTC\w*MMA\b")),
    (re.compile(r"\bcp\.async\.c[ag]\b"), "LDGSTS", re.compile(r"\bLDGSTS\b")),
    (re.compile(r"\bldmatrix\b"), "LDSM", re.compile(r"\bLDSM\b")),
    (re.compile(r"\bcp\.async\.bulk\.tensor\.\dd\.shared::cluster\.global"),
     "UTMALDG", re.compile(r"\bUTMALDG\b")),
    (re.compile(r"\bcp\.async\.bulk\.tensor\.\dd\.global\.shared::cta"),
     "UTMASTG", re.compile(r"\bUTMASTG\b")),
]


def run_checked(command):
    print("+ " + " ".join(command), flush=True)
    subprocess.run(command, check=True)


def prepare(args):
    host_cpu = (["--host-cpu", args.host_cpu] if args.host_cpu else []) + (
        ["--host-threads", str(args.host_threads)] if args.host_threads
        else [])
    build = ["--build", args.build]
    core = os.path.join(args.dir, "core")
    resnet = os.path.join(args.dir, "resnet")
    for part in (core, resnet):
        if os.path.exists(part):
            shutil.rmtree(part)
    run_checked([sys.executable, BUNDLE_PY, "prepare",
                 os.path.join(core, "bundle"), "--models", CORE_MODELS] +
                build + host_cpu)
    for name, extra in GEMMS + BLACKWELL:
        run_checked([sys.executable, GEMM_PY, "--prepare",
                     os.path.join(core, name), "--shapes", args.shapes] +
                    build + extra)
    run_checked([sys.executable, BUNDLE_PY, "prepare",
                 os.path.join(resnet, "bundle"), "--no-programs",
                 "--models", "resnet18"] + build + host_cpu)
    for part in (core, resnet):
        size = sum(os.path.getsize(os.path.join(d, f))
                   for d, _, files in os.walk(part) for f in files)
        print(f"gpu_session: {part}: {size / 2**20:.1f} MiB", flush=True)
    print(f"gpu_session: run each part there with `python3 {os.path.relpath(__file__, ROOT)} "
          f"run PART --out OUT` (docs/PERFORMANCE.md)")
    return 0


def find_cuobjdump(explicit):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for candidate in [shutil.which("cuobjdump"),
                      "/usr/local/cuda/bin/cuobjdump"]:
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def sass(dirs, cuobjdump):
    """Checks the SASS of every cubin under dirs; returns the number of
    cubins that lack an instruction their PTX asks for (or -1 without
    cuobjdump)."""
    tool = find_cuobjdump(cuobjdump)
    if not tool:
        print("gpu_session: no cuobjdump (CUDA's binary utilities); the SASS "
              "was not checked", file=sys.stderr)
        return -1
    cubins = sorted(set(path for d in dirs for path in
                        glob.glob(os.path.join(d, "**", "*.cubin"),
                                  recursive=True)))
    bad = checked = 0
    for cubin in cubins:
        ptx_path = cubin[:-len(".cubin")] + ".ptx"
        if not os.path.exists(ptx_path):
            continue
        with open(ptx_path) as f:
            ptx = f.read()
        wanted = [(name, pattern) for ptx_pattern, name, pattern in SASS_RULES
                  if ptx_pattern.search(ptx)]
        if not wanted:
            continue
        dump = subprocess.run([tool, "--dump-sass", cubin],
                              capture_output=True, text=True)
        checked += 1
        if dump.returncode:
            bad += 1
            print(f"FAIL {cubin}: cuobjdump: {dump.stderr.strip()}")
            continue
        counts = {name: len(pattern.findall(dump.stdout))
                  for name, pattern in wanted}
        missing = [name for name, count in counts.items() if count == 0]
        bad += bool(missing)
        text = ", ".join(f"{name} x{count}" for name, count in counts.items())
        # What the machine code has instead, to tell a renamed instruction
        # from a missing one.
        seen = sorted(set(re.findall(r"\b[A-Z0-9]*(?:MMA|TMA|GSTS|LDSM)"
                                     r"[A-Z0-9]*\b", dump.stdout)))
        print(f"{'FAIL' if missing else 'ok'} "
              f"{os.path.relpath(cubin)}: {text}" +
              (f"; missing {', '.join(missing)} (it has "
               f"{', '.join(seen) or 'none of those'})" if missing else ""))
    print(f"gpu_session: SASS of {checked - bad} of {checked} cubin(s) has "
          f"the instructions of its PTX")
    return bad


class Session:
    """Runs a part's steps against a time budget and records their output:
    the log line by line, the summary after every step (a step that hangs,
    or a machine taken back, loses nothing already measured)."""

    def __init__(self, out, budget, header):
        self.out = out
        self.header = header
        self.deadline = time.monotonic() + budget
        self.log = open(os.path.join(out, "session.log"), "w")
        self.rows = []
        self.tables = []
        self.notes = []

    def step(self, name, command, timeout, env=None):
        left = self.deadline - time.monotonic()
        if left < 10:
            self.rows.append((name, "not run (budget spent)", 0.0))
            print(f"== {name}: not run, the budget is spent", flush=True)
            self.write_summary()
            return None
        print(f"== {name}: {' '.join(command)}", flush=True)
        self.log.write(f"== {name}: {' '.join(command)}\n")
        start = time.monotonic()
        lines = []

        def copy(stream):
            for line in stream:
                lines.append(line)
                sys.stdout.write(line)
                sys.stdout.flush()
                self.log.write(line)
                self.log.flush()

        try:
            # Its own process group: a timeout kills its children too.
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, env=env, cwd=ROOT, start_new_session=True)
            reader = threading.Thread(target=copy, args=(process.stdout,),
                                      daemon=True)
            reader.start()
            try:
                process.wait(timeout=min(timeout, left))
                status = ("ok" if process.returncode == 0 else
                          f"exit {process.returncode}")
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                status = f"timed out after {min(timeout, left):.0f} s"
            reader.join(5)
        except OSError as e:
            status = f"cannot run: {e}"
        seconds = time.monotonic() - start
        self.log.write(f"== {name}: {status} ({seconds:.1f} s)\n")
        self.log.flush()
        print(f"== {name}: {status} ({seconds:.1f} s)", flush=True)
        self.rows.append((name, status, seconds))
        table = [line for line in lines
                 if line.startswith("|") or line.startswith("device:")]
        if table:
            self.tables.append((name, table))
        self.write_summary()
        return status

    def write_summary(self, final=False):
        path = os.path.join(self.out, "summary.md")
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(self.header + self.notes) +
                    "\n\n| step | status | seconds |\n| --- | --- | ---: |\n")
            for name, status, seconds in self.rows:
                f.write(f"| {name} | {status} | {seconds:.1f} |\n")
            for name, table in self.tables:
                f.write(f"\n### {name}\n\n" + "".join(table))
            if not final:
                f.write("\n(in progress)\n")
        os.replace(path + ".tmp", path)
        if final:
            with open(path) as f:
                print("\n" + f.read())


def describe_machine():
    lines = []
    for command in (["nvidia-smi", "--query-gpu=name,driver_version,"
                     "memory.total,clocks.max.sm", "--format=csv,noheader"],
                    [find_cuobjdump(None) or "cuobjdump", "--version"]):
        try:
            result = subprocess.run(command, capture_output=True, text=True,
                                    timeout=30)
            text = (result.stdout.strip().splitlines() or [""])[-1]
        except (OSError, subprocess.TimeoutExpired) as e:
            text = f"not available ({e})"
        lines.append(f"- `{os.path.basename(command[0])}`: {text}")
    try:
        import torch
        cuda = torch.cuda.is_available()
        lines.append(f"- PyTorch {torch.__version__}, CUDA device: "
                     f"{torch.cuda.get_device_name(0) if cuda else 'none'}")
    except ImportError:
        cuda = False
        lines.append("- PyTorch: not installed")
    lines.append(f"- Python {sys.version.split()[0]} ({sys.executable})")
    return lines, cuda


def run(args):
    part = os.path.abspath(args.part)
    bundle = os.path.join(part, "bundle")
    if not os.path.exists(os.path.join(bundle, "manifest.json")):
        sys.exit(f"gpu_session: {bundle}/manifest.json does not exist "
                 f"(gpu_session.py prepare writes it)")
    os.makedirs(args.out, exist_ok=True)
    header, cuda = describe_machine()
    header[:0] = [f"# GPU session: {os.path.basename(part)}, "
                  f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}", ""]
    print("\n".join(header), flush=True)
    session = Session(args.out, args.budget, header)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    python = sys.executable
    session.step("sass", [python, os.path.abspath(__file__), "sass", part],
                 60)
    if not cuda and not args.without_gpu:
        session.notes = ["", "No CUDA device: nothing run."]
        session.write_summary(final=True)
        return 2
    # One step per case: a kernel that hangs costs its case alone.
    with open(os.path.join(bundle, "manifest.json")) as f:
        cases = [c["name"] for c in json.load(f)["cases"]]
    for case in cases:
        session.step(f"e2e {case}", [python, BUNDLE_PY, "run", bundle,
                                     "--only", case], 60, env)
    for name, _ in GEMMS:
        if os.path.exists(os.path.join(part, name, "manifest.json")):
            session.step(name, [python, GEMM_PY, "--artifacts",
                                os.path.join(part, name)], 90, env)
    models = [c for c in cases if c.startswith("model_")]
    if models:
        session.step("models", [python, MODELS_PY, "--artifacts", bundle,
                                "--repeat", "10"], 300, env)
        # Where each model's time goes: its slowest steps.
        session.step("profile", [python, BUNDLE_PY, "run", bundle, "--only",
                                 ",".join(models), "--profile", "12"], 120,
                     env)
    session.write_summary(final=True)
    return 0 if all(status == "ok" for _, status, _ in session.rows) else 1


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="compile a session into DIR")
    p.add_argument("dir")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--host-cpu", default="x86-64-v3", metavar="CPU")
    p.add_argument("--host-threads", type=int, default=16, metavar="N")
    p.add_argument("--shapes", default="4096,2048")
    r = sub.add_parser("run", help="run a prepared part")
    r.add_argument("part")
    r.add_argument("--out", default="gpu-session-out")
    r.add_argument("--budget", type=float, default=540)
    r.add_argument("--without-gpu", action="store_true",
                   help="run the steps without a CUDA device too (checks a "
                        "part prepared for the host)")
    s = sub.add_parser("sass", help="check the SASS of the cubins under DIRs")
    s.add_argument("dirs", nargs="+")
    s.add_argument("--cuobjdump", metavar="PATH")
    args = parser.parse_args()
    if args.command == "prepare":
        return prepare(args)
    if args.command == "sass":
        bad = sass(args.dirs, args.cuobjdump)
        return 2 if bad < 0 else 1 if bad else 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
