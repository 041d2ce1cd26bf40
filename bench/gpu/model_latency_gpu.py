"""End-to-end latency of the four reference models with an NVIDIA GPU:
OrchestraOS on a CPU+GPU topology against PyTorch on the GPU (eager, and
torch.compile where this PyTorch has it), same machine, same run.

    /usr/bin/python3 bench/gpu/model_latency_gpu.py [--build build]
        [--topology topologies/cpu+hopper.json] [--repeat 20]
        [--models resnet18,mobilenet_v2,...] [--prepare DIR | --artifacts DIR]

For each model: export it to ONNX with random weights (as the e2e tests do),
compile it for the topology (timed), run it through the runtime's Python
bindings (python/orchestra_rt; median wall-clock latency of N runs after a
warm-up run, inputs and outputs crossing the host<->device link as the plan
says) and check the output against PyTorch's; then time PyTorch's model on
the GPU the same way, from an input in host memory to the output in host
memory (median of N after warm-up). Prints a Markdown table, a row per
model as soon as it is measured.

--prepare DIR only exports and compiles the models into DIR, with the
runtime library and a manifest (no GPU needed); --artifacts DIR then runs
them on a machine that has a GPU and PyTorch but not the compiler (ResNet-18
alone is about 45 MB of artifact). --artifacts also takes a bundle of
test/e2e/gpu/Inputs/gpu_bundle.py prepared with --models: its model cases.
--host-cpu CPU (with --prepare) compiles the CPU tasks for that LLVM CPU
(e.g. x86-64-v3) instead of this machine's, for a GPU machine whose
processor lacks some of this one's features.

Needs a CUDA GPU, its driver and a PyTorch built with CUDA; it says so and
exits with status 2 otherwise.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "onnx", "Inputs"))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "gpu", "Inputs"))
import gpu_bundle  # noqa: E402
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


def prepare(args, out_dir):
    """Exports and compiles the models into out_dir/<model>/ (the artifact,
    the input and PyTorch's output), with the runtime library and a
    manifest of the compile times."""
    os.makedirs(out_dir, exist_ok=True)
    topology = gpu_bundle.with_host(args.build, os.path.abspath(args.topology),
                                    out_dir, cpu=args.host_cpu)
    compile_seconds = {}
    for name in args.models.split(","):
        model_dir = os.path.join(out_dir, name)
        print(f"{name}: exporting...", file=sys.stderr)
        torch_models.export(name, model_dir)
        start = time.perf_counter()
        subprocess.run([os.path.join(args.build, "bin", "orchestra-compile"),
                        os.path.join(model_dir, "model.onnx"), "--topology",
                        topology, "-o",
                        os.path.join(model_dir, "model.orcx"), "--quiet"],
                       check=True)
        compile_seconds[name] = time.perf_counter() - start
        os.remove(os.path.join(model_dir, "model.onnx"))
    gpu_bundle.copy_runtime(args.build, out_dir)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"topology": os.path.basename(args.topology),
                   "compile_seconds": compile_seconds}, f, indent=1)


def our_latency(orchestra_rt, np, model_dir, artifact, repeat):
    """Median wall-clock latency of a run of the model's artifact after a
    warm-up run; writes the output to model_dir/out."""
    x = np.load(os.path.join(model_dir, "input_0.npy"))
    with orchestra_rt.Session(artifact) as s:
        (y,) = s.run(x)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            (y,) = s.run(x)
            times.append(time.perf_counter() - start)
    os.makedirs(os.path.join(model_dir, "out"), exist_ok=True)
    np.save(os.path.join(model_dir, "out", "output_0.npy"), y)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--topology",
                        default=os.path.join(ROOT, "topologies",
                                             "cpu+hopper.json"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--prepare", metavar="DIR",
                        help="only export and compile the models into DIR "
                             "(no GPU needed), for --artifacts")
    parser.add_argument("--artifacts", metavar="DIR",
                        help="run the models --prepare (or gpu_bundle.py "
                             "prepare --models) wrote into DIR instead of "
                             "exporting and compiling them")
    parser.add_argument("--host-cpu", metavar="CPU",
                        help="generate the CPU tasks' code for this LLVM CPU "
                             "(e.g. x86-64-v3) instead of this machine's")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.prepare:
        prepare(args, args.prepare)
        print(f"model_latency_gpu: wrote the models to {args.prepare}; run "
              f"them with --artifacts {args.prepare}")
        return 0
    import numpy as np
    import torch
    if not torch.cuda.is_available():
        print("model_latency_gpu: no CUDA device (torch.cuda.is_available() "
              "is false); nothing measured", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import orchestra_rt
    if args.artifacts:
        library = os.path.join(args.artifacts, "liborchestra_rt.so")
        if "ORCHESTRA_RT_LIBRARY" not in os.environ and \
                os.path.exists(library):
            orchestra_rt.load_library(library)
        with open(os.path.join(args.artifacts, "manifest.json")) as f:
            manifest = json.load(f)
        if "cases" in manifest:  # a gpu_bundle.py bundle
            manifest = {"compile_seconds": {
                c["model"]: c["compile_seconds"] for c in manifest["cases"]
                if c["kind"] == "model" and "model" in c}}
        if args.models == ",".join(MODELS):
            args.models = ",".join(manifest["compile_seconds"])
        missing = set(args.models.split(",")) - set(manifest["compile_seconds"])
        if missing:
            parser.error(f"{args.artifacts} has no {', '.join(sorted(missing))} "
                         f"(it has {', '.join(manifest['compile_seconds'])})")
    print(f"device: {torch.cuda.get_device_name(0)}")
    # Each row as soon as it is measured (a run cut short keeps them).
    print("| model | OrchestraOS | PyTorch eager (GPU) | torch.compile (GPU) | "
          "ratio to eager | compile | output matches |", flush=True)
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bundle = args.artifacts or tmp
        if not args.artifacts:
            prepare(args, tmp)
            with open(os.path.join(tmp, "manifest.json")) as f:
                manifest = json.load(f)
        for name in args.models.split(","):
            model_dir = os.path.join(bundle, name)
            artifact = os.path.join(model_dir, "model.orcx")
            if not os.path.exists(artifact):  # a gpu_bundle.py bundle
                model_dir = os.path.join(bundle, "model_" + name)
                artifact = os.path.join(model_dir, "program.orcx")
            ours = our_latency(orchestra_rt, np, model_dir, artifact,
                               args.repeat)
            check = subprocess.run(
                [sys.executable, os.path.join(ROOT, "test", "e2e", "onnx",
                                              "Inputs", "torch_models.py"),
                 "compare", model_dir, os.path.join(model_dir, "out")],
                capture_output=True, text=True)
            model, shape = torch_models.build(name)
            torch_models.calibrate_batch_norm(model, shape)
            model = model.eval().cuda()
            torch.manual_seed(1)
            # From host memory to host memory, as the artifact's entry
            # takes and gives its tensors.
            x = torch.randn(*shape)
            eager = torch_gpu_median(torch, lambda v: model(v.cuda()).cpu(),
                                     x, args.repeat)
            compiled = None
            if hasattr(torch, "compile"):
                try:
                    fast = torch.compile(model)
                    compiled = torch_gpu_median(
                        torch, lambda v: fast(v.cuda()).cpu(), x, args.repeat)
                except Exception as e:  # noqa: BLE001 - reported, not fatal
                    print(f"model_latency_gpu: torch.compile({name}) failed: "
                          f"{type(e).__name__}: {e}", file=sys.stderr)
            ok = check.returncode == 0
            rows.append((name, ok))
            compiled_text = f"{compiled * 1e3:.2f} ms" if compiled else "n/a"
            print(f"| {name} | {ours * 1e3:.2f} ms | {eager * 1e3:.2f} ms | "
                  f"{compiled_text} | {ours / eager:.2f} | "
                  f"{manifest['compile_seconds'][name]:.1f} s | "
                  f"{'yes' if ok else 'NO'} |", flush=True)
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
