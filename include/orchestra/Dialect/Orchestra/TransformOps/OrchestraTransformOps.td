//===- OrchestraTransformOps.td - Transform ops of OrchestraOS -*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def ParamFromAttrOp : TransformDialectOp<"orchestra.param_from_attr", [
    MatchOpInterface,
    MemoryEffectsOpInterface,
    ParamProducerTransformOpTrait,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Reads an integer attribute of payload ops as a parameter";
  let description = [{
    Produces a parameter holding, for every payload op of `target` in order,
    the value of that op's integer attribute `name`. This is how a strategy
    script uses a number that a pass computed for one op from the target
    description and the op's shape, such as the rows of a parallel tile that
    `orchestra-cpu-select-tiles` chooses so that the tiles balance the
    device's threads:

    ```mlir
    %rows = transform.orchestra.param_from_attr %root["orchestra.tile_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %root
        tile_sizes [%rows]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    ```

    Emits a silenceable failure, naming the op, when a payload op lacks the
    attribute or the attribute is not an integer.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target, StrAttr:$name);
  let results = (outs TransformParamTypeInterface:$param);
  let assemblyFormat = [{
    $target `[` $name `]` attr-dict `:` functional-type(operands, results)
  }];
}

def MatchStaticShapesOp : TransformDialectOp<"orchestra.match.static_shapes", [
    MatchOpInterface,
    MemoryEffectsOpInterface,
    NavigationTransformOpTrait,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Matches payload ops whose shaped operands and results are "
                "all statically shaped";
  let description = [{
    Succeeds when every operand and result of every payload op of `target`
    that is a shaped type (tensor, memref, vector) has a static shape;
    emits a silenceable failure otherwise. Strategies use it in matchers to
    treat the thread tiles that tiling left with dynamic sizes (tiles at
    the edges of a shape that is no multiple of the tile) differently, e.g.
    in a `transform.foreach_match`:

    ```mlir
    transform.named_sequence @match_static(
        %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
      transform.orchestra.match.static_shapes %op : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def MatchGroupedConvOp : TransformDialectOp<"orchestra.match.grouped_conv", [
    MatchOpInterface,
    MemoryEffectsOpInterface,
    NavigationTransformOpTrait,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Matches channels-last grouped convolutions";
  let description = [{
    Succeeds when every payload op of `target` is a channels-last grouped
    convolution: the `linalg.generic` over (n, oh, ow, g, f, kh, kw, c) that
    `orchestra-convert-convolutions-to-nhwc` makes of a grouped `Conv` (see
    `include/orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h`);
    emits a silenceable failure otherwise. Upstream's matchers see only a
    generic of rank 8, which a strategy would otherwise tile as an
    elementwise op; the x86_64 strategy keeps these for its convolution step
    (`transform.orchestra.grouped_conv_to_dense`):

    ```mlir
    transform.named_sequence @match_grouped_conv(
        %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
      transform.orchestra.match.grouped_conv %op : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
}

def GroupedConvToDenseOp : TransformDialectOp<"orchestra.grouped_conv_to_dense", [
    FunctionalStyleTransformOpTrait,
    MemoryEffectsOpInterface,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Rewrites one group of a grouped convolution as a dense "
                "channels-last convolution";
  let description = [{
    Replaces every payload op of `target`, a channels-last grouped
    convolution (the `linalg.generic` over (n, oh, ow, g, f, kh, kw, c) that
    `orchestra-convert-convolutions-to-nhwc` makes of a grouped `Conv`; see
    `include/orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h`) whose
    group loop has one iteration, by a `linalg.conv_2d_nhwc_hwcf` on
    rank-reducing slices of its operands without the group dimension (input
    [N, H, W, 1, C/G] -> [N, H, W, C/G], filter [1, KH, KW, C/G, M/G] ->
    [KH, KW, C/G, M/G], output [N, OH, OW, 1, M/G] -> [N, OH, OW, M/G]), with
    the strides and dilations of its input map, and an `insert_slice` of the
    result back into the 5-D output. The dense convolution keeps the
    payload op's discardable attributes (the register-tile width tags of
    `orchestra-outline-tasks`), so the strategy's steps for dense
    convolutions (register tiles, decomposition, vectorization) apply to it
    unchanged. The new convolutions are returned in `transformed`. A
    strategy first tiles the group loop by one:

    ```mlir
    %tiled, %loop = transform.structured.tile_using_for %grouped
        tile_sizes [0, 0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %dense = transform.orchestra.grouped_conv_to_dense %tiled
        : (!transform.any_op) -> !transform.any_op
    ```

    Emits a silenceable failure, naming the payload op, when it is not such
    a grouped convolution or its group extent is not 1.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def Conv3DTo2DOp : TransformDialectOp<"orchestra.conv_3d_to_2d", [
    FunctionalStyleTransformOpTrait,
    MemoryEffectsOpInterface,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Rewrites a channels-last 3-D convolution or pooling of one "
                "output depth and one kernel depth as its 2-D form";
  let description = [{
    Replaces every payload op of `target`, a `linalg.conv_3d_ndhwc_dhwcf`,
    `linalg.depthwise_conv_3d_ndhwc_dhwc`, `linalg.pooling_ndhwc_max` or
    `linalg.pooling_ndhwc_sum` whose output depth and kernel depth loops
    have one iteration each (so its input depth has one element too), by
    the 2-D op of the same family (`linalg.conv_2d_nhwc_hwcf`,
    `linalg.depthwise_conv_2d_nhwc_hwc`, `linalg.pooling_nhwc_max`,
    `linalg.pooling_nhwc_sum`) on rank-reducing slices of its operands
    without the depth dimension (input [N, 1, H, W, C] -> [N, H, W, C],
    filter [1, KH, KW, C, F] -> [KH, KW, C, F], window [1, KH, KW] ->
    [KH, KW], output [N, 1, OH, OW, F] -> [N, OH, OW, F]), with the height
    and width strides and dilations, and an `insert_slice` of the result
    back into the 5-D output. Upstream decomposes 2-D convolutions to 1-D
    (`transform.structured.decompose`) but not 3-D ones; this is the step
    before. The 2-D op keeps the payload op's discardable attributes (the
    register-tile width tags of `orchestra-outline-tasks`), so the
    strategy's steps for 2-D convolutions and poolings (register tiles,
    decomposition, vectorization) apply to it unchanged. The new ops are
    returned in `transformed`. A strategy first tiles the output depth
    (loop 1) and kernel depth (loop 5) by one:

    ```mlir
    %tiled, %loops:2 = transform.structured.tile_using_for %conv
        tile_sizes [0, 1, 0, 0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                  !transform.any_op)
    %conv2d = transform.orchestra.conv_3d_to_2d %tiled
        : (!transform.any_op) -> !transform.any_op
    ```

    Emits a silenceable failure, naming the payload op, when it is not such
    an op on tensors or its depth extents are not 1.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat =
      "$target attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

class GPUBarrierOp<string mnemonic, string where> : TransformDialectOp<mnemonic, [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Places a block-wide barrier right " # where # " each payload op";
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

def GPUBarrierBeforeOp
    : GPUBarrierOp<"orchestra.gpu_barrier_before", "before"> {
  let description = [{
    Inserts a `gpu.barrier` immediately before every payload op of `target`.
    See `transform.orchestra.gpu_barrier_after`.
  }];
}

def GPUBarrierAfterOp
    : GPUBarrierOp<"orchestra.gpu_barrier_after", "after"> {
  let description = [{
    Inserts a `gpu.barrier` immediately after every payload op of `target`.

    A strategy that maps its parallel loops onto a GPU without the barriers
    `transform.gpu.map_nested_forall_to_threads` would put after every loop
    (`sync_after_distribute = false`) states with these ops where its block
    must synchronize. The NVIDIA tensor-core recipe, for example, needs a
    barrier before the warps read the operand tiles the block staged in
    shared memory, one after they read them (before the next stage is
    copied over them), and one after the K loop (before the epilogue reads
    the accumulators):

    ```mlir
    transform.orchestra.gpu_barrier_before %warps : !transform.any_op
    transform.orchestra.gpu_barrier_after %warps : !transform.any_op
    transform.orchestra.gpu_barrier_after %k_loop : !transform.any_op
    ```

    Every payload op must be nested in a block-level `scf.forall` (mapped
    to `#gpu.block<...>`), a `gpu.launch` or a `gpu.func`, where all the
    threads of a block reach the barrier; otherwise the op emits a
    silenceable failure naming the payload op. The handle is only read.
  }];
}

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

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD
