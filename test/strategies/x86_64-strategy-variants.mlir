// The tuned matmul variants of the x86_64 strategy (orchestra-tune): a
// matmul named `orchestra.tile_variant = "<name>"` gets the cache blocks
// and register tiles of `@matmul_variant_<name>`; its whole register tiles
// are vectorized, their accumulators hoisted out of the K loop like the
// default path's; untagged matmuls keep the default 8x32 tiles.
// RUN: orchestra-opt %s --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @r4x64
// CHECK:         scf.for {{.*}} step %c256
// CHECK:           scf.for {{.*}} step %c128
// CHECK:             scf.for {{.*}} -> (vector<4x64xf32>)
// CHECK:               vector.outerproduct {{.*}} : vector<4xf32>, vector<64xf32>
// CHECK-NOT:     linalg.matmul
// CHECK-LABEL: func.func @r6x64
// CHECK:             scf.for {{.*}} -> (vector<6x64xf32>)
// CHECK:               vector.outerproduct {{.*}} : vector<6xf32>, vector<64xf32>
// CHECK-NOT:     linalg.matmul
// A packed variant copies each cache block of B into a buffer of its own
// (a `tensor.pad` kept as a copy, which step 7 writes as a fill and an
// insert_slice), padding partial blocks (300 of K, 200 columns) with zeros
// to whole ones, so that all register tiles are whole.
// CHECK-LABEL: func.func @packed
// CHECK:         scf.for {{.*}} to %c200 step %c64
// CHECK:           scf.for {{.*}} to %c300 step %c128
// CHECK:             %[[FILL:.*]] = linalg.fill {{.*}} -> tensor<128x64xf32>
// CHECK:             %[[PACKED:.*]] = tensor.insert_slice {{.*}} into %[[FILL]]{{.*}} into tensor<128x64xf32>
// CHECK:             scf.for {{.*}} -> (vector<4x64xf32>)
// CHECK:               vector.transfer_read %[[PACKED]]{{.*}} : tensor<128x64xf32>, vector<1x64xf32>
// CHECK:               vector.outerproduct {{.*}} : vector<4xf32>, vector<64xf32>
// CHECK-NOT:     linalg.matmul
// CHECK-LABEL: func.func @untagged
// CHECK:             scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK:               vector.outerproduct {{.*}} : vector<8xf32>, vector<32xf32>
// CHECK-NOT:     linalg.matmul

module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @r4x64(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>) -> tensor<128x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
    %m = linalg.matmul {orchestra.fusion_root_wide, orchestra.tile_variant = "b256x128_r4x64"} ins(%x, %w : tensor<128x256xf32>, tensor<256x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
    return %m : tensor<128x512xf32>
  }
  func.func @r6x64(%x: tensor<96x128xf32>, %w: tensor<128x128xf32>) -> tensor<96x128xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<96x128xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<96x128xf32>) -> tensor<96x128xf32>
    %m = linalg.matmul {orchestra.fusion_root, orchestra.tile_variant = "b128x128_r6x64"} ins(%x, %w : tensor<96x128xf32>, tensor<128x128xf32>) outs(%f : tensor<96x128xf32>) -> tensor<96x128xf32>
    return %m : tensor<96x128xf32>
  }
  func.func @packed(%x: tensor<128x300xf32>, %w: tensor<300x200xf32>) -> tensor<128x200xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x200xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x200xf32>) -> tensor<128x200xf32>
    %m = linalg.matmul {orchestra.fusion_root_wide, orchestra.tile_variant = "b64x128_r4x64_packed"} ins(%x, %w : tensor<128x300xf32>, tensor<300x200xf32>) outs(%f : tensor<128x200xf32>) -> tensor<128x200xf32>
    return %m : tensor<128x200xf32>
  }
  func.func @untagged(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>) -> tensor<64x128xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%x, %w : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
    return %m : tensor<64x128xf32>
  }
}
