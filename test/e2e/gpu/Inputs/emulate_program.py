#!/usr/bin/env python3
"""An end-to-end program on an NVIDIA or AMD GPU, without a GPU.

  emulate_program.py DIR PROGRAM REFERENCE SPEC... [--build BUILD]
                     [--gpu nvidia|amd] [--topology FILE]

Generates the inputs SPEC... (NAME:DTYPE:SHAPE, as test/e2e/Inputs/e2e.py
gen) in DIR/in, compiles PROGRAM (a path under test/e2e) for a GPU-only
topology (default: Inputs/hopper.json for nvidia, topologies/mi300x.json
for amd) with its device code dumped, runs the artifact's whole plan
through the PTX emulator (python/ptx_emulator: run-plan) or the AMD one
(python/amdgpu_emulator: run-plan, each launch in orchestra-amdgpu-emulate)
and compares the outputs with e2e.py's numpy reference REFERENCE. Prints
the emulator's summary and the comparison's; exits non-zero where either
fails. Needs the compiler and numpy, no GPU.
"""

import argparse
import json
import os
import subprocess
import sys

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
E2E = os.path.join(ROOT, "test", "e2e", "Inputs", "e2e.py")


def emulator_command(gpu, bin_dir, plan_path, code, constants, outputs,
                     inputs):
    """The command that runs the whole plan PLAN_PATH (orchestra-run
    --describe=json; its device code in CODE, constants in CONSTANTS) in
    GPU's emulator on the .npy files INPUTS (in the entry's order), writing
    OUTPUTS."""
    command = EMULATORS[gpu] + ["run-plan", plan_path, code, "--output-dir",
                                outputs, "--constants", constants]
    if gpu == "amd":
        command += ["--emulator",
                    os.path.join(bin_dir, "orchestra-amdgpu-emulate")]
    for path in inputs:
        command += ["--input", path]
    return command


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("program")
    parser.add_argument("reference")
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--gpu", choices=sorted(EMULATORS), default="nvidia")
    parser.add_argument("--topology")
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="one more orchestra-compile flag (repeatable), "
                             "e.g. --profile-branches")
    args = parser.parse_args()
    if not args.topology:
        args.topology = (os.path.join(HERE, "hopper.json") if args.gpu == "nvidia"
                         else os.path.join(ROOT, "topologies", "mi300x.json"))
    bin_dir = os.path.join(args.build, "bin")
    inputs = os.path.join(args.dir, "in")
    artifact = os.path.join(args.dir, "program.orcx")
    ptx = os.path.join(args.dir, "ptx")
    constants = os.path.join(args.dir, "constants")
    outputs = os.path.join(args.dir, "out")

    def run(command, **kwargs):
        result = subprocess.run(command, text=True, capture_output=True,
                                **kwargs)
        if result.returncode:
            sys.stderr.write(result.stdout + result.stderr)
            tool = command[1] if command[0] == sys.executable else command[0]
            sys.exit(f"emulate_program: {os.path.basename(tool)} failed")
        return result.stdout

    run([sys.executable, E2E, "gen", inputs] + args.specs)
    run([os.path.join(bin_dir, "orchestra-compile"),
         os.path.join(ROOT, "test", "e2e", args.program), "--topology",
         args.topology, "-o", artifact, "--dump-device-code", ptx, "--quiet"]
        + args.compile_flag)
    plan = run([os.path.join(bin_dir, "orchestra-run"), "--describe=json",
                "--dump-constants", constants, artifact])
    plan_path = os.path.join(args.dir, "plan.json")
    with open(plan_path, "w") as f:
        f.write(plan)
    command = emulator_command(
        args.gpu, bin_dir, plan_path, ptx, constants, outputs,
        [os.path.join(inputs, spec.split(":")[0] + ".npy")
         for spec in args.specs])
    print(run(command).strip().splitlines()[-1])
    print(run([sys.executable, E2E, "check", args.reference, inputs,
               outputs]).strip())
    # A profiled compile: each branch's counts (then lanes, else lanes,
    # warps, divergent warps).
    profile = os.path.join(outputs, "branch_profile.json")
    if os.path.exists(profile):
        with open(profile) as f:
            for kernel in json.load(f):
                for i, branch in enumerate(kernel["branches"]):
                    print(f"{kernel['kernel']} branch {i}: then {branch['then']} "
                          f"else {branch['else']} warps {branch['warps']} "
                          f"divergent {branch['divergent_warps']} "
                          f"({kernel['launches']} launch(es))")


if __name__ == "__main__":
    main()
