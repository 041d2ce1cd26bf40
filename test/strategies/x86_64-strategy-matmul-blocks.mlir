// The x86_64 strategy on a matmul of 128 rows (tagged
// orchestra.fusion_root_wide by orchestra-cpu-tag-tiling): 64-row parallel
// tiles, cache blocks of B of 64 columns x 128 of K, then 8x32 register
// tiles with the accumulator hoisted out of the innermost K loop.
// RUN: orchestra-opt %s --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy | FileCheck %s

// CHECK-LABEL: func.func @t0_matmul
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK:           scf.for %{{.*}} = %c0 to %c256 step %c64
// CHECK:             scf.for %{{.*}} = %c0 to %c512 step %c128
// CHECK:               scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK:                 scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:                   vector.transfer_read {{.*}} vector<8x32xf32>
// CHECK:                   scf.for %{{.*}} = %c0 to %c128 step %c1 {{.*}} -> (tensor<{{.*}}>, vector<8x32xf32>)
// CHECK:                     vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK:           scf.forall.in_parallel
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_matmul(%x: tensor<128x512xf32>, %w: tensor<512x256xf32>) -> tensor<128x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %m = linalg.matmul {orchestra.fusion_root_wide} ins(%x, %w : tensor<128x512xf32>, tensor<512x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %m : tensor<128x256xf32>
  }
}
