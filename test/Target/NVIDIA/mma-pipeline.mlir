// The tensor-core recipe after stage 7 (nvidia_hopper): the A and B tiles
// of each 32-deep K step are copied into shared memory asynchronously, 16
// bytes per thread and copy (nvgpu.device_async_copy, bypassing L1), one
// group per step, in 3 buffers; the K loop is software-pipelined over 3
// stages: the prologue issues steps 0-2, each iteration waits until at most
// 2 groups are in flight (its own has landed) right before the barrier and
// the first ldmatrix of the step, and issues step k+3 after the barrier
// that ends the step; the peeled epilogue's three steps wait for 2, 1, then
// 0 groups in flight. The
// accumulators stay in registers (iter_args) and reach the shared
// accumulator tile after the loop, before the barrier the epilogue waits on.
// RUN: orchestra-opt %s --pass-pipeline='builtin.module(transform-preload-library{transform-library-paths=%orchestra_src_root/strategies/gpu_common.mlir,%orchestra_src_root/strategies/nvidia_gpu_common.mlir,%orchestra_src_root/strategies/nvidia_hopper_strategy.mlir},orchestra-nvidia-select-recipes,transform-interpreter{entry-point=__orchestra_nvidia_hopper_strategy},canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs modify-public-functions},canonicalize,cse,canonicalize,orchestra-gpu-copies-to-linalg,transform-interpreter{entry-point=__orchestra_nvidia_hopper_map_to_gpu},orchestra-nvidia-vector-to-mma,canonicalize,cse,transform-interpreter{entry-point=__orchestra_nvidia_hopper_lower_vectors})' | FileCheck %s

// Then the shared tiles are swizzled (upstream nvgpu-optimize-shared-memory,
// next in the arch's pipeline): the column of every 16-byte chunk is XORed
// with bits of its row, in the copies and the ldmatrix reads alike, so that
// the 8 rows an ldmatrix reads fall into different banks.
// RUN: orchestra-opt %s --pass-pipeline='builtin.module(transform-preload-library{transform-library-paths=%orchestra_src_root/strategies/gpu_common.mlir,%orchestra_src_root/strategies/nvidia_gpu_common.mlir,%orchestra_src_root/strategies/nvidia_hopper_strategy.mlir},orchestra-nvidia-select-recipes,transform-interpreter{entry-point=__orchestra_nvidia_hopper_strategy},canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs modify-public-functions},canonicalize,cse,canonicalize,orchestra-gpu-copies-to-linalg,transform-interpreter{entry-point=__orchestra_nvidia_hopper_map_to_gpu},orchestra-nvidia-vector-to-mma,canonicalize,cse,transform-interpreter{entry-point=__orchestra_nvidia_hopper_lower_vectors},func.func(nvgpu-optimize-shared-memory))' | FileCheck %s --check-prefix=SWIZZLE
// SWIZZLE:     scf.for
// SWIZZLE:       arith.xori
// SWIZZLE:       nvgpu.ldmatrix
// SWIZZLE:       arith.xori
// SWIZZLE:       nvgpu.device_async_copy

// CHECK-LABEL: func.func @t0_matmul
// CHECK:       gpu.launch
// The block zeroes the accumulator tile, then waits.
// CHECK:         %[[C:.+]] = memref.alloc() {{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK:         vector.store %{{.*}}, %[[C]]
// CHECK:         gpu.barrier
// CHECK-NEXT:    %[[A:.+]] = memref.alloc() {{.*}} : memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[B:.+]] = memref.alloc() {{.*}} : memref<3x32x64xf16, #gpu.address_space<workgroup>>
// Prologue: steps 0, 1 and 2, one group each.
// CHECK-NOT:     nvgpu.device_async_wait
// CHECK-COUNT-3: nvgpu.device_async_copy %arg0{{.*}}, %[[A]]{{.*}}, 8 {bypassL1}
// CHECK-NOT:     nvgpu.device_async_wait
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>,
// CHECK-NEXT:      nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NEXT:      gpu.barrier
// CHECK:           nvgpu.ldmatrix %[[A]]{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:           nvgpu.ldmatrix %[[B]]{{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK-COUNT-8:   nvgpu.mma.sync
// CHECK:           gpu.barrier
// CHECK:           nvgpu.device_async_copy %arg0{{.*}}, %[[A]]{{.*}}, 8 {bypassL1}
// CHECK:           nvgpu.device_async_copy %arg1{{.*}}, %[[B]]{{.*}}, 8 {bypassL1}
// CHECK-NEXT:      %[[G:.+]] = nvgpu.device_async_create_group
// CHECK-NEXT:      scf.yield {{.*}}%[[G]]
// Epilogue of the pipeline: the last 3 steps.
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK-COUNT-8: nvgpu.mma.sync
// CHECK:         gpu.barrier
// The accumulators into the shared tile, a barrier, then the epilogue.
// CHECK-COUNT-8: vector.store %{{.*}}, %[[C]]
// CHECK-NEXT:    gpu.barrier
// CHECK:         vector.load %[[C]]
// CHECK:         arith.maximumf
module @kernels_nvidia_hopper_0 attributes {orchestra.arch = "nvidia_hopper", orchestra.target = {arch = "nvidia_hopper", device_id = 0 : i64, sm = "sm_90a"}} {
  func.func @t0_matmul(%a: tensor<512x1024xf16>, %b: tensor<1024x512xf16>, %bias: tensor<512xf16>) -> tensor<512x512xf16> {
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<512x512xf16>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<512x512xf16>) -> tensor<512x512xf16>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<512x1024xf16>, tensor<1024x512xf16>) outs(%f : tensor<512x512xf16>) -> tensor<512x512xf16>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<512x512xf16>, tensor<512xf16>) outs(%e : tensor<512x512xf16>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f16, %y: f16, %o: f16):
      %s = arith.addf %x, %y : f16
      %z = arith.maximumf %s, %zero : f16
      linalg.yield %z : f16
    } -> tensor<512x512xf16>
    return %r : tensor<512x512xf16>
  }
}
