"""Same-run A/B of two builds of the runtime library on the same plans.

    /usr/bin/python3 bench/runtime_ab.py --before OLD/liborchestra_rt.so \
        --after build/lib/liborchestra_rt.so --dir DIR --models a,b,...
        [--rounds 9] [--repeat 50]

DIR holds, for each model M, the artifact each library reads
(M.before.orcx, M.after.orcx: the same plan, in each library's artifact
format) and its inputs (M.in*.npy, in entry-argument order). In each round,
for each model, `python3 -m orchestra_rt ART --repeat N` (python/orchestra_rt)
runs with each library in a fresh process, the order alternating from round
to round; the table has the medians over the rounds of each run's median
latency and their ratio. Use it when a change touches the runtime only (the
kernels are the same): docs/PERFORMANCE.md records how the artifacts were
made for each A/B.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    libraries = {"before": args.before, "after": args.after}
    models = args.models.split(",")
    medians = {m: {label: [] for label in libraries} for m in models}
    for r in range(args.rounds):
        for model in models:
            order = list(libraries) if r % 2 == 0 else list(reversed(libraries))
            for label in order:
                inputs = sorted(glob.glob(os.path.join(args.dir, model + ".in*.npy")))
                command = [sys.executable, "-m", "orchestra_rt",
                           os.path.join(args.dir, f"{model}.{label}.orcx"),
                           "--repeat", str(args.repeat), "--quiet"]
                for path in inputs:
                    command += ["--input", path]
                env = dict(os.environ, ORCHESTRA_RT_LIBRARY=libraries[label],
                           PYTHONPATH=os.path.join(ROOT, "python"))
                out = subprocess.run(command, env=env, capture_output=True,
                                     text=True, check=True).stdout
                median = float(re.search(r"latency: median ([0-9.]+)", out)[1])
                medians[model][label].append(median)
                print(f"round {r} {model} {label}: {median:.3f} ms",
                      file=sys.stderr, flush=True)
    print("| model | before (ms) | after (ms) | after / before |")
    print("| --- | ---: | ---: | ---: |")
    for model in models:
        before, after = (statistics.median(medians[model][label])
                         for label in ("before", "after"))
        print(f"| {model} | {before:.3f} | {after:.3f} | {after / before:.3f} |")


if __name__ == "__main__":
    main()
