//===- TmaKLoop.cpp - transform.orchestra.nvidia_tma_k_loop ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

// Like the core transform ops, these compile without assertions: see
// NVIDIATransformOps.cpp.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.h"

#include "StagedMatmul.h"

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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::orchestra::nvidia;

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
  loop->setAttr(orchestra::nvidia::attr::kRefillLag,
                rewriter.getI64IntegerAttr(lag));
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIATmaKLoopOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
