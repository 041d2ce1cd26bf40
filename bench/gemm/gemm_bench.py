"""SGEMM throughput of OrchestraOS against oneDNN and OpenBLAS, same run.

    /usr/bin/python3 bench/gemm/gemm_bench.py [--build build] [--repeat 20]
        [--threads 1,2] [--shapes 256,512,...|MxNxK,...] [--tuning-cache F]
        [--tune]

For every shape and thread count: compile C = A * B (f32, row-major) with
orchestra-compile for a one-CPU topology with that many threads, run it with
orchestra-run --repeat N (median after a warm-up; GFLOP/s of the plan's
steps, as the peers are timed around the GEMM call alone, and of the whole run
including the copies of the inputs and outputs into and out of the session,
"with staging"), check the result against numpy, and time the same GEMM with oneDNN and OpenBLAS (build/bin/gemm-peers).
With --tune, orchestra-tune first measures the strategy's matmul variants
for each GEMM and the GEMM is compiled with the resulting tuning cache.
Prints a Markdown table of GFLOP/s and ratios.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQUARE = [256, 512, 1024, 2048]
# The awkward shapes; 384x768x3072 and 128x512x2048 are read both
# ways (as M x N x K and as M x K x N).
AWKWARD = [(1000, 1000, 1000), (384, 3072, 768), (384, 768, 3072),
           (1, 4096, 4096), (128, 2048, 512), (128, 512, 2048)]

PROGRAM = """func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %c : tensor<{m}x{n}xf32>
}}
"""


def write_topology(bin_dir, threads, path):
    """Writes a one-CPU topology for `threads` threads to `path`: this
    machine's (orchestra-topology host) with that many compute units."""
    subprocess.run([os.path.join(bin_dir, "orchestra-topology"), "host",
                    "--compute-units", f"cpu0={threads}",
                    "--set", f"cpu0.num_threads={threads}",
                    "--name", f"cpu-{threads}-threads", "-o", path],
                   check=True)


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        if "x" in item:
            m, n, k = (int(v) for v in item.split("x"))
        else:
            m = n = k = int(item)
        shapes.append((m, n, k))
    return shapes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tuning-cache", default="",
                        help="compile with this orchestra-tune cache")
    parser.add_argument("--tune", action="store_true",
                        help="first run orchestra-tune on each GEMM (adds "
                        "its entries to --tuning-cache, or to a temporary "
                        "cache)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--shapes", default=",".join(
        [str(s) for s in SQUARE] + ["%dx%dx%d" % s for s in AWKWARD]),
        help="MxNxK (or S for SxSxS), comma-separated")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    peers = os.path.join(bin_dir, "gemm-peers")
    if not os.path.exists(peers):
        sys.exit("gemm_bench: build/bin/gemm-peers is missing "
                 "(install libdnnl-dev and libopenblas-dev, then rebuild)")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(1)
        for m, n, k in parse_shapes(args.shapes):
            a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
            b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
            np.save(os.path.join(tmp, "a.npy"), a)
            np.save(os.path.join(tmp, "b.npy"), b)
            with open(os.path.join(tmp, "gemm.mlir"), "w") as f:
                f.write(PROGRAM.format(m=m, n=n, k=k))
            flops = 2.0 * m * n * k
            for threads in (int(t) for t in args.threads.split(",")):
                print(f"{m}x{n}x{k}, {threads} thread(s)...", file=sys.stderr)
                topo = os.path.join(tmp, "topology.json")
                write_topology(bin_dir, threads, topo)
                artifact = os.path.join(tmp, "gemm.orcx")
                if args.tune:
                    if not args.tuning_cache:
                        args.tuning_cache = os.path.join(tmp, "tuning.json")
                    tuned = subprocess.run(
                        [os.path.join(bin_dir, "orchestra-tune"),
                         os.path.join(tmp, "gemm.mlir"), "--topology", topo,
                         "--cache", args.tuning_cache, "--quiet"],
                        check=True, capture_output=True, text=True)
                    print(tuned.stdout.strip(), file=sys.stderr)
                subprocess.run([os.path.join(bin_dir, "orchestra-compile"),
                                os.path.join(tmp, "gemm.mlir"), "--topology",
                                topo, "-o", artifact, "--quiet"] +
                               (["--tuning-cache", args.tuning_cache]
                                if args.tuning_cache else []), check=True)
                out_dir = os.path.join(tmp, "out")
                run = subprocess.run(
                    [os.path.join(bin_dir, "orchestra-run"), artifact,
                     "--input", os.path.join(tmp, "a.npy"), "--input",
                     os.path.join(tmp, "b.npy"), "--output-dir", out_dir,
                     "--repeat", str(args.repeat), "--quiet"],
                    check=True, capture_output=True, text=True)
                latency = float(re.search(r"latency: median ([0-9.]+) ms",
                                          run.stdout).group(1)) / 1e3
                ours = float(re.search(r"steps: median ([0-9.]+) ms",
                                       run.stdout).group(1)) / 1e3
                got = np.load(os.path.join(out_dir, "output_0.npy"))
                ok = np.allclose(got, a @ b, rtol=1e-3, atol=1e-3 * np.sqrt(k))
                peer = subprocess.run(
                    [peers, str(m), str(n), str(k), str(threads),
                     str(args.repeat)], check=True, capture_output=True,
                    text=True).stdout.split()
                onednn, openblas = float(peer[1]), float(peer[3])
                rows.append((m, n, k, threads, flops / ours / 1e9,
                             flops / latency / 1e9,
                             flops / onednn / 1e9, flops / openblas / 1e9,
                             ok))

    print("| M x N x K | threads | OrchestraOS GFLOP/s | with staging | "
          "oneDNN GFLOP/s | OpenBLAS GFLOP/s | vs oneDNN | vs OpenBLAS | "
          "correct |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for m, n, k, threads, ours, staged, onednn, openblas, ok in rows:
        print(f"| {m}x{n}x{k} | {threads} | {ours:.1f} | {staged:.1f} | "
              f"{onednn:.1f} | {openblas:.1f} | {ours / onednn:.2f} | "
              f"{ours / openblas:.2f} | {'yes' if ok else 'NO'} |")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
