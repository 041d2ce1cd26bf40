#!/usr/bin/env python3
"""Differential check of every matmul variant of the x86_64 strategy.

  matmul_variants.py [--sample N] STRATEGY PROGRAM TOPOLOGY WORK_DIR SHAPE...

STRATEGY is the x86_64 strategy script; its `@matmul_variant_<name>`
sequences are the variants. PROGRAM is an MLIR program whose inputs are
WORK_DIR/in/<i>.npy (made here) and whose matmuls have the loop ranges
SHAPE (MxNxK). For every variant, a tuning cache that names it for every
SHAPE is written, the program is compiled with it and run, and its outputs
are compared with those of the plain loop lowering (--strategy=none).
--sample N checks one variant in N (the first, the N+1-th, ...): a build
with the sanitizers compiles twice as slowly.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + result.stdout +
                 result.stderr)
    return result.stdout + result.stderr


def main():
    argv = sys.argv[1:]
    sample = 1
    if argv[:1] == ["--sample"]:
        sample = int(argv[1])
        argv = argv[2:]
    strategy, program, topology, work = argv[:4]
    shapes = [[int(d) for d in s.split("x")] for s in argv[4:]]
    with open(strategy) as f:
        variants = re.findall(r"@matmul_variant_(\w+)\(", f.read())
    if not variants:
        sys.exit("no variant in " + strategy)
    checked = variants[::sample]
    with open(topology) as f:
        threads = json.load(f)["devices"][0]["target"]["num_threads"]

    os.makedirs(work, exist_ok=True)
    inputs = sorted(f for f in os.listdir(os.path.join(work, "in")))
    args = []
    for name in inputs:
        args += ["--input", os.path.join(work, "in", name)]

    def outputs(tag, extra):
        artifact = os.path.join(work, tag + ".orcx")
        log = run(["orchestra-compile", program, "--topology", topology,
                   "-o", artifact] + extra)
        if "--tuning-cache" in extra:
            # Every matmul got the variant (a cache that matched nothing
            # would compare the default path with itself).
            tuned = re.search(r"(\d+) kernel op\(s\) given a tuned variant",
                              log)
            if not tuned or int(tuned.group(1)) != len(shapes):
                sys.exit(f"{tag}: expected {len(shapes)} tuned ops:\n{log}")
        out = os.path.join(work, tag)
        run(["orchestra-run", artifact, "--output-dir", out, "--quiet"] +
            args)
        return [np.load(os.path.join(out, f)) for f in sorted(os.listdir(out))]

    plain = outputs("plain", ["--strategy=none"])
    for variant in checked:
        cache = os.path.join(work, variant + ".json")
        with open(cache, "w") as f:
            json.dump({"format": "orchestra-tuning-cache", "version": 1,
                       "entries": [{"arch": "x86_64", "threads": threads,
                                    "op": "linalg.matmul",
                                    "element_type": "f32", "shape": shape,
                                    "variant": variant}
                                   for shape in shapes]}, f)
        got = outputs(variant, ["--tuning-cache", cache])
        for i, (a, b) in enumerate(zip(got, plain)):
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4,
                                                     atol=1e-4):
                sys.exit(f"variant {variant}: output {i} differs from the "
                         f"plain lowering (max abs diff "
                         f"{np.max(np.abs(a - b))})")
        print(f"variant {variant}: matches")
    print(f"{len(checked)} of {len(variants)} variants match the plain "
          "lowering")


if __name__ == "__main__":
    main()
