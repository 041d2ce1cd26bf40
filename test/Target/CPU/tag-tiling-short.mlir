// RUN: orchestra-opt %s --pass-pipeline='builtin.module(orchestra-outline-tasks,builtin.module(orchestra-cpu-tag-tiling))' | FileCheck %s
// A root whose first parallel loop has 2 to 15 iterations and no matmul (the
// heads of an attention softmax) is tagged `orchestra.fusion_root_short`
// (tiled by one row); with a matmul, whose register tiles need the rows, or
// with a single iteration, it is tagged as before.

// CHECK-LABEL: func.func @t0_heads
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.fusion_root_short
// CHECK-LABEL: func.func @t1_matmul
// CHECK:         linalg.matmul {orchestra.fusion_root}
// CHECK-LABEL: func.func @t2_one
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.fusion_root_d1}

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%a: tensor<8x64x64xf32>, %b: tensor<8x32xf32>, %w: tensor<32x16xf32>, %c: tensor<1x64x64xf32>)
      -> (tensor<8x64x64xf32>, tensor<8x16xf32>, tensor<1x64x64xf32>) {
    %r:3 = orchestra.schedule -> (tensor<8x64x64xf32>, tensor<8x16xf32>, tensor<1x64x64xf32>) {
      %0 = orchestra.task "t0_heads" args(%x = %a : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
          target = {arch = "x86_64", device_id = 0} {
        %e = tensor.empty() : tensor<8x64x64xf32>
        %g = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<8x64x64xf32>) outs(%e : tensor<8x64x64xf32>) {
        ^bb0(%v: f32, %o: f32):
          %z = math.exp %v : f32
          linalg.yield %z : f32
        } -> tensor<8x64x64xf32>
        orchestra.yield %g : tensor<8x64x64xf32>
      }
      %1 = orchestra.task "t1_matmul" args(%x = %b : tensor<8x32xf32>, %y = %w : tensor<32x16xf32>) -> tensor<8x16xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<8x16xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
        %m = linalg.matmul ins(%x, %y : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
        orchestra.yield %m : tensor<8x16xf32>
      }
      %2 = orchestra.task "t2_one" args(%x = %c : tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
          target = {arch = "x86_64", device_id = 0} {
        %e = tensor.empty() : tensor<1x64x64xf32>
        %g = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x64xf32>) outs(%e : tensor<1x64x64xf32>) {
        ^bb0(%v: f32, %o: f32):
          %z = math.exp %v : f32
          linalg.yield %z : f32
        } -> tensor<1x64x64xf32>
        orchestra.yield %g : tensor<1x64x64xf32>
      }
      orchestra.yield %0, %1, %2 : tensor<8x64x64xf32>, tensor<8x16xf32>, tensor<1x64x64xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<8x64x64xf32>, tensor<8x16xf32>, tensor<1x64x64xf32>
  }
}
