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

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
// GPUBarrierBeforeOp, GPUBarrierAfterOp
//===----------------------------------------------------------------------===//

/// Whether every thread of a GPU block executes `op`'s parent region: `op`
/// is inside a kernel, or inside a loop that will become one.
static bool isInGPUBlockScope(Operation *op) {
  if (op->getParentOfType<gpu::LaunchOp>() ||
      op->getParentOfType<gpu::GPUFuncOp>())
    return true;
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>()) {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (mapping && !mapping->empty() &&
        isa<gpu::GPUBlockMappingAttr>(mapping->getValue().front()))
      return true;
  }
  return false;
}

/// Inserts a barrier before or after `target`, which must be executed by
/// every thread of a GPU block.
static DiagnosedSilenceableFailure
insertBarrier(transform::TransformOpInterface transformOp,
              RewriterBase &rewriter, Operation *target, bool after) {
  if (!isInGPUBlockScope(target)) {
    DiagnosedSilenceableFailure diag =
        transformOp.emitSilenceableError()
        << "payload op '" << target->getName()
        << "' is not inside a GPU block (a block-mapped scf.forall, a "
           "gpu.launch or a gpu.func)";
    diag.attachNote(target->getLoc()) << "payload op";
    return diag;
  }
  if (after)
    rewriter.setInsertionPointAfter(target);
  else
    rewriter.setInsertionPoint(target);
  gpu::BarrierOp::create(rewriter, target->getLoc());
  return DiagnosedSilenceableFailure::success();
}

DiagnosedSilenceableFailure transform::GPUBarrierBeforeOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  return insertBarrier(*this, rewriter, target, /*after=*/false);
}

void transform::GPUBarrierBeforeOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

DiagnosedSilenceableFailure transform::GPUBarrierAfterOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  return insertBarrier(*this, rewriter, target, /*after=*/true);
}

void transform::GPUBarrierAfterOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
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
    declareDependentDialect<gpu::GPUDialect>();
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
