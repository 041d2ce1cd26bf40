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

def MatchTaskLevelOp : TransformDialectOp<"orchestra.match.task_level", [
    MatchOpInterface,
    MemoryEffectsOpInterface,
    NavigationTransformOpTrait,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Matches payload ops at the level of a task's ops: directly "
                "in a function, or in a loop directly in one";
  let description = [{
    Succeeds when the parent of every payload op of `target` is a function,
    or an `scf.while` or `scf.for` whose parent is a function (a task's loop,
    whose iterations run the ops of its regions as kernels of their own:
    design/0019); emits a silenceable failure otherwise, e.g. for the ops in
    the K loop of a tile. The GPU strategies match the ops to tile over
    blocks, and the block-level loops to launch, with it.
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
    must synchronize. A tensor-core recipe, for example, needs a
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

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD
