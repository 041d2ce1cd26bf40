"""End-to-end latency of the four reference models: OrchestraOS against
PyTorch (eager and traced+frozen) in the same run, on the same inputs.

    /usr/bin/python3 bench/model_latency.py [--build build] [--repeat 20]
        [--threads 2] [--models resnet18,mobilenet_v2,...] [--tune]

For each model: export it to ONNX with random weights (as the e2e tests
do), compile it with orchestra-compile for the host (timed), run it with
orchestra-run --repeat N (median after one warm-up run), check the output
against PyTorch's; then, once every model has run, time PyTorch (median of
N after warm-up, each in a fresh process, the best of 1..--threads threads).
Prints a Markdown table with the ratios. With --tune, orchestra-tune first
measures the strategy variants of each model's matmuls on this machine and
the models are compiled with the resulting cache.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "onnx", "Inputs"))
import torch_models  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder_layer", "mlp"]


def torch_medians(name, threads, repeat):
    import torch

    torch.set_num_threads(threads)
    model, shape = torch_models.build(name)
    torch_models.calibrate_batch_norm(model, shape)
    model.eval()
    torch.manual_seed(1)
    x = torch.randn(*shape)

    def median_of(fn):
        with torch.no_grad():
            for _ in range(3):
                fn(x)
            samples = []
            for _ in range(repeat):
                start = time.perf_counter()
                fn(x)
                samples.append(time.perf_counter() - start)
        return statistics.median(samples) * 1e3

    eager = median_of(model)
    with torch.no_grad():
        traced = torch.jit.freeze(torch.jit.trace(model, x))
    frozen = median_of(traced)
    return eager, frozen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--tune", action="store_true",
                        help="run orchestra-tune on each model first and "
                        "compile with its tuning cache (tuning time is not "
                        "in the compile time)")
    parser.add_argument("--torch-only", metavar="MODEL",
                        help="print PyTorch's eager and traced+frozen "
                        "medians for MODEL and exit")
    args = parser.parse_args()
    if args.torch_only:
        eager, frozen = torch_medians(args.torch_only, args.threads,
                                      args.repeat)
        print(eager, frozen)
        return 0
    bin_dir = os.path.join(args.build, "bin")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            print(f"{name}: exporting...", file=sys.stderr)
            model_dir = os.path.join(tmp, name)
            torch_models.export(name, model_dir)
            artifact = os.path.join(model_dir, "model.orcx")
            extra = []
            if args.tune:
                cache = os.path.join(tmp, "tuning.json")
                print(f"{name}: tuning...", file=sys.stderr)
                subprocess.run([os.path.join(bin_dir, "orchestra-tune"),
                                os.path.join(model_dir, "model.onnx"),
                                "--topology", "host", "--cache", cache,
                                "--quiet"], check=True)
                extra = ["--tuning-cache", cache]
            start = time.perf_counter()
            subprocess.run([os.path.join(bin_dir, "orchestra-compile"),
                            os.path.join(model_dir, "model.onnx"),
                            "--topology", "host", "-o", artifact, "--quiet"] +
                           extra, check=True)
            compile_s = time.perf_counter() - start
            print(f"{name}: compiled in {compile_s:.1f} s, running...",
                  file=sys.stderr)
            out_dir = os.path.join(model_dir, "out")
            run = subprocess.run(
                [os.path.join(bin_dir, "orchestra-run"), artifact, "--input",
                 "input=" + os.path.join(model_dir, "input_0.npy"),
                 "--output-dir", out_dir, "--repeat", str(args.repeat),
                 "--quiet"], check=True, capture_output=True, text=True)
            match = re.search(r"latency: median ([0-9.]+) ms", run.stdout)
            ours = float(match.group(1))
            got = np.load(os.path.join(out_dir, "output_0.npy"))
            expected = np.load(os.path.join(model_dir, "expected_0.npy"))
            ok = np.allclose(got, expected, rtol=1e-3, atol=1e-4)
            rows.append([name, compile_s, ours, None, None, ok])
    # PyTorch last: its BLAS threads keep spinning for a while after each
    # call and would steal the cores from orchestra-run. Each measurement
    # runs in a fresh process, and PyTorch gets the best of its thread
    # settings up to --threads (its BLAS and OpenMP pools can oversubscribe
    # the cores).
    for row in rows:
        print(f"{row[0]}: timing PyTorch...", file=sys.stderr)
        best = None
        for threads in range(1, args.threads + 1):
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--torch-only",
                 row[0], "--threads", str(threads), "--repeat",
                 str(args.repeat)], check=True, capture_output=True,
                text=True).stdout.split()
            eager, frozen = float(out[0]), float(out[1])
            best = (eager, frozen) if best is None else (
                min(best[0], eager), min(best[1], frozen))
        row[3], row[4] = best

    print(f"| model | compile | OrchestraOS | PyTorch eager | PyTorch "
          f"traced+frozen | OrchestraOS / traced | output matches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, compile_s, ours, eager, frozen, ok in rows:
        print(f"| {name} | {compile_s:.1f} s | {ours:.2f} ms | {eager:.2f} ms "
              f"| {frozen:.2f} ms | {ours / frozen:.1f}x | "
              f"{'yes' if ok else 'NO'} |")
    return 0 if all(row[5] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
