// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// A K loop of 128x128x64 steps staged 2 deep by swizzled TMA copies, then
// tcgen05 MMA: warp 0 allocates 128 columns of tensor memory, thread 0
// issues four m128n128k16 MMAs per step on shared memory descriptors and
// commits them to the step's barrier; with refill_lag = 1 every thread waits
// for the previous step's MMAs before the closing barrier. After the loop:
// the wait for the last step (step 3: stage 1, parity 1), 32x32b loads of
// the accumulator from tensor memory (two chunks of 32 columns per thread),
// the stores, and warp 0 frees the tensor memory after the next barrier.
// CHECK-LABEL: func.func @tcgen05
// CHECK:         scf.forall
// CHECK:           %[[SLOT:.+]] = memref.alloc() {alignment = 4 : i64} : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK:           %[[BARS:.+]] = memref.alloc() {alignment = 8 : i64} : memref<2xi64, #gpu.address_space<workgroup>>
// CHECK:           scf.if
// CHECK:             nvvm.tcgen05.alloc %{{.*}}, %c128_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT:        nvvm.tcgen05.relinquish_alloc_permit
// CHECK:           scf.if
// CHECK-COUNT-2:     nvvm.mbarrier.init
// CHECK:             nvvm.fence.mbarrier.init
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
// CHECK:           %[[TMEM:.+]] = memref.load %[[SLOT]]
// CHECK:           scf.for
// CHECK:             nvgpu.mbarrier.try_wait.parity
// CHECK:             scf.if
// CHECK:               nvvm.tcgen05.fence <after>
// CHECK:               %[[D:.+]] = llvm.inttoptr %[[TMEM]] : i32 to !llvm.ptr<6>
// CHECK:               %[[I:.+]] = arith.constant 136380432 : i32
// CHECK:               nvvm.tcgen05.mma_smem_desc
// CHECK:               nvvm.tcgen05.mma_smem_desc
// CHECK:               nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %[[I]], %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-COUNT-3:       nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %[[I]], %true
// CHECK:               nvvm.tcgen05.commit
// CHECK:             scf.if
// CHECK:               nvvm.mbarrier.try_wait.parity
// CHECK-NOT:         linalg.matmul
// CHECK:             gpu.barrier
// CHECK:           } {orchestra.tma_refill_lag = 1 : i64, tagged}
// CHECK-NEXT:      %c3 = arith.constant 3 : index
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK-COUNT-2:   nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64, orchestra.gpu_tile_store} : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<32xf32>
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        llvm.inttoptr %[[TMEM]]
// CHECK:             nvvm.tcgen05.dealloc %{{.*}}, %c128_i32
module attributes {transform.with_named_sequence} {
  func.func @tcgen05(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
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
    transform.orchestra.nvidia_tcgen05_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// A loop whose operands are not written by swizzled TMA copies.
module attributes {transform.with_named_sequence} {
  func.func @unstaged(%a: memref<128x64xf16, #gpu.address_space<workgroup>>, %b: memref<64x128xf16, #gpu.address_space<workgroup>>, %c: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (1) {
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        linalg.matmul {orchestra.gpu_zero_init} ins(%a, %b : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>) outs(%c : memref<128x128xf32>)
      } {tagged}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot compute the K loop with tcgen05 MMA: an operand is not a stage of a shared-memory allocation}}
    transform.orchestra.nvidia_tcgen05_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// Then the output tile through shared memory: the 64 KB f32 tile takes the
// bytes of the two stages (A's 32 KB, then B's; every thread has waited for
// the last MMAs, so nothing reads them any more), and after the stores
// every thread fences for the async proxy, the block synchronizes, and
// thread 0 stores the tile with TMA at the block's origin and waits for it.
// CHECK-LABEL: func.func @tma_store
// CHECK:         %[[CAST:.+]] = memref.cast %{{.*}} : memref<256x256xf32> to memref<*xf32>
// CHECK:         %[[MAP:.+]] = nvgpu.tma.create.descriptor %[[CAST]] box[%{{.*}}, %{{.*}}] : memref<*xf32> -> <tensor = memref<128x128xf32, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
// CHECK:         scf.forall
// CHECK:           %[[ROW0:.+]] = affine.apply
// CHECK:           %[[COL0:.+]] = affine.apply
// CHECK:           %[[SHARED:.+]] = memref.alloc() {alignment = 1024 : i64} : memref<65536xi8, #gpu.address_space<workgroup>>
// CHECK-NOT:       memref.subview %{{.*}}[%[[ROW0]], %[[COL0]]]
// CHECK:           %[[TILE:.+]] = memref.view %[[SHARED]][%{{.*}}][] : memref<65536xi8, #gpu.address_space<workgroup>> to memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for
// CHECK:           nvvm.tcgen05.ld
// CHECK-NOT:       gpu.barrier
// CHECK:           vector.store %{{.*}}, %[[TILE]]
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      %c0
// CHECK:           scf.if
// CHECK-NEXT:        nvgpu.tma.fence.descriptor %[[MAP]]
// CHECK-NEXT:        nvgpu.tma.async.store %[[TILE]] to %[[MAP]][%[[COL0]], %[[ROW0]]]
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:        nvvm.cp.async.bulk.wait_group 0 {read}
module attributes {transform.with_named_sequence} {
  func.func @tma_store(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
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
    transform.orchestra.nvidia_tcgen05_mma %loop : !transform.any_op
    transform.orchestra.nvidia_tma_store_tile %loop : !transform.any_op
    transform.yield
  }
}

// -----

// An epilogue that reads the output tile (an accumulation into it) keeps
// its global stores.
module attributes {transform.with_named_sequence} {
  func.func @reads_tile(%c: memref<256x256xf32>, %x: vector<4xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %out = memref.subview %c[%m, 0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        gpu.barrier
      } {tagged}
      %v = vector.load %out[%c0, %c0] : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
      vector.store %v, %out[%c0, %c64] : memref<128x128xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store the block's output tile with TMA: something reads the tile, or uses it in a way this op does not handle}}
    transform.orchestra.nvidia_tma_store_tile %loop : !transform.any_op
    transform.yield
  }
}

// -----

// An epilogue that writes only part of the tile (its diagonal): a TMA store
// of the whole box would write the rest, so the op refuses.
module attributes {transform.with_named_sequence} {
  func.func @partial_tile(%c: memref<256x256xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    scf.forall (%i) in (2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %out = memref.subview %c[%m, 0] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
      // expected-note @below {{K loop}}
      scf.for %k = %c0 to %c256 step %c64 {
        gpu.barrier
      } {tagged}
      scf.forall (%t) in (128) {
        memref.store %x, %out[%t, %t] : memref<128x128xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot store the block's output tile with TMA: the ops after the loop do not provably write the whole tile (a TMA store of the tile would write the rest)}}
    transform.orchestra.nvidia_tma_store_tile %loop : !transform.any_op
    transform.yield
  }
}

// -----

// An epilogue in the recipe's thread tiles (a row and half the columns per
// thread, thread t at (t mod 128, t / 128)) takes the accumulators from
// tensor memory in registers: each thread loads its row's 64 columns (two
// 32x32b loads, each waited for by an inline asm that gives the registers
// back), and the accumulator buffer goes. The free comes after the
// epilogue.
// CHECK-LABEL: func.func @register_epilogue
// CHECK-NOT:       memref<128x128xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK:           scf.forall (%[[I:.+]], %[[J:.+]]) in (128, 2)
// CHECK-NEXT:        nvvm.tcgen05.fence <after>
// CHECK:             nvvm.tcgen05.ld
// CHECK:             llvm.inline_asm has_side_effects {orchestra.tcgen05_wait} "tcgen05.wait::ld.sync.aligned;"
// CHECK:             nvvm.tcgen05.ld
// CHECK:             llvm.inline_asm has_side_effects {orchestra.tcgen05_wait} "tcgen05.wait::ld.sync.aligned;"
// CHECK:             %[[WORDS:.+]] = vector.from_elements
// CHECK:             %[[ROW:.+]] = vector.bitcast %[[WORDS]] : vector<64xi32> to vector<64xf32>
// CHECK:             %[[ACC:.+]] = vector.shape_cast %[[ROW]] : vector<64xf32> to vector<1x64xf32>
// CHECK-NOT:         vector.transfer_read
// CHECK:             arith.addf %[[ACC]]
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK-NEXT:      nvvm.tcgen05.fence <before>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
// CHECK:           nvvm.tcgen05.dealloc
module attributes {transform.with_named_sequence} {
  func.func @register_epilogue(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %pad = arith.constant 0.0 : f32
    %one = arith.constant dense<1.0> : vector<1x64xf32>
    scf.forall (%i, %j) in (2, 2) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x128xf16, #gpu.address_space<workgroup>>
      %acc = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
      %out = memref.subview %c[%m, %n] [128, 128] [1, 1] : memref<256x256xf32> to memref<128x128xf32, strided<[256, 1], offset: ?>>
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
      scf.forall (%r, %h) in (128, 2) {
        %col = affine.apply affine_map<(d0) -> (d0 * 64)>(%h)
        %in = memref.subview %acc[%r, %col] [1, 64] [1, 1] : memref<128x128xf32, #gpu.address_space<workgroup>> to memref<1x64xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>
        %o = memref.subview %out[%r, %col] [1, 64] [1, 1] : memref<128x128xf32, strided<[256, 1], offset: ?>> to memref<1x64xf32, strided<[256, 1], offset: ?>>
        %v = vector.transfer_read %in[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x64xf32, strided<[128, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<1x64xf32>
        %w = arith.addf %v, %one : vector<1x64xf32>
        vector.transfer_write %w, %o[%c0, %c0] {in_bounds = [true, true]} : vector<1x64xf32>, memref<1x64xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    transform.orchestra.nvidia_tcgen05_mma %loop : !transform.any_op
    transform.yield
  }
}

// -----

// N = 192: each thread's 96 columns are three loads of 32.
// CHECK-LABEL: func.func @register_epilogue_192
// CHECK-COUNT-3:     nvvm.tcgen05.ld
// CHECK:             vector.shape_cast %{{.*}} : vector<96xf32> to vector<1x96xf32>
module attributes {transform.with_named_sequence} {
  func.func @register_epilogue_192(%a: memref<256x256xf16>, %b: memref<256x256xf16>, %c: memref<256x256xf32>, %d: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %pad = arith.constant 0.0 : f32
    %one = arith.constant dense<1.0> : vector<1x96xf32>
    scf.forall (%i, %j) in (2, 1) {
      %m = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
      %n = affine.apply affine_map<(d0) -> (d0 * 128)>(%j)
      %sa = memref.alloc() : memref<2x128x64xf16, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<2x64x192xf16, #gpu.address_space<workgroup>>
      %acc = memref.alloc() : memref<128x192xf32, #gpu.address_space<workgroup>>
      %out = memref.subview %d[%m, %n] [128, 192] [1, 1] : memref<256x256xf32> to memref<128x192xf32, strided<[256, 1], offset: ?>>
      scf.for %k = %c0 to %c256 step %c64 {
        %s = affine.apply affine_map<(d0) -> ((d0 floordiv 64) mod 2)>(%k)
        %ga = memref.subview %a[%m, %k] [128, 64] [1, 1] : memref<256x256xf16> to memref<128x64xf16, strided<[256, 1], offset: ?>>
        %gb = memref.subview %b[%k, %n] [64, 192] [1, 1] : memref<256x256xf16> to memref<64x192xf16, strided<[256, 1], offset: ?>>
        %ta = memref.subview %sa[%s, 0, 0] [1, 128, 64] [1, 1, 1] : memref<2x128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
        %tb = memref.subview %sb[%s, 0, 0] [1, 64, 192] [1, 1, 1] : memref<2x64x192xf16, #gpu.address_space<workgroup>> to memref<64x192xf16, strided<[192, 1], offset: ?>, #gpu.address_space<workgroup>>
        linalg.copy ins(%ga : memref<128x64xf16, strided<[256, 1], offset: ?>>) outs(%ta : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.copy ins(%gb : memref<64x192xf16, strided<[256, 1], offset: ?>>) outs(%tb : memref<64x192xf16, strided<[192, 1], offset: ?>, #gpu.address_space<workgroup>>)
        linalg.matmul {orchestra.gpu_zero_init} ins(%ta, %tb : memref<128x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>, memref<64x192xf16, strided<[192, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%acc : memref<128x192xf32, #gpu.address_space<workgroup>>)
        gpu.barrier
      } {tagged}
      gpu.barrier
      scf.forall (%r, %h) in (128, 2) {
        %col = affine.apply affine_map<(d0) -> (d0 * 96)>(%h)
        %in = memref.subview %acc[%r, %col] [1, 96] [1, 1] : memref<128x192xf32, #gpu.address_space<workgroup>> to memref<1x96xf32, strided<[192, 1], offset: ?>, #gpu.address_space<workgroup>>
        %o = memref.subview %out[%r, %col] [1, 96] [1, 1] : memref<128x192xf32, strided<[256, 1], offset: ?>> to memref<1x96xf32, strided<[256, 1], offset: ?>>
        %v = vector.transfer_read %in[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x96xf32, strided<[192, 1], offset: ?>, #gpu.address_space<workgroup>>, vector<1x96xf32>
        %w = arith.addf %v, %one : vector<1x96xf32>
        vector.transfer_write %w, %o[%c0, %c0] {in_bounds = [true, true]} : vector<1x96xf32>, memref<1x96xf32, strided<[256, 1], offset: ?>>
      } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %loop {swizzle_128b, refill_lag = 1} : !transform.any_op
    transform.orchestra.nvidia_tcgen05_mma %loop : !transform.any_op
    transform.yield
  }
}
