// The x86_64 strategy on an outlined kernel: the fusion root is tiled into
// an scf.forall, the matmul and fill are fused into it, the matmul is tiled
// to 4x16x1 register blocks and everything is vectorized.
// RUN: orchestra-opt %s --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy | FileCheck %s

// CHECK-LABEL: func.func @t0_matmul
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 vector.outerproduct {{.*}} : vector<4xf32>, vector<16xf32>
// CHECK:           arith.maximumf {{.*}} : vector<8x48xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.matmul
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_matmul(%x: tensor<32x64xf32>, %w: tensor<64x48xf32>, %b: tensor<48xf32>) -> tensor<32x48xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<32x48xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%x, %w : tensor<32x64xf32>, tensor<64x48xf32>) outs(%f : tensor<32x48xf32>) -> tensor<32x48xf32>
    %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m, %b : tensor<32x48xf32>, tensor<48xf32>) outs(%e : tensor<32x48xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %z = arith.maximumf %s, %zero : f32
      linalg.yield %z : f32
    } -> tensor<32x48xf32>
    return %r : tensor<32x48xf32>
  }
}
