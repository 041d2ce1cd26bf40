// RUN: orchestra-opt %s --pass-pipeline='builtin.module(orchestra-outline-tasks,builtin.module(orchestra-cpu-tag-tiling))' | FileCheck %s
// The root of a task around a matmul is tagged by the matmul's rows: under
// 128 `orchestra.fusion_root` (8-row parallel tiles), from 128
// `orchestra.fusion_root_wide` (64), from 1024 `orchestra.fusion_root_tall`
// (128 rows, so that each cache block of B serves more rows).

// CHECK-LABEL: func.func @t0_small
// CHECK:         linalg.matmul {orchestra.fusion_root}
// CHECK-LABEL: func.func @t1_wide
// CHECK:         linalg.matmul {orchestra.fusion_producer}
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.fusion_root_wide
// CHECK-LABEL: func.func @t2_tall
// CHECK:         linalg.matmul {orchestra.fusion_root_tall}

#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%a: tensor<64x32xf32>, %b: tensor<256x32xf32>, %c: tensor<1024x32xf32>, %w: tensor<32x16xf32>)
      -> (tensor<64x16xf32>, tensor<256x16xf32>, tensor<1024x16xf32>) {
    %r:3 = orchestra.schedule -> (tensor<64x16xf32>, tensor<256x16xf32>, tensor<1024x16xf32>) {
      %0 = orchestra.task "t0_small" args(%x = %a : tensor<64x32xf32>, %y = %w : tensor<32x16xf32>) -> tensor<64x16xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<64x16xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
        %m = linalg.matmul ins(%x, %y : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
        orchestra.yield %m : tensor<64x16xf32>
      }
      %1 = orchestra.task "t1_wide" args(%x = %b : tensor<256x32xf32>, %y = %w : tensor<32x16xf32>) -> tensor<256x16xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<256x16xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x16xf32>) -> tensor<256x16xf32>
        %m = linalg.matmul ins(%x, %y : tensor<256x32xf32>, tensor<32x16xf32>) outs(%f : tensor<256x16xf32>) -> tensor<256x16xf32>
        %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x16xf32>) outs(%e : tensor<256x16xf32>) {
        ^bb0(%v: f32, %o: f32):
          %z = arith.maximumf %v, %zero : f32
          linalg.yield %z : f32
        } -> tensor<256x16xf32>
        orchestra.yield %g : tensor<256x16xf32>
      }
      %2 = orchestra.task "t2_tall" args(%x = %c : tensor<1024x32xf32>, %y = %w : tensor<32x16xf32>) -> tensor<1024x16xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1024x16xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x16xf32>) -> tensor<1024x16xf32>
        %m = linalg.matmul ins(%x, %y : tensor<1024x32xf32>, tensor<32x16xf32>) outs(%f : tensor<1024x16xf32>) -> tensor<1024x16xf32>
        orchestra.yield %m : tensor<1024x16xf32>
      }
      orchestra.yield %0, %1, %2 : tensor<64x16xf32>, tensor<256x16xf32>, tensor<1024x16xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<64x16xf32>, tensor<256x16xf32>, tensor<1024x16xf32>
  }
}
