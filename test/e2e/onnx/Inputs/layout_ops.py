"""Ops that read their loop indices or move data, each between two
convolutions, exported from PyTorch at opset 17, compiled for the host, run
and compared with PyTorch.

The ONNX backend suite runs every op alone. Here each op sits where the
compiler changes its layout: the convolutions around it run channels-last,
and the transposes that brings flow through (or stop at) the op. An op whose
payload computes indices (a Resize, a gather, a pad that reflects) is wrong
there in ways a test of the op alone cannot see; LR-ASPP's bilinear Resize
before a 1x1 convolution was 10% off that way.

    layout_ops.py DIR [CASE...]   runs every case (or those named) in DIR;
                                  one line per case, exit status 1 if any
                                  does not match
    layout_ops.py list            prints the case names
"""
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import case_runner  # noqa: E402
import torch_models  # noqa: E402


def cases():
    import torch
    import torch.nn.functional as F

    return {
        # Resize, every mode and coordinate transformation PyTorch exports.
        "resize_bilinear": lambda x: F.interpolate(
            x, scale_factor=2, mode="bilinear", align_corners=False),
        "resize_bilinear_align_corners": lambda x: F.interpolate(
            x, scale_factor=2, mode="bilinear", align_corners=True),
        "resize_bilinear_to_size": lambda x: F.interpolate(
            x, size=(17, 9), mode="bilinear", align_corners=False),
        "resize_nearest": lambda x: F.interpolate(
            x, scale_factor=2, mode="nearest"),
        "resize_bicubic": lambda x: F.interpolate(
            x, scale_factor=2, mode="bicubic", align_corners=False),
        "downsample_bilinear": lambda x: F.interpolate(
            x, size=(5, 7), mode="bilinear", align_corners=False),
        # Data movement.
        "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2),
        "pixel_unshuffle": lambda x: F.pixel_unshuffle(x, 2),
        "channel_shuffle": lambda x: x.reshape(1, 2, 4, 12, 12).transpose(
            1, 2).reshape(1, 8, 12, 12),
        "transpose_hw": lambda x: x.transpose(2, 3),
        "strided_slice": lambda x: x[:, 1:, ::2, 1::3],
        "flip": lambda x: torch.flip(x, [3]),
        "roll": lambda x: torch.roll(x, 3, 2),
        "concat_channels": lambda x: torch.cat([x, x * 2.0], 1)[:, 3:11],
        "pad_reflect": lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"),
        "pad_replicate": lambda x: F.pad(x, (2, 1, 1, 2), mode="replicate"),
        "pad_constant": lambda x: F.pad(x, (2, 1, 1, 2), value=0.5),
        # Reductions and normalizations over one axis.
        "softmax_channels": lambda x: torch.softmax(x, 1),
        "log_softmax_width": lambda x: torch.log_softmax(x, 3),
        "cumsum_height": lambda x: torch.cumsum(x, 2),
        "mean_height": lambda x: x.mean(2, keepdim=True) + x,
        "max_channels": lambda x: x.amax(1, keepdim=True) * x,
        "group_norm": lambda x: F.group_norm(x, 2),
        "instance_norm": lambda x: F.instance_norm(x),
        # Pooling windows.
        "max_pool_dilated": lambda x: F.max_pool2d(x, 3, 1, 1, dilation=2),
        "avg_pool_padded": lambda x: F.avg_pool2d(
            x, 3, 2, 1, count_include_pad=False),
        "adaptive_avg_pool": lambda x: F.adaptive_avg_pool2d(x, 3),
        "global_max_pool": lambda x: F.adaptive_max_pool2d(x, 1) + x,
    }


def model(op):
    import torch

    class Sandwich(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=2, dilation=2,
                                             groups=8)
            self.last = torch.nn.LazyConv2d(6, 1)

        def forward(self, x):
            y = torch.relu(self.depthwise(torch.relu(self.first(x))))
            return self.last(op(y))

    return Sandwich()


def run_case(name, op, directory):
    import torch

    case_dir = os.path.join(directory, name)
    os.makedirs(case_dir, exist_ok=True)
    torch.manual_seed(0)
    net = model(op)
    x = torch.randn(1, 3, 12, 12)
    with torch.no_grad():
        expected = net(x)  # materializes the lazy convolution
        torch.onnx.export(net, x, os.path.join(case_dir, "model.onnx"),
                          opset_version=17, input_names=["input"],
                          output_names=["output"])
    np.save(os.path.join(case_dir, "input_0.npy"), x.numpy())
    np.save(os.path.join(case_dir, "expected_0.npy"), expected.numpy())
    artifact = os.path.join(case_dir, "model.orcx")
    out_dir = os.path.join(case_dir, "out")
    problem = case_runner.run_tools([
        ["orchestra-compile", os.path.join(case_dir, "model.onnx"),
         "--topology", "host", "-o", artifact, "--quiet"],
        ["orchestra-run", artifact, "--input",
         os.path.join(case_dir, "input_0.npy"), "--output-dir", out_dir,
         "--quiet"]])
    if problem:
        return problem
    try:
        torch_models.compare(case_dir, out_dir, quiet=True)
    except SystemExit as error:
        return str(error)
    return None


def main():
    warnings.filterwarnings("ignore")
    case_runner.main(cases(), run_case)


if __name__ == "__main__":
    main()
