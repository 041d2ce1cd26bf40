// The tensor-core recipe on Blackwell after stage 7: the Tensor Memory
// Accelerator copies the A and B tiles of each 32-deep K step into one of 3
// stage buffers, and one mbarrier per stage says when they have landed
// (transform.orchestra.nvidia_tma_k_loop):
//  * on the host, a TMA descriptor per operand, with the tile as its box;
//  * thread 0 initializes the barriers (then the block synchronizes) and
//    issues steps 0-2: the bytes a stage expects, then its two TMA loads,
//    at (column, row) coordinates;
//  * each K step first waits for its stage's barrier, in the phase of its
//    pass over the stages (every thread waits: no block barrier before the
//    warps read the stage), and after the barrier that ends the step thread
//    0 issues the step 3 ahead into the same stage, while there is one.
// No cp.async and no cp.async pipeline: the kernel's stage count says 1.
// The stage buffers share one allocation with the 64x64 output tile, which
// the epilogue writes after the K loop and thread 0 stores with TMA
// (transform.orchestra.nvidia_tma_store_tile).
// RUN: orchestra-opt %s --pass-pipeline='builtin.module(transform-preload-library{transform-library-paths=%orchestra_src_root/strategies/gpu_common.mlir,%orchestra_src_root/strategies/nvidia_gpu_common.mlir,%orchestra_src_root/strategies/nvidia_blackwell_strategy.mlir},orchestra-nvidia-select-recipes,transform-interpreter{entry-point=__orchestra_nvidia_blackwell_strategy},canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs modify-public-functions},canonicalize,cse,canonicalize,orchestra-gpu-copies-to-linalg,transform-interpreter{entry-point=__orchestra_nvidia_blackwell_map_to_gpu},orchestra-nvidia-vector-to-mma,canonicalize,cse,transform-interpreter{entry-point=__orchestra_nvidia_blackwell_lower_vectors})' | FileCheck %s

// CHECK-LABEL: func.func @t0_matmul
// CHECK:       %[[CA:.+]] = memref.cast %arg0 : memref<512x1024xf16> to memref<*xf16>
// CHECK:       %[[DA:.+]] = nvgpu.tma.create.descriptor %[[CA]] box[%c64, %c32]
// CHECK-SAME:    -> <tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
// CHECK:       %[[CB:.+]] = memref.cast %arg1 : memref<1024x512xf16> to memref<*xf16>
// CHECK:       %[[DB:.+]] = nvgpu.tma.create.descriptor %[[CB]] box[%c32, %c64]
// CHECK:       %[[CC:.+]] = memref.cast %arg3 : memref<512x512xf16> to memref<*xf16>
// CHECK:       %[[DC:.+]] = nvgpu.tma.create.descriptor %[[CC]] box[%c64, %c64]
// CHECK:       gpu.launch
// CHECK:         %[[SHARED:.+]] = memref.alloc() {alignment = 128 : i64} : memref<24576xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[A:.+]] = memref.view %[[SHARED]][%c0][] : memref<24576xi8, #gpu.address_space<workgroup>> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[B:.+]] = memref.view %[[SHARED]][%c12288][] : memref<24576xi8, #gpu.address_space<workgroup>> to memref<3x32x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[OUT:.+]] = memref.view %[[SHARED]][%c0][] : memref<24576xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK:         %[[BAR:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK:         %[[FIRST:.+]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK:         scf.if %[[FIRST]] {
// CHECK-COUNT-3:   nvgpu.mbarrier.init %[[BAR]]
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%c0], %c8192
// CHECK:           nvgpu.tma.async.load %[[DA]][%c0, %{{.*}}], %[[BAR]][%c0]
// CHECK:           nvgpu.tma.async.load %[[DB]][%{{.*}}, %c0], %[[BAR]][%c0]
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%c1], %c8192
// CHECK:           nvgpu.tma.async.load %[[DA]][%c32, %{{.*}}], %[[BAR]][%c1]
// CHECK:           nvgpu.tma.async.load %[[DB]][%{{.*}}, %c32], %[[BAR]][%c1]
// CHECK:           nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%c2], %c8192
// CHECK:           nvgpu.tma.async.load %[[DA]][%c64, %{{.*}}], %[[BAR]][%c2]
// CHECK:           nvgpu.tma.async.load %[[DB]][%{{.*}}, %c64], %[[BAR]][%c2]
// CHECK:         }
// CHECK:         scf.for %[[K:.+]] = %c0 to %c1024 step %c32 iter_args
// CHECK:           %[[STAGE:.+]] = affine.apply #{{.*}}(%[[K]])
// CHECK:           %[[PASS:.+]] = affine.apply #{{.*}}(%[[K]])
// CHECK:           %[[PARITY:.+]] = arith.index_cast %[[PASS]] : index to i1
// Every thread waits on the stage's barrier itself: no block barrier after.
// CHECK:           nvgpu.mbarrier.try_wait.parity %[[BAR]][%[[STAGE]]], %[[PARITY]]
// CHECK-NOT:       gpu.barrier
// CHECK:           nvgpu.ldmatrix %[[A]][%[[STAGE]]
// CHECK:           nvgpu.mma.sync
// CHECK:           gpu.barrier
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             scf.index_switch
// CHECK:             case 3 {
// CHECK:               nvgpu.mbarrier.arrive.expect_tx %[[BAR]][%[[STAGE]]], %c8192
// CHECK:               nvgpu.tma.async.load %[[DA]]
// CHECK:               nvgpu.tma.async.load %[[DB]]
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         vector.store %{{.*}}, %[[OUT]]
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      nvgpu.tma.fence.descriptor %[[DC]]
// CHECK-NEXT:      nvgpu.tma.async.store %[[OUT]] to %[[DC]]
// CHECK-NEXT:      nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:      nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.terminator
// CHECK-NEXT:  } {orchestra.gpu_k_stages = 1 : i64}
module @kernels_nvidia_blackwell_0 attributes {orchestra.arch = "nvidia_blackwell", orchestra.target = {arch = "nvidia_blackwell", device_id = 0 : i64, sm = "sm_100a"}} {
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
