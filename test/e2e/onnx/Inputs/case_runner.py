"""What the case-matrix tests (layout_ops.py, recurrent.py) share: running
the tools on one case, and the command line over the cases.

    SCRIPT DIR [CASE...]   runs every case (or those named) in DIR; one line
                           per case, exit status 1 if any does not match
    SCRIPT list            prints the case names
"""
import os
import subprocess
import sys

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
    """Compiles MODEL_PATH for the host and runs it on FEEDS (name -> array,
    saved as .npy in CASE_DIR); returns (why it failed or None, the folder
    of output_<k>.npy)."""
    import numpy as np

    artifact = os.path.join(case_dir, "model.orcx")
    out_dir = os.path.join(case_dir, "out")
    run = ["orchestra-run", artifact, "--output-dir", out_dir, "--quiet"]
    for feed, value in feeds.items():
        path = os.path.join(case_dir, feed + ".npy")
        np.save(path, value)
        run += ["--input", "%s=%s" % (feed, path)]
    return run_tools([["orchestra-compile", model_path, "--topology", "host",
                       "-o", artifact, "--quiet"], run]), out_dir


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
