// The NVIDIA strategies on outlined kernels (after
// orchestra-nvidia-select-recipes), for both archs: the same sequences of
// nvidia_gpu_common.mlir.
// RUN: orchestra-opt %s --split-input-file --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/gpu_common.mlir,%orchestra_src_root/strategies/nvidia_gpu_common.mlir,%orchestra_src_root/strategies/nvidia_hopper_strategy.mlir --orchestra-nvidia-select-recipes --transform-interpreter=entry-point=__orchestra_nvidia_hopper_strategy | FileCheck %s
// RUN: orchestra-opt %s --split-input-file --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/gpu_common.mlir,%orchestra_src_root/strategies/nvidia_gpu_common.mlir,%orchestra_src_root/strategies/nvidia_blackwell_strategy.mlir --orchestra-nvidia-select-recipes --transform-interpreter=entry-point=__orchestra_nvidia_blackwell_strategy | FileCheck %s

// Tensor cores: 64x64 block tiles whose accumulator tile (in shared memory)
// the block's threads zero; the K loop in steps of 32 stages each step's A
// and B tiles in shared memory and runs the matmul over 8 warps of 32x16,
// vectorized (unrolled to 16x8x16 tensor-core steps after mapping); the
// stages of its pipeline (here 2: K = 64) come from
// orchestra-nvidia-select-recipes; the epilogue over the block's 256
// threads, vectorized.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (2, 4)
// CHECK:           %[[ACC:.+]] = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<64x64xf16>
// CHECK:           %[[ZERO:.+]] = scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32) shared_outs(%{{.*}} = %[[ACC]])
// CHECK:             vector.transfer_write {{.*}} : vector<8x2xf16>, tensor<8x2xf16>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>], orchestra.gpu_barrier_after}
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32 iter_args(%{{.*}} = %[[ZERO]])
// CHECK:             bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<64x32xf16>
// CHECK:             bufferization.materialize_in_destination {{.*}} : (tensor<64x32xf16>, tensor<64x32xf16>)
// CHECK:             bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<32x64xf16>
// CHECK:             bufferization.materialize_in_destination {{.*}} : (tensor<32x64xf16>, tensor<32x64xf16>)
// CHECK:             scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (2, 4)
// CHECK:               vector.contract {{.*}} : vector<32x32xf16>, vector<32x16xf16> into vector<32x16xf16>
// CHECK:             } {mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>], orchestra.gpu_mma_warps}
// CHECK:           } {orchestra.gpu_k_loop}
// CHECK:           scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32)
// CHECK:             arith.maximumf {{.*}} : vector<8x2xf16>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>], orchestra.gpu_copy_rows_a = 1 : i64, orchestra.gpu_copy_rows_b = 1 : i64, orchestra.gpu_k_stages = 2 : i64
// (These modules name no target: cp.async staging, no TMA.)
// CHECK-SAME:      orchestra.gpu_tma = 0 : i64}
module {
  func.func @matmul_bias_relu(%a: tensor<128x64xf16>, %b: tensor<64x256xf16>, %bias: tensor<256xf16>) -> tensor<128x256xf16> {
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<128x256xf16>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<128x256xf16>) -> tensor<128x256xf16>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<128x64xf16>, tensor<64x256xf16>) outs(%f : tensor<128x256xf16>) -> tensor<128x256xf16>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<128x256xf16>, tensor<256xf16>) outs(%e : tensor<128x256xf16>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f16, %y: f16, %o: f16):
      %s = arith.addf %x, %y : f16
      %z = arith.maximumf %s, %zero : f16
      linalg.yield %z : f16
    } -> tensor<128x256xf16>
    return %r : tensor<128x256xf16>
  }
}

// -----

// SIMT: every op in 32x64 block tiles of its own (results between them stay
// in device memory, each in its own buffer), each tile over 8x32 threads.
// The matmul's thread tiles are static: each thread steps through K 8 at a
// time, one 4x2x8 vector contraction per step, its accumulators carried in
// registers (read before the K loop, written after it).
// CHECK-LABEL: func.func @f32_matmul_relu
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         %[[ACC:.+]] = tensor.empty() : tensor<64x128xf32>
// CHECK:         %[[OUT:.+]] = tensor.empty() : tensor<64x128xf32>
// CHECK:         %[[FILL:.+]] = scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (2, 2) shared_outs(%{{.*}} = %[[ACC]])
// CHECK:           scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32)
// CHECK:             linalg.fill {{.*}} -> tensor<4x2xf32>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (2, 2) shared_outs(%{{.*}} = %[[FILL]])
// CHECK:             %[[ACC0:.+]] = vector.transfer_read {{.*}} : tensor<4x2xf32>, vector<4x2xf32>
// CHECK:             scf.for {{.*}} step %c8 iter_args({{.*}}, %[[ACCI:.+]] = %[[ACC0]]) -> (tensor<4x2xf32>, vector<4x2xf32>)
// CHECK-NOT:           vector.transfer_write
// CHECK:               vector.contract {{.*}} %[[ACCI]] : vector<4x8xf32>, vector<8x2xf32> into vector<4x2xf32>
// CHECK:             }
// CHECK:             vector.transfer_write {{.*}} : vector<4x2xf32>, tensor<4x2xf32>
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (2, 2) shared_outs(%{{.*}} = %[[OUT]])
// CHECK:             linalg.generic
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
module {
  func.func @f32_matmul_relu(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x128xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %z = arith.maximumf %x, %zero : f32
      linalg.yield %z : f32
    } -> tensor<64x128xf32>
    return %r : tensor<64x128xf32>
  }
}

// -----

// A row reduction: 256-row block tiles, one row per thread; an op no root
// absorbed gets block and thread tiles of its own.
// CHECK-LABEL: func.func @row_sum_and_copy
// CHECK:         scf.forall (%{{[a-z0-9_]+}}) in (2)
// CHECK:           scf.forall (%{{[a-z0-9_]+}}) in (256)
// CHECK:             linalg.fill
// CHECK:           scf.forall (%{{[a-z0-9_]+}}) in (256)
// CHECK:             linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (16, 1)
// CHECK:           scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32)
// CHECK:             linalg.copy {{.*}} -> tensor<4x2xf32>
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
module {
  func.func @row_sum_and_copy(%x: tensor<512x64xf32>) -> (tensor<512xf32>, tensor<512x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<512xf32>) -> tensor<512xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<512x64xf32>) outs(%f : tensor<512xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    } -> tensor<512xf32>
    %e2 = tensor.empty() : tensor<512x64xf32>
    %c = linalg.copy ins(%x : tensor<512x64xf32>) outs(%e2 : tensor<512x64xf32>) -> tensor<512x64xf32>
    return %r, %c : tensor<512xf32>, tensor<512x64xf32>
  }
}

// -----

// Four leading parallel loops (an NHWC convolution): block tiles of one
// image row's 8 columns x 32 channels (all images: at most three block
// dimensions), its threads over those 8x32 outputs; three (a batched
// matmul): 1x8x32 tiles.
// CHECK-LABEL: func.func @conv_and_batch_matmul
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 2, 2)
// CHECK:           scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32)
// CHECK:             linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x1x1x1xf32>
// CHECK:         } {mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// CHECK:         scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (4, 2, 2)
// CHECK:           scf.forall (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (8, 32)
// CHECK:             linalg.batch_matmul {{.*}} -> tensor<1x1x1xf32>
// CHECK:         } {mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
module {
  func.func @conv_and_batch_matmul(%x: tensor<1x10x18x8xf32>, %w: tensor<3x3x8x64xf32>, %a: tensor<4x16x8xf32>, %b: tensor<4x8x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<4x16x64xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x8x16x64xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x10x18x8xf32>, tensor<3x3x8x64xf32>) outs(%f : tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32>
    %e2 = tensor.empty() : tensor<4x16x64xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
    %m = linalg.batch_matmul ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x64xf32>) outs(%f2 : tensor<4x16x64xf32>) -> tensor<4x16x64xf32>
    return %c, %m : tensor<1x8x16x64xf32>, tensor<4x16x64xf32>
  }
}
