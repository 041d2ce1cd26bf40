#!/usr/bin/env python3
"""An end-to-end program with StableHLO tasks, run for real by XLA.

  run_program.py DIR PROGRAM REFERENCE SPEC... --topology FILE --plugin SO
                 [--build BUILD]

Generates the inputs SPEC... (NAME:DTYPE:SHAPE, as test/e2e/Inputs/e2e.py
gen) in DIR/in, compiles PROGRAM (a path under test/e2e) for the topology
(whose StableHLO devices run on the PJRT plugin SO, XLA's CPU compiler here),
runs it with orchestra-run and compares the outputs with e2e.py's numpy
reference REFERENCE. Prints how many tasks and transfers each device ran (from
the run's trace), then the comparison; exits non-zero where anything fails.
"""

import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
E2E = os.path.join(ROOT, "test", "e2e", "Inputs", "e2e.py")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("program")
    parser.add_argument("reference")
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--topology", required=True)
    parser.add_argument("--plugin", required=True)
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    inputs = os.path.join(args.dir, "in")
    artifact = os.path.join(args.dir, "program.orcx")
    outputs = os.path.join(args.dir, "out")
    trace = os.path.join(args.dir, "trace.json")
    env = dict(os.environ, ORCHESTRA_PJRT_PLUGIN=args.plugin)

    def run(command):
        result = subprocess.run(command, text=True, capture_output=True,
                                env=env)
        if result.returncode:
            sys.stderr.write(result.stdout + result.stderr)
            tool = command[1] if command[0] == sys.executable else command[0]
            sys.exit(f"run_program: {os.path.basename(tool)} failed")
        return result.stdout

    run([sys.executable, E2E, "gen", inputs] + args.specs)
    run([os.path.join(bin_dir, "orchestra-compile"),
         os.path.join(ROOT, "test", "e2e", args.program), "--topology",
         args.topology, "-o", artifact, "--quiet"])
    command = [os.path.join(bin_dir, "orchestra-run"), artifact,
               "--output-dir", outputs, "--trace", trace, "--quiet"]
    for spec in args.specs:
        command += ["--input", os.path.join(inputs, spec.split(":")[0] + ".npy")]
    run(command)
    # What ran where: the trace's complete events, by thread (device queue).
    with open(trace) as f:
        events = json.load(f)
    events = events.get("traceEvents", events)
    names = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    counts = collections.Counter((names.get(e.get("tid"), "?"), e.get("cat"))
                                 for e in events if e.get("ph") == "X")
    queues = sorted({queue for queue, _ in counts})
    print("ran: " + ", ".join(
        f"{queue}: {counts[(queue, 'task')]} task(s) and "
        f"{counts[(queue, 'transfer')]} transfer(s)" for queue in queues))
    print(run([sys.executable, E2E, "check", args.reference, inputs,
               outputs]).strip())


if __name__ == "__main__":
    main()
