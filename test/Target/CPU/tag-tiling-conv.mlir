// RUN: orchestra-opt %s --pass-pipeline='builtin.module(orchestra-outline-tasks,builtin.module(orchestra-cpu-tag-tiling))' | FileCheck %s

// A convolution task (batch 1): the root is tagged for 16-channel parallel
// tiles (orchestra.fusion_root_d1_conv); the filter's and the output's
// producers are fused into the tiles, but the producer of the convolution's
// input is not: every channel tile reads the whole input, so it runs once.

// CHECK-LABEL: func.func @t0_conv
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x8x16x16xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK-NOT:       orchestra.fusion_producer
// CHECK:         linalg.fill {orchestra.fusion_producer}
// CHECK:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.fusion_producer
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2] {orchestra.fusion_root_d1_conv}

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x8x16x16xf32>, %w: tensor<3x3x8x32xf32>) -> tensor<1x32x14x14xf32> {
    %r = orchestra.schedule -> (tensor<1x32x14x14xf32>) {
      %a = orchestra.task "t0_conv" args(%xa = %x : tensor<1x8x16x16xf32>, %wa = %w : tensor<3x3x8x32xf32>) -> tensor<1x32x14x14xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e0 = tensor.empty() : tensor<1x16x16x8xf32>
        %xt = linalg.transpose ins(%xa : tensor<1x8x16x16xf32>) outs(%e0 : tensor<1x16x16x8xf32>) permutation = [0, 2, 3, 1]
        %e1 = tensor.empty() : tensor<1x14x14x32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xt, %wa : tensor<1x16x16x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %e2 = tensor.empty() : tensor<1x32x14x14xf32>
        %y = linalg.transpose ins(%c : tensor<1x14x14x32xf32>) outs(%e2 : tensor<1x32x14x14xf32>) permutation = [0, 3, 1, 2]
        orchestra.yield %y : tensor<1x32x14x14xf32>
      }
      orchestra.yield %a : tensor<1x32x14x14xf32>
    }
    return %r : tensor<1x32x14x14xf32>
  }
}
