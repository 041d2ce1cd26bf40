// RUN: orchestra-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(orchestra-pretranspose-constant-operands))" | FileCheck %s

// A constant B read transposed (ONNX Gemm with transB = 1) is transposed at
// compile time; the matmul reads it in its default layout.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK:         %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00, 7.000000e+00, 1.000000e+01], [2.000000e+00, 5.000000e+00, 8.000000e+00, 1.100000e+01], [3.000000e+00, 6.000000e+00, 9.000000e+00, 1.200000e+01]]> : tensor<3x4xf32>
// CHECK:         linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<2x3xf32>, tensor<3x4xf32>)
func.func @gemm_trans_b(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<4x3xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<2x3xf32>, tensor<4x3xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// Resources (how the ONNX importer stores weights) and 16-bit elements.
// CHECK-LABEL: func.func @resource
// CHECK:         %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf16>
// CHECK:         linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<2x2xf16>, tensor<2x2xf16>)
func.func @resource(%x: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %w = arith.constant dense_resource<w> : tensor<2x2xf16>
  %e = tensor.empty() : tensor<2x2xf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<2x2xf16>, tensor<2x2xf16>) outs(%e : tensor<2x2xf16>) -> tensor<2x2xf16>
  return %r : tensor<2x2xf16>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x02000000003C004000420044"
    }
  }
#-}

// -----

// Left alone: B is not a constant, B is a splat (nothing to move), B is
// read in the default layout.
// CHECK-LABEL: func.func @unchanged
// CHECK:         linalg.matmul indexing_maps
// CHECK:         linalg.matmul indexing_maps
// CHECK:         linalg.matmul ins
func.func @unchanged(%x: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %splat = arith.constant dense<1.0> : tensor<4x3xf32>
  %plain = arith.constant dense<2.0> : tensor<3x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %b : tensor<2x3xf32>, tensor<4x3xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %splat : tensor<2x3xf32>, tensor<4x3xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r2 = linalg.matmul ins(%x, %plain : tensor<2x3xf32>, tensor<3x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r0, %r1, %r2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// A transpose of a constant (a convolution filter moved to HWCF) is folded
// into the constant.
// CHECK-LABEL: func.func @transpose_constant
// CHECK:         %[[C:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]]> : tensor<1x3x2xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[C]]
func.func @transpose_constant() -> tensor<1x3x2xf32> {
  %c = arith.constant dense<[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]> : tensor<2x1x3xf32>
  %e = tensor.empty() : tensor<1x3x2xf32>
  %t = linalg.transpose ins(%c : tensor<2x1x3xf32>) outs(%e : tensor<1x3x2xf32>) permutation = [1, 2, 0]
  return %t : tensor<1x3x2xf32>
}

// -----

// A transpose of a reshaped constant (a grouped convolution's filter
// [M, C/G, ...] seen as [G, M/G, C/G, ...]) is folded too: the reshape is a
// view of the same elements.
// CHECK-LABEL: func.func @transpose_reshaped_constant
// CHECK:         %[[T:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}5.000000e+00, 7.000000e+00]], {{\[\[}}6.000000e+00, 8.000000e+00]]]]> : tensor<2x2x1x2xf32>
// CHECK:         return %[[T]]
func.func @transpose_reshaped_constant() -> tensor<2x2x1x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %g = tensor.expand_shape %w [[0, 1, 2], [3]] output_shape [2, 2, 1, 2] : tensor<4x2xf32> into tensor<2x2x1x2xf32>
  %e = tensor.empty() : tensor<2x2x1x2xf32>
  %t = linalg.transpose ins(%g : tensor<2x2x1x2xf32>) outs(%e : tensor<2x2x1x2xf32>) permutation = [0, 3, 2, 1]
  return %t : tensor<2x2x1x2xf32>
}

// -----

// A transpose of a slice of a reshaped constant (a recurrent layer's R
// [D, G*H, H] cut into one [H, H] block per gate, here the second gate of
// direction 0) is folded: the slice's rows are copied out of the constant.
// CHECK-LABEL: func.func @transpose_sliced_constant
// CHECK:         %[[T:.*]] = arith.constant dense<{{\[\[}}5.000000e+00, 7.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[T]]
func.func @transpose_sliced_constant() -> tensor<2x2xf32> {
  %r = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]]> : tensor<1x4x2xf32>
  %s = tensor.extract_slice %r[0, 2, 0] [1, 2, 2] [1, 1, 1] : tensor<1x4x2xf32> to tensor<1x2x2xf32>
  %m = tensor.collapse_shape %s [[0, 1], [2]] : tensor<1x2x2xf32> into tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%m : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  return %t : tensor<2x2xf32>
}

// -----

// A slice with a stride other than one is not a contiguous block of rows:
// the transpose stays.
// CHECK-LABEL: func.func @transpose_strided_slice
// CHECK:         linalg.transpose
func.func @transpose_strided_slice() -> tensor<2x2xf32> {
  %r = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %s = tensor.extract_slice %r[0, 0] [2, 2] [2, 1] : tensor<4x2xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  return %t : tensor<2x2xf32>
}
