"""End-to-end latency of the four reference models with an NVIDIA GPU:
OrchestraOS on a CPU+GPU topology against PyTorch on the GPU (eager, and
torch.compile where this PyTorch has it), same machine, same run.

    /usr/bin/python3 bench/gpu/model_latency_gpu.py [--build build]
        [--topology topologies/cpu+hopper.json] [--repeat 20]
        [--models resnet18,mobilenet_v2,...]

For each model: export it to ONNX with random weights (as the e2e tests do),
compile it for the topology (timed), run it with orchestra-run --repeat N
(median after a warm-up run; inputs and outputs cross the host<->device link
as the plan says) and check the output against PyTorch's; then time
PyTorch's model on the GPU with the input already there (median of N after
warm-up, CUDA-synchronized). Prints a Markdown table.

Needs a CUDA GPU, its driver and a PyTorch built with CUDA; it says so and
exits with status 2 otherwise.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "onnx", "Inputs"))
import torch_models  # noqa: E402

MODELS = ["resnet18", "mobilenet_v2", "transformer_encoder_layer", "mlp"]


def torch_gpu_median(torch, fn, x, repeat):
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn(x)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--topology",
                        default=os.path.join(ROOT, "topologies",
                                             "cpu+hopper.json"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("model_latency_gpu: no CUDA device (torch.cuda.is_available() "
              "is false); nothing measured", file=sys.stderr)
        return 2
    bin_dir = os.path.join(args.build, "bin")
    print(f"device: {torch.cuda.get_device_name(0)}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model_dir = os.path.join(tmp, name)
            print(f"{name}: exporting...", file=sys.stderr)
            torch_models.export(name, model_dir)
            artifact = os.path.join(model_dir, "model.orcx")
            start = time.perf_counter()
            subprocess.run([os.path.join(bin_dir, "orchestra-compile"),
                            os.path.join(model_dir, "model.onnx"),
                            "--topology", args.topology, "-o", artifact,
                            "--quiet"], check=True)
            compile_s = time.perf_counter() - start
            out_dir = os.path.join(model_dir, "out")
            run = subprocess.run(
                [os.path.join(bin_dir, "orchestra-run"), artifact, "--input",
                 "input=" + os.path.join(model_dir, "input_0.npy"),
                 "--output-dir", out_dir, "--repeat", str(args.repeat),
                 "--quiet"], check=True, capture_output=True, text=True)
            ours = float(re.search(r"latency: median ([0-9.]+) ms",
                                   run.stdout).group(1)) / 1e3
            check = subprocess.run(
                [sys.executable, os.path.join(ROOT, "test", "e2e", "onnx",
                                              "Inputs", "torch_models.py"),
                 "compare", model_dir, out_dir], capture_output=True,
                text=True)
            model, shape = torch_models.build(name)
            torch_models.calibrate_batch_norm(model, shape)
            model = model.eval().cuda()
            torch.manual_seed(1)
            x = torch.randn(*shape).cuda()
            eager = torch_gpu_median(torch, model, x, args.repeat)
            compiled = None
            if hasattr(torch, "compile"):
                compiled = torch_gpu_median(torch, torch.compile(model), x,
                                            args.repeat)
            rows.append((name, ours, eager, compiled, compile_s,
                         check.returncode == 0))
    print("| model | OrchestraOS | PyTorch eager (GPU) | torch.compile (GPU) | "
          "ratio to eager | compile | output matches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for name, ours, eager, compiled, compile_s, ok in rows:
        compiled_text = f"{compiled * 1e3:.2f} ms" if compiled else "n/a"
        print(f"| {name} | {ours * 1e3:.2f} ms | {eager * 1e3:.2f} ms | "
              f"{compiled_text} | {ours / eager:.2f} | {compile_s:.1f} s | "
              f"{'yes' if ok else 'NO'} |")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
