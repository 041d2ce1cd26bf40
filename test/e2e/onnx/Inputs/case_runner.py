"""What the case-matrix tests (layout_ops.py, recurrent.py) share: running
the tools on one case, and the command line over the cases.

    SCRIPT DIR [CASE...]   runs every case (or those named) in DIR; one line
                           per case, exit status 1 if any does not match
    SCRIPT list            prints the case names

With ORCHESTRA_CASE_GPU=nvidia or amd in the environment, each case is
compiled for a GPU-only topology instead of the host (test/e2e/gpu/Inputs/
hopper.json, topologies/mi300x.json) and its whole plan runs in that GPU's
emulator (python/ptx_emulator, python/amdgpu_emulator: run-plan). With
ORCHESTRA_CASE_TOPOLOGY=FILE, each case is compiled for that topology and run
by orchestra-run (a PJRT plugin through ORCHESTRA_PJRT_PLUGIN).
"""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                    "..", ".."))
GPU_TOPOLOGIES = {
    "nvidia": os.path.join(ROOT, "test", "e2e", "gpu", "Inputs", "hopper.json"),
    "amd": os.path.join(ROOT, "topologies", "mi300x.json"),
}

TIMEOUT_S = 300


def run_tools(commands):
    """Runs each command in turn; returns why one failed, or None. A command
    that runs past TIMEOUT_S fails (a kernel that loops must not hang the
    test)."""
    for command in commands:
        try:
            result = subprocess.run(command, capture_output=True, text=True,
                                    timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "%s did not finish in %d s" % (command[0], TIMEOUT_S)
        if result.returncode != 0:
            return "%s failed: %s" % (command[0], result.stderr.strip())
    return None


def compile_and_run(model_path, feeds, case_dir):
    """Compiles MODEL_PATH for the host (or, with ORCHESTRA_CASE_GPU, for a
    GPU, emulated) and runs it on FEEDS (name -> array, saved as .npy in
    CASE_DIR); returns (why it failed or None, the folder of
    output_<k>.npy)."""
    import numpy as np

    artifact = os.path.join(case_dir, "model.orcx")
    out_dir = os.path.join(case_dir, "out")
    paths = {}
    for feed, value in feeds.items():
        paths[feed] = os.path.join(case_dir, feed + ".npy")
        np.save(paths[feed], value)
    gpu = os.environ.get("ORCHESTRA_CASE_GPU")
    if gpu:
        return emulate(model_path, paths, case_dir, gpu), out_dir
    run = ["orchestra-run", artifact, "--output-dir", out_dir, "--quiet"]
    for feed, path in paths.items():
        run += ["--input", "%s=%s" % (feed, path)]
    topology = os.environ.get("ORCHESTRA_CASE_TOPOLOGY", "host")
    return run_tools([["orchestra-compile", model_path, "--topology", topology,
                       "-o", artifact, "--quiet"], run]), out_dir


def emulate(model_path, paths, case_dir, gpu):
    """Compiles MODEL_PATH for GPU-only topology of GPU and runs its plan in
    that GPU's emulator on the inputs PATHS (name -> .npy); returns why it
    failed, or None."""
    # The emulators' command line is emulate_program.py's (which also puts
    # python/ on PYTHONPATH for them).
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "gpu", "Inputs"))
    import emulate_program
    if gpu not in GPU_TOPOLOGIES:
        return "ORCHESTRA_CASE_GPU must be one of %s" % ", ".join(
            GPU_TOPOLOGIES)
    artifact = os.path.join(case_dir, "model.orcx")
    code = os.path.join(case_dir, "device-code")
    constants = os.path.join(case_dir, "constants")
    problem = run_tools([
        ["orchestra-compile", model_path, "--topology", GPU_TOPOLOGIES[gpu],
         "-o", artifact, "--dump-device-code", code, "--quiet"]])
    if problem:
        return problem
    plan_path = os.path.join(case_dir, "plan.json")
    plan = subprocess.run(["orchestra-run", "--describe=json",
                           "--dump-constants", constants, artifact],
                          capture_output=True, text=True, check=True).stdout
    with open(plan_path, "w") as f:
        f.write(plan)
    command = emulate_program.emulator_command(
        gpu, os.path.dirname(shutil.which("orchestra-run")), plan_path, code,
        constants, os.path.join(case_dir, "out"),
        [paths[tensor["name"]] for tensor in json.loads(plan)["inputs"]])
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=TIMEOUT_S)
    if result.returncode != 0:
        return "%s emulator failed: %s" % (
            gpu, (result.stdout + result.stderr).strip())
    return None


def main(cases, run_case):
    """`cases` maps names to specs; `run_case(name, spec, directory)`
    returns why the case does not match, or None."""
    if sys.argv[1:] == ["list"]:
        print("\n".join(cases))
        return
    directory = sys.argv[1]
    names = sys.argv[2:] or list(cases)
    width = max(len(name) for name in names) + 1
    failures = 0
    for name in names:
        problem = run_case(name, cases[name], directory)
        print("%-*s %s" % (width, name, problem or "match"), flush=True)
        failures += problem is not None
    print("%d of %d cases match" % (len(names) - failures, len(names)))
    sys.exit(1 if failures else 0)
