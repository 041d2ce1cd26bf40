"""OrchestraOS against the runtimes users pick instead, same models, same
inputs, same run: ONNX Runtime, OpenVINO, IREE, TVM and PyTorch.

    .venv/bin/python3 bench/peers/run.py [--models a,b,...] [--peers p,q,...]
        [--rounds 3] [--repeat 20] [--budget 30] [--work DIR] [--gemm]
        [--json FILE] [--quantize qdq|dynamic]

(after `scripts/setup.sh --bench` and `scripts/build.sh`). For each model:
export it to ONNX with Debian's PyTorch 1.13 (models.py: random weights,
batch norms calibrated, opset 17) and compute the reference output; compile
it for every peer (timed: orchestra-compile; ORT/OpenVINO session creation;
iree-import-onnx + iree-compile; TVM's Relax import and build; PyTorch's
trace + freeze). Then, in each of --rounds rounds, for each model, run every
peer in a fresh process (peer_worker.py: warm-up, then at least --repeat
timed inferences and --min-time seconds of them), the peers' order rotating
from round to round, so that a slow
phase of the shared machine hits everyone. Every peer's output is checked
against the reference in every round. Everyone gets 2 threads.

Prints Markdown tables: latency (median over the rounds of each round's
median) per peer, the best peer, our ratio to it, compile times, and which
outputs matched. With --gemm, the models are the GEMM shapes of
bench/gemm (one matmul of two inputs) and the table is in GFLOP/s.
A peer that cannot compile or run a model is shown with the reason.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import models  # noqa: E402

PEERS = ["orchestra", "onnxruntime", "onnxruntime-nospin", "openvino", "iree",
         "tvm", "torch"]
LABELS = {"orchestra": "OrchestraOS", "onnxruntime": "ORT",
          "openvino": "OpenVINO", "iree": "IREE", "tvm": "TVM",
          "torch": "PyTorch 1.13", "torch2": "PyTorch 2 compile"}
GEMMS = ["gemm_256x256x256", "gemm_1024x1024x1024", "gemm_2048x2048x2048",
         "gemm_1000x1000x1000", "gemm_384x3072x768", "gemm_128x2048x512",
         "gemm_1x4096x4096"]


def log(message):
    print(message, file=sys.stderr, flush=True)


def worker(peer, args, *extra):
    python = sys.executable
    if peer == "torch2":
        python = os.path.join(ROOT, ".venv-torch2", "bin", "python3")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               OPENBLAS_NUM_THREADS=str(args.threads),
               TVM_FFI_DISABLE_TORCH_C_DLPACK="1")
    run = subprocess.run(
        [python, os.path.join(HERE, "peer_worker.py"), *extra,
         "--threads", str(args.threads), "--build", args.build],
        capture_output=True, text=True, env=env, timeout=args.timeout)
    if run.returncode != 0:
        lines = [l for l in run.stderr.splitlines() if l.strip()]
        # peer_worker.py's last line says why.
        reason = lines[-1] if lines else "exit %d" % run.returncode
        raise RuntimeError(reason.strip()[:240])
    return json.loads(run.stdout.strip().splitlines()[-1])


def check(model_dir, peer):
    """None when every output of PEER matches the reference, else why not.
    The rule of the e2e tests: |got - expected| <= 1e-4 + 1e-3 |expected|;
    for a quantized model whose output is dequantized (quantize.py writes
    its `step`), within one quantization step."""
    expected = np.load(os.path.join(model_dir, "expected_0.npy"))
    step_path = os.path.join(model_dir, "step")
    step = None
    if os.path.exists(step_path):
        with open(step_path) as f:
            step = float(f.read())
    path = os.path.join(model_dir, peer, "output_0.npy")
    got = np.load(path)
    if got.shape != expected.shape:
        if got.size == expected.size:
            got = got.reshape(expected.shape)
        else:
            return "shape %s, expected %s" % (got.shape, expected.shape)
    error = np.abs(got.astype(np.float64) - expected)
    bound = step * 1.001 if step else 1e-4 + 1e-3 * np.abs(expected)
    bad = np.count_nonzero(error > bound)
    if bad:
        return "%d of %d elements off (max error %.3g)" % (
            bad, error.size, float(error.max()))
    return None


def flops(name):
    m, n, k = (int(v) for v in name[len("gemm_"):].split("x"))
    return 2.0 * m * n * k


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models",
                        help="comma-separated names (default: every model of "
                        "models.py, or with --gemm every GEMM shape, "
                        "gemm_MxNxK)")
    parser.add_argument("--peers", default=None,
                        help="default: every peer, with torch2 when "
                        ".venv-torch2 exists")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--budget", type=float, default=10.0,
                        help="stop a peer's timed runs of one round after "
                        "this many seconds (never before 3 runs); the "
                        "table shows the run count when it is below "
                        "--repeat")
    parser.add_argument("--min-time", type=float, default=1.0,
                        help="seconds of warm-up and of timed runs (at "
                        "least), besides the run counts")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds one compile or run may take")
    parser.add_argument("--work", default=os.path.join(ROOT, "build",
                                                       "peers"))
    parser.add_argument("--gemm", action="store_true",
                        help="the GEMM shapes instead of the models")
    parser.add_argument("--json", help="also write every measurement here")
    parser.add_argument("--quantize", choices=["qdq", "dynamic"],
                        help="quantize each model with ONNX Runtime's "
                        "quantizer (quantize.py: static QDQ, or dynamic) "
                        "and compare with ONNX Runtime's int8 outputs")
    args = parser.parse_args()

    names = args.models.split(",") if args.models else (
        GEMMS if args.gemm else list(models.MODELS))
    peers = args.peers.split(",") if args.peers else list(PEERS) + (
        ["torch2"] if os.path.isdir(os.path.join(ROOT, ".venv-torch2"))
        else [])
    results = {n: {p: {"rounds": [], "runs": [], "mismatch": None,
                       "error": None, "compile_s": None} for p in peers}
               for n in names}

    for name in names:
        model_dir = os.path.join(args.work, name)
        log("%s: exporting" % name)
        subprocess.run([sys.executable, os.path.join(HERE, "models.py"),
                        "export", name, model_dir], check=True,
                       capture_output=True)
        if args.quantize:
            log("%s: quantizing (%s)" % (name, args.quantize))
            subprocess.run([sys.executable, os.path.join(HERE, "quantize.py"),
                            args.quantize, model_dir], check=True)
        for peer in peers:
            entry = results[name][peer]
            try:
                entry["compile_s"] = worker(peer, args, "compile", peer,
                                            model_dir)["compile_s"]
                log("%s: %s compiled in %.1f s" % (name, peer,
                                                   entry["compile_s"]))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                entry["error"] = "compile: %s" % e
                log("%s: %s failed: %s" % (name, peer, entry["error"]))

    for round_index in range(args.rounds):
        for name in names:
            model_dir = os.path.join(args.work, name)
            shift = round_index % len(peers)
            for peer in peers[shift:] + peers[:shift]:
                entry = results[name][peer]
                if entry["error"]:
                    continue
                try:
                    samples = worker(peer, args, "run", peer, model_dir,
                                     "--repeat", str(args.repeat),
                                     "--min-time", str(args.min_time),
                                     "--budget", str(args.budget))[
                                         "samples_ms"]
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    entry["error"] = "run: %s" % e
                    continue
                entry["rounds"].append(statistics.median(samples))
                entry["runs"].append(len(samples))
                entry["mismatch"] = entry["mismatch"] or check(model_dir,
                                                               peer)
            log("round %d/%d: %s: %s" % (
                round_index + 1, args.rounds, name, ", ".join(
                    "%s %.2f" % (p, results[name][p]["rounds"][-1])
                    for p in peers if results[name][p]["rounds"] and
                    len(results[name][p]["rounds"]) == round_index + 1)))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1)
    print_tables(names, peers, results, args)
    return 0


def latency(entry):
    """Median over the rounds, or None when the peer did not run (or its
    output did not match)."""
    if entry["error"] or not entry["rounds"] or entry["mismatch"]:
        return None
    return statistics.median(entry["rounds"])


def merged(peers):
    """Column peers: ORT spinning on and off are one column (the better)."""
    return [p for p in peers if p != "onnxruntime-nospin"]


def best_of(results_for_model, peer):
    entry = results_for_model[peer]
    value = latency(entry)
    if peer == "onnxruntime" and "onnxruntime-nospin" in results_for_model:
        other = latency(results_for_model["onnxruntime-nospin"])
        if other is not None and (value is None or other < value):
            return other, "nospin"
    return value, ""


def print_tables(names, peers, results, args):
    columns = merged(peers)
    unit = "GFLOP/s" if args.gemm else "ms"
    print("| %s | %s | best peer | OrchestraOS / best | OrchestraOS / "
          "PyTorch 1.13 |" % ("GEMM (MxNxK)" if args.gemm else "model",
                             " | ".join(LABELS.get(p, p) for p in columns)))
    print("|---|%s---:|---:|---:|" % ("---:|" * len(columns)))
    notes = []
    for name in names:
        cells = []
        best = None
        for peer in columns:
            value, tag = best_of(results[name], peer)
            entry = results[name][peer]
            if value is None:
                why = entry["error"] or entry["mismatch"] or "did not run"
                notes.append("%s, %s: %s" % (name, LABELS.get(peer, peer),
                                             why))
                cells.append("n/a [%d]" % len(notes))
                continue
            shown = flops(name) / value / 1e6 if args.gemm else value
            text = "%.1f" % shown if args.gemm else "%.2f" % shown
            if tag:
                text += " (%s)" % tag
            if min(entry["runs"]) < args.repeat:
                text += " (n=%d)" % min(entry["runs"])
            cells.append(text)
            if peer != "orchestra" and (best is None or value < best[0]):
                best = (value, peer)
        ours = latency(results[name]["orchestra"]) if \
            "orchestra" in results[name] else None
        ratio = "%.2fx" % (ours / best[0]) if ours and best else "n/a"
        torch = latency(results[name]["torch"]) if "torch" in results[
            name] else None
        to_torch = "%.2fx" % (ours / torch) if ours and torch else "n/a"
        print("| %s | %s | %s | %s | %s |" % (
            name, " | ".join(cells), LABELS.get(best[1], best[1]) if best
            else "n/a", ratio, to_torch))
    print("\n%s, median over %d rounds of the median of at least %d runs "
          "(and %g s) after warm-up, %d threads each; ORT is the better of spinning on and "
          "off (\"nospin\" when off won). The ratios are of latencies "
          "(below 1: OrchestraOS is faster)." % (
              "GFLOP/s (higher is better) from the latency" if args.gemm
              else "Latency in %s (lower is better)" % unit,
              args.rounds, args.repeat, args.min_time, args.threads))
    print("\nCompile time (s):\n")
    print("| %s | %s |" % ("GEMM" if args.gemm else "model", " | ".join(
        LABELS.get(p, p) for p in columns)))
    print("|---|%s" % ("---:|" * len(columns)))
    for name in names:
        print("| %s | %s |" % (name, " | ".join(
            "%.1f" % results[name][p]["compile_s"]
            if results[name][p]["compile_s"] is not None else "n/a"
            for p in columns)))
    if notes:
        print()
        for i, note in enumerate(notes, 1):
            print("[%d] %s" % (i, note))


if __name__ == "__main__":
    sys.exit(main())
