"""Half-precision GEMM on an NVIDIA GPU: OrchestraOS against cuBLAS
(through PyTorch), same machine, same run.

    /usr/bin/python3 bench/gpu/gemm_gpu_bench.py [--build build]
        [--shapes 4096,2048,...|MxNxK,...] [--repeat 20] [--arch nvidia_hopper]
        [--dtype f16|bf16] [--accumulate f32|f16]
        [--mma-sync | --wgmma [--wgmma-tile 128x256]]
        [--arch nvidia_blackwell --tcgen05 [--wgmma-tile 128x256]]
        [--prepare DIR | --artifacts DIR]

For every shape: compile C = A * B (row-major; f16 or bf16 operands
accumulated in f32 and the result rounded to the operands' type, what
torch.matmul does; with --accumulate f16, f16 operands accumulated in f16,
what linalg.matmul on f16 tensors says) for a GPU-only topology (Hopper
with the compiler's defaults: warpgroup MMA, in 128x256 blocks where there
are enough of them; with --mma-sync: the target key wgmma = false, mma.sync;
with --wgmma: wgmma = true in the block tile --wgmma-tile says; Blackwell
with --tcgen05: the target key tcgen05 = true, tcgen05 MMA; inputs and
outputs in device memory), run it through the runtime's Python bindings
(python/orchestra_rt) once to warm up and N more times, take the median GPU
time of its kernel launch (CUDA events around it; the host<->device copies
of the inputs and outputs are not counted, as they are not for cuBLAS),
check the result against PyTorch, and time torch.matmul on CUDA tensors
(cuBLAS) with CUDA events, median of N. Prints a Markdown table of TFLOP/s
and the ratio to cuBLAS.

--prepare DIR only compiles the artifacts into DIR with the runtime library
and a manifest (no GPU or PyTorch needed); --artifacts DIR then runs them on
a machine that has a GPU, PyTorch and numpy but not the compiler (nor LLVM
or MLIR).

Needs a CUDA GPU, its driver and a PyTorch built with CUDA; it says so and
exits with status 2 otherwise.
"""
import argparse
import json
import os
import shutil
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

# The machine each GPU arch is benchmarked on: its GPU device is kept.
MACHINE = {"nvidia_hopper": "cpu+hopper.json",
           "nvidia_blackwell": "cpu+blackwell.json"}


def write_topology(build, path, arch, wgmma, wgmma_tile="128x128",
                   tcgen05=False, mma_sync=False):
    """Writes a GPU-only topology for `arch` to `path`: the GPU of its
    machine in topologies/, with the MMA target keys asked for."""
    keys = []
    if wgmma:
        keys += ["wgmma=true", f"wgmma_tile={wgmma_tile}"]
    if mma_sync:
        keys += ["wgmma=false"]
    if tcgen05:
        keys += ["tcgen05=true", f"tcgen05_tile={wgmma_tile}"]
    command = [os.path.join(build, "bin", "orchestra-topology"),
               os.path.join(ROOT, "topologies", MACHINE[arch]),
               "--keep", arch, "--name", "gpu-only", "-o", path]
    for key in keys:
        command += ["--set", f"{arch}.{key}"]
    subprocess.run(command, check=True)


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = [int(d) for d in item.split("x")]
        shapes.append(tuple(dims * 3) if len(dims) == 1 else tuple(dims))
    return shapes


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


def describe_mismatch(got, ref, rtol, atol):
    """Says where a wrong result is wrong, for a diagnosis from one run: how
    many elements, the first few, and which rows and columns of a 128x128
    block (the kernels' tiles) and of an 8x8 fragment hold them."""
    bad = ~np.isclose(got, ref, rtol=rtol, atol=atol)
    rows, cols = np.nonzero(bad)
    print(f"gemm_gpu_bench: {bad.sum()} of {bad.size} elements wrong "
          f"(NaN in the result: {int(np.isnan(got).sum())}); first: " +
          ", ".join(f"[{i},{j}] {got[i, j]:.4g} (want {ref[i, j]:.4g})"
                    for i, j in list(zip(rows, cols))[:4]), file=sys.stderr)
    for name, index, period in (("rows", rows, 128), ("columns", cols, 128),
                                ("rows mod 8", rows, 8),
                                ("columns mod 8", cols, 8)):
        counts = np.bincount(index % period, minlength=period)
        wrong = np.nonzero(counts)[0]
        print(f"gemm_gpu_bench:   {name} of a {period}-wide tile with wrong "
              f"elements: {len(wrong)} of {period}"
              + (f" ({', '.join(map(str, wrong[:16]))}"
                 f"{', ...' if len(wrong) > 16 else ''})"
                 if len(wrong) < period else ""), file=sys.stderr)


def artifact_name(m, n, k):
    return f"gemm_{m}x{n}x{k}.orcx"


def prepare(args, program, out_dir):
    """Compiles every shape's artifact into out_dir (its kernels' PTX and
    cubins into out_dir/ptx_MxNxK), with the runtime library and a
    manifest, for a later --artifacts run (no GPU needed here)."""
    os.makedirs(out_dir, exist_ok=True)
    topo = os.path.join(out_dir, "topology.json")
    write_topology(args.build, topo, args.arch, args.wgmma, args.wgmma_tile,
                   args.tcgen05, args.mma_sync)
    shapes = parse_shapes(args.shapes)
    for m, n, k in shapes:
        source = os.path.join(out_dir, f"gemm_{m}x{n}x{k}.mlir")
        with open(source, "w") as f:
            f.write(program.format(m=m, n=n, k=k))
        subprocess.run([os.path.join(args.build, "bin", "orchestra-compile"),
                        source, "--topology", topo, "-o",
                        os.path.join(out_dir, artifact_name(m, n, k)),
                        "--dump-device-code",
                        os.path.join(out_dir, f"ptx_{m}x{n}x{k}"),
                        "--quiet"], check=True)
    shutil.copy(os.path.join(args.build, "lib", "liborchestra_rt.so"),
                out_dir)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump({"arch": args.arch, "dtype": args.dtype,
                   "accumulate": args.accumulate, "wgmma": args.wgmma,
                   "wgmma_tile": args.wgmma_tile, "tcgen05": args.tcgen05,
                   "mma_sync": args.mma_sync,
                   "shapes": [list(s) for s in shapes]}, f)


def our_seconds(orchestra_rt, artifact, a, b, repeat):
    """The median GPU time of the GEMM's launch over `repeat` runs after a
    warm-up (CUDA events around the launch; the host's time from enqueueing
    to completion where the driver cannot time), and the output."""
    with orchestra_rt.Session(artifact) as session:
        session.run(a, b)
        times = []
        for _ in range(repeat):
            (out,) = session.run(a, b)
            launches = [e for e in session.trace() if e.kind == "launch"]
            if not launches:
                sys.exit("gemm_gpu_bench: the artifact ran no kernel")
            times.append(sum(e.device_ns or e.duration_ns
                             for e in launches) / 1e9)
    return float(np.median(times)), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--shapes", default="4096,2048,1024")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--arch", default="nvidia_hopper", choices=sorted(MACHINE))
    parser.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    parser.add_argument("--accumulate", default="f32", choices=["f32", "f16"])
    parser.add_argument("--wgmma", action="store_true",
                        help="Hopper warpgroup MMA in the --wgmma-tile block "
                             "tile (target key wgmma = true)")
    parser.add_argument("--mma-sync", action="store_true",
                        help="Hopper mma.sync instead of warpgroup MMA "
                             "(target key wgmma = false)")
    parser.add_argument("--tcgen05", action="store_true",
                        help="Blackwell tcgen05 MMA (target key tcgen05 = "
                             "true)")
    parser.add_argument("--wgmma-tile", default="128x128",
                        choices=["128x128", "128x256"],
                        help="the wgmma or tcgen05 kernels' block tile "
                             "(target key wgmma_tile or tcgen05_tile)")
    parser.add_argument("--prepare", metavar="DIR",
                        help="only compile the artifacts into DIR, with the "
                             "runtime library (no GPU needed), for --artifacts")
    parser.add_argument("--artifacts", metavar="DIR",
                        help="run the artifacts --prepare wrote into DIR "
                             "(its manifest sets the shapes, types and keys) "
                             "instead of compiling: needs only the runtime "
                             "library, not the compiler")
    args = parser.parse_args()
    if args.artifacts:
        with open(os.path.join(args.artifacts, "manifest.json")) as f:
            manifest = json.load(f)
        for key in ("arch", "dtype", "accumulate", "wgmma", "wgmma_tile",
                    "tcgen05", "mma_sync"):
            setattr(args, key, manifest.get(key, getattr(args, key)))
        args.shapes = ",".join("x".join(map(str, s))
                               for s in manifest["shapes"])
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.accumulate == "f16" and args.dtype != "f16":
        parser.error("--accumulate f16 needs --dtype f16")
    if (args.wgmma or args.mma_sync) and args.arch != "nvidia_hopper":
        parser.error("--wgmma and --mma-sync are Hopper keys")
    if args.wgmma and args.mma_sync:
        parser.error("--wgmma and --mma-sync exclude each other")
    if args.tcgen05 and args.arch != "nvidia_blackwell":
        parser.error("--tcgen05 is a Blackwell key")
    program = PROGRAM_F16_ACC if args.accumulate == "f16" else \
        PROGRAM.replace("{t}", args.dtype)
    if args.prepare:
        prepare(args, program, args.prepare)
        print(f"gemm_gpu_bench: wrote the artifacts to {args.prepare}; run "
              f"them with --artifacts {args.prepare}")
        return 0
    try:
        import torch
    except ImportError:
        print("gemm_gpu_bench: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gemm_gpu_bench: no CUDA device (torch.cuda.is_available() is "
              "false); nothing measured", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import orchestra_rt
    library = os.path.join(args.artifacts or "", "liborchestra_rt.so")
    orchestra_rt.load_library(library if args.artifacts and
                              os.path.exists(library) else None)
    print(f"device: {torch.cuda.get_device_name(0)}, {args.dtype} operands, "
          f"{args.accumulate} accumulation" +
          (f", wgmma {args.wgmma_tile}" if args.wgmma else "") +
          (", mma.sync" if args.mma_sync else "") +
          (", the compiler's defaults" if args.arch == "nvidia_hopper" and
           not (args.wgmma or args.mma_sync) else "") +
          (f", tcgen05 {args.wgmma_tile}" if args.tcgen05 else ""))
    dtype = torch.float16 if args.dtype == "f16" else torch.bfloat16
    # Each row as soon as it is measured (a run cut short keeps them).
    print("| M x N x K | OrchestraOS TFLOP/s | cuBLAS TFLOP/s | ratio | "
          "correct |", flush=True)
    print("| --- | ---: | ---: | ---: | --- |", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        artifacts = args.artifacts or tmp
        if not args.artifacts:
            prepare(args, program, tmp)
        for m, n, k in parse_shapes(args.shapes):
            print(f"{m}x{n}x{k}...", file=sys.stderr)
            gen = torch.Generator().manual_seed(0)
            a = (torch.rand(m, k, generator=gen) * 2 - 1).to(dtype)
            b = (torch.rand(k, n, generator=gen) * 2 - 1).to(dtype)
            # bf16 travels as its bits (uint16), f16 as float16.
            arrays = [v.view(torch.int16).numpy().view(np.uint16)
                      if dtype == torch.bfloat16 else v.numpy()
                      for v in (a, b)]
            ours, got = our_seconds(
                orchestra_rt, os.path.join(artifacts, artifact_name(m, n, k)),
                *arrays, args.repeat)
            if got.dtype == np.uint16:
                got = (got.astype(np.uint32) << 16).view(np.float32)
            got = got.astype(np.float32)
            ref = (a.cuda() @ b.cuda()).float().cpu().numpy()
            ok = bool(np.allclose(got, ref, rtol=2e-2, atol=0.05 * np.sqrt(k)))
            if not ok:
                describe_mismatch(got, ref, 2e-2, 0.05 * np.sqrt(k))
            theirs = cublas_seconds(torch, dtype, m, n, k, args.repeat)
            flops = 2.0 * m * n * k
            rows.append(ok)
            print(f"| {m}x{n}x{k} | {flops / ours / 1e12:.1f} | "
                  f"{flops / theirs / 1e12:.1f} | {theirs / ours:.2f} | "
                  f"{'yes' if ok else 'NO'} |", flush=True)
    return 0 if all(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
