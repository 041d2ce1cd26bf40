//===- ParallelLoopsFirst.cpp - Parallel loops outermost for the GPU ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUPARALLELLOOPSFIRST
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

/// Whether every parallel loop of `op` comes before its reduction loops, and
/// there is one.
static bool hasParallelLoopsFirst(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || !linalg::isParallelIterator(iterators.front()))
    return false;
  return llvm::is_sorted(
      iterators, [](utils::IteratorType a, utils::IteratorType b) {
        return linalg::isParallelIterator(a) && linalg::isReductionIterator(b);
      });
}

/// How a tensor of rank `rank` and the same tensor with a leading unit
/// dimension map onto each other (the unit dimension joins the first).
static SmallVector<ReassociationIndices>
getLeadingUnitReassociation(int64_t rank) {
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0; d < rank; ++d)
    reassociation.push_back(d == 0 ? ReassociationIndices{0, 1}
                                   : ReassociationIndices{d + 1});
  return reassociation;
}

/// `op` with a leading parallel loop of one iteration: each result gets a
/// leading unit dimension (its init is expanded, its result collapsed
/// back), the operands keep their maps over the other loops, and the body
/// its `linalg.index` ops, shifted by one loop.
static linalg::GenericOp addUnitParallelLoop(RewriterBase &rewriter,
                                             linalg::GenericOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input).shiftDims(1));
  SmallVector<Value> inits;
  SmallVector<Type> resultTypes;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = cast<RankedTensorType>(init.get().getType());
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    auto expandedType = RankedTensorType::get(shape, type.getElementType());
    inits.push_back(tensor::ExpandShapeOp::create(
        rewriter, loc, expandedType, init.get(),
        getLeadingUnitReassociation(type.getRank())));
    resultTypes.push_back(expandedType);
    AffineMap map = op.getMatchingIndexingMap(&init).shiftDims(1);
    maps.push_back(map.insertResult(getAffineDimExpr(0, ctx), 0));
  }
  SmallVector<utils::IteratorType> iterators{utils::IteratorType::parallel};
  llvm::append_range(iterators, op.getIteratorTypesArray());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, resultTypes, op.getDpsInputs(), inits, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), generic.getRegion(),
                             generic.getRegion().end());
  generic.walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::GenericOp>() == generic)
      index.setDim(index.getDim() + 1);
  });
  SmallVector<Value> results;
  for (auto [result, init] :
       llvm::zip(generic.getResults(), op.getDpsInits())) {
    auto type = cast<RankedTensorType>(init.getType());
    results.push_back(tensor::CollapseShapeOp::create(
        rewriter, loc, type, result,
        getLeadingUnitReassociation(type.getRank())));
  }
  rewriter.replaceOp(op, results);
  return generic;
}

/// Reductions over more iterations than this are split across threads
/// where their parallel loops leave threads idle; smaller ones run on one
/// thread per output element.
static constexpr int64_t kSplitThreshold = 1024;
/// Only reductions with fewer output elements than this are split (more
/// keep enough threads busy, one per output element).
static constexpr int64_t kMaxSplitOutputs = 4096;
/// Each thread of a split reduction's first stage reduces about this many
/// elements...
static constexpr int64_t kElementsPerThread = 32;
/// ... in blocks of this many threads, at most this many blocks.
static constexpr int64_t kThreadsPerBlock = 256;
static constexpr int64_t kMaxBlocks = 1024;

/// How a reduction splits: its leading parallel loops (`numParallel`, their
/// iterations `outputs` in all), the reduction loops after them (`n`
/// iterations in all), its combiner and that combiner's neutral element.
struct SplitPlan {
  unsigned numParallel = 0;
  int64_t outputs = 1;
  int64_t n = 1;
  Operation *combiner = nullptr;
  TypedAttr neutral;
};

/// Whether `op` (parallel loops first) is a reduction worth splitting: one
/// result indexed by its parallel loops only (or constants), fewer than
/// kMaxSplitOutputs output elements, more than kSplitThreshold reduction
/// iterations, and a body that combines the accumulator with one
/// associative and commutative op that has a neutral element.
static std::optional<SplitPlan> planSplit(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() == 0 ||
      !op.hasPureTensorSemantics())
    return std::nullopt;
  SplitPlan plan;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  while (plan.numParallel < iterators.size() &&
         linalg::isParallelIterator(iterators[plan.numParallel]))
    ++plan.numParallel;
  if (plan.numParallel == iterators.size() ||
      !llvm::all_of(llvm::drop_begin(iterators, plan.numParallel),
                    linalg::isReductionIterator))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    (d < plan.numParallel ? plan.outputs : plan.n) *= range;
  }
  if (plan.n <= kSplitThreshold || plan.outputs >= kMaxSplitOutputs)
    return std::nullopt;
  // The combining step writes the result where the original op does.
  AffineMap resultMap = op.getIndexingMapMatchingResult(op->getResult(0));
  for (unsigned d = plan.numParallel; d < ranges.size(); ++d)
    if (resultMap.isFunctionOfDim(d))
      return std::nullopt;
  SmallVector<BlockArgument> outputArgs(op.getRegionOutputArgs());
  SmallVector<Operation *> combiners;
  if (!matchReduction(outputArgs, 0, combiners) || combiners.size() != 1)
    return std::nullopt;
  plan.combiner = combiners.front();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(plan.combiner);
  if (!neutral || !plan.combiner->hasTrait<OpTrait::IsCommutative>())
    return std::nullopt;
  plan.neutral = *neutral;
  return plan;
}

/// The partial results of the reduction `op` (see planSplit): a generic
/// with `op`'s parallel loops, a parallel loop over P partials per output
/// element and a reduction loop over C = ceil(N / P) steps; partial p
/// reduces the reduction iterations p, p + P, p + 2P, ... (consecutive
/// threads read consecutive elements) from the neutral element, reading
/// `op`'s operands with `tensor.extract` at the original loop indices, and
/// leaves out the steps past N. A tensor<Cxi8> operand (never read) gives
/// the step loop its range. P is chosen for about kElementsPerThread
/// elements per thread, at most kMaxBlocks blocks of kThreadsPerBlock
/// threads in all.
static Value buildPartialReduction(RewriterBase &rewriter, linalg::GenericOp op,
                                   const SplitPlan &plan) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned k = plan.numParallel;
  int64_t blocks = std::clamp<int64_t>(
      llvm::divideCeil(plan.outputs * plan.n,
                       kThreadsPerBlock * kElementsPerThread),
      1, kMaxBlocks);
  int64_t partials = std::max<int64_t>(
      1, llvm::divideCeil(blocks * kThreadsPerBlock, plan.outputs));
  int64_t steps = llvm::divideCeil(plan.n, partials);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Type element =
      cast<ShapedType>(op.getDpsInits().front().getType()).getElementType();
  SmallVector<int64_t> shape(ranges.begin(), ranges.begin() + k);
  shape.push_back(partials);
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape, element);
  Value zero = arith::ConstantOp::create(rewriter, loc, plan.neutral);
  Value init = linalg::FillOp::create(rewriter, loc, zero, empty).result();
  Value stepRange =
      tensor::EmptyOp::create(rewriter, loc, {steps}, rewriter.getI8Type());
  AffineMap stepMap = AffineMap::get(k + 2, 0, getAffineDimExpr(k + 1, ctx));
  SmallVector<AffineExpr> partialExprs;
  for (unsigned d = 0; d <= k; ++d)
    partialExprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap partialMap = AffineMap::get(k + 2, 0, partialExprs, ctx);
  SmallVector<utils::IteratorType> iterators(k + 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto stage = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{stepRange},
      ValueRange{init}, ArrayRef<AffineMap>{stepMap, partialMap}, iterators,
      [&](OpBuilder &b, Location nested, ValueRange args) {
        Value acc = args[1];
        auto index = [&](int64_t value) -> Value {
          return arith::ConstantIndexOp::create(b, nested, value);
        };
        // The reduction iteration this step takes, and whether there is one.
        Value flat = arith::AddIOp::create(
            b, nested,
            arith::MulIOp::create(b, nested,
                                  linalg::IndexOp::create(b, nested, k + 1),
                                  index(partials)),
            linalg::IndexOp::create(b, nested, k));
        Value inRange = arith::CmpIOp::create(
            b, nested, arith::CmpIPredicate::ult, flat, index(plan.n));
        flat = arith::SelectOp::create(b, nested, inRange, flat, index(0));
        // The original loop indices: the parallel ones as they are, the
        // reduction ones row-major from the flat index.
        SmallVector<Value> loops(ranges.size());
        for (unsigned d = 0; d < k; ++d)
          loops[d] = linalg::IndexOp::create(b, nested, d);
        int64_t stride = 1;
        for (int64_t d = ranges.size() - 1; d >= static_cast<int64_t>(k); --d) {
          Value quotient =
              arith::DivUIOp::create(b, nested, flat, index(stride));
          loops[d] =
              arith::RemUIOp::create(b, nested, quotient, index(ranges[d]));
          stride *= ranges[d];
        }
        IRMapping mapping;
        for (OpOperand *input : op.getDpsInputOperands()) {
          // A scalar operand is the same at every iteration.
          if (!isa<RankedTensorType>(input->get().getType())) {
            mapping.map(op.getMatchingBlockArgument(input), input->get());
            continue;
          }
          AffineMap map = op.getMatchingIndexingMap(input);
          SmallVector<Value> indices;
          for (unsigned r = 0; r < map.getNumResults(); ++r)
            indices.push_back(affine::AffineApplyOp::create(
                b, nested, map.getSubMap({r}), loops));
          mapping.map(
              op.getMatchingBlockArgument(input),
              tensor::ExtractOp::create(b, nested, input->get(), indices));
        }
        mapping.map(op.getRegionOutputArgs().front(), acc);
        for (Operation &inner : op.getBody()->without_terminator()) {
          if (auto loopIndex = dyn_cast<linalg::IndexOp>(inner)) {
            mapping.map(loopIndex.getResult(), loops[loopIndex.getDim()]);
            continue;
          }
          b.clone(inner, mapping);
        }
        Value next = mapping.lookupOrDefault(
            op.getBody()->getTerminator()->getOperand(0));
        linalg::YieldOp::create(
            b, nested,
            ValueRange{arith::SelectOp::create(b, nested, inRange, next, acc)});
      });
  return stage.getResult(0);
}

/// `op` split (see planSplit): its partials (buildPartialReduction), then
/// their reduction into `op`'s init with its combiner, split again while it
/// is large. Returns the generic that reduces the last partials, or `op`
/// where it does not qualify.
static linalg::GenericOp splitReduction(RewriterBase &rewriter,
                                        linalg::GenericOp op) {
  std::optional<SplitPlan> plan = planSplit(op);
  if (!plan)
    return op;
  Value partials = buildPartialReduction(rewriter, op, *plan);
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned k = plan->numParallel;
  Value init = op.getDpsInits().front();
  // The result's map over the parallel loops and the partials' loop (which
  // it does not use).
  AffineMap resultMap = op.getIndexingMapMatchingResult(op->getResult(0));
  AffineMap combineResultMap =
      AffineMap::get(k + 1, 0, resultMap.getResults(), ctx);
  SmallVector<utils::IteratorType> iterators(k, utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  Operation *combiner = plan->combiner;
  auto combine = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{partials},
      ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(k + 1, ctx),
                          combineResultMap},
      iterators, [&](OpBuilder &b, Location nested, ValueRange args) {
        OperationState state(nested, combiner->getName());
        state.addOperands({args[0], args[1]});
        state.addTypes(combiner->getResultTypes());
        state.addAttributes(combiner->getAttrs());
        linalg::YieldOp::create(b, nested, b.create(state)->getResults());
      });
  rewriter.replaceOp(op, combine.getResults());
  rewriter.setInsertionPoint(combine);
  return splitReduction(rewriter, combine);
}

namespace {
class GPUParallelLoopsFirstPass
    : public orchestra::gpucommon::impl::GPUParallelLoopsFirstBase<
          GPUParallelLoopsFirstPass> {
public:
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          (!hasParallelLoopsFirst(op) || planSplit(op)))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized)) {
          op.emitOpError() << "cannot be made a linalg.generic with its "
                              "parallel loops first for the GPU";
          return signalPassFailure();
        }
        generic = *generalized;
      }
      // The parallel loops first, each kind in its order.
      SmallVector<unsigned> permutation;
      SmallVector<utils::IteratorType> iterators =
          generic.getIteratorTypesArray();
      for (bool parallel : {true, false})
        for (auto [i, iterator] : llvm::enumerate(iterators))
          if (linalg::isParallelIterator(iterator) == parallel)
            permutation.push_back(i);
      if (!llvm::equal(permutation,
                       llvm::seq<unsigned>(0, permutation.size()))) {
        rewriter.setInsertionPoint(generic);
        FailureOr<linalg::GenericOp> interchanged =
            linalg::interchangeGenericOp(rewriter, generic, permutation);
        if (failed(interchanged)) {
          generic.emitOpError() << "cannot have its loops interchanged";
          return signalPassFailure();
        }
        generic = *interchanged;
      }
      rewriter.setInsertionPoint(generic);
      generic = splitReduction(rewriter, generic);
      if (hasParallelLoopsFirst(generic))
        continue;
      rewriter.setInsertionPoint(generic);
      addUnitParallelLoop(rewriter, generic);
    }
  }
};
} // namespace
