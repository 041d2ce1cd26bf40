"""Writes an MLIR program whose constant and output are 1 MiB each:
y = x + c over 256x1024 f32, c = 0, 0.5, 1, ... (dense hex data), and,
with --input, an input x for it.

  big_constant.py OUT.mlir [--input X.npy [--scale S]]
"""

import argparse

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("program")
parser.add_argument("--input")
parser.add_argument("--scale", type=float, default=1.0)
args = parser.parse_args()

shape = (256, 1024)
constant = (np.arange(shape[0] * shape[1], dtype=np.float32) * 0.5).reshape(shape)
with open(args.program, "w") as f:
    f.write(f"""func.func @main(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {{
  %c = arith.constant dense<"0x{constant.tobytes().hex().upper()}"> : tensor<256x1024xf32>
  %e = tensor.empty() : tensor<256x1024xf32>
  %y = linalg.add ins(%x, %c : tensor<256x1024xf32>, tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}}
""")
if args.input:
    np.save(args.input, np.full(shape, args.scale, dtype=np.float32))
