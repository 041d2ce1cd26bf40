"""End-to-end latency of the reference models: OrchestraOS against
PyTorch (eager and traced+frozen) in the same run, on the same inputs.

    /usr/bin/python3 bench/model_latency.py [--build build] [--repeat 20]
        [--rounds 3] [--threads 2] [--models resnet18,mobilenet_v2,...]
        [--tune]

For each model: export it to ONNX with random weights (as the e2e tests
do) and compile it with orchestra-compile for the host (timed). Then, in
each of --rounds rounds and for each model: run it with orchestra-run
--repeat N (median after one warm-up run), check the output against
PyTorch's, and time PyTorch right after (median of N after warm-up, each in
a fresh process, the best of 1..--threads threads). Prints a Markdown table
of the medians over the rounds, with the median ratio and its range. With --tune, orchestra-tune first
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

MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder_layer", "mlp",
          "r3d_18"]
# Every model of torch_models.py can be named with --models, e.g.
# --models lstm_tagger,gru_classifier (the recurrent networks).


def torch_medians(name, threads, repeat):
    import torch

    torch.set_num_threads(threads)
    model, x = torch_models.prepare(name)

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


def run_orchestra(bin_dir, model_dir, repeat):
    """orchestra-run's median latency (ms) and whether the output matches
    PyTorch's."""
    out_dir = os.path.join(model_dir, "out")
    run = subprocess.run(
        [os.path.join(bin_dir, "orchestra-run"),
         os.path.join(model_dir, "model.orcx"), "--input",
         "input=" + os.path.join(model_dir, "input_0.npy"),
         "--output-dir", out_dir, "--repeat", str(repeat), "--quiet"],
        check=True, capture_output=True, text=True)
    match = re.search(r"latency: median ([0-9.]+) ms", run.stdout)
    got = np.load(os.path.join(out_dir, "output_0.npy"))
    expected = np.load(os.path.join(model_dir, "expected_0.npy"))
    return float(match.group(1)), bool(
        np.allclose(got, expected, rtol=1e-3, atol=1e-4))


def run_torch(name, threads, repeat):
    """PyTorch's eager and traced+frozen medians (ms), each the best of 1 to
    `threads` threads, measured in fresh processes: PyTorch's BLAS threads
    keep spinning for a while after each call and would steal the cores from
    orchestra-run, and its BLAS and OpenMP pools can oversubscribe the
    cores."""
    best = None
    for count in range(1, threads + 1):
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--torch-only", name,
             "--threads", str(count), "--repeat", str(repeat)], check=True,
            capture_output=True, text=True).stdout.split()
        eager, frozen = float(out[0]), float(out[1])
        best = (eager, frozen) if best is None else (
            min(best[0], eager), min(best[1], frozen))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3,
                        help="measure every model this many times, "
                        "OrchestraOS and PyTorch back to back, and report "
                        "the medians")
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
            print(f"{name}: compiled in {compile_s:.1f} s", file=sys.stderr)
            rows.append({"name": name, "dir": model_dir, "compile": compile_s,
                         "ours": [], "eager": [], "frozen": [], "ok": True})

        # Each round times every model with OrchestraOS and then with
        # PyTorch, so that both see the same state of a shared machine; the
        # table reports medians over the rounds.
        for round_index in range(args.rounds):
            for row in rows:
                print(f"{row['name']}: round {round_index + 1}/{args.rounds}",
                      file=sys.stderr)
                ours, ok = run_orchestra(bin_dir, row["dir"], args.repeat)
                row["ours"].append(ours)
                row["ok"] = row["ok"] and ok
                eager, frozen = run_torch(row["name"], args.threads,
                                          args.repeat)
                row["eager"].append(eager)
                row["frozen"].append(frozen)

    print(f"| model | compile | OrchestraOS | PyTorch eager | PyTorch "
          f"traced+frozen | OrchestraOS / traced | output matches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for row in rows:
        ours = statistics.median(row["ours"])
        eager = statistics.median(row["eager"])
        frozen = statistics.median(row["frozen"])
        ratios = sorted(o / f for o, f in zip(row["ours"], row["frozen"]))
        spread = (f" ({ratios[0]:.2f}-{ratios[-1]:.2f})"
                  if len(ratios) > 1 else "")
        print(f"| {row['name']} | {row['compile']:.1f} s | {ours:.2f} ms "
              f"| {eager:.2f} ms | {frozen:.2f} ms | "
              f"{statistics.median(ratios):.2f}x{spread} | "
              f"{'yes' if row['ok'] else 'NO'} |")
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
