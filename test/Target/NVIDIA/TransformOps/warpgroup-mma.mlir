// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// A K loop of 128x128x64 steps staged 2 deep: swizzled TMA copies (A in one
// 128x64 box, B in two 64x64 column blocks), then warpgroup MMA with the
// accumulators carried through the loop and stored after it.
// CHECK-LABEL: func.func @wgmma
// CHECK-DAG:     %[[MA:.+]] = nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK-DAG:     %[[MB:.+]] = nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:         scf.forall
// CHECK-DAG:       memref.alloc() {alignment = 1024 : i64} : memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG:       memref.alloc() {alignment = 1024 : i64} : memref<2x64x128xf16, #gpu.address_space<workgroup>>
// CHECK:           memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [64, 64], strides: [64, 1]
// CHECK:           %[[TID:.+]] = gpu.thread_id  x
// CHECK:           %[[ROW:.+]] = affine.apply #{{.*}}(%[[TID]])
// CHECK:           %[[ZERO:.+]] = nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x128xf32>>
// CHECK:           %[[ACC:.+]] = scf.for {{.*}} iter_args(%[[IT:.+]] = %[[ZERO]]) -> (!nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>)
// CHECK:             nvgpu.mbarrier.try_wait.parity
// CHECK:             %[[ROWS:.+]] = memref.subview %{{.*}}[%[[ROW]], 0] [64, 64] [1, 1]
// CHECK:             %[[DA:.+]] = nvgpu.warpgroup.generate.descriptor %[[ROWS]], %[[MA]]
// CHECK:             %[[DB:.+]] = nvgpu.warpgroup.generate.descriptor %{{.*}}, %[[MB]]
// CHECK:             %[[D:.+]] = nvgpu.warpgroup.mma %[[DA]], %[[DB]], %[[IT]] {transposeB, waitGroup = 0 : i64}
// CHECK-NOT:         linalg.matmul
// CHECK:             gpu.barrier
// CHECK:             scf.yield %[[D]]
// CHECK:           %[[FIRST:.+]] = memref.subview %{{.*}}[0, 0] [64, 128] [1, 1]
// CHECK:           nvgpu.warpgroup.mma.store %[[ACC]], %[[FIRST]]
module attributes {transform.with_named_sequence} {
  func.func @wgmma(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// With refill_lag = 1, a step's MMA may run on while the next step begins
// (the copies refill its stage at the end of that step): each MMA waits for
// the one before (waitGroup 1, the default), and the accumulators are
// waited for after the loop.
// CHECK-LABEL: func.func @wgmma_lag
// CHECK:         scf.for
// CHECK:           nvgpu.warpgroup.mma {{.*}} {transposeB} :
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             scf.index_switch
// CHECK:         } {orchestra.tma_refill_lag = 1 : i64, tagged}
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         nvgpu.warpgroup.mma.store
module attributes {transform.with_named_sequence} {
  func.func @wgmma_lag(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// The thread loops that zero the accumulator buffer before the K loop are
// erased: the accumulators start at zero in registers and the MMA store
// after the loop overwrites the whole buffer. So is the barrier after them,
// with nothing before it that touches memory.
// CHECK-LABEL: func.func @wgmma_zero_fill
// CHECK:         scf.forall
// CHECK-NOT:       linalg.fill
// CHECK-NOT:       vector.transfer_write
// CHECK-NOT:       gpu.barrier
// CHECK:           nvgpu.mbarrier.create
// CHECK:           gpu.barrier
// CHECK:           nvgpu.warpgroup.mma.init.accumulator
// CHECK:           scf.for
// CHECK:           nvgpu.warpgroup.mma.store
module attributes {transform.with_named_sequence} {
  func.func @wgmma_zero_fill(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %zeros = arith.constant dense<0.0> : vector<4xf32>
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      scf.forall (%t) in (128) {
        %row = memref.subview %out[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128xf32, strided<[1], offset: ?>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>>)
      } {mapping = [#gpu.thread<x>]}
      scf.forall (%t) in (32) {
        %col = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
        vector.transfer_write %zeros, %out[%c0, %col] {in_bounds = [true]} : vector<4xf32>, memref<128x128xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// The fill goes, but the barrier after it stays when something before it
// writes memory that threads may read after it.
// CHECK-LABEL: func.func @wgmma_fill_barrier
// CHECK:         scf.forall
// CHECK:           memref.store
// CHECK-NOT:       linalg.fill
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      nvgpu.mbarrier.create
module attributes {transform.with_named_sequence} {
  func.func @wgmma_fill_barrier(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %zeros = arith.constant dense<0.0> : vector<4xf32>
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      %h = arith.constant 1.0 : f16
      memref.store %h, %sa[%c0, %c0, %c0] : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      scf.forall (%t) in (128) {
        %row = memref.subview %out[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128xf32, strided<[1], offset: ?>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>>)
      } {mapping = [#gpu.thread<x>]}
      scf.forall (%t) in (32) {
        %col = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
        vector.transfer_write %zeros, %out[%c0, %col] {in_bounds = [true]} : vector<4xf32>, memref<128x128xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// A fill that something reads before the K loop stays.
// CHECK-LABEL: func.func @wgmma_fill_read
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK:           gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK:           nvgpu.warpgroup.mma.store
module attributes {transform.with_named_sequence} {
  func.func @wgmma_fill_read(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>, %probe: memref<f32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      scf.forall (%t) in (128) {
        %row = memref.subview %out[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128xf32, strided<[1], offset: ?>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>>)
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      %x = memref.load %out[%c0, %c0] : memref<128x128xf32, strided<[256, 1], offset: ?>>
      memref.store %x, %probe[] : memref<f32>
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... also when it reads the memory through another view of the buffer.
// CHECK-LABEL: func.func @wgmma_fill_read_alias
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK:           gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK:           nvgpu.warpgroup.mma.store
module attributes {transform.with_named_sequence} {
  func.func @wgmma_fill_read_alias(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>, %probe: memref<f32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      scf.forall (%t) in (128) {
        %row = memref.subview %out[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<128xf32, strided<[1], offset: ?>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>>)
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      %x = memref.load %c[%m, %n] : memref<256x256xf32>
      memref.store %x, %probe[] : memref<f32>
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// An accumulator tile in shared memory that only the epilogue reads, after
// the K loop, shares its bytes with the stages: one allocation of the
// larger (64 KB), viewed as the A stages, the B stages after them, and the
// tile from the start. The accumulators are stored only once every
// warpgroup's last MMA is done (the wait, then a barrier).
// CHECK-LABEL: func.func @wgmma_shared_tile
// CHECK:         scf.forall
// CHECK:           %[[BYTES:.+]] = memref.alloc() {alignment = 1024 : i64} : memref<65536xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:       %[[CB:.+]] = arith.constant 32768 : index
// CHECK-DAG:       %[[SA:.+]] = memref.view %[[BYTES]][%[[C0]]][] : memref<65536xi8, #gpu.address_space<workgroup>> to memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[SB:.+]] = memref.view %[[BYTES]][%[[CB]]][] : memref<65536xi8, #gpu.address_space<workgroup>> to memref<2x64x128xf16, #gpu.address_space<workgroup>>
// CHECK-DAG:       %[[ACC:.+]] = memref.view %[[BYTES]][%{{.+}}][] : memref<65536xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:       memref.alloc
// CHECK-NOT:       linalg.fill
// CHECK:           scf.for
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      %[[FIRST:.+]] = memref.subview %[[ACC]][0, 0] [64, 128] [1, 1]
// CHECK-NEXT:      nvgpu.warpgroup.mma.store %{{.+}}, %[[FIRST]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           memref.load %[[ACC]]
module attributes {transform.with_named_sequence} {
  func.func @wgmma_shared_tile(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %acc = memref.alloc() {alignment = 64 : i64} : memref<128x128xf32, #gpu.address_space<workgroup>>
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      scf.forall (%t) in (128) {
        %row = memref.subview %acc[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, #gpu.address_space<workgroup>> to memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>)
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%acc : memref<128x128xf32, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
      gpu.barrier
      scf.forall (%t) in (128) {
        %x = memref.load %acc[%t, %t] : memref<128x128xf32, #gpu.address_space<workgroup>>
        %y = arith.addf %x, %x : f32
        %gm = arith.addi %m, %t : index
        memref.store %y, %c[%gm, %n] : memref<256x256xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// A tile that something uses before the K loop (here a fill of ones, which
// the MMA store overwrites but which is not erased) keeps bytes of its own.
// CHECK-LABEL: func.func @wgmma_tile_used_before
// CHECK:         memref.alloc() {alignment = 64 : i64} : memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.alloc() {alignment = 1024 : i64} : memref<2x128x64xf16, #gpu.address_space<workgroup>>
// CHECK:         memref.alloc() {alignment = 1024 : i64} : memref<2x64x128xf16, #gpu.address_space<workgroup>>
// CHECK-NOT:     memref.view
// CHECK:         linalg.fill
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.subview
// CHECK-NEXT:    nvgpu.warpgroup.mma.store
module attributes {transform.with_named_sequence} {
  func.func @wgmma_tile_used_before(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 1.0 : f32
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %acc = memref.alloc() {alignment = 64 : i64} : memref<128x128xf32, #gpu.address_space<workgroup>>
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      scf.forall (%t) in (128) {
        %row = memref.subview %acc[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, #gpu.address_space<workgroup>> to memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>)
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%acc : memref<128x128xf32, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
      gpu.barrier
      scf.forall (%t) in (128) {
        %x = memref.load %acc[%t, %t] : memref<128x128xf32, #gpu.address_space<workgroup>>
        %y = arith.addf %x, %x : f32
        %gm = arith.addi %m, %t : index
        memref.store %y, %c[%gm, %n] : memref<256x256xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}


// -----

// With share_accumulator, such a tile is an error: the recipe's shared-memory
// budget counted on the sharing.
module attributes {transform.with_named_sequence} {
  func.func @wgmma_must_share(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 1.0 : f32
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %acc = memref.alloc() {alignment = 64 : i64} : memref<128x128xf32, #gpu.address_space<workgroup>>
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      scf.forall (%t) in (128) {
        %row = memref.subview %acc[%t, 0] [1, 128] [1, 1] : memref<128x128xf32, #gpu.address_space<workgroup>> to memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.fill ins(%zero : f32) outs(%row : memref<128xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>)
      } {mapping = [#gpu.thread<x>]}
      gpu.barrier
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%acc : memref<128x128xf32, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
      gpu.barrier
      scf.forall (%t) in (128) {
        %x = memref.load %acc[%t, %t] : memref<128x128xf32, #gpu.address_space<workgroup>>
        %y = arith.addf %x, %x : f32
        %gm = arith.addi %m, %t : index
        memref.store %y, %c[%gm, %n] : memref<256x256xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    // expected-error @below {{cannot compute the K loop with warpgroup MMA: the accumulator tile cannot share the stages' shared memory (share_accumulator): it is used before the K loop, or the stages after it}}
    transform.orchestra.nvidia_warpgroup_mma %loop {share_accumulator} : !transform.any_op
    transform.yield
  }
}


// -----

// The op refuses, naming the loop: a matmul whose accumulator may not start
// at zero...
module attributes {transform.with_named_sequence} {
  func.func @not_zero(%ta: memref<128x64xf16, #gpu.address_space<workgroup>>, %tb: memref<64x128xf16, #gpu.address_space<workgroup>>, %out: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        linalg.matmul ins(%ta, %tb : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot compute the K loop with warpgroup MMA: the matmul does not carry orchestra.gpu_zero_init (its accumulator must start at zero)}}
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... operands that swizzled TMA copies do not write ...
module attributes {transform.with_named_sequence} {
  func.func @not_swizzled(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (1) {
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[0, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, 0] [64, 128] [1, 1] : memref<256x256xf16> to memref<64x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 128] [1, 1, 1] : memref<2x64x128xf16, #gpu.address_space<workgroup>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%c : memref<128x128xf32>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop : !transform.any_op
    // expected-error @below {{cannot compute the K loop with warpgroup MMA: an operand's stages are not written by TMA copies with the 128-byte swizzle}}
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// ... and, with the swizzle, a tile whose rows are not whole 128-byte
// swizzle rows.
module attributes {transform.with_named_sequence} {
  func.func @narrow(%a: memref<256x256xf16>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (1) {
      %sa = memref.alloc() : memref<2x128x32xf16, #gpu.address_space<workgroup>>
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c32 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 32) mod 2)>(%k)
        %ga = memref.subview %a[0, %k] [128, 32] [1, 1] : memref<256x256xf16> to memref<128x32xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 32] [1, 1, 1] : memref<2x128x32xf16, #gpu.address_space<workgroup>> to memref<128x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x32xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot stage the K loop with TMA: a tile's rows are not a multiple of the 128 bytes of the swizzle}}
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    transform.yield
  }
}

// -----

// A K step of 128: the warpgroup MMA descriptors advance through one
// 128-byte swizzle row of A (64 elements), so the op refuses it.
module attributes {transform.with_named_sequence} {
  func.func @k128(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x128xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x128x128xf16, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c128 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 128) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 128] [1, 1] : memref<256x256xf16> to memref<128x128xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [128, 128] [1, 1] : memref<256x256xf16> to memref<128x128xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 128] [1, 1, 1] : memref<2x128x128xf16, #gpu.address_space<workgroup>> to memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 128, 128] [1, 1, 1] : memref<2x128x128xf16, #gpu.address_space<workgroup>> to memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x128xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<128x128xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<128x128xf16, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%out : memref<128x128xf32, strided<[256, 1], offset: ?>>)
        gpu.barrier
      } {tagged}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b} : !transform.any_op
    // expected-error @below {{cannot compute the K loop with warpgroup MMA: its K step is 128, not 64 (one 128-byte swizzle row of 16-bit elements, what the warpgroup MMA descriptors' advance assumes)}}
    transform.orchestra.nvidia_warpgroup_mma %loop : !transform.any_op
    transform.yield
  }
}
