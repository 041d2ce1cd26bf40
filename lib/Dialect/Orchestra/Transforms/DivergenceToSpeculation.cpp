//===- DivergenceToSpeculation.cpp - Speculate divergent branches --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Splits a task whose computation is a side-effect-free `scf.if` into one task
// per side plus an `orchestra.commit`. The match is PDLL
// (DivergenceToSpeculation.pdll); this file holds its native constraints, the
// native rewrite and the pass.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"

#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_DIVERGENCETOSPECULATION
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

#include "DivergenceToSpeculation.h.inc"

//===----------------------------------------------------------------------===//
// Native constraints
//===----------------------------------------------------------------------===//

/// The task argument `ifOp` (directly in a task body) branches on: an `i1`
/// argument, or a 0-d `tensor<i1>` argument the body reads with
/// `tensor.extract` (how conditions cross between scheduled tasks); null
/// when the condition is computed inside the task.
static BlockArgument getConditionArgument(scf::IfOp ifOp) {
  Value condition = ifOp.getCondition();
  if (auto read = condition.getDefiningOp<tensor::ExtractOp>();
      read && read.getTensor().getType().getRank() == 0)
    condition = read.getTensor();
  auto argument = dyn_cast<BlockArgument>(condition);
  if (!argument || argument.getOwner() != ifOp->getBlock())
    return nullptr;
  return argument;
}

/// See `IsTaskBranch` in the PDLL file.
static LogicalResult isTaskBranch(PatternRewriter &rewriter, Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  if (ifOp.getNumResults() == 0)
    return rewriter.notifyMatchFailure(op, "the branch has no results");
  auto task = dyn_cast<TaskOp>(ifOp->getParentOp());
  if (!task)
    return rewriter.notifyMatchFailure(op, "not directly in a task body");
  if (task.getNkiSource() || task.getAsmKernel())
    return rewriter.notifyMatchFailure(
        op, "the task runs an NKI or assembly kernel instead of its body");
  Block &body = task.getBody().front();
  if (!getConditionArgument(ifOp))
    return rewriter.notifyMatchFailure(
        op, "the condition is computed inside the task");
  YieldOp yield = task.getYield();
  if (llvm::any_of(yield.getValues(),
                   [&](Value v) { return v.getDefiningOp() != ifOp; }))
    return rewriter.notifyMatchFailure(
        op, "the task yields values the branch does not produce");
  for (Operation &other : body) {
    if (&other == ifOp.getOperation() || &other == yield.getOperation())
      continue;
    if (!isPure(&other))
      return rewriter.notifyMatchFailure(
          op, "the task body has an op besides the branch that is not pure");
  }
  return success();
}

/// Returns whether `indices` are constants within the static `shape`.
static bool areIndicesInBounds(ArrayRef<int64_t> shape, ValueRange indices) {
  for (auto [dim, index] : llvm::zip(shape, indices)) {
    APInt value;
    if (ShapedType::isDynamic(dim) ||
        !matchPattern(index, m_ConstantInt(&value)))
      return false;
    if (value.isNegative() || value.getSExtValue() >= dim)
      return false;
  }
  return true;
}

/// Tensor element and slice accesses are pure upstream, yet an out-of-bounds
/// index is undefined behaviour, and the branch may be what keeps an index in
/// bounds. Such accesses are speculated only when they are provably in bounds
/// (constant indices, static offsets and sizes, which the slice verifiers
/// check against static shapes).
static bool mayAccessOutOfBounds(Operation *op) {
  if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    return !areIndicesInBounds(extract.getTensor().getType().getShape(),
                               extract.getIndices());
  if (auto insert = dyn_cast<tensor::InsertOp>(op))
    return !areIndicesInBounds(insert.getDest().getType().getShape(),
                               insert.getIndices());
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    return !slice.getOffsets().empty() || !slice.getSizes().empty() ||
           !slice.getStrides().empty();
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op))
    return !dim.getConstantIndex().has_value();
  return false;
}

bool mlir::orchestra::canSpeculateSides(scf::IfOp ifOp, Operation **blame,
                                        std::string *why) {
  auto fail = [&](Operation *op, StringRef reason) {
    if (blame)
      *blame = op;
    if (why)
      *why = reason.str();
    return false;
  };
  for (Region *side : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    if (side->empty())
      return fail(ifOp, "a side of the branch is empty");
    for (Operation &nested : side->front().without_terminator()) {
      if (!isMemoryEffectFree(&nested))
        return fail(&nested, "has memory effects: it cannot run speculatively");
      if (!isSpeculatable(&nested))
        return fail(&nested, "is not speculatable: running it on the untaken "
                             "side may trap or have undefined behaviour");
      WalkResult walk = nested.walk([](Operation *inner) {
        return mayAccessOutOfBounds(inner) ? WalkResult::interrupt()
                                           : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return fail(&nested,
                    "accesses a tensor at an index not provably in bounds: "
                    "the branch may be what keeps it in bounds");
    }
  }
  return true;
}

/// See `IsSpeculatableBranch` in the PDLL file.
static LogicalResult isSpeculatableBranch(PatternRewriter &rewriter,
                                          Operation *op) {
  Operation *blame = nullptr;
  std::string why;
  if (canSpeculateSides(cast<scf::IfOp>(op), &blame, &why))
    return success();
  return rewriter.notifyMatchFailure(blame, why);
}

//===----------------------------------------------------------------------===//
// Native rewrite
//===----------------------------------------------------------------------===//

/// Returns `base`, or `base.N` for the smallest N that makes it unique in
/// `schedule`.
static std::string getUniqueTaskName(ScheduleOp schedule, StringRef base) {
  llvm::StringSet<> names;
  for (auto task : schedule.getBody().front().getOps<TaskOp>())
    names.insert(task.getName());
  if (!names.contains(base))
    return base.str();
  for (unsigned n = 1;; ++n) {
    std::string candidate = (base + "." + Twine(n)).str();
    if (!names.contains(candidate))
      return candidate;
  }
}

/// Creates the task that runs `side` of the task's branch on `target`: it
/// takes only the task arguments `side` (and the pure ops it depends on)
/// use, moved to `target`'s memory space when that is another device's.
static TaskOp createSideTask(PatternRewriter &rewriter, TaskOp task,
                             scf::IfOp ifOp, Region &side, StringRef suffix,
                             DictionaryAttr target) {
  Block &body = task.getBody().front();

  // Values the side uses from the task body, closed over the pure ops that
  // produce them.
  SetVector<Value> worklist;
  getUsedValuesDefinedAbove(side, side, worklist);
  llvm::SmallSetVector<Operation *, 8> prefixOps;
  llvm::SmallSetVector<unsigned, 8> argIndices;
  for (unsigned i = 0; i < worklist.size(); ++i) {
    Value value = worklist[i];
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      assert(arg.getOwner() == &body && "task bodies are isolated from above");
      argIndices.insert(arg.getArgNumber());
      continue;
    }
    Operation *producer = value.getDefiningOp();
    if (!prefixOps.insert(producer))
      continue;
    worklist.insert(producer->getOperands().begin(),
                    producer->getOperands().end());
    getUsedValuesDefinedAbove(producer->getRegions(), worklist);
  }
  SmallVector<Operation *> orderedPrefix(prefixOps.begin(), prefixOps.end());
  llvm::sort(orderedPrefix,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  SmallVector<unsigned> orderedArgs(argIndices.begin(), argIndices.end());
  llvm::sort(orderedArgs);

  SmallVector<Value> operands;
  for (unsigned index : orderedArgs)
    operands.push_back(task.getArgs()[index]);
  auto schedule = cast<ScheduleOp>(task->getParentOp());
  // The side comes as early as its operands allow: each device runs its
  // steps in their order in the schedule, and the side does not wait for
  // what the task waited for (its condition).
  OpBuilder::InsertionGuard placement(rewriter);
  Operation *lastOperand = nullptr;
  for (Value operand : operands)
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == task->getBlock() &&
        (!lastOperand || lastOperand->isBeforeInBlock(def)))
      lastOperand = def;
  if (lastOperand)
    rewriter.setInsertionPointAfter(lastOperand);
  else
    rewriter.setInsertionPointToStart(task->getBlock());
  // On another device, the side reads its operands (but constants, resident
  // in every space that reads them) through transfers.
  auto arch = target.getAs<StringAttr>("arch");
  auto deviceId = target.getAs<IntegerAttr>("device_id");
  if (arch && deviceId &&
      (arch.getValue() != task.getArch() ||
       deviceId.getInt() != static_cast<int64_t>(task.getDeviceId()))) {
    auto module = task->getParentOfType<ModuleOp>();
    FailureOr<MemorySpaceOp> from =
        lookupDeviceMemorySpace(module, task.getArch(), task.getDeviceId());
    FailureOr<MemorySpaceOp> to =
        lookupDeviceMemorySpace(module, arch.getValue(), deviceId.getInt());
    if (succeeded(from) && succeeded(to))
      for (Value &operand : operands)
        if (!matchPattern(operand, m_Constant()))
          operand = TransferOp::create(
              rewriter, task.getLoc(), operand.getType(), operand,
              FlatSymbolRefAttr::get(from->getSymNameAttr()),
              FlatSymbolRefAttr::get(to->getSymNameAttr()), FloatAttr(),
              FloatAttr());
  }
  std::string name =
      getUniqueTaskName(schedule, (task.getName() + suffix).str());
  auto sideTask = TaskOp::create(rewriter, task.getLoc(), ifOp.getResultTypes(),
                                 name, target, operands);
  sideTask->setDiscardableAttrs(task->getDiscardableAttrDictionary());
  sideTask->removeAttr(attr::kSpeculate);

  Block &sideBody = sideTask.getBody().front();
  IRMapping mapping;
  for (auto [newIndex, oldIndex] : llvm::enumerate(orderedArgs))
    mapping.map(body.getArgument(oldIndex), sideBody.getArgument(newIndex));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(&sideBody);
  for (Operation *op : orderedPrefix)
    rewriter.clone(*op, mapping);
  Block &sideBlock = side.front();
  for (Operation &op : sideBlock.without_terminator())
    rewriter.clone(op, mapping);
  SmallVector<Value> yielded;
  for (Value value : sideBlock.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  YieldOp::create(rewriter, ifOp.getLoc(), yielded);
  return sideTask;
}

/// See `SpeculateBranch` in the PDLL file.
static void speculateBranch(PatternRewriter &rewriter, Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  auto task = cast<TaskOp>(ifOp->getParentOp());
  rewriter.setInsertionPoint(task);
  // The targets the scheduler chose for the sides, else the task's.
  DictionaryAttr targets[2] = {task.getTarget(), task.getTarget()};
  StringRef keys[] = {"then", "else"};
  if (auto speculate = task->getAttrOfType<DictionaryAttr>(attr::kSpeculate))
    for (auto [i, key] : llvm::enumerate(keys))
      if (auto target = speculate.getAs<DictionaryAttr>(key))
        targets[i] = target;
  // (The else side first: where both sides' operands allow the same place,
  // the then side, made second, comes first.)
  TaskOp elseTask = createSideTask(rewriter, task, ifOp, ifOp.getElseRegion(),
                                   ".else", targets[1]);
  TaskOp thenTask = createSideTask(rewriter, task, ifOp, ifOp.getThenRegion(),
                                   ".then", targets[0]);
  // The scheduler's predictions of the speculated schedule that marked the
  // task: the then side's are the task's, the else side's in the mark.
  if (auto speculate = task->getAttrOfType<DictionaryAttr>(attr::kSpeculate)) {
    thenTask.setPredictedStartAttr(task.getPredictedStartAttr());
    thenTask.setPredictedFinishAttr(task.getPredictedFinishAttr());
    elseTask.setPredictedStartAttr(speculate.getAs<FloatAttr>("else_start"));
    elseTask.setPredictedFinishAttr(speculate.getAs<FloatAttr>("else_finish"));
  }
  Value condition = task.getArgs()[getConditionArgument(ifOp).getArgNumber()];
  auto commit = CommitOp::create(rewriter, ifOp.getLoc(), condition,
                                 thenTask.getResults(), elseTask.getResults());

  // The task yields results of the branch; forward the commit's instead.
  SmallVector<Value> replacements;
  for (Value value : task.getYield().getValues())
    replacements.push_back(
        commit.getResult(cast<OpResult>(value).getResultNumber()));
  rewriter.replaceOp(task, replacements);
}

//===----------------------------------------------------------------------===//
// Patterns and pass
//===----------------------------------------------------------------------===//

void mlir::orchestra::populateDivergenceToSpeculationPatterns(
    RewritePatternSet &patterns, bool all) {
  populateGeneratedPDLLPatterns(patterns);
  PDLPatternModule &pdl = patterns.getPDLPatterns();
  pdl.registerConstraintFunction(
      "IsTaskBranch",
      [all](PatternRewriter &rewriter, Operation *op) -> LogicalResult {
        if (failed(isTaskBranch(rewriter, op)))
          return failure();
        if (!all && !op->getParentOp()->hasAttr(attr::kSpeculate))
          return rewriter.notifyMatchFailure(
              op, "the scheduler did not mark its task for speculation");
        return success();
      });
  pdl.registerConstraintFunction("IsSpeculatableBranch", isSpeculatableBranch);
  pdl.registerRewriteFunction("SpeculateBranch", speculateBranch);
}

namespace {
struct DivergenceToSpeculationPass
    : orchestra::impl::DivergenceToSpeculationBase<
          DivergenceToSpeculationPass> {
  using DivergenceToSpeculationBase::DivergenceToSpeculationBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateDivergenceToSpeculationPatterns(set, all);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    // No folding or region simplification; like any greedy pattern pass, the
    // driver still erases ops that are (or become) trivially dead.
    GreedyRewriteConfig config;
    config.enableFolding(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), patterns, config))) {
      getOperation()->emitError("divergence-to-speculation did not converge");
      signalPassFailure();
    }
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
