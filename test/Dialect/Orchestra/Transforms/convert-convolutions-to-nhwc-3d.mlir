// RUN: orchestra-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(orchestra-convert-convolutions-to-nhwc))" | FileCheck %s

// An NCDHW convolution runs channels-last: input and output transposed to
// NDHWC around it, the filter to DHWCF, strides and dilations kept.
// CHECK-LABEL: func.func @conv3d
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x9x9xf32>, %[[W:.*]]: tensor<8x3x3x3x3xf32>)
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x3x4x9x9xf32>) outs(%{{.*}} : tensor<1x4x9x9x3xf32>) permutation = [0, 2, 3, 4, 1]
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x3x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x3x8xf32>) permutation = [2, 3, 4, 1, 0]
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x4x4x8xf32>)
// CHECK:         %[[C:.*]] = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>} ins(%[[XT]], %[[WT]] : {{.*}}) outs(%[[F]] : tensor<1x2x4x4x8xf32>)
// CHECK:         %[[R:.*]] = linalg.transpose ins(%[[C]] : tensor<1x2x4x4x8xf32>) outs(%{{.*}} : tensor<1x8x2x4x4xf32>) permutation = [0, 4, 1, 2, 3]
// CHECK:         return %[[R]]
func.func @conv3d(%x: tensor<1x3x4x9x9xf32>, %w: tensor<8x3x3x3x3xf32>) -> tensor<1x8x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x4x4xf32>) -> tensor<1x8x2x4x4xf32>
  %c = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>}
      ins(%x, %w : tensor<1x3x4x9x9xf32>, tensor<8x3x3x3x3xf32>) outs(%f : tensor<1x8x2x4x4xf32>) -> tensor<1x8x2x4x4xf32>
  return %c : tensor<1x8x2x4x4xf32>
}

// -----

// Two 3-D convolutions with a relu and a padding between them: the layout
// flows through the 5-D elementwise op and padding, and the transposes
// between the convolutions cancel. Only the input's and the output's
// remain.
// CHECK-LABEL: func.func @chain3d
// CHECK:         linalg.transpose {{.*}} permutation = [0, 2, 3, 4, 1]
// CHECK-NOT:     linalg.transpose ins(%{{.*}} : tensor<1x4x4x6x6xf32>)
// CHECK:         %[[C0:.*]] = linalg.conv_3d_ndhwc_dhwcf
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[C0]] : tensor<1x4x6x6x4xf32>)
// CHECK:         %[[P:.*]] = tensor.pad %[[R]] low[0, 1, 1, 1, 0] high[0, 1, 1, 1, 0]
// CHECK:         linalg.conv_3d_ndhwc_dhwcf {{.*}} ins(%[[P]], %{{.*}} : tensor<1x6x8x8x4xf32>, tensor<3x3x3x4x4xf32>)
// CHECK:         linalg.transpose {{.*}} permutation = [0, 4, 1, 2, 3]
// CHECK-NOT:     linalg.transpose
#id5 = affine_map<(n, c, d, h, w) -> (n, c, d, h, w)>
func.func @chain3d(%x: tensor<1x4x4x6x6xf32>, %w0: tensor<4x4x1x1x1xf32>, %w1: tensor<4x4x3x3x3xf32>) -> tensor<1x4x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x6x6xf32>) -> tensor<1x4x4x6x6xf32>
  %c0 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%x, %w0 : tensor<1x4x4x6x6xf32>, tensor<4x4x1x1x1xf32>) outs(%f : tensor<1x4x4x6x6xf32>) -> tensor<1x4x4x6x6xf32>
  %r = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%c0 : tensor<1x4x4x6x6xf32>) outs(%e : tensor<1x4x4x6x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x6x6xf32>
  %p = tensor.pad %r low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %g: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x6x6xf32> to tensor<1x4x6x8x8xf32>
  %c1 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%p, %w1 : tensor<1x4x6x8x8xf32>, tensor<4x4x3x3x3xf32>) outs(%f : tensor<1x4x4x6x6xf32>) -> tensor<1x4x4x6x6xf32>
  return %c1 : tensor<1x4x4x6x6xf32>
}

// -----

// Depthwise 3-D: the filter goes from CDHW to DHWC.
// CHECK-LABEL: func.func @depthwise3d
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x4xf32>) permutation = [1, 2, 3, 0]
// CHECK:         linalg.depthwise_conv_3d_ndhwc_dhwc
func.func @depthwise3d(%x: tensor<2x4x5x6x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<2x4x3x4x4xf32>) -> tensor<2x4x3x4x4xf32> {
  %c = linalg.depthwise_conv_3d_ncdhw_cdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%x, %w : tensor<2x4x5x6x6xf32>, tensor<4x3x3x3xf32>) outs(%b : tensor<2x4x3x4x4xf32>) -> tensor<2x4x3x4x4xf32>
  return %c : tensor<2x4x3x4x4xf32>
}

// -----

// The importer's 3-D poolings (generics over (n, c, od, oh, ow, kd, kh,
// kw) with an unread window) become the NDHWC pooling ops, with the strides
// and dilations read from the input map; the window is kept.
// CHECK-LABEL: func.func @pools3d
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x8x4x9x9xf32>) outs(%{{.*}} : tensor<1x4x9x9x8xf32>) permutation = [0, 2, 3, 4, 1]
// CHECK:         %[[M:.*]] = linalg.pooling_ndhwc_max {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>} ins(%[[XT]], %{{.*}} : tensor<1x4x9x9x8xf32>, tensor<1x3x3xf32>) outs(%{{.*}} : tensor<1x4x4x4x8xf32>)
// CHECK:         linalg.pooling_ndhwc_sum {dilations = dense<[1, 1, 2]> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(%[[M]], %{{.*}} : tensor<1x4x4x4x8xf32>, tensor<2x2x2xf32>) outs(%{{.*}} : tensor<1x3x3x2x8xf32>)
// CHECK:         linalg.transpose {{.*}} permutation = [0, 4, 1, 2, 3]
// CHECK-NOT:     linalg.generic
#maxin = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h * 2 + kh, w * 2 + kw)>
#sumin = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h + kh, w + kw * 2)>
#win = affine_map<(n, c, d, h, w, kd, kh, kw) -> (kd, kh, kw)>
#out = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d, h, w)>
func.func @pools3d(%x: tensor<1x8x4x9x9xf32>) -> tensor<1x8x3x3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w0 = tensor.empty() : tensor<1x3x3xf32>
  %e0 = tensor.empty() : tensor<1x8x4x4x4xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<1x8x4x4x4xf32>) -> tensor<1x8x4x4x4xf32>
  %m = linalg.generic {indexing_maps = [#maxin, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w0 : tensor<1x8x4x9x9xf32>, tensor<1x3x3xf32>) outs(%f0 : tensor<1x8x4x4x4xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %r = arith.maximumf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x8x4x4x4xf32>
  %w1 = tensor.empty() : tensor<2x2x2xf32>
  %e1 = tensor.empty() : tensor<1x8x3x3x2xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x3x3x2xf32>) -> tensor<1x8x3x3x2xf32>
  %s = linalg.generic {indexing_maps = [#sumin, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%m, %w1 : tensor<1x8x4x4x4xf32>, tensor<2x2x2xf32>) outs(%f1 : tensor<1x8x3x3x2xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x8x3x3x2xf32>
  return %s : tensor<1x8x3x3x2xf32>
}

// -----

// Does not apply: a window reduction whose body is not a max or a sum (a
// product), and one whose input is not read at output * stride + window
// (the window loops are swapped). A 3-D convolution of dynamic shape runs
// channels-last like a static one (design/0017).
// CHECK-LABEL: func.func @not_pools3d
// CHECK-NOT:     linalg.pooling_ndhwc
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic
// CHECK:         arith.mulf
// CHECK:         linalg.generic
// CHECK:         linalg.conv_3d_ndhwc_dhwcf {{.*}} -> tensor<?x2x7x7x8xf32>
#in = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h + kh, w + kw)>
#swapped = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h + kw, w + kh)>
#win2 = affine_map<(n, c, d, h, w, kd, kh, kw) -> (kd, kh, kw)>
#out2 = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d, h, w)>
func.func @not_pools3d(%x: tensor<1x8x4x4x4xf32>, %init: tensor<1x8x3x3x3xf32>,
                       %dx: tensor<?x3x4x9x9xf32>, %dw: tensor<8x3x3x3x3xf32>, %dinit: tensor<?x8x2x7x7xf32>)
    -> (tensor<1x8x3x3x3xf32>, tensor<1x8x3x3x3xf32>, tensor<?x8x2x7x7xf32>) {
  %w = tensor.empty() : tensor<2x2x2xf32>
  %p = linalg.generic {indexing_maps = [#in, #win2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x8x4x4x4xf32>, tensor<2x2x2xf32>) outs(%init : tensor<1x8x3x3x3xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %r = arith.mulf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x8x3x3x3xf32>
  %s = linalg.generic {indexing_maps = [#swapped, #win2, #out2],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x8x4x4x4xf32>, tensor<2x2x2xf32>) outs(%init : tensor<1x8x3x3x3xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x8x3x3x3xf32>
  %c = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%dx, %dw : tensor<?x3x4x9x9xf32>, tensor<8x3x3x3x3xf32>) outs(%dinit : tensor<?x8x2x7x7xf32>) -> tensor<?x8x2x7x7xf32>
  return %p, %s, %c : tensor<1x8x3x3x3xf32>, tensor<1x8x3x3x3xf32>, tensor<?x8x2x7x7xf32>
}
