// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-tag-tiling | FileCheck %s

// The generic fusion-root tag of orchestra-outline-tasks becomes the x86_64
// strategy's tiling: a matmul of 256 rows gets wide row tiles.
// CHECK-LABEL: func.func @wide
// CHECK:         linalg.matmul {orchestra.fusion_root_wide}
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @wide(%a: tensor<256x64xf32>, %b: tensor<64x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x64xf32>, tensor<64x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
    return %m : tensor<256x32xf32>
  }
}

// -----

// The step of a loop over time (a root below the function's top level) is
// tiled by the state's columns.
// CHECK-LABEL: func.func @recurrent
// CHECK:         scf.for
// CHECK:           linalg.generic
// CHECK-SAME:        orchestra.fusion_root_cols
// CHECK-NOT:       orchestra.fusion_root}
#id = affine_map<(d0, d1) -> (d0, d1)>
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @recurrent(%h0: tensor<1x64xf32>) -> tensor<1x64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0) -> (tensor<1x64xf32>) {
      %e = tensor.empty() : tensor<1x64xf32>
      %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<1x64xf32>) outs(%e : tensor<1x64xf32>) attrs = {orchestra.fusion_root} {
      ^bb0(%v: f32, %o: f32):
        %t = math.tanh %v : f32
        linalg.yield %t : f32
      } -> tensor<1x64xf32>
      scf.yield %n : tensor<1x64xf32>
    }
    return %r : tensor<1x64xf32>
  }
}

// -----

// Does not apply: a root that already names its tiling keeps it, and a
// kernel without a tagged root is left alone.
// CHECK-LABEL: func.func @tagged
// CHECK:         linalg.matmul {orchestra.fusion_root_tall}
// CHECK-LABEL: func.func @untagged
// CHECK:         linalg.matmul ins
// CHECK-NOT:     orchestra.fusion_root
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @tagged(%a: tensor<8x64xf32>, %b: tensor<64x32xf32>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %m = linalg.matmul {orchestra.fusion_root_tall} ins(%a, %b : tensor<8x64xf32>, tensor<64x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
    return %m : tensor<8x32xf32>
  }
  func.func @untagged(%a: tensor<256x64xf32>, %b: tensor<64x32xf32>, %c: tensor<256x32xf32>) -> tensor<256x32xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<256x64xf32>, tensor<64x32xf32>) outs(%c : tensor<256x32xf32>) -> tensor<256x32xf32>
    return %m : tensor<256x32xf32>
  }
}
