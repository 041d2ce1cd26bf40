"""Convolution latency of OrchestraOS against oneDNN, same run.

    /usr/bin/python3 bench/conv/conv_bench.py [--build build] [--repeat 20]
        [--threads 1,2] [--layers resnet18,mobilenet_v2]
        [--layout nhwc|onnx]

The layers are the distinct 2-D convolutions of ResNet-18 (dense) and the
depthwise ones of MobileNetV2, batch 1, f32, without bias. For every layer and
thread count, the convolution is compiled with orchestra-compile for a
one-CPU topology with that many threads, run with orchestra-run --repeat N
(the median of the plan's steps, `steps:`, after a warm-up), checked against
PyTorch, and the same convolution is timed with oneDNN (build/bin/conv-peers,
its preferred layouts, reorders outside the timing). Prints a Markdown table
of GFLOP/s and the ratio.

--layout says what is compiled:
  nhwc (default): the convolution as it runs inside a model, where the
      layout pass has made it channels-last and the previous task has
      padded its input: an MLIR program of one linalg.conv_2d_nhwc_hwcf
      (or depthwise_conv_2d_nhwc_hwc) on a padded NHWC input and an HWCF
      (HWC) filter, both inputs of the program;
  onnx: a one-convolution ONNX model exported with PyTorch (NCHW at its
      boundary, the weights constants), so the time includes the
      transposes into and out of channels-last and the padding.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "gemm"))
from gemm_bench import write_topology  # noqa: E402

# (name, C, H=W, K, kernel, stride, pad, groups)
LAYERS = {
    "resnet18": [
        ("conv1", 3, 224, 64, 7, 2, 3, 1),
        ("layer1", 64, 56, 64, 3, 1, 1, 1),
        ("layer2.down", 64, 56, 128, 3, 2, 1, 1),
        ("layer2", 128, 28, 128, 3, 1, 1, 1),
        ("layer2.1x1", 64, 56, 128, 1, 2, 0, 1),
        ("layer3.down", 128, 28, 256, 3, 2, 1, 1),
        ("layer3", 256, 14, 256, 3, 1, 1, 1),
        ("layer4.down", 256, 14, 512, 3, 2, 1, 1),
        ("layer4", 512, 7, 512, 3, 1, 1, 1),
    ],
    "mobilenet_v2": [
        ("dw32", 32, 112, 32, 3, 1, 1, 32),
        ("dw96/2", 96, 112, 96, 3, 2, 1, 96),
        ("dw144", 144, 56, 144, 3, 1, 1, 144),
        ("dw144/2", 144, 56, 144, 3, 2, 1, 144),
        ("dw192", 192, 28, 192, 3, 1, 1, 192),
        ("dw384", 384, 14, 384, 3, 1, 1, 384),
        ("dw576", 576, 14, 576, 3, 1, 1, 576),
        ("dw960", 960, 7, 960, 3, 1, 1, 960),
    ],
}


def export(path, c, hw, k, kernel, stride, pad, groups, seed):
    import torch
    torch.manual_seed(seed)
    conv = torch.nn.Conv2d(c, k, kernel, stride, pad, groups=groups,
                           bias=False).eval()
    x = torch.rand(1, c, hw, hw)
    torch.onnx.export(conv, x, path, input_names=["input"],
                      output_names=["output"], opset_version=17)
    with torch.no_grad():
        return x.numpy(), conv(x).numpy()


def nhwc_program(c, hw, k, kernel, stride, pad, groups):
    """An MLIR program of one channels-last convolution on a padded input."""
    padded = hw + 2 * pad
    out = (padded - kernel) // stride + 1
    if groups == 1:
        filt = f"tensor<{kernel}x{kernel}x{c}x{k}xf32>"
        op = "linalg.conv_2d_nhwc_hwcf"
    else:
        filt = f"tensor<{kernel}x{kernel}x{c}xf32>"
        op = "linalg.depthwise_conv_2d_nhwc_hwc"
    x = f"tensor<1x{padded}x{padded}x{c}xf32>"
    y = f"tensor<1x{out}x{out}x{k}xf32>"
    return f"""func.func @main(%x: {x}, %w: {filt}) -> {y} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {y}
  %f = linalg.fill ins(%zero : f32) outs(%e : {y}) -> {y}
  %r = {op} {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
      ins(%x, %w : {x}, {filt}) outs(%f : {y}) -> {y}
  return %r : {y}
}}
"""


def nhwc_inputs(tmp, c, hw, k, kernel, stride, pad, groups, seed):
    """Writes the padded NHWC input and the filter of a random convolution
    and returns the program's path and PyTorch's output in NHWC."""
    import torch
    torch.manual_seed(seed)
    conv = torch.nn.Conv2d(c, k, kernel, stride, pad, groups=groups,
                           bias=False).eval()
    x = torch.rand(1, c, hw, hw)
    with torch.no_grad():
        want = conv(x).numpy().transpose(0, 2, 3, 1)
    xp = np.pad(x.numpy().transpose(0, 2, 3, 1),
                ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    weight = conv.weight.detach().numpy()
    if groups == 1:
        filt = weight.transpose(2, 3, 1, 0)  # (K, C, kh, kw) -> HWCF
    else:
        filt = weight[:, 0].transpose(1, 2, 0)  # (C, 1, kh, kw) -> HWC
    np.save(os.path.join(tmp, "x.npy"), np.ascontiguousarray(xp))
    np.save(os.path.join(tmp, "w.npy"), np.ascontiguousarray(filt))
    program = os.path.join(tmp, "conv.mlir")
    with open(program, "w") as f:
        f.write(nhwc_program(c, hw, k, kernel, stride, pad, groups))
    return program, want


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--layers", default="resnet18,mobilenet_v2")
    parser.add_argument("--layout", choices=["nhwc", "onnx"], default="nhwc",
                        help="compile the convolution as it runs in a model "
                        "(nhwc, default) or as a one-op ONNX model with NCHW "
                        "at its boundary (onnx)")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build, "bin")
    peer = os.path.join(bin_dir, "conv-peers")
    if not os.path.exists(peer):
        sys.exit("conv_bench: build/bin/conv-peers is missing (install "
                 "libdnnl-dev, then rebuild)")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.layers.split(","):
            for index, (name, c, hw, k, kernel, stride, pad, groups) in \
                    enumerate(LAYERS[model]):
                if args.layout == "onnx":
                    program = os.path.join(tmp, "conv.onnx")
                    x, want = export(program, c, hw, k, kernel, stride, pad,
                                     groups, index)
                    np.save(os.path.join(tmp, "x.npy"), x)
                    inputs = ["--input", "input=" + os.path.join(tmp, "x.npy")]
                else:
                    program, want = nhwc_inputs(tmp, c, hw, k, kernel, stride,
                                                pad, groups, index)
                    inputs = ["--input", os.path.join(tmp, "x.npy"),
                              "--input", os.path.join(tmp, "w.npy")]
                out = (hw + 2 * pad - kernel) // stride + 1
                flops = 2.0 * k * out * out * (c // groups) * kernel * kernel
                for threads in (int(t) for t in args.threads.split(",")):
                    print(f"{model} {name}, {threads} thread(s)...",
                          file=sys.stderr)
                    topo = os.path.join(tmp, "topology.json")
                    write_topology(bin_dir, threads, topo)
                    artifact = os.path.join(tmp, "conv.orcx")
                    subprocess.run([os.path.join(bin_dir, "orchestra-compile"),
                                    program, "--topology", topo, "-o", artifact,
                                    "--quiet"], check=True)
                    out_dir = os.path.join(tmp, "out")
                    run = subprocess.run(
                        [os.path.join(bin_dir, "orchestra-run"), artifact] +
                        inputs + ["--output-dir", out_dir, "--repeat",
                         str(args.repeat), "--quiet"],
                        check=True, capture_output=True, text=True)
                    ours = float(re.search(r"steps: median ([0-9.]+) ms",
                                           run.stdout).group(1)) / 1e3
                    got = np.load(os.path.join(out_dir, "output_0.npy"))
                    ok = got.shape == want.shape and np.allclose(
                        got, want, rtol=1e-3, atol=1e-3)
                    peer_out = subprocess.run(
                        [peer, "1", str(c), str(hw), str(hw), str(k),
                         str(kernel), str(stride), str(pad), str(groups),
                         str(threads), str(args.repeat)],
                        check=True, capture_output=True, text=True)
                    onednn = float(peer_out.stdout.split()[1])
                    rows.append((model, name, c, hw, k, kernel, stride,
                                 groups, threads, ours, onednn, flops, ok))

    print("| model | layer | C x H x W -> K, kernel/stride | threads | "
          "OrchestraOS ms | oneDNN ms | OrchestraOS GFLOP/s | oneDNN GFLOP/s "
          "| vs oneDNN | correct |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for (model, name, c, hw, k, kernel, stride, groups, threads, ours, onednn,
         flops, ok) in rows:
        kind = " dw" if groups > 1 else ""
        print(f"| {model} | {name} | {c}x{hw}x{hw} -> {k}, {kernel}x{kernel}/"
              f"{stride}{kind} | {threads} | {ours * 1e3:.3f} | "
              f"{onednn * 1e3:.3f} | {flops / ours / 1e9:.1f} | "
              f"{flops / onednn / 1e9:.1f} | {onednn / ours:.2f} | "
              f"{'yes' if ok else 'NO'} |")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
