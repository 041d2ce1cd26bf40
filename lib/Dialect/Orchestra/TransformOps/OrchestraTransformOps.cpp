//===- OrchestraTransformOps.cpp - Transform ops of OrchestraOS -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

// The transform dialect's extension registration checks, in builds with
// assertions, that every op implements the transform interfaces, through a
// function that libMLIR.so has only when it was built with assertions too;
// the distributions' libMLIR.so is not. This file compiles without them.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.h"

#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// ParamFromAttrOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
transform::ParamFromAttrOp::apply(transform::TransformRewriter &rewriter,
                                  transform::TransformResults &results,
                                  transform::TransformState &state) {
  SmallVector<Attribute> params;
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto value = op->getAttrOfType<IntegerAttr>(getName());
    if (!value) {
      DiagnosedSilenceableFailure diag = emitSilenceableError()
                                         << "payload op '" << op->getName()
                                         << "' has no integer attribute '"
                                         << getName() << "'";
      diag.attachNote(op->getLoc()) << "payload op";
      return diag;
    }
    params.push_back(value);
  }
  results.setParams(cast<OpResult>(getParam()), params);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// Extension
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.cpp.inc"

namespace {
class OrchestraTransformDialectExtension
    : public transform::TransformDialectExtension<
          OrchestraTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(
      OrchestraTransformDialectExtension)

  using Base::Base;

  void init() {
    registerTransformOps<
#define GET_OP_LIST
#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::orchestra::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<OrchestraTransformDialectExtension>();
}
