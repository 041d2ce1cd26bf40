// RUN: orchestra-opt %s --pass-pipeline='builtin.module(orchestra-outline-tasks,builtin.module(orchestra-cpu-tag-tiling))' | FileCheck %s

// A task whose result is a reshape (an expand_shape back to the model's
// (sequence, batch, features) shape) is rooted at the reshaped value: the
// bias addition is tagged as the root and the matmul as its producer.

// CHECK-LABEL: func.func @t0_linear
// CHECK:         linalg.matmul {orchestra.fusion_producer}
// CHECK:         linalg.generic {{.*}}orchestra.fusion_root_wide
// CHECK:         tensor.expand_shape

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<128x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<128x1x32xf32> {
    %r = orchestra.schedule -> (tensor<128x1x32xf32>) {
      %a = orchestra.task "t0_linear" args(%xa = %x : tensor<128x64xf32>, %wa = %w : tensor<64x32xf32>, %ba = %b : tensor<32xf32>) -> tensor<128x1x32xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<128x32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
        %m = linalg.matmul ins(%xa, %wa : tensor<128x64xf32>, tensor<64x32xf32>) outs(%f : tensor<128x32xf32>) -> tensor<128x32xf32>
        %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
            ins(%ba, %m : tensor<32xf32>, tensor<128x32xf32>) outs(%e : tensor<128x32xf32>) {
        ^bb0(%u: f32, %v: f32, %o: f32):
          %s = arith.addf %u, %v : f32
          linalg.yield %s : f32
        } -> tensor<128x32xf32>
        %ye = tensor.expand_shape %y [[0, 1], [2]] output_shape [128, 1, 32] : tensor<128x32xf32> into tensor<128x1x32xf32>
        orchestra.yield %ye : tensor<128x1x32xf32>
      }
      orchestra.yield %a : tensor<128x1x32xf32>
    }
    return %r : tensor<128x1x32xf32>
  }
}
