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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
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
// NVIDIATmaKLoopOp
//===----------------------------------------------------------------------===//

namespace {
/// One tile copy of a K loop: a tile of a 2-D global buffer into a stage of
/// a multibuffered shared-memory allocation.
struct StagedCopy {
  linalg::CopyOp copy;
  /// The global buffer and the subviews from the copied tile up to it.
  Value source;
  SmallVector<memref::SubViewOp> views;
  /// The stage buffers (S x rows x cols) and the subview of one stage.
  memref::AllocOp stages;
  memref::SubViewOp stage;
  int64_t rows = 0, cols = 0;
  /// The columns of a TMA box: the tile's, or with the 128-byte swizzle the
  /// 128 bytes of a swizzle row (the tile is then copied as cols / boxCols
  /// column blocks, each rows x boxCols, one after the other in the stage).
  int64_t boxCols = 0;
  /// The type of one stage's view, and the bytes of an element.
  MemRefType stageType;
  Value stageBuffers;
  int64_t elementBytes = 0;
  Value descriptor;
};
} // namespace

/// Returns the clone, under `mapping`, of the pure ops of `body` that `value`
/// depends on (the loop's induction variable is mapped by the caller);
/// values from outside `body` are used as they are. Null if an op is not
/// pure.
static Value cloneInBody(OpBuilder &b, IRMapping &mapping, Value value,
                         Block *body) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != body)
    return value;
  if (!isPure(def) || def->getNumRegions() != 0)
    return nullptr;
  for (Value operand : def->getOperands())
    if (!cloneInBody(b, mapping, operand, body))
      return nullptr;
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

/// The origin of `copy`'s tile in its global buffer, as (row, column) index
/// values built with `b`, with the body's values remapped by `mapping`.
static std::optional<std::pair<Value, Value>>
buildOrigin(OpBuilder &b, Location loc, IRMapping &mapping,
            const StagedCopy &copy, Block *body) {
  Value origin[2] = {arith::ConstantIndexOp::create(b, loc, 0),
                     arith::ConstantIndexOp::create(b, loc, 0)};
  for (memref::SubViewOp view : copy.views) {
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    for (int d = 0; d < 2; ++d) {
      Value offset;
      if (auto value = dyn_cast<Value>(offsets[d])) {
        offset = cloneInBody(b, mapping, value, body);
        if (!offset)
          return std::nullopt;
      } else {
        offset = arith::ConstantIndexOp::create(
            b, loc, cast<IntegerAttr>(cast<Attribute>(offsets[d])).getInt());
      }
      origin[d] = arith::AddIOp::create(b, loc, origin[d], offset);
    }
  }
  return std::make_pair(origin[0], origin[1]);
}

/// Issues the copies of one K step (induction variable value `step`) into
/// stage `stage`: the bytes the stage's barrier expects, then one TMA load
/// per tile.
static LogicalResult issueStep(OpBuilder &b, Location loc,
                               ArrayRef<StagedCopy> copies, Value barriers,
                               Value stage, Value step, scf::ForOp loop,
                               bool swizzle) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), step);
  Block *body = loop.getBody();
  int64_t bytes = 0;
  for (const StagedCopy &copy : copies)
    bytes += copy.rows * copy.cols * copy.elementBytes;
  nvgpu::MBarrierArriveExpectTxOp::create(
      b, loc, barriers, arith::ConstantIndexOp::create(b, loc, bytes), stage,
      /*predicate=*/Value());
  for (const StagedCopy &copy : copies) {
    std::optional<std::pair<Value, Value>> origin =
        buildOrigin(b, loc, mapping, copy, body);
    if (!origin)
      return failure();
    if (swizzle) {
      // Column block c of the tile lands at element c * rows * boxCols of
      // the stage: a rows x boxCols view made with reinterpret_cast (the
      // stage's row-major memref type does not describe this layout; only
      // the warpgroup MMA descriptors read it).
      for (int64_t c = 0; c < copy.cols / copy.boxCols; ++c) {
        AffineExpr s0 = b.getAffineDimExpr(0);
        Value offset = affine::AffineApplyOp::create(
            b, loc,
            AffineMap::get(1, 0,
                           s0 * (copy.rows * copy.cols) +
                               c * copy.rows * copy.boxCols),
            ValueRange{stage});
        auto blockType = MemRefType::get(
            {copy.rows, copy.boxCols}, copy.stageType.getElementType(),
            StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                   {copy.boxCols, 1}),
            copy.stageType.getMemorySpace());
        Value target = memref::ReinterpretCastOp::create(
            b, loc, blockType, copy.stageBuffers, OpFoldResult(offset),
            ArrayRef<OpFoldResult>{b.getIndexAttr(copy.rows),
                                   b.getIndexAttr(copy.boxCols)},
            ArrayRef<OpFoldResult>{b.getIndexAttr(copy.boxCols),
                                   b.getIndexAttr(1)});
        Value column =
            c == 0 ? origin->second
                   : affine::AffineApplyOp::create(
                         b, loc, AffineMap::get(1, 0, s0 + c * copy.boxCols),
                         ValueRange{origin->second})
                         .getResult();
        nvgpu::TmaAsyncLoadOp::create(b, loc, target, barriers, copy.descriptor,
                                      ValueRange{column, origin->first}, stage,
                                      /*multicastMask=*/Value(),
                                      /*predicate=*/Value());
      }
      continue;
    }
    SmallVector<OpFoldResult> offsets = {stage, b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       b.getIndexAttr(copy.rows),
                                       b.getIndexAttr(copy.cols)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    Value target = memref::SubViewOp::create(
        b, loc, copy.stageType, copy.stageBuffers, offsets, sizes, strides);
    // TMA coordinates are innermost first: (column, row).
    nvgpu::TmaAsyncLoadOp::create(b, loc, target, barriers, copy.descriptor,
                                  ValueRange{origin->second, origin->first},
                                  stage, /*multicastMask=*/Value(),
                                  /*predicate=*/Value());
  }
  return success();
}

/// Whether the thread is the first of the block (x, y and z all 0).
static Value buildIsFirstThread(OpBuilder &b, Location loc) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isFirst;
  for (gpu::Dimension dim :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              gpu::ThreadIdOp::create(b, loc, dim), zero);
    isFirst = isFirst
                  ? arith::AndIOp::create(b, loc, isFirst, isZero).getResult()
                  : isZero;
  }
  return isFirst;
}

/// The attribute `nvidia_tma_k_loop` leaves on the loop it staged: how many
/// steps after a step its stage is refilled.
static constexpr StringLiteral kRefillLagAttr = "orchestra.tma_refill_lag";

/// Whether `op` is nested in a block-level (`#gpu.block`) scf.forall; sets
/// `outermost` to the outermost such forall.
static bool findBlockForall(Operation *op, scf::ForallOp &outermost) {
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>()) {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (mapping && !mapping->empty() &&
        isa<gpu::GPUBlockMappingAttr>(mapping->getValue().front()))
      outermost = forall;
  }
  return static_cast<bool>(outermost);
}

DiagnosedSilenceableFailure transform::NVIDIATmaKLoopOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto fail = [&](const Twine &why) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError() << "cannot stage the K loop with TMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  };
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return fail("the payload op is not an scf.for");
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || *ub <= *lb)
    return fail("its bounds and step are not static");
  if ((*ub - *lb) % *step != 0)
    return fail("its step does not divide its range (every TMA box is a "
                "whole tile)");
  int64_t steps = (*ub - *lb) / *step;
  // The body must end with a block barrier: the copies of the step a depth
  // ahead overwrite the stage this step read.
  Operation *terminator = loop.getBody()->getTerminator();
  if (terminator == &loop.getBody()->front() ||
      !isa<gpu::BarrierOp>(terminator->getPrevNode()))
    return fail("its body does not end with a block barrier");
  scf::ForallOp blockForall;
  if (!findBlockForall(loop, blockForall))
    return fail("it is not inside a block-level scf.forall");
  DominanceInfo dominance(blockForall->getParentOp());

  // The copies and what they copy.
  SmallVector<StagedCopy> copies;
  int64_t numStages = 0;
  Value stageValue;
  for (auto copyOp : loop.getBody()->getOps<linalg::CopyOp>()) {
    StagedCopy copy;
    copy.copy = copyOp;
    auto stage =
        copyOp.getDpsInitOperand(0)->get().getDefiningOp<memref::SubViewOp>();
    auto stages =
        stage ? stage.getSource().getDefiningOp<memref::AllocOp>() : nullptr;
    if (!stages || stages.getType().getRank() != 3 ||
        !stages.getType().hasStaticShape() ||
        !nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(stages.getType()))
      return fail("a copy's target is not a stage of a multibuffered "
                  "shared-memory allocation");
    ArrayRef<int64_t> shape = stages.getType().getShape();
    SmallVector<OpFoldResult> offsets = stage.getMixedOffsets();
    if (!isConstantIntValue(offsets[1], 0) ||
        !isConstantIntValue(offsets[2], 0) ||
        !areAllConstantIntValue(stage.getMixedStrides(), 1) ||
        !isConstantIntValue(stage.getMixedSizes()[0], 1) ||
        !isConstantIntValue(stage.getMixedSizes()[1], shape[1]) ||
        !isConstantIntValue(stage.getMixedSizes()[2], shape[2]) ||
        cast<MemRefType>(stage.getType()).getRank() != 2)
      return fail("a copy's target is not a whole stage buffer");
    // The stage of each copy is computed on its own (one affine.apply per
    // multibuffered allocation); they must be the same computation.
    auto sameStage = [&](Value other) {
      if (other == stageValue)
        return true;
      Operation *a = other ? other.getDefiningOp() : nullptr;
      Operation *b = stageValue ? stageValue.getDefiningOp() : nullptr;
      return a && b &&
             OperationEquivalence::isEquivalentTo(
                 a, b, OperationEquivalence::exactValueMatch,
                 /*markEquivalent=*/nullptr,
                 OperationEquivalence::IgnoreLocations);
    };
    if (numStages &&
        (numStages != shape[0] || !sameStage(dyn_cast<Value>(offsets[0]))))
      return fail("the copies use different stages");
    numStages = shape[0];
    if (!stageValue)
      stageValue = dyn_cast<Value>(offsets[0]);
    if (!stageValue)
      return fail("the stage of a copy does not depend on the step");
    copy.stages = stages;
    copy.stage = stage;
    copy.stageType = cast<MemRefType>(stage.getType());
    copy.stageBuffers = stages.getResult();
    copy.elementBytes = stages.getType().getElementTypeBitWidth() / 8;
    copy.rows = shape[1];
    copy.cols = shape[2];
    Value source = copyOp.getDpsInputOperand(0)->get();
    while (auto view = source.getDefiningOp<memref::SubViewOp>()) {
      if (view.getSourceType().getRank() != 2 ||
          cast<MemRefType>(view.getType()).getRank() != 2 ||
          !areAllConstantIntValue(view.getMixedStrides(), 1))
        return fail("a copy's source is not a 2-D unit-stride view");
      copy.views.push_back(view);
      source = view.getSource();
    }
    auto sourceType = dyn_cast<MemRefType>(source.getType());
    if (!sourceType || sourceType.getRank() != 2 ||
        !sourceType.hasStaticShape() || !sourceType.getLayout().isIdentity() ||
        sourceType.getMemorySpace() ||
        sourceType.getElementType() != stages.getType().getElementType())
      return fail("a copy's source is not a view of a 2-D global buffer");
    if (!dominance.properlyDominates(source, blockForall))
      return fail("a copy's source is not defined outside the block loop");
    int64_t elementBytes = sourceType.getElementTypeBitWidth() / 8;
    if (copy.rows > 256 || copy.cols > 256 ||
        (copy.cols * elementBytes) % 16 != 0 ||
        (sourceType.getDimSize(1) * elementBytes) % 16 != 0)
      return fail("a tile does not fit a TMA box (at most 256 elements per "
                  "dimension, rows a multiple of 16 bytes)");
    copy.boxCols = copy.cols;
    if (getSwizzle_128b()) {
      if ((copy.cols * elementBytes) % 128 != 0)
        return fail("a tile's rows are not a multiple of the 128 bytes of "
                    "the swizzle");
      copy.boxCols = 128 / elementBytes;
    }
    copy.source = source;
    copies.push_back(std::move(copy));
  }
  if (copies.empty())
    return fail("it copies no tiles into shared memory");
  // The barrier phases follow the step index: a step's stage must be that
  // index modulo the number of stages.
  {
    auto apply = stageValue.getDefiningOp<affine::AffineApplyOp>();
    AffineExpr expected =
        (getAffineDimExpr(0, target->getContext()) - *lb).floorDiv(*step) %
        numStages;
    if (!apply || apply.getMapOperands().size() != 1 ||
        apply.getMapOperands()[0] != loop.getInductionVar() ||
        simplifyAffineExpr(apply.getAffineMap().getResult(0), 1, 0) !=
            simplifyAffineExpr(expected, 1, 0))
      return fail("the stage of a step is not its index modulo the number "
                  "of stages");
  }

  Location loc = loop.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());

  // Host: one descriptor per source buffer, the tile as its box.
  rewriter.setInsertionPoint(blockForall);
  for (StagedCopy &copy : copies) {
    auto sourceType = cast<MemRefType>(copy.source.getType());
    Value unranked = memref::CastOp::create(
        rewriter, loc,
        UnrankedMemRefType::get(sourceType.getElementType(), Attribute()),
        copy.source);
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx,
        MemRefType::get({copy.rows, copy.boxCols}, sourceType.getElementType(),
                        AffineMap(), workgroup),
        getSwizzle_128b() ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                          : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
        nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    copy.descriptor = nvgpu::TmaCreateDescriptorOp::create(
        rewriter, loc, type, unranked,
        ValueRange{
            arith::ConstantIndexOp::create(rewriter, loc, copy.rows),
            arith::ConstantIndexOp::create(rewriter, loc, copy.boxCols)});
    // The 128-byte swizzle repeats every 1024 bytes: its boxes start on
    // 1024-byte lines (each stage and column block is a multiple of it).
    if (getSwizzle_128b()) {
      if ((copy.rows * copy.boxCols * copy.elementBytes) % 1024 != 0)
        return emitDefiniteFailure()
               << "a swizzled TMA box of " << copy.rows << "x" << copy.boxCols
               << " elements is not a multiple of 1024 bytes";
      copy.stages.setAlignment(1024);
    }
  }

  // Before the loop: the barriers, initialized by thread 0, and the first
  // steps' copies.
  rewriter.setInsertionPoint(loop);
  Value barriers = nvgpu::MBarrierCreateOp::create(
      rewriter, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, numStages));
  Value isFirst = buildIsFirstThread(rewriter, loc);
  auto init = scf::IfOp::create(rewriter, loc, isFirst, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(init.thenBlock());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t i = 0; i < numStages; ++i)
      nvgpu::MBarrierInitOp::create(
          rewriter, loc, barriers, one,
          arith::ConstantIndexOp::create(rewriter, loc, i),
          /*predicate=*/Value());
    // The TMA units complete transactions on the barriers: their
    // initialization must be visible to them. The tensor maps were written
    // to global memory by copies from the host: the thread that uses them
    // acquires them for the tensor-map proxy first.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    for (const StagedCopy &copy : copies)
      nvgpu::TmaFenceOp::create(rewriter, loc, copy.descriptor);
  }
  gpu::BarrierOp::create(rewriter, loc);
  auto prologue = scf::IfOp::create(rewriter, loc, isFirst, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(prologue.thenBlock());
    for (int64_t i = 0; i < std::min(numStages, steps); ++i) {
      Value k = arith::ConstantIndexOp::create(rewriter, loc, *lb + i * *step);
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), k);
      Value stage = cloneInBody(rewriter, mapping, stageValue, loop.getBody());
      if (!stage || failed(issueStep(rewriter, loc, copies, barriers, stage, k,
                                     loop, getSwizzle_128b())))
        return emitDefiniteFailure()
               << "cannot compute the origin of a tile outside the K loop";
    }
  }

  // In the loop: wait for the step's stage, then (thread 0, at the end of
  // the body) issue the copies of the step a pipeline depth ahead. What
  // depends on the induction variable is computed with affine.apply and
  // affine.min, and the condition is an scf.index_switch: LLVM 22's
  // vector-to-MMA conversion takes arith ops on loop values for part of its
  // matrix chains and fails on them.
  rewriter.setInsertionPoint(copies.front().copy);
  AffineExpr iv = getAffineDimExpr(0, ctx);
  AffineExpr stepIndex = (iv - *lb).floorDiv(*step);
  // Odd passes over the stages wait for phase 1.
  Value pass = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, stepIndex.floorDiv(numStages) % 2),
      ValueRange{loop.getInductionVar()});
  Value parity =
      arith::IndexCastOp::create(rewriter, loc, rewriter.getI1Type(), pass);
  nvgpu::MBarrierTryWaitParityOp::create(
      rewriter, loc, barriers, parity,
      arith::ConstantIndexOp::create(rewriter, loc, 10000000), stageValue);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  // The stage refilled at the end of this step is that of the step `lag`
  // steps back (j = i - lag), with step j + depth. It exists when
  // j >= 0 and j + depth < steps: the steps left after j, clamped at the
  // depth, are the depth, and (for lag 1) this is not the first step.
  int64_t lag = getRefillLag();
  if (lag != 0 && lag != 1)
    return fail("refill_lag must be 0 or 1");
  if (lag >= numStages)
    return fail("refill_lag leaves no stage to prefetch into");
  SmallVector<AffineExpr> bounds = {
      (*ub - (iv - lag * *step) - 1).floorDiv(*step),
      getAffineConstantExpr(numStages, ctx)};
  if (lag)
    bounds.push_back(stepIndex * numStages);
  Value left = affine::AffineMinOp::create(rewriter, loc,
                                           AffineMap::get(1, 0, bounds, ctx),
                                           ValueRange{loop.getInductionVar()});
  Value nextStep = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, iv + (numStages - lag) * *step),
      ValueRange{loop.getInductionVar()});
  Value refillStage =
      lag == 0 ? stageValue
               : affine::AffineApplyOp::create(
                     rewriter, loc,
                     AffineMap::get(1, 0, (stepIndex - lag) % numStages),
                     ValueRange{loop.getInductionVar()})
                     .getResult();
  auto byFirst = scf::IfOp::create(rewriter, loc, isFirst, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byFirst.thenBlock());
    auto ahead = scf::IndexSwitchOp::create(rewriter, loc, TypeRange(), left,
                                            ArrayRef<int64_t>{numStages}, 1);
    rewriter.createBlock(&ahead.getDefaultRegion());
    scf::YieldOp::create(rewriter, loc);
    rewriter.createBlock(&ahead.getCaseRegions()[0]);
    scf::YieldOp::create(rewriter, loc);
    rewriter.setInsertionPointToStart(&ahead.getCaseRegions()[0].front());
    if (failed(issueStep(rewriter, loc, copies, barriers, refillStage, nextStep,
                         loop, getSwizzle_128b())))
      return emitDefiniteFailure()
             << "cannot compute the origin of a tile a step ahead";
  }
  for (StagedCopy &copy : copies)
    rewriter.eraseOp(copy.copy);
  // What a consumer of the stages must respect: their reads of a step's
  // stage may last until `lag` further steps have begun.
  loop->setAttr(kRefillLagAttr, rewriter.getI64IntegerAttr(lag));
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// NVIDIAWarpgroupMmaOp
//===----------------------------------------------------------------------===//

/// The multibuffered shared-memory allocation `view` is a stage of
/// (`memref.subview` of a `memref.alloc`), or null.
static memref::AllocOp getStageAllocation(Value view) {
  auto stage = view.getDefiningOp<memref::SubViewOp>();
  return stage ? stage.getSource().getDefiningOp<memref::AllocOp>()
               : memref::AllocOp();
}

/// Whether `value` is `buffer` or a (chain of) `memref.subview` of it.
static bool isViewOf(Value value, Value buffer) {
  while (value != buffer) {
    auto view = value.getDefiningOp<memref::SubViewOp>();
    if (!view)
      return false;
    value = view.getSource();
  }
  return true;
}

/// Whether `forall` is a thread-level loop that only writes zeros into
/// views of `buffer`: a zero `linalg.fill` tiled over the threads,
/// vectorized or not.
static bool onlyZeroes(scf::ForallOp forall, Value buffer) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty() ||
      !isa<gpu::GPUThreadMappingAttr>(mapping->getValue().front()))
    return false;
  bool writes = false;
  WalkResult walk = forall.getBody()->walk([&](Operation *op) {
    if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
      if (write.getMask() || !isViewOf(write.getBase(), buffer) ||
          !matchPattern(write.getVector(), m_AnyZeroFloat()))
        return WalkResult::interrupt();
      writes = true;
      return WalkResult::advance();
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.hasPureBufferSemantics() ||
          !isViewOf(fill.getOutputs()[0], buffer) ||
          !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return WalkResult::interrupt();
      writes = true;
      return WalkResult::advance();
    }
    return isPure(op) || isa<scf::InParallelOp>(op) ? WalkResult::advance()
                                                    : WalkResult::interrupt();
  });
  return writes && !walk.wasInterrupted();
}

/// Appends to `users` the ops that use `buffer` or a view of it, the views
/// themselves excepted.
static void collectUsersThroughViews(Value buffer,
                                     SmallVectorImpl<Operation *> &users) {
  SmallVector<Value> values = {buffer};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<ViewLikeOpInterface>(user) &&
          cast<ViewLikeOpInterface>(user).getViewSource() == value) {
        llvm::append_range(values, user->getResults());
        continue;
      }
      users.push_back(user);
    }
  }
}

/// The thread loops before `loop` (in its block) that only zero `buffer`,
/// when nothing else in the block before `loop`, or in it, uses the memory
/// `buffer` views (its base buffer, through any view of it), `ignore`
/// aside; none when something does. The warpgroup MMA store after the loop
/// overwrites all of `buffer`, so these fills are dead. (Distinct function
/// arguments are taken not to alias, as bufferization makes them.)
static std::optional<SmallVector<scf::ForallOp>>
findDeadZeroFills(scf::ForOp loop, Value buffer, Operation *ignore) {
  Block *block = loop->getBlock();
  Value base = buffer;
  while (auto view = base.getDefiningOp<ViewLikeOpInterface>())
    base = view.getViewSource();
  SmallVector<Operation *> users;
  collectUsersThroughViews(base, users);
  SmallVector<scf::ForallOp> fills;
  for (Operation *user : users) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || loop->isBeforeInBlock(inBlock) || user == ignore)
      continue; // outside this block's code, or after the MMA store
    auto forall = dyn_cast<scf::ForallOp>(inBlock);
    if (!forall || !onlyZeroes(forall, buffer))
      return std::nullopt; // read or written by something else
    if (!llvm::is_contained(fills, forall))
      fills.push_back(forall);
  }
  return fills;
}

/// Erases the dead zero fills of `buffer` before `loop`
/// (findDeadZeroFills), and the barrier after them when nothing before it
/// in the block touches memory.
static void eraseDeadZeroFills(RewriterBase &rewriter, scf::ForOp loop,
                               Value buffer) {
  std::optional<SmallVector<scf::ForallOp>> found =
      findDeadZeroFills(loop, buffer, /*ignore=*/nullptr);
  if (!found || found->empty())
    return;
  SmallVector<scf::ForallOp> fills = std::move(*found);
  llvm::sort(fills, [](scf::ForallOp a, scf::ForallOp b) {
    return a->isBeforeInBlock(b);
  });
  Operation *next = fills.back()->getNextNode();
  for (scf::ForallOp forall : fills)
    rewriter.eraseOp(forall);
  // The barrier that waited for the fills, when nothing before it in the
  // block touches memory any more (allocations aside).
  auto barrier = dyn_cast_or_null<gpu::BarrierOp>(next);
  if (!barrier)
    return;
  auto onlyAllocates = [](Operation *op) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    return effects && llvm::all_of(*effects, [](const auto &effect) {
             return isa<MemoryEffects::Allocate>(effect.getEffect());
           });
  };
  for (Operation *op = barrier->getPrevNode(); op; op = op->getPrevNode())
    if (!onlyAllocates(op))
      return;
  rewriter.eraseOp(barrier);
}

/// Whether `alloc` is a static workgroup allocation with the identity layout
/// in `block`.
static bool isWorkgroupAllocIn(memref::AllocOp alloc, Block *block) {
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(alloc.getType().getMemorySpace());
  return alloc->getBlock() == block && space &&
         space.getValue() == gpu::AddressSpace::Workgroup &&
         alloc.getType().hasStaticShape() &&
         alloc.getType().getLayout().isIdentity() &&
         alloc.getDynamicSizes().empty() && alloc.getSymbolOperands().empty();
}

/// The workgroup allocation in `loop`'s block that the accumulator buffer `c`
/// is (a view of), or null.
static memref::AllocOp getTileAllocation(Value c, scf::ForOp loop) {
  while (auto view = c.getDefiningOp<memref::SubViewOp>())
    c = view.getSource();
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  return alloc && isWorkgroupAllocIn(alloc, loop->getBlock()) ? alloc : nullptr;
}

/// Whether every use of `alloc` (through views) is in an op of `loop`'s
/// block before `loop`, or in `loop` (`before`), or after `loop` (not
/// `before`).
static bool usedOnlyOnOneSide(memref::AllocOp alloc, scf::ForOp loop,
                              bool before) {
  SmallVector<Operation *> users;
  collectUsersThroughViews(alloc.getResult(), users);
  Block *block = loop->getBlock();
  return llvm::all_of(users, [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return inBlock && (inBlock == loop.getOperation() ||
                       inBlock->isBeforeInBlock(loop)) == before;
  });
}

/// Places the stage buffers of the operands and the accumulator tile in the
/// same bytes, when the stages are used only up to the end of `loop` and the
/// accumulator tile only after it (once its zero fill is gone): one
/// workgroup allocation of the larger of the two, whose views replace the
/// three allocations (`c`, when it is the accumulator's allocation, becomes
/// its view). Returns whether it did; the caller must then keep the
/// accumulator stores after every warpgroup's last MMA, behind a barrier.
static bool shareStagesWithAccumulator(RewriterBase &rewriter, scf::ForOp loop,
                                       memref::AllocOp aStages,
                                       memref::AllocOp bStages, Value &c) {
  memref::AllocOp cAlloc = getTileAllocation(c, loop);
  if (!cAlloc || cAlloc == aStages || cAlloc == bStages ||
      !isWorkgroupAllocIn(aStages, loop->getBlock()) ||
      !isWorkgroupAllocIn(bStages, loop->getBlock()) ||
      !usedOnlyOnOneSide(cAlloc, loop, /*before=*/false) ||
      !usedOnlyOnOneSide(aStages, loop, /*before=*/true) ||
      !usedOnlyOnOneSide(bStages, loop, /*before=*/true))
    return false;
  auto bytesOf = [](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                       type.getElementTypeBitWidth(), 8));
  };
  auto alignmentOf = [](memref::AllocOp alloc) {
    return std::max<int64_t>(1, alloc.getAlignment().value_or(1));
  };
  int64_t bOffset = static_cast<int64_t>(
      llvm::alignTo(bytesOf(aStages), alignmentOf(bStages)));
  int64_t bytes = std::max(bOffset + bytesOf(bStages), bytesOf(cAlloc));
  int64_t alignment = std::max(
      {alignmentOf(aStages), alignmentOf(bStages), alignmentOf(cAlloc)});

  SmallVector<memref::AllocOp> allocs = {aStages, bStages, cAlloc};
  llvm::sort(allocs, [](memref::AllocOp a, memref::AllocOp b) {
    return a->isBeforeInBlock(b);
  });
  rewriter.setInsertionPoint(allocs.front());
  Location loc = allocs.front().getLoc();
  auto type = MemRefType::get({bytes}, rewriter.getI8Type(), AffineMap(),
                              aStages.getType().getMemorySpace());
  auto shared = memref::AllocOp::create(rewriter, loc, type,
                                        rewriter.getI64IntegerAttr(alignment));
  for (auto [alloc, offset] :
       {std::pair(aStages, int64_t(0)), std::pair(bStages, bOffset),
        std::pair(cAlloc, int64_t(0))}) {
    Value at = arith::ConstantIndexOp::create(rewriter, loc, offset);
    Value view = memref::ViewOp::create(
        rewriter, alloc.getLoc(), alloc.getType(), shared, at, ValueRange());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    if (c == alloc.getResult())
      c = view;
    rewriter.replaceOp(alloc, view);
  }
  return true;
}

namespace {
/// The matmul of a K loop staged by `nvidia_tma_k_loop {swizzle_128b}`, as
/// the tensor-core MMA ops take it.
struct StagedMatmul {
  linalg::MatmulOp matmul;
  /// Its operands: stages of A (m x k) and B (k x n), and the accumulator.
  Value a, b, c;
  MemRefType aType, bType;
  memref::AllocOp aStages, bStages;
  /// The tensor maps of the TMA copies into the stages.
  Value aMap, bMap;
  Type element;
  int64_t m = 0, n = 0, k = 0;
  /// How many steps after a step its stage is refilled.
  int64_t lag = 0;
};
} // namespace

/// Matches the K loop `target` of a tensor-core MMA op: one zero-initialized
/// row-major f16 or bf16 matmul into f32, 128 x N x K with N a multiple of
/// `nMultiple` up to 256 and K of 16, whose operands are stages written by
/// swizzled TMA copies. With `shareAccumulator`, an accumulator tile in
/// shared memory must be able to take the stages' bytes. Sets `why` when
/// it does not match.
static std::optional<StagedMatmul> matchStagedMatmul(Operation *target,
                                                     int64_t nMultiple,
                                                     bool shareAccumulator,
                                                     std::string &why) {
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop) {
    why = "the payload op is not an scf.for";
    return std::nullopt;
  }
  auto fail = [&](const Twine &reason) -> std::optional<StagedMatmul> {
    why = reason.str();
    return std::nullopt;
  };
  auto matmuls = llvm::to_vector(loop.getBody()->getOps<linalg::MatmulOp>());
  if (matmuls.size() != 1)
    return fail("its body does not hold exactly one linalg.matmul");
  StagedMatmul staged;
  linalg::MatmulOp matmul = staged.matmul = matmuls.front();
  if (!matmul->hasAttr("orchestra.gpu_zero_init"))
    return fail("the matmul does not carry orchestra.gpu_zero_init (its "
                "accumulator must start at zero)");
  if (!matmul.hasPureBufferSemantics() ||
      matmul.getIndexingMapsArray() !=
          linalg::MatmulOp::getDefaultIndexingMaps(matmul.getContext()))
    return fail("the matmul is not a plain row-major matmul on buffers");
  scf::ForallOp blockForall;
  if (!findBlockForall(loop, blockForall))
    return fail("it is not inside a block-level scf.forall");

  Value a = staged.a = matmul.getDpsInputOperand(0)->get();
  Value b = staged.b = matmul.getDpsInputOperand(1)->get();
  Value c = staged.c = matmul.getDpsInitOperand(0)->get();
  auto aType = staged.aType = cast<MemRefType>(a.getType());
  auto bType = staged.bType = cast<MemRefType>(b.getType());
  auto cType = cast<MemRefType>(c.getType());
  memref::AllocOp aStages = staged.aStages = getStageAllocation(a);
  memref::AllocOp bStages = staged.bStages = getStageAllocation(b);
  if (!aStages || !bStages)
    return fail("an operand is not a stage of a shared-memory allocation");
  // The tensor maps of the swizzled TMA copies into the stages.
  DenseMap<Operation *, Value> tensorMaps;
  blockForall.walk([&](nvgpu::TmaAsyncLoadOp load) {
    auto view = load.getDst().getDefiningOp<memref::ReinterpretCastOp>();
    auto alloc =
        view ? view.getSource().getDefiningOp<memref::AllocOp>() : nullptr;
    if (alloc)
      tensorMaps[alloc] = load.getTensorMapDescriptor();
  });
  staged.aMap = tensorMaps.lookup(aStages);
  staged.bMap = tensorMaps.lookup(bStages);
  auto isSwizzled = [](Value map) {
    return map &&
           cast<nvgpu::TensorMapDescriptorType>(map.getType()).getSwizzle() ==
               nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  };
  if (!isSwizzled(staged.aMap) || !isSwizzled(staged.bMap))
    return fail("an operand's stages are not written by TMA copies with the "
                "128-byte swizzle (transform.orchestra.nvidia_tma_k_loop "
                "{swizzle_128b})");
  // A step's MMA may still run while `lag` further steps begin: the TMA
  // copies refill its stage only then.
  auto lagAttr = loop->getAttrOfType<IntegerAttr>(kRefillLagAttr);
  if (!lagAttr)
    return fail("it does not say when its stages are refilled (no "
                "orchestra.tma_refill_lag: stage it with "
                "transform.orchestra.nvidia_tma_k_loop first)");
  staged.lag = lagAttr.getInt();
  Type element = staged.element = aType.getElementType();
  if (element != bType.getElementType() ||
      !(element.isF16() || element.isBF16()) || !cType.getElementType().isF32())
    return fail("the matmul is not f16 x f16 or bf16 x bf16 into f32");
  int64_t m = staged.m = aType.getDimSize(0);
  int64_t k = staged.k = aType.getDimSize(1);
  int64_t n = staged.n = bType.getDimSize(1);
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !cType.hasStaticShape() || m != 128 || k % 16 != 0 ||
      n % nMultiple != 0 || n > 256 || cType.getDimSize(0) != m ||
      cType.getDimSize(1) != n)
    return fail("the matmul is not 128 x N x K with N a multiple of " +
                Twine(nMultiple) + " up to 256 and K a multiple of 16");
  if (Operation *def = c.getDefiningOp(); def && loop->isAncestor(def))
    return fail("the accumulator buffer is defined inside the loop");
  // With share_accumulator, an accumulator tile in shared memory must be
  // able to take the stages' bytes (what the recipe's shared-memory budget
  // counted on).
  if (shareAccumulator && getTileAllocation(c, loop)) {
    SmallVector<Operation *> stageUsers;
    collectUsersThroughViews(aStages.getResult(), stageUsers);
    collectUsersThroughViews(bStages.getResult(), stageUsers);
    Block *block = loop->getBlock();
    bool stagesDieInLoop = llvm::all_of(stageUsers, [&](Operation *user) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      return inBlock && !loop->isBeforeInBlock(inBlock);
    });
    if (!isWorkgroupAllocIn(aStages, block) ||
        !isWorkgroupAllocIn(bStages, block) || !stagesDieInLoop ||
        !findDeadZeroFills(loop, c, matmul))
      return fail("the accumulator tile cannot share the stages' shared "
                  "memory (share_accumulator): it is used before the K "
                  "loop, or the stages after it");
  }
  return staged;
}

DiagnosedSilenceableFailure transform::NVIDIAWarpgroupMmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  std::optional<StagedMatmul> staged =
      matchStagedMatmul(target, /*nMultiple=*/8, getShareAccumulator(), why);
  // Upstream's descriptors step through K inside one 128-byte swizzle row of
  // A (+32 bytes per 16 columns) and advance B by 16 rows of K x 2 bytes:
  // right for a K step of 64 16-bit elements alone.
  if (staged && staged->k != 64) {
    why = "its K step is " + std::to_string(staged->k) +
          ", not 64 (one 128-byte swizzle row of 16-bit elements, what the "
          "warpgroup MMA descriptors' advance assumes)";
    staged.reset();
  }
  if (!staged) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot compute the K loop with warpgroup MMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  }
  auto loop = cast<scf::ForOp>(target);
  linalg::MatmulOp matmul = staged->matmul;
  Value a = staged->a, b = staged->b, c = staged->c;
  MemRefType aType = staged->aType;
  memref::AllocOp aStages = staged->aStages, bStages = staged->bStages;
  Value aMap = staged->aMap, bMap = staged->bMap;
  Type element = staged->element;
  int64_t k = staged->k, n = staged->n, lag = staged->lag;

  Location loc = matmul.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t rowsPerGroup = 64;
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({rowsPerGroup, n}, rewriter.getF32Type()));
  auto descriptorType = [&](int64_t rows, int64_t cols) {
    return nvgpu::WarpgroupMatrixDescriptorType::get(
        ctx, MemRefType::get({rows, cols}, element, AffineMap(),
                             aType.getMemorySpace()));
  };

  // Before the loop: the warpgroup of the thread, the first row of A it
  // multiplies, and its zero accumulator.
  rewriter.setInsertionPoint(loop);
  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  AffineExpr t = getAffineDimExpr(0, ctx);
  Value firstRow = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, t.floorDiv(128) * rowsPerGroup),
      ValueRange{thread});
  Value zero =
      nvgpu::WarpgroupMmaInitAccumulatorOp::create(rewriter, loc, accType);

  // In the loop: the descriptors and the warpgroup MMA, carried.
  FailureOr<LoopLikeOpInterface> extended =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, ValueRange{zero},
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &builder, Location,
                  ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                builder.setInsertionPoint(matmul);
                Value rows = memref::SubViewOp::create(
                    builder, loc, a,
                    ArrayRef<OpFoldResult>{firstRow, builder.getIndexAttr(0)},
                    ArrayRef<OpFoldResult>{builder.getIndexAttr(rowsPerGroup),
                                           builder.getIndexAttr(k)},
                    ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                                           builder.getIndexAttr(1)});
                Value aDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
                    builder, loc, descriptorType(rowsPerGroup, k), rows, aMap);
                Value bDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
                    builder, loc, descriptorType(k, n), b, bMap);
                Value product = nvgpu::WarpgroupMmaOp::create(
                    builder, loc, accType, aDesc, bDesc,
                    /*waitGroup=*/builder.getI64IntegerAttr(lag),
                    /*transposeA=*/nullptr,
                    /*transposeB=*/builder.getUnitAttr(), args.front());
                return {product};
              });
  if (failed(extended))
    return emitDefiniteFailure() << "cannot carry the accumulators through "
                                    "the K loop";
  auto newLoop = cast<scf::ForOp>(extended->getOperation());
  rewriter.eraseOp(matmul);
  // The accumulators started at zero in registers: a zero fill of the
  // buffer before the loop is dead. Without it, the accumulator tile may
  // reuse the bytes of the stages.
  eraseDeadZeroFills(rewriter, newLoop, c);
  shareStagesWithAccumulator(rewriter, newLoop, aStages, bStages, c);
  // After the loop: each warpgroup stores its rows of the product. The
  // store's lowering places a thread's rows by its warp within the block
  // (rows 16 w + ... of warp w, so warpgroup 1 at rows 64 and on), while
  // its verifier wants a view of one warpgroup's 64 rows: both warpgroups
  // are given the view of rows 0-63 of the accumulator buffer, and the
  // second warpgroup's stores land in rows 64-127 of that buffer.
  rewriter.setInsertionPointAfter(newLoop);
  if (lag) {
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
    // The other warpgroup's last MMA may still read the stages, which the
    // accumulator tile (or, later, an output tile) may overlap: after this
    // barrier, every read of them has ended. (Without MMAs in flight, the
    // last step's closing barrier already ended every read.)
    gpu::BarrierOp::create(rewriter, loc);
  }
  Value firstRows = memref::SubViewOp::create(
      rewriter, loc, c,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                             rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rowsPerGroup),
                             rewriter.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
  nvgpu::WarpgroupMmaStoreOp::create(rewriter, loc, newLoop.getResults().back(),
                                     firstRows);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// NVIDIATcgen05MmaOp
//===----------------------------------------------------------------------===//

/// Whether the offset `offset` of a view made in `forall` is its induction
/// variable `dim` times `size`.
static bool isIvTimes(OpFoldResult offset, scf::ForallOp forall, int dim,
                      int64_t size) {
  auto value = dyn_cast<Value>(offset);
  if (!value)
    return false;
  if (value == forall.getInductionVar(dim))
    return size == 1;
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  return apply && apply.getMapOperands().size() == 1 &&
         apply.getMapOperands()[0] == forall.getInductionVar(dim) &&
         apply.getAffineMap().getResult(0) ==
             getAffineDimExpr(0, forall.getContext()) * size;
}

/// Marks the inline asm that waits for the tcgen05.ld of `nvidia_tcgen05_mma`
/// (it touches registers only).
static constexpr StringLiteral kTcgen05WaitAttr = "orchestra.tcgen05_wait";

/// Marks the stores of `nvidia_tcgen05_mma` after the K loop: together, the
/// block's threads write every element of the accumulator buffer with them.
static constexpr StringLiteral kTileStoreAttr = "orchestra.gpu_tile_store";

/// The shared-window address of the (aligned) start of the workgroup buffer
/// `memref`, plus `offset` bytes (an index value), as an i64.
static Value buildSharedAddress(OpBuilder &b, Location loc, Value memref,
                                Value offset) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  if (offset)
    base = arith::AddIOp::create(b, loc, base, offset);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
}

/// The epilogue that reads the 128 x `n` accumulator buffer `c` (after
/// `loop`, in its block) in the thread tiles the tcgen05 recipe gives it:
/// an `scf.forall` over (128, 2) threads, thread t at (t mod 128, t / 128),
/// each reading row t mod 128, half t / 128 of the columns, of `c` with one
/// unmasked in-bounds `vector.transfer_read` of a 1 x n/2 view; `reads` gets
/// them. Null when `c` has other uses, or none.
static scf::ForallOp
findRegisterEpilogue(Value c, scf::ForOp loop, int64_t n,
                     SmallVectorImpl<vector::TransferReadOp> &reads) {
  // Only a buffer of the block's own, which nothing else can see.
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc || !isWorkgroupAllocIn(alloc, loop->getBlock()))
    return nullptr;
  scf::ForallOp forall;
  for (Operation *user : c.getUsers()) {
    auto view = dyn_cast<memref::SubViewOp>(user);
    auto parent =
        view ? dyn_cast<scf::ForallOp>(view->getParentOp()) : scf::ForallOp();
    if (!parent || (forall && parent != forall))
      return nullptr;
    forall = parent;
    std::optional<ArrayAttr> mapping = forall.getMapping();
    auto threadDim = [&](int i) {
      auto attr = dyn_cast<gpu::GPUThreadMappingAttr>(mapping->getValue()[i]);
      return attr ? static_cast<int64_t>(attr.getMappingId()) : -1;
    };
    if (forall->getBlock() != loop->getBlock() ||
        !loop->isBeforeInBlock(forall) || forall.getRank() != 2 || !mapping ||
        mapping->size() != 2 ||
        threadDim(0) != static_cast<int64_t>(gpu::MappingId::LinearDim0) ||
        threadDim(1) != static_cast<int64_t>(gpu::MappingId::LinearDim1) ||
        forall.getStaticUpperBound() != ArrayRef<int64_t>{128, 2} ||
        llvm::any_of(forall.getStaticLowerBound(),
                     [](int64_t v) { return v != 0; }) ||
        llvm::any_of(forall.getStaticStep(), [](int64_t v) { return v != 1; }))
      return nullptr;
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    if (!areAllConstantIntValue(view.getMixedStrides(), 1) ||
        view.getType().getShape() != ArrayRef<int64_t>{1, n / 2} ||
        !isIvTimes(offsets[0], forall, 0, 1) ||
        !isIvTimes(offsets[1], forall, 1, n / 2))
      return nullptr;
    for (Operation *reader : view->getUsers()) {
      auto read = dyn_cast<vector::TransferReadOp>(reader);
      if (!read || read->getParentOp() != forall.getOperation() ||
          read.getMask() ||
          read.getVectorType().getShape() != ArrayRef<int64_t>{1, n / 2} ||
          !read.getPermutationMap().isMinorIdentity() ||
          llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }) ||
          llvm::any_of(read.getIndices(),
                       [](Value index) { return !isZeroInteger(index); }))
        return nullptr;
      reads.push_back(read);
    }
  }
  return reads.empty() ? nullptr : forall;
}

DiagnosedSilenceableFailure transform::NVIDIATcgen05MmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  std::optional<StagedMatmul> staged =
      matchStagedMatmul(target, /*nMultiple=*/16, getShareAccumulator(), why);
  auto loop = dyn_cast<scf::ForOp>(target);
  std::optional<int64_t> lb, ub, stepSize;
  if (staged) {
    lb = getConstantIntValue(loop.getLowerBound());
    ub = getConstantIntValue(loop.getUpperBound());
    stepSize = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !stepSize || *stepSize <= 0 || *ub <= *lb ||
        (*ub - *lb) % *stepSize != 0)
      why = "its bounds and step are not static";
    else if (staged->aStages.getType().getRank() != 3 ||
             staged->aStages.getType().getDimSize(0) !=
                 staged->bStages.getType().getDimSize(0))
      why = "its operands do not have the same number of stages";
    else if (staged->lag != 0 && staged->lag != 1)
      why = "its refill lag is not 0 or 1";
  }
  if (!staged || !why.empty()) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot compute the K loop with tcgen05 MMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  }
  linalg::MatmulOp matmul = staged->matmul;
  Value c = staged->c;
  memref::AllocOp aStages = staged->aStages, bStages = staged->bStages;
  int64_t n = staged->n, k = staged->k, lag = staged->lag;
  int64_t numStages = aStages.getType().getDimSize(0);
  int64_t steps = (*ub - *lb) / *stepSize;
  constexpr int64_t kRows = 128;         // M of the MMA and of the tile
  constexpr int64_t kMmaK = 16;          // K of one MMA (16-bit operands)
  constexpr int64_t kSwizzleElems = 64;  // 16-bit elements of a swizzle row
  constexpr int64_t kSwizzleBytes = 128; // a swizzle row
  constexpr int64_t kAtomBytes = 1024;   // 8 swizzle rows
  constexpr int64_t kChunkColumns = 32;  // columns of one tcgen05.ld
  // Tensor memory is allocated in powers of two of at least 32 columns.
  int64_t columns = std::max<int64_t>(32, llvm::PowerOf2Ceil(n));

  Location loc = matmul.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type i1 = rewriter.getI1Type(), i8 = rewriter.getI8Type(),
       i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
  auto tensorPtr = LLVM::LLVMPointerType::get(ctx, 6);
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto cta1 = NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);
  auto i32Const = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  };
  auto indexConst = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto apply = [&](OpBuilder &b, AffineExpr expr, Value value) -> Value {
    return affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, expr),
                                         ValueRange{value});
  };
  auto fence = [&](OpBuilder &b, NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKindAttr::get(ctx, kind));
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx);

  // Before the loop: the tensor memory (its address through a shared slot)
  // and the MMA barriers.
  rewriter.setInsertionPoint(loop);
  Value slot = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({1}, i32, AffineMap(), workgroup),
      rewriter.getI64IntegerAttr(4));
  Value mmaBarriers = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({numStages}, i64, AffineMap(), workgroup),
      rewriter.getI64IntegerAttr(8));
  Value barrierBase = buildSharedAddress(rewriter, loc, mmaBarriers, Value());
  auto barrierAt = [&](OpBuilder &b, Value stage) -> Value {
    Value offset = apply(b, d0 * 8, stage);
    Value address = arith::AddIOp::create(
        b, loc, barrierBase, arith::IndexCastOp::create(b, loc, i64, offset));
    return LLVM::IntToPtrOp::create(b, loc, sharedPtr, address);
  };
  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value isFirst = buildIsFirstThread(rewriter, loc);
  Value isWarp0 = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, thread,
                            indexConst(rewriter, 32)),
      arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::y),
              indexConst(rewriter, 0)),
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::z),
              indexConst(rewriter, 0))));
  {
    auto byWarp0 = scf::IfOp::create(rewriter, loc, isWarp0,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byWarp0.thenBlock());
    Value slotAddress = LLVM::IntToPtrOp::create(
        rewriter, loc, sharedPtr,
        buildSharedAddress(rewriter, loc, slot, Value()));
    NVVM::Tcgen05AllocOp::create(rewriter, loc, slotAddress,
                                 i32Const(rewriter, columns), cta1);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(rewriter, loc, cta1);
  }
  {
    auto byFirst = scf::IfOp::create(rewriter, loc, isFirst,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byFirst.thenBlock());
    for (int64_t i = 0; i < numStages; ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc, barrierAt(rewriter, indexConst(rewriter, i)),
          i32Const(rewriter, 1), /*predicate=*/Value());
    // tcgen05.commit arrives on them from the tensor cores.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
  }
  fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(rewriter, loc);
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value tmem = memref::LoadOp::create(rewriter, loc, slot,
                                      ValueRange{indexConst(rewriter, 0)});
  Value aBase = buildSharedAddress(rewriter, loc, aStages, Value());
  Value bBase = buildSharedAddress(rewriter, loc, bStages, Value());

  // The shared memory descriptor of a 128-byte swizzled operand at `address`
  // (leading and stride byte offsets in bytes).
  auto descriptor = [&](OpBuilder &b, Value address, int64_t leading,
                        int64_t stride) -> Value {
    Value start = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, address,
                               arith::ConstantIntOp::create(b, loc, i64, 4)));
    return NVVM::Tcgen05MmaSmemDescOp::create(
        b, loc, i64, start, i32Const(b, leading >> 4), i32Const(b, stride >> 4),
        arith::ConstantIntOp::create(b, loc, i8, 0),
        arith::ConstantIntOp::create(b, loc, i1, 0),
        arith::ConstantIntOp::create(b, loc, i8, /*128-byte swizzle=*/2));
  };
  // The instruction descriptor: f32 D, A and B f16 (0) or bf16 (1), B
  // MN-major (transposed), N >> 3 and M >> 4.
  int64_t abType = staged->element.isBF16() ? 1 : 0;
  int64_t instruction = (1 << 4) | (abType << 7) | (abType << 10) | (1 << 16) |
                        ((n >> 3) << 17) | ((kRows >> 4) << 24);

  // In the loop: thread 0 issues the step's MMAs and commits them to the
  // step's barrier; every thread waits for the MMAs `lag` steps back.
  rewriter.setInsertionPoint(matmul);
  Value iv = loop.getInductionVar();
  AffineExpr stepIndex = (d0 - *lb).floorDiv(*stepSize);
  Value index = apply(rewriter, stepIndex, iv);
  Value stage = apply(rewriter, stepIndex % numStages, iv);
  {
    auto byFirst = scf::IfOp::create(rewriter, loc, isFirst,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byFirst.thenBlock());
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value aStage = arith::IndexCastOp::create(
        rewriter, loc, i64, apply(rewriter, d0 * (kRows * k * 2), stage));
    Value bStage = arith::IndexCastOp::create(
        rewriter, loc, i64, apply(rewriter, d0 * (k * n * 2), stage));
    Value aAt = arith::AddIOp::create(rewriter, loc, aBase, aStage);
    Value bAt = arith::AddIOp::create(rewriter, loc, bBase, bStage);
    Value notFirstStep =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, index,
                              indexConst(rewriter, 0));
    Value accumulate = arith::ConstantIntOp::create(rewriter, loc, i1, 1);
    Value tmemPtr = LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem);
    Value instructionValue = i32Const(rewriter, instruction);
    for (int64_t kk = 0; kk < k / kMmaK; ++kk) {
      // A (K-major): K columns in swizzle rows of 64, column blocks of
      // 128 rows; B (MN-major): 16 rows of 128 bytes per MMA, column blocks
      // of 64 (k rows each) one leading byte offset apart.
      int64_t col = kk * kMmaK;
      int64_t aOffset = (col / kSwizzleElems) * (kRows * kSwizzleBytes) +
                        (col % kSwizzleElems) * 2;
      int64_t bOffset = col * kSwizzleBytes;
      Value aDesc =
          descriptor(rewriter,
                     arith::AddIOp::create(rewriter, loc, aAt,
                                           arith::ConstantIntOp::create(
                                               rewriter, loc, i64, aOffset)),
                     /*leading=*/16, /*stride=*/kAtomBytes);
      Value bDesc =
          descriptor(rewriter,
                     arith::AddIOp::create(rewriter, loc, bAt,
                                           arith::ConstantIntOp::create(
                                               rewriter, loc, i64, bOffset)),
                     /*leading=*/k * kSwizzleBytes, /*stride=*/kAtomBytes);
      NVVM::Tcgen05MMAOp::create(
          rewriter, loc,
          NVVM::Tcgen05MMAKindAttr::get(ctx, NVVM::Tcgen05MMAKind::F16), cta1,
          NVVM::Tcgen05MMACollectorOpAttr::get(
              ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
          /*aShift=*/nullptr, tmemPtr, aDesc, bDesc, instructionValue,
          kk == 0 ? notFirstStep : accumulate, /*scaleInputD=*/Value(),
          /*disableOutputLane=*/Value());
    }
    NVVM::Tcgen05CommitOp::create(rewriter, loc, barrierAt(rewriter, stage),
                                  /*multicastMask=*/Value(), cta1);
  }
  // Waits for the MMAs of step j (an index value) to complete.
  auto waitFor = [&](OpBuilder &b, Value j) {
    Value parity = arith::IndexCastOp::create(
        b, loc, i32, apply(b, d0.floorDiv(numStages) % 2, j));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrierAt(b, apply(b, d0 % numStages, j)), parity,
        i32Const(b, 10000000));
  };
  if (lag == 0) {
    waitFor(rewriter, index);
  } else {
    Value started =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, index,
                              indexConst(rewriter, lag));
    auto ifStarted = scf::IfOp::create(rewriter, loc, started,
                                       /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifStarted.thenBlock());
    waitFor(rewriter, apply(rewriter, d0 - lag, index));
  }
  rewriter.eraseOp(matmul);
  // As with warpgroup MMA: the zero fill of the accumulator is dead, and the
  // tile may reuse the stages' bytes (every thread waits for the last MMAs
  // before it stores, which ends their reads of the stages).
  eraseDeadZeroFills(rewriter, loop, c);
  SmallVector<vector::TransferReadOp> epilogueReads;
  scf::ForallOp epilogue = findRegisterEpilogue(c, loop, n, epilogueReads);
  if (!epilogue)
    shareStagesWithAccumulator(rewriter, loop, aStages, bStages, c);

  // After the loop: wait for the last step's MMAs.
  Operation *next = loop->getNextNode();
  rewriter.setInsertionPointAfter(loop);
  waitFor(rewriter, indexConst(rewriter, steps - 1));
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  // Loads 32x32b chunks of `count` columns from `address` (an i32 tensor
  // memory address) and returns them as one vector of f32.
  int64_t chunk = std::min<int64_t>(kChunkColumns, n / 2);
  auto chunkType = VectorType::get({chunk}, i32);
  // Loads `count` columns from `address` (an i32 tensor memory address),
  // `chunk` at a time, and returns them as i32 words.
  auto loadColumns = [&](OpBuilder &b, Value address,
                         int64_t count) -> SmallVector<Value> {
    SmallVector<Value> all;
    for (int64_t j = 0; j < count; j += chunk) {
      Value at = LLVM::IntToPtrOp::create(
          b, loc, tensorPtr,
          arith::AddIOp::create(b, loc, address, i32Const(b, j)).getResult());
      Value bits = NVVM::Tcgen05LdOp::create(
          b, loc, chunkType, /*pack=*/nullptr,
          NVVM::Tcgen05LdStShapeAttr::get(ctx,
                                          NVVM::Tcgen05LdStShape::SHAPE_32X32B),
          at, /*offset=*/Value());
      // The registers are valid only after tcgen05.wait::ld, but nothing
      // ties their uses to an `nvvm.tcgen05.wait`: LLVM moved pure uses
      // above it. So the wait is an inline asm that takes the registers in
      // and gives them back (tied operands): their uses depend on it. (This
      // relies on the register allocator not copying the tied registers
      // before the asm, which it does not at the default optimization
      // level; the emulator checks the PTX.)
      SmallVector<Value> words;
      std::string constraints;
      for (int64_t e = 0; e < chunk; ++e) {
        words.push_back(vector::ExtractOp::create(b, loc, bits, e));
        constraints += "=r,";
      }
      for (int64_t e = 0; e < chunk; ++e)
        constraints += std::to_string(e) + (e + 1 < chunk ? "," : "");
      auto wait = LLVM::InlineAsmOp::create(
          b, loc,
          LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(chunk, i32)),
          words, "tcgen05.wait::ld.sync.aligned;", constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr());
      wait->setAttr(kTcgen05WaitAttr, b.getUnitAttr());
      for (int64_t e = 0; e < chunk; ++e)
        all.push_back(LLVM::ExtractValueOp::create(b, loc, wait.getRes(), e));
    }
    return all;
  };
  // `words` as a vector of f32.
  auto asF32 = [&](OpBuilder &b, ArrayRef<Value> words) -> Value {
    auto size = static_cast<int64_t>(words.size());
    return vector::BitCastOp::create(
        b, loc, VectorType::get({size}, b.getF32Type()),
        vector::FromElementsOp::create(b, loc, VectorType::get({size}, i32),
                                       words));
  };
  if (epilogue) {
    // The epilogue takes the accumulators in registers: thread (i, j) of
    // its loop is thread i + 128 j of the block, in warp (i + 128 j) / 32,
    // whose lanes are rows 32 (i / 32) + ...: it loads row i, columns
    // [j n/2, (j + 1) n/2) itself, and the accumulator buffer goes.
    rewriter.setInsertionPointToStart(epilogue.getBody());
    // (A barrier may come between the wait for the MMAs and the loop.)
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value laneBase = arith::IndexCastOp::create(
        rewriter, loc, i32,
        apply(rewriter, d0.floorDiv(32) * 32, epilogue.getInductionVar(0)));
    Value columnBase = arith::IndexCastOp::create(
        rewriter, loc, i32,
        apply(rewriter, d0 * (n / 2), epilogue.getInductionVar(1)));
    Value address = arith::AddIOp::create(
        rewriter, loc, tmem,
        arith::AddIOp::create(rewriter, loc,
                              arith::ShLIOp::create(rewriter, loc, laneBase,
                                                    i32Const(rewriter, 16)),
                              columnBase));
    Value row = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({1, n / 2}, rewriter.getF32Type()),
        asF32(rewriter, loadColumns(rewriter, address, n / 2)));
    for (vector::TransferReadOp read : epilogueReads)
      rewriter.replaceOp(read, row);
    // The views of the accumulator buffer, and the buffer, are dead.
    for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
      if (user->use_empty())
        rewriter.eraseOp(user);
    if (auto alloc = c.getDefiningOp<memref::AllocOp>(); alloc && c.use_empty())
      rewriter.eraseOp(alloc);
    // Once every warp's loads are done, warp 0 frees the tensor memory.
    rewriter.setInsertionPointAfter(epilogue);
    fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    gpu::BarrierOp::create(rewriter, loc);
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    auto byWarp0 =
        scf::IfOp::create(rewriter, loc, isWarp0, /*withElse=*/false);
    rewriter.setInsertionPointToStart(byWarp0.thenBlock());
    NVVM::Tcgen05DeallocOp::create(
        rewriter, loc, LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem),
        i32Const(rewriter, columns), cta1);
    return DiagnosedSilenceableFailure::success();
  }
  // Otherwise warp w loads rows 32 (w mod 4) + lane of half w / 4 of the
  // columns and stores them into the accumulator buffer.
  Value row = apply(rewriter, d0 % kRows, thread);
  Value half = apply(rewriter, d0.floorDiv(kRows), thread);
  Value laneBase = arith::IndexCastOp::create(
      rewriter, loc, i32,
      apply(rewriter, (d0 % kRows).floorDiv(32) * 32, thread));
  Value columnBase = apply(rewriter, d0 * (n / 2), half);
  Value warpTmem = arith::AddIOp::create(
      rewriter, loc, tmem,
      arith::AddIOp::create(
          rewriter, loc,
          arith::ShLIOp::create(rewriter, loc, laneBase,
                                i32Const(rewriter, 16)),
          arith::IndexCastOp::create(rewriter, loc, i32, columnBase)));
  SmallVector<Value> words = loadColumns(rewriter, warpTmem, n / 2);
  for (int64_t j = 0; j < n / 2; j += chunk) {
    Value values = asF32(rewriter, ArrayRef<Value>(words).slice(j, chunk));
    // The row's columns are 16-byte aligned: the chunk is stored 16 bytes
    // at a time.
    Value column = apply(rewriter, d0 + j, columnBase);
    auto store = vector::StoreOp::create(
        rewriter, loc, values, c, ValueRange{row, column},
        /*nontemporal=*/false, llvm::Align(16));
    // Together, the block's threads write every element of `c`.
    store->setAttr(kTileStoreAttr, rewriter.getUnitAttr());
  }
  // Then, once every warp's loads are done, warp 0 frees the tensor memory.
  fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(next))
    rewriter.setInsertionPointAfter(barrier);
  else
    gpu::BarrierOp::create(rewriter, loc);
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  auto byWarp0 = scf::IfOp::create(rewriter, loc, isWarp0, /*withElse=*/false);
  rewriter.setInsertionPointToStart(byWarp0.thenBlock());
  NVVM::Tcgen05DeallocOp::create(
      rewriter, loc, LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem),
      i32Const(rewriter, columns), cta1);
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIATcgen05MmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// NVIDIATmaStoreTileOp
//===----------------------------------------------------------------------===//

/// The memref an op that may write a block's output tile writes, or null.
static Value getWrittenMemRef(Operation *op) {
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return write.getBase();
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getBase();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemref();
  if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(op))
    return store.getDstMemref();
  return Value();
}

/// Whether `value` lives in global memory (no memory space).
static bool isGlobalMemRef(Value value) {
  auto type = dyn_cast<BaseMemRefType>(value.getType());
  return type && !type.getMemorySpace();
}

/// Rebuilds the uses of `oldValue` on `newValue` (same shape, another
/// layout and memory space): subviews are made again on it, other users
/// take it as their operand.
static void rebuildOnTile(RewriterBase &rewriter, Value oldValue,
                          Value newValue) {
  for (OpOperand &use : llvm::make_early_inc_range(oldValue.getUses())) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<memref::SubViewOp>(user)) {
      rewriter.setInsertionPoint(view);
      auto type = memref::SubViewOp::inferRankReducedResultType(
          view.getType().getShape(), cast<MemRefType>(newValue.getType()),
          view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
      Value rebuilt = memref::SubViewOp::create(
          rewriter, view.getLoc(), cast<MemRefType>(type), newValue,
          view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
      rebuildOnTile(rewriter, view.getResult(), rebuilt);
      rewriter.eraseOp(view);
      continue;
    }
    rewriter.modifyOpInPlace(user, [&] { use.set(newValue); });
  }
}

/// Whether the writes through `tile` (a static rows x cols buffer) provably
/// write every element of it, all of them in `block`: each use is either
///   * a view of rows 0-63 of a 128-row tile that only
///     `nvgpu.warpgroup.mma.store`s write (their lowering writes rows 0-127,
///     see nvidia_warpgroup_mma);
///   * a `vector.store` of `nvidia_tcgen05_mma` (kTileStoreAttr), all of
///     whose stores together write the tile;
///   * a view, in a thread-level `scf.forall` of `block` with static bounds
///     (b0, b1), of the block [i0 s0, i1 s1] x [s0, s1] with b0 s0 = rows and
///     b1 s1 = cols, that only unmasked in-bounds `vector.transfer_write`s
///     of the whole view, directly in the forall's body, write.
static bool writesWholeTile(Value tile, Block *block) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  bool covered = false;
  for (OpOperand &use : tile.getUses()) {
    Operation *user = use.getOwner();
    if (auto store = dyn_cast<vector::StoreOp>(user)) {
      if (!store->hasAttr(kTileStoreAttr) || store->getBlock() != block)
        return false;
      covered = true;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || !areAllConstantIntValue(view.getMixedStrides(), 1) ||
        view.getType().getRank() != 2 || !view.getType().hasStaticShape())
      return false;
    ArrayRef<int64_t> sizes = view.getType().getShape();
    if (view->getBlock() == block) {
      // The warpgroup MMA store's view.
      if (rows != 128 || sizes[0] != 64 || sizes[1] != cols ||
          !areAllConstantIntValue(view.getMixedOffsets(), 0) ||
          !llvm::all_of(view->getUsers(), [](Operation *op) {
            return isa<nvgpu::WarpgroupMmaStoreOp>(op);
          }))
        return false;
      covered = true;
      continue;
    }
    auto forall = dyn_cast<scf::ForallOp>(view->getParentOp());
    if (!forall || forall->getBlock() != block || forall.getRank() != 2 ||
        !forall.getMapping() || forall.getMapping()->empty() ||
        !isa<gpu::GPUThreadMappingAttr>(forall.getMapping()->getValue()[0]))
      return false;
    // (Dynamic bounds are ShapedType::kDynamic here, which fails the
    // comparisons.)
    ArrayRef<int64_t> lbs = forall.getStaticLowerBound();
    ArrayRef<int64_t> ubs = forall.getStaticUpperBound();
    ArrayRef<int64_t> steps = forall.getStaticStep();
    if (llvm::any_of(lbs, [](int64_t v) { return v != 0; }) ||
        llvm::any_of(steps, [](int64_t v) { return v != 1; }) ||
        ShapedType::isDynamic(ubs[0]) || ShapedType::isDynamic(ubs[1]) ||
        ubs[0] * sizes[0] != rows || ubs[1] * sizes[1] != cols)
      return false;
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    for (int d = 0; d < 2; ++d)
      if (!isIvTimes(offsets[d], forall, d, sizes[d]))
        return false;
    for (Operation *writer : view->getUsers()) {
      auto write = dyn_cast<vector::TransferWriteOp>(writer);
      if (!write || write->getParentOp() != forall.getOperation() ||
          write.getMask() || write.getVectorType().getShape() != sizes ||
          !write.getPermutationMap().isMinorIdentity() ||
          llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
          llvm::any_of(write.getIndices(),
                       [](Value index) { return !isZeroInteger(index); }))
        return false;
    }
    covered = true;
  }
  return covered;
}

DiagnosedSilenceableFailure transform::NVIDIATmaStoreTileOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto fail = [&](const Twine &why) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot store the block's output tile with TMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  };
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return fail("the payload op is not an scf.for");
  scf::ForallOp blockForall;
  if (!findBlockForall(loop, blockForall))
    return fail("it is not inside a block-level scf.forall");
  Block *block = loop->getBlock();
  auto isOutside = [&](Value value) {
    Operation *owner = value.getDefiningOp();
    if (!owner)
      owner = cast<BlockArgument>(value).getOwner()->getParentOp();
    return !blockForall->isAncestor(owner);
  };

  // The tile: the one view of a global buffer that the ops after the loop
  // write global memory through.
  memref::SubViewOp tileView;
  std::string problem;
  for (Operation *op = loop->getNextNode(); op && problem.empty();
       op = op->getNextNode()) {
    op->walk([&](Operation *inner) {
      // The NVVM ops of the MMA ops and the waits of their tcgen05.ld (an
      // inline asm with side effects) work on registers, tensor memory and
      // shared memory.
      StringRef name = inner->getName().getStringRef();
      if (name.starts_with("nvvm.tcgen05.") ||
          name.starts_with("nvvm.wgmma.") ||
          name.starts_with("nvvm.mbarrier.") ||
          name.starts_with("nvvm.fence.") || inner->hasAttr(kTcgen05WaitAttr))
        return;
      SmallVector<Value> written;
      if (Value memref = getWrittenMemRef(inner))
        written.push_back(memref);
      else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner))
        for (OpOperand &init : linalgOp.getDpsInitsMutable())
          written.push_back(init.get());
      else if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (auto &instance : instances)
          if (isa<MemoryEffects::Write>(instance.getEffect()) &&
              (!instance.getValue() || isGlobalMemRef(instance.getValue())))
            problem =
                ("an op after the loop ('" + inner->getName().getStringRef() +
                 "') writes global memory in a way this op does not "
                 "handle")
                    .str();
      } else if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                 !inner->hasTrait<OpTrait::IsTerminator>() &&
                 !isa<gpu::BarrierOp>(inner)) {
        // Unknown effects (barriers only synchronize).
        problem = ("an op after the loop ('" + inner->getName().getStringRef() +
                   "') has unknown memory effects")
                      .str();
      }
      for (Value memref : written) {
        if (!isGlobalMemRef(memref))
          continue;
        Value value = memref;
        memref::SubViewOp found;
        while (auto view = value.getDefiningOp<memref::SubViewOp>()) {
          if (isOutside(view.getSource())) {
            found = view;
            break;
          }
          value = view.getSource();
        }
        if (!found || (tileView && found != tileView))
          problem = "the ops after the loop do not write global memory "
                    "through one view of a global buffer";
        else
          tileView = found;
      }
    });
  }
  if (!problem.empty())
    return fail(problem);
  if (!tileView)
    return fail("nothing after the loop writes global memory");
  auto tileType = cast<MemRefType>(tileView.getType());
  auto bufferType = dyn_cast<MemRefType>(tileView.getSource().getType());
  if (tileView->getBlock() != block || !bufferType ||
      bufferType.getRank() != 2 || !bufferType.hasStaticShape() ||
      !bufferType.getLayout().isIdentity() || tileType.getRank() != 2 ||
      !tileType.hasStaticShape() ||
      !areAllConstantIntValue(tileView.getMixedStrides(), 1))
    return fail("the tile is not a static unit-stride 2-D view, in the "
                "loop's block, of a static row-major 2-D global buffer");
  int64_t rows = tileType.getDimSize(0), cols = tileType.getDimSize(1);
  Type element = tileType.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return fail("the tile's elements are not whole bytes");
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  if (rows > 256 || cols > 256 || (cols * elementBytes) % 16 != 0 ||
      (bufferType.getDimSize(1) * elementBytes) % 16 != 0)
    return fail("the tile does not fit a TMA box (at most 256 elements per "
                "dimension, rows a multiple of 16 bytes)");
  // Everything that uses the tile writes it, after the loop.
  {
    SmallVector<Value> values = {tileView.getResult()};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (!inBlock || !loop->isBeforeInBlock(inBlock))
          return fail("the tile is used before or in the loop");
        if (auto view = dyn_cast<memref::SubViewOp>(user)) {
          values.push_back(view.getResult());
          continue;
        }
        bool writes = getWrittenMemRef(user) == value;
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
          writes = linalgOp.isDpsInit(&use) &&
                   !linalgOp.payloadUsesValueFromOperand(&use) &&
                   llvm::none_of(linalgOp.getDpsInputs(),
                                 [&](Value input) { return input == value; });
        if (!writes)
          return fail("something reads the tile, or uses it in a way this "
                      "op does not handle");
      }
    }
  }
  if (!writesWholeTile(tileView.getResult(), block))
    return fail("the ops after the loop do not provably write the whole tile "
                "(a TMA store of the tile would write the rest)");

  // Room for the tile: the stage buffers' bytes, dead after the loop.
  SetVector<Value> stageBuffers;
  blockForall.walk([&](nvgpu::TmaAsyncLoadOp load) {
    if (auto view = load.getDst().getDefiningOp<memref::ReinterpretCastOp>())
      stageBuffers.insert(view.getSource());
    else if (auto view = load.getDst().getDefiningOp<memref::SubViewOp>())
      stageBuffers.insert(view.getSource());
  });
  int64_t tileBytes = rows * cols * elementBytes;
  auto tileSharedType = MemRefType::get(
      {rows, cols}, element, AffineMap(),
      gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  auto bytesOf = [](MemRefType type) {
    return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                       type.getElementTypeBitWidth(), 8));
  };
  Location loc = loop.getLoc();
  Value tile;
  auto firstView = stageBuffers.empty()
                       ? memref::ViewOp()
                       : stageBuffers.front().getDefiningOp<memref::ViewOp>();
  if (stageBuffers.size() == 2 && firstView &&
      llvm::all_of(stageBuffers, [&](Value buffer) {
        auto view = buffer.getDefiningOp<memref::ViewOp>();
        return view && view.getSource() == firstView.getSource();
      })) {
    // The stages already share their bytes with the accumulator tile: the
    // output tile goes after what is used after the loop.
    auto shared = firstView.getSource().getDefiningOp<memref::AllocOp>();
    if (!shared || !isWorkgroupAllocIn(shared, block))
      return fail("the stages' shared allocation is not in the loop's block");
    int64_t used = 0;
    for (Operation *user : shared->getUsers()) {
      auto view = dyn_cast<memref::ViewOp>(user);
      std::optional<int64_t> shift =
          view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
      if (!view || !shift || !view.getType().hasStaticShape())
        return fail("the stages' shared allocation has a view this op does "
                    "not understand");
      SmallVector<Operation *> users;
      collectUsersThroughViews(view.getResult(), users);
      bool after = llvm::any_of(users, [&](Operation *other) {
        Operation *inBlock = block->findAncestorOpInBlock(*other);
        return !inBlock || loop->isBeforeInBlock(inBlock);
      });
      if (after)
        used = std::max(used, *shift + bytesOf(view.getType()));
    }
    int64_t offset = static_cast<int64_t>(llvm::alignTo(used, 128));
    if (offset + tileBytes <= bytesOf(shared.getType())) {
      rewriter.setInsertionPoint(loop);
      tile = memref::ViewOp::create(
          rewriter, loc, tileSharedType, shared,
          arith::ConstantIndexOp::create(rewriter, loc, offset), ValueRange());
    }
  } else if (stageBuffers.size() == 2) {
    auto aStages = stageBuffers[0].getDefiningOp<memref::AllocOp>();
    auto bStages = stageBuffers[1].getDefiningOp<memref::AllocOp>();
    if (aStages && bStages &&
        tileBytes <= bytesOf(aStages.getType()) + bytesOf(bStages.getType())) {
      rewriter.setInsertionPoint(loop);
      auto alloc = memref::AllocOp::create(rewriter, loc, tileSharedType,
                                           rewriter.getI64IntegerAttr(128));
      tile = alloc.getResult();
      if (!shareStagesWithAccumulator(rewriter, loop, aStages, bStages, tile)) {
        rewriter.eraseOp(alloc);
        tile = Value();
      }
    }
  }
  if (!tile)
    return DiagnosedSilenceableFailure::success(); // no room: left alone

  // The tensor map of the global buffer, on the host.
  MLIRContext *ctx = rewriter.getContext();
  Value buffer = tileView.getSource();
  rewriter.setInsertionPoint(blockForall);
  Value unranked = memref::CastOp::create(
      rewriter, loc, UnrankedMemRefType::get(element, Attribute()), buffer);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, tileSharedType, nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value map = nvgpu::TmaCreateDescriptorOp::create(
      rewriter, loc, mapType, unranked,
      ValueRange{arith::ConstantIndexOp::create(rewriter, loc, rows),
                 arith::ConstantIndexOp::create(rewriter, loc, cols)});

  // The writers write the shared tile; after the last of them, the store.
  Operation *last = nullptr;
  {
    SmallVector<Operation *> users;
    collectUsersThroughViews(tileView.getResult(), users);
    for (Operation *user : users)
      if (Operation *inBlock = block->findAncestorOpInBlock(*user);
          !last || last->isBeforeInBlock(inBlock))
        last = inBlock;
  }
  SmallVector<OpFoldResult> origin = tileView.getMixedOffsets();
  rebuildOnTile(rewriter, tileView.getResult(), tile);
  rewriter.setInsertionPointAfter(last);
  NVVM::FenceProxyOp::create(
      rewriter, loc,
      NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(rewriter, loc);
  auto byFirst =
      scf::IfOp::create(rewriter, loc, buildIsFirstThread(rewriter, loc),
                        /*withElse=*/false);
  rewriter.setInsertionPointToStart(byFirst.thenBlock());
  nvgpu::TmaFenceOp::create(rewriter, loc, map);
  // TMA coordinates are innermost first: (column, row).
  nvgpu::TmaAsyncStoreOp::create(
      rewriter, loc, tile, map,
      ValueRange{getValueOrCreateConstantIndexOp(rewriter, loc, origin[1]),
                 getValueOrCreateConstantIndexOp(rewriter, loc, origin[0])},
      /*predicate=*/Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
  // The shared tile must outlive the store's reads of it; the global writes
  // complete with the grid (as CUTLASS's epilogues rely on).
  NVVM::CpAsyncBulkWaitGroupOp::create(
      rewriter, loc, rewriter.getI32IntegerAttr(0), rewriter.getUnitAttr());
  if (tileView->use_empty())
    rewriter.eraseOp(tileView);
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIATmaStoreTileOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

void transform::NVIDIAWarpgroupMmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

void transform::NVIDIATmaKLoopOp::getEffects(
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
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
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
