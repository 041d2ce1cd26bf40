// RUN: orchestra-opt %s --orchestra-outline-tasks | FileCheck %s

// Each task becomes a kernel function in the kernel module of its device
// and an orchestra.launch of it; the fusion root and its producers are
// tagged for the strategy (with the generic tag, which a target's
// pre-strategy passes may refine: test/Target/CPU/tag-tiling-*.mlir). Its tensor arguments are not writable (the plan
// may read their buffers after the task).

// CHECK-LABEL: func.func @main
// CHECK:         orchestra.schedule
// CHECK:           %[[A:.*]] = orchestra.launch "t0_matmul" @kernels_x86_64_0::@t0_matmul(%{{.*}}, %{{.*}}) target = {arch = "x86_64", device_id = 0 : i64} {predicted_finish = 2.000000e+00 : f64, predicted_start = 1.000000e+00 : f64} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK:           %[[T:.*]] = orchestra.transfer %[[A]] from @cpu0_dram to @cpu1_dram
// CHECK:           %[[B:.*]] = orchestra.launch "t1_neg" @kernels_x86_64_1::@t1_neg(%[[T]]) target = {arch = "x86_64", device_id = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT:     orchestra.task
// CHECK:       module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", device_id = 0 : i64}}
// CHECK:         func.func @t0_matmul(%{{.*}}: tensor<4x8xf32> {bufferization.writable = false}, %{{.*}}: tensor<8x16xf32> {bufferization.writable = false}) -> tensor<4x16xf32> attributes {orchestra.abi = [tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>]}
// CHECK:           linalg.fill {orchestra.fusion_producer}
// CHECK:           linalg.matmul {orchestra.fusion_producer}
// CHECK:           linalg.generic
// CHECK-SAME:        orchestra.fusion_root
// CHECK:           return
// CHECK:       module @kernels_x86_64_1 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", device_id = 1 : i64}}
// CHECK:         func.func @t1_neg
// CHECK:           linalg.negf {orchestra.fusion_root}

#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
    %r = orchestra.schedule -> (tensor<4x16xf32>) {
      %a = orchestra.task "t0_matmul" args(%xa = %x : tensor<4x8xf32>, %wa = %w : tensor<8x16xf32>) -> tensor<4x16xf32>
          target = {arch = "x86_64", device_id = 0} attributes {predicted_start = 1.0, predicted_finish = 2.0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<4x16xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
        %m = linalg.matmul ins(%xa, %wa : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
        %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
        ^bb0(%v: f32, %o: f32):
          %z = arith.maximumf %v, %zero : f32
          linalg.yield %z : f32
        } -> tensor<4x16xf32>
        orchestra.yield %g : tensor<4x16xf32>
      }
      %t = orchestra.transfer %a from @cpu0_dram to @cpu1_dram : tensor<4x16xf32>
      %b = orchestra.task "t1_neg" args(%v = %t : tensor<4x16xf32>) -> tensor<4x16xf32> target = {arch = "x86_64", device_id = 1} {
        %e = tensor.empty() : tensor<4x16xf32>
        %n = linalg.negf ins(%v : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
        orchestra.yield %n : tensor<4x16xf32>
      }
      %back = orchestra.transfer %b from @cpu1_dram to @cpu0_dram : tensor<4x16xf32>
      orchestra.yield %back : tensor<4x16xf32>
    }
    return %r : tensor<4x16xf32>
  }
}
