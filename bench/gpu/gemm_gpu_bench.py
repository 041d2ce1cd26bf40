"""Half-precision GEMM on an NVIDIA GPU: OrchestraOS against cuBLAS
(through PyTorch), same machine, same run.

    /usr/bin/python3 bench/gpu/gemm_gpu_bench.py [--build build]
        [--shapes 4096,2048,...|MxNxK,...] [--repeat 20] [--arch nvidia_hopper]
        [--dtype f16|bf16] [--accumulate f32|f16] [--wgmma]

For every shape: compile C = A * B (row-major; f16 or bf16 operands
accumulated in f32 and the result rounded to the operands' type, what
torch.matmul does; with --accumulate f16, f16 operands accumulated in f16,
what linalg.matmul on f16 tensors says) for a GPU-only topology (Hopper
with --wgmma: the target key wgmma = true, warpgroup MMA) (inputs and outputs in device memory), run it with
orchestra-run --repeat N --trace, take the kernel's time from the trace of
the last run (the launch step; the host<->device copies of the inputs and
outputs are not counted, as they are not for cuBLAS), check the result
against PyTorch, and time torch.matmul on CUDA tensors (cuBLAS) with CUDA
events. Prints a Markdown table of TFLOP/s and the ratio to cuBLAS.

Needs a CUDA GPU, its driver and a PyTorch built with CUDA; it says so and
exits with status 2 otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM_F16_ACC = """func.func @main(%a: tensor<{m}x{k}xf16>, %b: tensor<{k}x{n}xf16>) -> tensor<{m}x{n}xf16> {{
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<{m}x{n}xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<{m}x{n}xf16>) -> tensor<{m}x{n}xf16>
  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf16>, tensor<{k}x{n}xf16>) outs(%f : tensor<{m}x{n}xf16>) -> tensor<{m}x{n}xf16>
  return %c : tensor<{m}x{n}xf16>
}}
"""

PROGRAM = """func.func @main(%a: tensor<{m}x{k}x{t}>, %b: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %c = linalg.matmul ins(%a, %b : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %o = tensor.empty() : tensor<{m}x{n}x{t}>
  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins(%c : tensor<{m}x{n}xf32>) outs(%o : tensor<{m}x{n}x{t}>) {{
  ^bb0(%x: f32, %y: {t}):
    %s = arith.truncf %x : f32 to {t}
    linalg.yield %s : {t}
  }} -> tensor<{m}x{n}x{t}>
  return %r : tensor<{m}x{n}x{t}>
}}
"""

SM = {"nvidia_hopper": "sm_90a", "nvidia_blackwell": "sm_100a"}


def topology(arch, wgmma):
    target = {"sm": SM[arch]}
    if wgmma:
        target["wgmma"] = True
    return {
        "name": "gpu-only",
        "devices": [{
            "name": "gpu0", "arch": arch, "device_id": 0,
            "compute_units": 132,
            "peak_flops": {"f16": 9.9e14, "bf16": 9.9e14, "f32": 6.7e13},
            "memory_bandwidth": 3.35e12, "launch_overhead": 5e-6,
            "target": target,
        }],
        "memory_spaces": [{"name": "gpu0_hbm", "device": "gpu0",
                           "kind": "hbm", "capacity": 80 << 30}],
        "links": [],
    }


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = [int(d) for d in item.split("x")]
        shapes.append(tuple(dims * 3) if len(dims) == 1 else tuple(dims))
    return shapes


def kernel_seconds(trace_path):
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") == "task"
             and e.get("pid", 0) == 0]
    if not spans:
        sys.exit("no measured task in " + trace_path)
    return sum(e["dur"] for e in spans) / 1e6


def cublas_seconds(torch, dtype, m, n, k, repeat):
    a = torch.randn(m, k, dtype=dtype, device="cuda")
    b = torch.randn(k, n, dtype=dtype, device="cuda")
    for _ in range(3):
        torch.matmul(a, b)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
        enable_timing=True)
    times = []
    for _ in range(repeat):
        start.record()
        torch.matmul(a, b)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--shapes", default="4096,2048,1024")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--arch", default="nvidia_hopper", choices=sorted(SM))
    parser.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    parser.add_argument("--accumulate", default="f32", choices=["f32", "f16"])
    parser.add_argument("--wgmma", action="store_true",
                        help="Hopper warpgroup MMA (target key wgmma = true)")
    args = parser.parse_args()
    if args.accumulate == "f16" and args.dtype != "f16":
        parser.error("--accumulate f16 needs --dtype f16")
    if args.wgmma and args.arch != "nvidia_hopper":
        parser.error("--wgmma is a Hopper key")
    try:
        import torch
    except ImportError:
        print("gemm_gpu_bench: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gemm_gpu_bench: no CUDA device (torch.cuda.is_available() is "
              "false); nothing measured", file=sys.stderr)
        return 2
    bin_dir = os.path.join(args.build, "bin")
    print(f"device: {torch.cuda.get_device_name(0)}, {args.dtype} operands, "
          f"{args.accumulate} accumulation" + (", wgmma" if args.wgmma else ""))
    dtype = torch.float16 if args.dtype == "f16" else torch.bfloat16
    program = PROGRAM_F16_ACC if args.accumulate == "f16" else \
        PROGRAM.replace("{t}", args.dtype)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        topo = os.path.join(tmp, "topology.json")
        with open(topo, "w") as f:
            json.dump(topology(args.arch, args.wgmma), f)
        for m, n, k in parse_shapes(args.shapes):
            print(f"{m}x{n}x{k}...", file=sys.stderr)
            gen = torch.Generator().manual_seed(0)
            a = (torch.rand(m, k, generator=gen) * 2 - 1).to(dtype)
            b = (torch.rand(k, n, generator=gen) * 2 - 1).to(dtype)
            for name, value in (("a", a), ("b", b)):
                # bf16 travels as its bits (uint16), f16 as float16.
                array = value.view(torch.int16).numpy().view(np.uint16) \
                    if dtype == torch.bfloat16 else value.numpy()
                np.save(os.path.join(tmp, name + ".npy"), array)
            with open(os.path.join(tmp, "gemm.mlir"), "w") as f:
                f.write(program.format(m=m, n=n, k=k))
            artifact = os.path.join(tmp, "gemm.orcx")
            subprocess.run([os.path.join(bin_dir, "orchestra-compile"),
                            os.path.join(tmp, "gemm.mlir"), "--topology", topo,
                            "-o", artifact, "--quiet"], check=True)
            trace = os.path.join(tmp, "trace.json")
            out_dir = os.path.join(tmp, "out")
            subprocess.run([os.path.join(bin_dir, "orchestra-run"), artifact,
                            "--input", os.path.join(tmp, "a.npy"), "--input",
                            os.path.join(tmp, "b.npy"), "--output-dir",
                            out_dir, "--repeat", str(args.repeat), "--trace",
                            trace, "--quiet"], check=True)
            ours = kernel_seconds(trace)
            got = np.load(os.path.join(out_dir, "output_0.npy"))
            if got.dtype == np.uint16:
                got = (got.astype(np.uint32) << 16).view(np.float32)
            got = got.astype(np.float32)
            ref = (a.cuda() @ b.cuda()).float().cpu().numpy()
            ok = bool(np.allclose(got, ref, rtol=2e-2, atol=0.05 * np.sqrt(k)))
            theirs = cublas_seconds(torch, dtype, m, n, k, args.repeat)
            flops = 2.0 * m * n * k
            rows.append((m, n, k, flops / ours / 1e12, flops / theirs / 1e12,
                         ok))
    print("| M x N x K | OrchestraOS TFLOP/s | cuBLAS TFLOP/s | ratio | "
          "correct |")
    print("| --- | ---: | ---: | ---: | --- |")
    for m, n, k, ours, theirs, ok in rows:
        print(f"| {m}x{n}x{k} | {ours:.1f} | {theirs:.1f} | "
              f"{ours / theirs:.2f} | {'yes' if ok else 'NO'} |")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
