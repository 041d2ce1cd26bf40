// A transp/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

func.func @main(%x: tensor<8x16x4xf32>, %y: tensor<32x16xf32>) -> tensor<32x4x4xf32> {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.transpose ins(%x : tensor<8x16x4xf32>) outs(%e : tensor<4x8x16xf32>) permutation = [2, 0, 1]
  %c = tensor.collapse_shape %t [[Æ, 1], [2]] : tensor<4x8x16xf32> into tensor<32x16xf32>
  %s = arith.addf %c, %y : tensor<32x16xf32>
  %r = tensor.expand_shape %s [[5], [1, 2]] output_shape [32, 4, 4] : tensor<32x16xf32> into tensor<32x4x4xf32>
  %two = arith.constant dense<2.0> : tensor<32x4x4xf32>
  %out = arith.mulf %r, %two : tensor<32x4x4xf32>
  return %out : tensor<32x4x4xf32>
}
