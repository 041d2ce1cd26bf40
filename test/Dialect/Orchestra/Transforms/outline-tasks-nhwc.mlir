// RUN: orchestra-opt %s --split-input-file --orchestra-outline-tasks | FileCheck %s

// A channels-last convolution task (batch 1) is tiled by output rows
// (orchestra.fusion_root_nhwc_rows). The task ends by padding its result for
// the next convolution: the root is the padded value (the activation), and
// the padding is a copy after the parallel loop.

// CHECK-LABEL: func.func @t0_conv
// CHECK:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.fusion_producer
// CHECK:         linalg.generic {{.*}}orchestra.fusion_root_nhwc_rows}
// CHECK:         tensor.pad
// CHECK-NOT:     orchestra.fusion_root

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x16x16x8xf32>, %w: tensor<3x3x8x32xf32>) -> tensor<1x16x16x32xf32> {
    %r = orchestra.schedule -> (tensor<1x16x16x32xf32>) {
      %a = orchestra.task "t0_conv" args(%xa = %x : tensor<1x16x16x8xf32>, %wa = %w : tensor<3x3x8x32xf32>) -> tensor<1x16x16x32xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e1 = tensor.empty() : tensor<1x14x14x32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xa, %wa : tensor<1x16x16x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %relu = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                                iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%c : tensor<1x14x14x32xf32>) outs(%e1 : tensor<1x14x14x32xf32>) {
        ^bb0(%v: f32, %o: f32):
          %m = arith.maximumf %v, %zero : f32
          linalg.yield %m : f32
        } -> tensor<1x14x14x32xf32>
        %p = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
        ^bb0(%i: index, %j: index, %k: index, %l: index):
          tensor.yield %zero : f32
        } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
        orchestra.yield %p : tensor<1x16x16x32xf32>
      }
      orchestra.yield %a : tensor<1x16x16x32xf32>
    }
    return %r : tensor<1x16x16x32xf32>
  }
}

// -----

// With fewer than 14 output rows, the tiles also split the channels
// (orchestra.fusion_root_nhwc_rows_channels); the convolution is the root.

// CHECK-LABEL: func.func @t0_depthwise
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{{.*}}orchestra.fusion_root_nhwc_rows_channels

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x9x9x64xf32>, %w: tensor<3x3x64xf32>) -> tensor<1x7x7x64xf32> {
    %r = orchestra.schedule -> (tensor<1x7x7x64xf32>) {
      %a = orchestra.task "t0_depthwise" args(%xa = %x : tensor<1x9x9x64xf32>, %wa = %w : tensor<3x3x64xf32>) -> tensor<1x7x7x64xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1x7x7x64xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
        %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xa, %wa : tensor<1x9x9x64xf32>, tensor<3x3x64xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
        orchestra.yield %c : tensor<1x7x7x64xf32>
      }
      orchestra.yield %a : tensor<1x7x7x64xf32>
    }
    return %r : tensor<1x7x7x64xf32>
  }
}
