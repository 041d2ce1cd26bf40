// RUN: orchestra-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(orchestra-fold-matmul-reshapes))" | FileCheck %s

// A matmul of a (sequence, batch, features) activation: the bias and the
// activation run on the 2-D matmul result, and the reshapes between them
// disappear; one expand_shape is left, after the activation.
// CHECK-LABEL: func.func @linear
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1x16xf32>, %[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK:         %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]]
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[XC]], %[[W]] : tensor<8x16xf32>, tensor<16x32xf32>)
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<8x32xf32>
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]], %[[M]] : tensor<32xf32>, tensor<8x32xf32>) outs(%[[E1]] : tensor<8x32xf32>)
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:         %[[Y:.*]] = tensor.expand_shape %[[RELU]] {{\[\[}}0, 1], [2]] output_shape [8, 1, 32]
// CHECK:         return %[[Y]]
#b = affine_map<(s, n, f) -> (f)>
#id = affine_map<(s, n, f) -> (s, n, f)>
func.func @linear(%x: tensor<8x1x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x1x16xf32> into tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%xc, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %me = tensor.expand_shape %m [[0, 1], [2]] output_shape [8, 1, 32] : tensor<8x32xf32> into tensor<8x1x32xf32>
  %e3 = tensor.empty() : tensor<8x1x32xf32>
  %bias = linalg.generic {indexing_maps = [#b, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b, %me : tensor<32xf32>, tensor<8x1x32xf32>) outs(%e3 : tensor<8x1x32xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x1x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias : tensor<8x1x32xf32>) outs(%e3 : tensor<8x1x32xf32>) {
  ^bb0(%u: f32, %o: f32):
    %r = arith.maximumf %u, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x1x32xf32>
  return %relu : tensor<8x1x32xf32>
}

// -----

// The reshape of a function argument (not a structured op's result) is left
// alone.
// CHECK-LABEL: func.func @argument
// CHECK:         %[[XE:.*]] = tensor.expand_shape
// CHECK:         linalg.generic {{.*}} ins(%[[XE]] : tensor<8x1x32xf32>)
#id = affine_map<(s, n, f) -> (s, n, f)>
func.func @argument(%x: tensor<8x32xf32>) -> tensor<8x1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %xe = tensor.expand_shape %x [[0, 1], [2]] output_shape [8, 1, 32] : tensor<8x32xf32> into tensor<8x1x32xf32>
  %e = tensor.empty() : tensor<8x1x32xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe : tensor<8x1x32xf32>) outs(%e : tensor<8x1x32xf32>) {
  ^bb0(%u: f32, %o: f32):
    %r = arith.maximumf %u, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x1x32xf32>
  return %relu : tensor<8x1x32xf32>
}
