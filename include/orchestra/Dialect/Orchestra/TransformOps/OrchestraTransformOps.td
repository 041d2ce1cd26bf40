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

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMOPS_TD
