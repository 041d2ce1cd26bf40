// A transpose/reshape chain with elementwise arith on tensors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:8x16x4 y:f32:32x16
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/y.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check transpose_reshape %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/y.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

func.func @main(%x: tensor<8x16x4xf32>, %y: tensor<32x16xf32>) -> tensor<32x4x4xf32> {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %t = linalg.transpose ins(%x : tensor<8x16x4xf32>) outs(%e : tensor<4x8x16xf32>) permutation = [2, 0, 1]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<4x8x16xf32> into tensor<32x16xf32>
  %s = arith.addf %c, %y : tensor<32x16xf32>
  %r = tensor.expand_shape %s [[0], [1, 2]] output_shape [32, 4, 4] : tensor<32x16xf32> into tensor<32x4x4xf32>
  %two = arith.constant dense<2.0> : tensor<32x4x4xf32>
  %out = arith.mulf %r, %two : tensor<32x4x4xf32>
  return %out : tensor<32x4x4xf32>
}
