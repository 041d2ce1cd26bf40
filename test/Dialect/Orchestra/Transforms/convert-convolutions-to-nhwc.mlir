// RUN: orchestra-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(orchestra-convert-convolutions-to-nhwc))" | FileCheck %s

// An NCHW convolution runs channels-last: input and output transposed
// around it, the filter transposed to HWCF, strides and dilations kept; the
// zero fill of the output is a fill of the NHWC shape.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x9x9xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>)
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x3x9x9xf32>) outs(%{{.*}} : tensor<1x9x9x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x8xf32>) permutation = [2, 3, 1, 0]
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XT]], %[[WT]] : {{.*}}) outs(%[[F]] : tensor<1x4x4x8xf32>)
// CHECK:         %[[R:.*]] = linalg.transpose ins(%[[C]] : tensor<1x4x4x8xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK:         return %[[R]]
func.func @conv(%x: tensor<1x3x9x9xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// -----

// Depthwise: the filter goes from CHW to HWC; an output initialised with a
// bias (not a fill) is transposed like the input.
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x4x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x4xf32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<4x3x3xf32>) outs(%{{.*}} : tensor<3x3x4xf32>) permutation = [1, 2, 0]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
func.func @depthwise(%x: tensor<1x4x6x6xf32>, %w: tensor<4x3x3xf32>, %b: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x6x6xf32>, tensor<4x3x3xf32>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// Dynamic shapes are left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK:         linalg.conv_2d_nchw_fchw
func.func @dynamic(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<?x8x7x7xf32>) -> tensor<?x8x7x7xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<?x8x7x7xf32>) -> tensor<?x8x7x7xf32>
  return %c : tensor<?x8x7x7xf32>
}

// -----

// The channels-last layout flows from one convolution to the next: the
// bias broadcast that initialises each convolution is computed in NHWC, the
// transpose after the first convolution sinks through the activation and
// the padding and cancels against the transpose before the second; the
// residual addition of two transposed values runs in NHWC and one transpose
// is left, before the result.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8x6x6xf32>, %[[W:.*]]: tensor<8x8x3x3xf32>, %[[D:.*]]: tensor<8x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[XP:.*]] = tensor.pad %[[X]]
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[XP]] : {{.*}}) outs({{.*}}) permutation = [0, 2, 3, 1]
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XT]], %{{.*}}) outs(%[[BIAS]] : tensor<1x6x6x8xf32>)
// CHECK-NOT:     linalg.transpose {{.*}} tensor<1x6x6x8xf32>
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         arith.maximumf
// CHECK:         %[[PAD:.*]] = tensor.pad %[[RELU]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
// CHECK:         %[[C2:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x8x8x8xf32>, tensor<3x3x8xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[C2]], %[[RELU]] : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[SUM]] : tensor<1x6x6x8xf32>) outs({{.*}}) permutation = [0, 3, 1, 2]
// CHECK:         return %[[Y]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @chain(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %d: tensor<8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x8x6x6xf32>
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%px, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%bias : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x6x6xf32>
  %pr = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pr, %d : tensor<1x8x8x8xf32>, tensor<8x3x3xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %relu : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %sum : tensor<1x8x6x6xf32>
}

// -----

// An elementwise op whose full-rank inputs are not all transposes (here a
// function argument) stays where it is, and so does the transpose.
// CHECK-LABEL: func.func @mixed
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[T:.*]] = linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>)
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @mixed(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>, %r: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %r : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %sum : tensor<1x8x4x4xf32>
}

// -----

// Poolings run channels-last too; their window is only a shape.
// CHECK-LABEL: func.func @pools
// CHECK:         linalg.transpose {{.*}} permutation = [0, 2, 3, 1]
// CHECK:         %[[M:.*]] = linalg.pooling_nhwc_max {{.*}} outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:         %[[S:.*]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[M]], %{{.*}} : tensor<1x4x4x8xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<1x1x1x8xf32>)
// CHECK:         linalg.transpose ins(%[[S]] {{.*}} permutation = [0, 3, 1, 2]
func.func @pools(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.0e38 : f32
  %k2 = tensor.empty() : tensor<2x2xf32>
  %k4 = tensor.empty() : tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<1x8x4x4xf32>
  %f4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k2 : tensor<1x8x8x8xf32>, tensor<2x2xf32>) outs(%f4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e1 = tensor.empty() : tensor<1x8x1x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%m, %k4 : tensor<1x8x4x4xf32>, tensor<4x4xf32>) outs(%f1 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  return %s : tensor<1x8x1x1xf32>
}
