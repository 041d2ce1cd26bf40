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
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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
// MatchStaticShapesOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
transform::MatchStaticShapesOp::apply(transform::TransformRewriter &rewriter,
                                      transform::TransformResults &results,
                                      transform::TransformState &state) {
  auto isDynamic = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && !shaped.hasStaticShape();
  };
  for (Operation *op : state.getPayloadOps(getTarget())) {
    if (llvm::any_of(op->getOperandTypes(), isDynamic) ||
        llvm::any_of(op->getResultTypes(), isDynamic)) {
      DiagnosedSilenceableFailure diag =
          emitSilenceableError() << "payload op '" << op->getName()
                                 << "' has a dynamically shaped operand or "
                                    "result";
      diag.attachNote(op->getLoc()) << "payload op";
      return diag;
    }
  }
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// MatchTaskLevelOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
transform::MatchTaskLevelOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getTarget())) {
    Operation *parent = op->getParentOp();
    if (parent && isa<scf::WhileOp, scf::ForOp>(parent))
      parent = parent->getParentOp();
    if (!parent || !isa<FunctionOpInterface>(parent)) {
      DiagnosedSilenceableFailure diag =
          emitSilenceableError() << "payload op '" << op->getName()
                                 << "' is not at the level of a task's ops";
      diag.attachNote(op->getLoc()) << "payload op";
      return diag;
    }
  }
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// MatchGroupedConvOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
transform::MatchGroupedConvOp::apply(transform::TransformRewriter &rewriter,
                                     transform::TransformResults &results,
                                     transform::TransformState &state) {
  for (Operation *op : state.getPayloadOps(getTarget())) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && orchestra::matchGroupedConvolutionNhwc(linalgOp))
      continue;
    DiagnosedSilenceableFailure diag = emitSilenceableError()
                                       << "payload op '" << op->getName()
                                       << "' is not a channels-last grouped "
                                          "convolution";
    diag.attachNote(op->getLoc()) << "payload op";
    return diag;
  }
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// GroupedConvToDenseOp
//===----------------------------------------------------------------------===//

/// `value` without its dimension `dim` (of extent 1): a rank-reducing
/// slice of the whole tensor.
static Value dropUnitDim(OpBuilder &builder, Location loc, Value value,
                         int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  return tensor::createCanonicalRankReducingExtractSliceOp(
      builder, loc, value, RankedTensorType::get(shape, type.getElementType()));
}

DiagnosedSilenceableFailure transform::GroupedConvToDenseOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  std::optional<orchestra::GroupedConvolutionNhwc> grouped =
      linalgOp ? orchestra::matchGroupedConvolutionNhwc(linalgOp)
               : std::nullopt;
  if (!grouped || !linalgOp.hasPureTensorSemantics() || grouped->groups != 1) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "payload op '" << target->getName()
        << "' is not a channels-last grouped convolution of one group";
    diag.attachNote(target->getLoc()) << "payload op";
    return diag;
  }
  Location loc = target->getLoc();
  rewriter.setInsertionPoint(target);
  Value input = linalgOp.getDpsInputOperand(0)->get();
  Value filter = linalgOp.getDpsInputOperand(1)->get();
  Value output = linalgOp.getDpsInitOperand(0)->get();
  Value denseInput = dropUnitDim(rewriter, loc, input, 3);
  Value denseFilter = dropUnitDim(rewriter, loc, filter, 0);
  Value denseOutput = dropUnitDim(rewriter, loc, output, 3);
  auto i64Vector = [&](ArrayRef<int64_t> values) {
    return DenseIntElementsAttr::get(
        RankedTensorType::get({int64_t(values.size())}, rewriter.getI64Type()),
        values);
  };
  auto conv = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, loc, TypeRange{denseOutput.getType()},
      ValueRange{denseInput, denseFilter}, ValueRange{denseOutput},
      i64Vector(grouped->strides), i64Vector(grouped->dilations));
  for (NamedAttribute attr : target->getDiscardableAttrs())
    conv->setAttr(attr.getName(), attr.getValue());
  Value result = tensor::createCanonicalRankReducingInsertSliceOp(
      rewriter, loc, conv->getResult(0), output);
  rewriter.replaceOp(target, result);
  results.push_back(conv);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// Conv3DTo2DOp
//===----------------------------------------------------------------------===//

/// Creates the 2-D form of the 3-D convolution or pooling `op` (whose
/// depth extents are 1) on the rank-reduced operands, or returns null when
/// `op` is none of the 3-D ops handled.
static Operation *createConv2DOf(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ValueRange inputs, Value output,
                                 Attribute strides, Attribute dilations) {
  auto create = [&](auto conv2D) -> Operation * {
    return decltype(conv2D)::create(rewriter, op.getLoc(),
                                    TypeRange{output.getType()}, inputs,
                                    ValueRange{output}, strides, dilations);
  };
  if (isa<linalg::Conv3DNdhwcDhwcfOp>(op))
    return create(linalg::Conv2DNhwcHwcfOp());
  if (isa<linalg::DepthwiseConv3DNdhwcDhwcOp>(op))
    return create(linalg::DepthwiseConv2DNhwcHwcOp());
  if (isa<linalg::PoolingNdhwcMaxOp>(op))
    return create(linalg::PoolingNhwcMaxOp());
  if (isa<linalg::PoolingNdhwcSumOp>(op))
    return create(linalg::PoolingNhwcSumOp());
  return nullptr;
}

DiagnosedSilenceableFailure
transform::Conv3DTo2DOp::applyToOne(transform::TransformRewriter &rewriter,
                                    Operation *target,
                                    transform::ApplyToEachResultList &results,
                                    transform::TransformState &state) {
  auto fail = [&](StringRef why) {
    DiagnosedSilenceableFailure diag = emitSilenceableError()
                                       << "payload op '" << target->getName()
                                       << "' " << why;
    diag.attachNote(target->getLoc()) << "payload op";
    return diag;
  };
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp ||
      !isa<linalg::Conv3DNdhwcDhwcfOp, linalg::DepthwiseConv3DNdhwcDhwcOp,
           linalg::PoolingNdhwcMaxOp, linalg::PoolingNdhwcSumOp>(target) ||
      !linalgOp.hasPureTensorSemantics())
    return fail("is not a channels-last 3-D convolution or pooling on "
                "tensors");
  Value input = linalgOp.getDpsInputOperand(0)->get();
  Value filter = linalgOp.getDpsInputOperand(1)->get();
  Value output = linalgOp.getDpsInitOperand(0)->get();
  auto depthIsOne = [](Value value, int64_t dim) {
    return cast<RankedTensorType>(value.getType()).getDimSize(dim) == 1;
  };
  // Input, output [N, D, H, W, C]; filter [KD, ...] (a pooling's window
  // too).
  if (!depthIsOne(input, 1) || !depthIsOne(output, 1) || !depthIsOne(filter, 0))
    return fail("does not have one output depth and one kernel depth");
  rewriter.setInsertionPoint(target);
  Location loc = target->getLoc();
  Value input2D = dropUnitDim(rewriter, loc, input, 1);
  Value filter2D = dropUnitDim(rewriter, loc, filter, 0);
  Value output2D = dropUnitDim(rewriter, loc, output, 1);
  // The height and width strides and dilations.
  auto heightAndWidth = [&](StringRef name) -> Attribute {
    auto values = target->getAttrOfType<DenseIntElementsAttr>(name);
    SmallVector<int64_t> hw = {1, 1};
    if (values) {
      SmallVector<int64_t> all(values.getValues<int64_t>());
      hw.assign(all.begin() + 1, all.end());
    }
    return DenseIntElementsAttr::get(
        RankedTensorType::get({2}, rewriter.getI64Type()), hw);
  };
  Operation *conv =
      createConv2DOf(rewriter, linalgOp, {input2D, filter2D}, output2D,
                     heightAndWidth("strides"), heightAndWidth("dilations"));
  assert(conv && "the op was checked to be a 3-D convolution or pooling");
  // The tags, not linalg's own cache of the 3-D op's indexing maps.
  for (NamedAttribute attr : target->getDiscardableAttrs())
    if (!attr.getName().strref().starts_with("linalg."))
      conv->setAttr(attr.getName(), attr.getValue());
  Value result = tensor::createCanonicalRankReducingInsertSliceOp(
      rewriter, loc, conv->getResult(0), output);
  rewriter.replaceOp(target, result);
  results.push_back(conv);
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
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
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
