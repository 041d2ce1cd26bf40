// The x86_64 strategy on outlined kernels: the fusion root is tiled into
// an scf.forall, its producers are fused into it, the matmul is tiled to
// 8x32x1 register blocks whose accumulator is hoisted out of the K loop
// (a loop-carried vector<8x32xf32>, read before and written after it),
// convolutions to one output row, every other op to 1x..x8 tiles, and
// everything with static tiles is vectorized with no vector larger than a
// register block.
// RUN: orchestra-opt %s --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy | FileCheck %s

// CHECK-LABEL: func.func @t0_matmul
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:             %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x64xf32>, vector<8x32xf32>
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %{{.*}}, %[[A:.*]] = %[[ACC]]) -> (tensor<8x64xf32>, vector<8x32xf32>)
// CHECK:               vector.outerproduct {{.*}}, %[[A]] {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x64xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               arith.maximumf {{.*}} : vector<1x8xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.matmul
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_matmul(%x: tensor<32x64xf32>, %w: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<32x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<32x64xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%x, %w : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
    %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m, %b : tensor<32x64xf32>, tensor<64xf32>) outs(%e : tensor<32x64xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %z = arith.maximumf %s, %zero : f32
      linalg.yield %z : f32
    } -> tensor<32x64xf32>
    return %r : tensor<32x64xf32>
  }

  // Convolutions are tiled to one output row of 7 columns and decomposed
  // into 1-D convolutions (step 5); at this width (8) the last column tile
  // is not static, so they stay scalar loops. The ops around them are
  // vectorized. (x86_64-strategy-conv.mlir has the vectorized case.)
  // CHECK-LABEL: func.func @t1_conv
  // CHECK:         scf.forall (%{{.*}}) in (2)
  // CHECK:           scf.for %{{.*}} = %c0 to %c8 step %c7
  // CHECK:             linalg.conv_1d_ncw_fcw
  // CHECK-COUNT-3:   scf.for
  // CHECK:           arith.maximumf {{.*}} : vector<1x1x1x8xf32>
  // CHECK:           scf.forall.in_parallel
  func.func @t1_conv(%x: tensor<16x16x10x10xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<16x16x8x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<16x16x8x8xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<16x16x8x8xf32>) -> tensor<16x16x8x8xf32>
    %c = linalg.conv_2d_nchw_fchw {orchestra.fusion_producer, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<16x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%f : tensor<16x16x8x8xf32>) -> tensor<16x16x8x8xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%c : tensor<16x16x8x8xf32>) outs(%e : tensor<16x16x8x8xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%a: f32, %o: f32):
      %z = arith.maximumf %a, %zero : f32
      linalg.yield %z : f32
    } -> tensor<16x16x8x8xf32>
    return %r : tensor<16x16x8x8xf32>
  }
}
