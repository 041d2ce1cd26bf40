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

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD
