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
