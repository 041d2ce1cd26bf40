//===- NVIDIATransformOps.td - NVIDIA transform ops ----------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The transform ops of the NVIDIA strategy scripts (strategies/nvidia_*.mlir):
// operand tiles staged by the Tensor Memory Accelerator, warpgroup (sm_90a)
// and fifth-generation (sm_100a) tensor-core matmuls, TMA stores of output
// tiles. Registered by the NVIDIA backend only (registerNVIDIABackend).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_TD
#define ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def NVIDIATmaKLoopOp : TransformDialectOp<"orchestra.nvidia_tma_k_loop", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Stages the operand tiles of a K loop with TMA and mbarriers";
  let description = [{
    Rewrites a K loop (`scf.for` with static bounds, inside a block-level
    `scf.forall`, before the mapping to threads) whose body copies tiles of
    2-D global buffers into stage buffers of shared memory
    (`linalg.copy` from subviews of a buffer defined outside the block loop
    into `memref.subview %buffers[%stage, 0, 0]` of a multibuffered
    `memref.alloc` in `#gpu.address_space<workgroup>`) so that the Tensor
    Memory Accelerator copies them, and each stage buffer has an mbarrier
    that says when its copy has landed:

    * before the block loop, one `nvgpu.tma.create.descriptor` per source
      buffer, with the copied tile as its box;
    * before the K loop, an `nvgpu.mbarrier.create` group of one barrier per
      stage, initialized by thread 0 (then a block barrier), and the copies of
      the first steps, one per stage, issued by thread 0: the expected bytes
      (`nvgpu.mbarrier.arrive.expect_tx`) and one `nvgpu.tma.async.load` per
      tile;
    * in the K loop, the copies are gone; the step waits for its stage's
      barrier first (`nvgpu.mbarrier.try_wait.parity`, the phase flipping
      each time the stage is reused), and thread 0 issues the copies of the
      step one pipeline depth ahead into the same stage at the end of the
      body, when there is one. The body must already end with a block
      barrier after the last read of the stage buffers
      (`transform.orchestra.gpu_barrier_after`), so that the new copy does
      not overwrite data still being read.

    The number of stages is the leading dimension of the stage buffers. TMA
    boxes have at most 256 elements per dimension, and their rows must be a
    multiple of 16 bytes. Emits a silenceable failure, naming the op, when
    the loop or its copies do not have this form.

    With `swizzle_128b`, the tiles are written with the 128-byte swizzle that
    warpgroup MMA descriptors read (`nvgpu.warpgroup.generate.descriptor`):
    each tile is copied as blocks of 128-byte-wide columns (one TMA box each,
    the rows x (128 bytes) of a block laid out one block after the other in
    the stage buffer), the stage buffers are aligned to 1024 bytes, and each
    box must be a multiple of 1024 bytes. The stage buffers' memref types
    then no longer describe their layout: only warpgroup MMA descriptors
    may read them.

    `refill_lag` (0 or 1, less than the number of stages) says when a
    stage is refilled: at the end of the step that read it (0), or at the
    end of the next step (1), for readers such as warpgroup MMA that may
    still be reading a step's stage while the next step begins (the copies
    then run one step less ahead). The loop is annotated
    `orchestra.tma_refill_lag` with it.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       UnitAttr:$swizzle_128b,
                       DefaultValuedAttr<I64Attr, "0">:$refill_lag);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def NVIDIAWarpgroupMmaOp : TransformDialectOp<"orchestra.nvidia_warpgroup_mma", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Computes the matmul of a TMA-staged K loop with warpgroup MMA";
  let description = [{
    Rewrites a K loop that `transform.orchestra.nvidia_tma_k_loop
    {swizzle_128b}` staged (its body reads the stage buffers, still inside
    the block-level `scf.forall`, before the mapping to threads) so that
    Hopper's warpgroup MMA computes its `linalg.matmul`:

    * the matmul reads an M x K stage of A and a K x N stage of B (f16 or
      bf16, both written by swizzled TMA copies) and accumulates into an
      M x N f32 buffer defined outside the loop, with K = 64 (one 128-byte
      swizzle row of A: upstream's descriptors step through K inside it)
      and M = 128: the block's
      256 threads are two warpgroups, warpgroup w computing rows
      [64 w, 64 w + 64);
    * before the loop, each warpgroup's 64 x N accumulator starts at zero
      (`nvgpu.warpgroup.mma.init.accumulator`) and becomes a loop-carried
      value;
    * in the loop, the matmul becomes matrix descriptors of the warpgroup's
      rows of A and of B (`nvgpu.warpgroup.generate.descriptor`, with the
      tensor maps of the TMA copies that fill them) and one
      `nvgpu.warpgroup.mma` (B transposed: its stage is K x N with N
      contiguous). It leaves as many steps' MMAs in flight as the loop's
      `orchestra.tma_refill_lag` (which `nvidia_tma_k_loop` sets) allows:
      with 0, it waits for its own completion, so that the step's closing
      barrier also ends its reads of the stages; with 1, it waits for the
      previous step's, whose stage is refilled after that barrier;
    * after the loop (and `wgmma.wait_group 0` when MMAs may be in flight),
      each warpgroup stores its accumulator into the f32 buffer
      (`nvgpu.warpgroup.mma.store`), rows 64 w + i of warpgroup w.

    The accumulator's prior contents are not read: the matmul must carry
    `orchestra.gpu_zero_init` (what `orchestra-nvidia-select-recipes` puts
    on a matmul whose accumulator is a zero `linalg.fill`). Thread-level
    `scf.forall`s before the loop, in its block, that only write zeros into
    views of the accumulator buffer are erased when nothing else before the
    loop uses the buffer, and so is the `gpu.barrier` right after them when
    nothing before it in the block touches memory but allocations. When the
    accumulator buffer is (a view of) a workgroup allocation in the loop's
    block that nothing uses before or in the loop, and nothing uses the
    stage allocations after it, the three allocations become views of one
    `i8` workgroup allocation of the larger size (the stages of A, then of
    B; the accumulator tile from byte 0). A `gpu.barrier` follows
    `wgmma.wait_group 0` when MMAs may be in flight at the end of the loop,
    so that nothing after it can overwrite bytes of the stages another
    warpgroup's last MMA still reads. With `share_accumulator`, an accumulator tile in
    shared memory that cannot share the stages' bytes is an error (a
    recipe that counted the shared memory as shared would not fit
    otherwise). Emits a silenceable failure, naming the op, when the loop
    does not have this form.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       UnitAttr:$share_accumulator);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def NVIDIATcgen05MmaOp : TransformDialectOp<"orchestra.nvidia_tcgen05_mma", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Computes the matmul of a TMA-staged K loop with tcgen05 MMA";
  let description = [{
    Rewrites a K loop that `transform.orchestra.nvidia_tma_k_loop
    {swizzle_128b}` staged (as `nvidia_warpgroup_mma` takes it) so that
    Blackwell's fifth-generation tensor cores compute its `linalg.matmul`,
    with the accumulator in tensor memory:

    * the matmul reads a 128 x K stage of A and a K x N stage of B (f16 or
      bf16, written by swizzled TMA copies; N a multiple of 16 up to 256)
      and accumulates into a 128 x N f32 buffer defined outside the loop;
    * before the loop, warp 0 allocates N columns of tensor memory
      (`nvvm.tcgen05.alloc`, rounded up to a power of two, at least 32) and
      gives up the right to allocate more; thread 0 initializes one
      mbarrier per stage for the MMAs' completion; the block synchronizes
      (with `nvvm.tcgen05.fence` on both sides) and every thread reads the
      tensor-memory address;
    * in the loop, thread 0 issues one `nvvm.tcgen05.mma` (`kind::f16`,
      M = 128, K = 16) per 16 columns of the step's A stage, on shared
      memory descriptors of the swizzled stages
      (`nvvm.tcgen05.mma_smem_desc`; B is MN-major), the first of the
      first step without the accumulator's input, then commits them to the
      step's mbarrier (`nvvm.tcgen05.commit`). Every thread then waits for
      the MMAs of the step `orchestra.tma_refill_lag` steps back (the loop's
      attribute, which `nvidia_tma_k_loop` sets): the stage the step's
      closing barrier lets the copies refill is then no longer read;
    * after the loop, every thread waits for the last step's MMAs. When the
      only reads of the f32 buffer are an epilogue's, in a thread-level
      `scf.forall` over (128, 2) mapped to linear thread dimensions 0 and 1
      whose thread (i, j) reads the 1 x N/2 view at row i and column
      j N/2 with one unmasked in-bounds `vector.transfer_read`, that read
      becomes the thread's own loads of those accumulators from tensor
      memory (`nvvm.tcgen05.ld` 32x32b; thread i + 128 j is in the warp
      that may load lane i), each waited for by an inline asm that returns
      the loaded registers, and the buffer goes. Otherwise warp w loads rows
      [32 (w mod 4), 32 (w mod 4) + 32) and half w / 4 of the columns and
      stores them into the buffer (marked `orchestra.gpu_tile_store`).
      After the last loads (the epilogue, or the next block barrier), warp 0
      frees the tensor memory. The block must have 256 threads.

    The accumulator's prior contents are not read: the matmul must carry
    `orchestra.gpu_zero_init`. Dead zero fills of the accumulator buffer
    are erased, and the accumulator tile shares the stages' bytes, as with
    `nvidia_warpgroup_mma` (`share_accumulator` makes a tile that cannot an
    error); no extra barrier is needed: every thread has waited for the
    last MMAs, which ends their reads of the stages. Emits a silenceable
    failure, naming the op, when the loop does not have this form.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       UnitAttr:$share_accumulator);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def NVIDIATmaStoreTileOp : TransformDialectOp<"orchestra.nvidia_tma_store_tile", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Writes a block's output tile to global memory with a TMA store";
  let description = [{
    Takes a K loop whose operands `nvidia_tma_k_loop` staged (after
    `nvidia_warpgroup_mma` or `nvidia_tcgen05_mma` rewrote its matmul) and
    moves the block's output tile through shared memory:

    * the stages must be free when the ops after the loop begin (what
      `nvidia_warpgroup_mma` and `nvidia_tcgen05_mma` ensure: every MMA has
      completed by then);
    * the tile is the one `memref.subview` (static, at most 256 x 256, rows
      a multiple of 16 bytes) of a 2-D global buffer defined outside the
      block-level `scf.forall` through which the ops after the loop write
      global memory; nothing may read it, nothing before the loop may use
      it, and the ops after the loop must provably write all of it (thread
      loops whose tiles partition it and write whole tiles, the warpgroup
      MMA store, or the stores of `nvidia_tcgen05_mma`), since the TMA
      store writes the whole box;
    * those ops write a shared-memory tile of the same shape instead (its
      views rebuilt on it), placed in the bytes of the stage buffers, which
      are dead after the loop: after the accumulator tile when the stages
      already share their bytes with it, else from the stages' first byte;
    * after the last of them, every thread makes its writes visible to the
      asynchronous proxy (`fence.proxy.async.shared::cta`), the block
      synchronizes, and thread 0 stores the tile with one
      `nvgpu.tma.async.store` through a tensor map of the global buffer
      (created before the block loop, the tile as its box) and waits until
      the store's bulk group has read the tile (`wait_group.read 0`).

    When the stages' bytes cannot hold the tile, the op leaves the loop
    alone (the threads keep storing to global memory themselves). Emits a
    silenceable failure, naming the op, when the loop or its block does not
    have this form.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // ORCHESTRA_TARGET_NVIDIA_TRANSFORMOPS_TD
