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

// -----

// The activation of a channels-last grouped convolution runs in the
// convolution's 5-D shape on purpose (orchestra-convert-convolutions-to-nhwc):
// the collapse_shape after it stays.
// CHECK-LABEL: func.func @grouped_conv_activation
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x4x2x4xf32>)
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<1x4x4x2x4xf32>) outs(%{{.*}} : tensor<1x4x4x2x4xf32>)
// CHECK:         %[[Y:.*]] = tensor.collapse_shape %[[RELU]] {{\[}}[0], [1], [2], [3, 4]]
// CHECK:         return %[[Y]]
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#id5 = affine_map<(n, h, w, g, f) -> (n, h, w, g, f)>
func.func @grouped_conv_activation(%x: tensor<1x6x6x2x4xf32>, %w: tensor<2x3x3x4x4xf32>, %init: tensor<1x4x4x2x4xf32>) -> tensor<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %g = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x6x6x2x4xf32>, tensor<2x3x3x4x4xf32>) outs(%init : tensor<1x4x4x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2x4xf32>
  %e = tensor.empty() : tensor<1x4x4x2x4xf32>
  %relu = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%g : tensor<1x4x4x2x4xf32>) outs(%e : tensor<1x4x4x2x4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %r = arith.maximumf %u, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x2x4xf32>
  %y = tensor.collapse_shape %relu [[0], [1], [2], [3, 4]] : tensor<1x4x4x2x4xf32> into tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}
