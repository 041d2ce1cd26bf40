//===- PlanBuffers.cpp - Memory of the host plan with liveness reuse ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/MapVector.h"

#include <functional>

namespace mlir::orchestra {
#define GEN_PASS_DEF_PLANBUFFERS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

int64_t mlir::orchestra::getBufferSize(Type type) {
  auto shaped = cast<ShapedType>(type);
  Type element = shaped.getElementType();
  // i1 and other sub-byte types take one byte per element in memory.
  int64_t bytes =
      std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
  return shaped.getNumElements() * bytes;
}

FailureOr<MemorySpaceOp>
mlir::orchestra::lookupDeviceMemorySpace(ModuleOp module, StringRef arch,
                                         int64_t deviceId) {
  const TargetInfo *info = getTargetRegistry().lookup(arch);
  if (!info)
    return failure();
  for (auto space : module.getOps<MemorySpaceOp>())
    if (space.getArch() == arch &&
        static_cast<int64_t>(space.getDeviceId()) == deviceId &&
        space.getKind() == info->defaultMemorySpace)
      return space;
  return failure();
}

FailureOr<MemorySpaceOp>
mlir::orchestra::lookupHostMemorySpace(ModuleOp module) {
  FailureOr<TopologyAttr> topology =
      TopologyAttr::require(module, "the host plan");
  if (failed(topology))
    return failure();
  DeviceAttr host = topology->getHostDevice();
  FailureOr<MemorySpaceOp> space = lookupDeviceMemorySpace(
      module, host.getArch().getValue(), host.getDeviceId());
  if (failed(space))
    return module.emitError()
           << "no memory space is declared for the first topology device ("
           << host.getArch().getValue() << ", device_id " << host.getDeviceId()
           << ")";
  return space;
}

namespace {

int64_t alignedSize(int64_t bytes) {
  return static_cast<int64_t>(
      llvm::alignTo(std::max<int64_t>(bytes, 1), kBufferAlignment));
}

/// The sizes of the plan's dynamically shaped values as expressions in the
/// entry's dims, in schedule order: arguments are named by the entry, a
/// transfer keeps its source's sizes, and a launch's results take the sizes
/// its kernel computes from its arguments' (through the ops' value bounds).
LogicalResult computeShapes(ModuleOp module, func::FuncOp func, Block &body,
                            DenseMap<Value, SmallVector<AffineExpr>> &shapes) {
  auto isDynamic = [](Value value) {
    auto shaped = dyn_cast<ShapedType>(value.getType());
    return shaped && shaped.hasRank() && !shaped.hasStaticShape();
  };
  // The sizes of `value` (static ones as constants).
  auto sizesOf = [&](Value value) -> SmallVector<AffineExpr> {
    if (auto it = shapes.find(value); it != shapes.end())
      return it->second;
    SmallVector<AffineExpr> sizes;
    for (int64_t size : cast<ShapedType>(value.getType()).getShape())
      sizes.push_back(getAffineConstantExpr(size, value.getContext()));
    return sizes;
  };
  for (BlockArgument arg : func.getArguments()) {
    if (!isDynamic(arg))
      continue;
    FailureOr<SmallVector<AffineExpr>> sizes =
        getShapeExprs(arg, func, resolveEntryArgDim);
    if (failed(sizes))
      return func.emitError() << "argument #" << arg.getArgNumber()
                              << " has dynamic dimensions that "
                                 "orchestra-bind-dims did not name";
    shapes[arg] = *sizes;
  }
  SymbolTable symbols(module);
  for (Operation &op : body) {
    if (llvm::none_of(op.getResults(), isDynamic))
      continue;
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      shapes[transfer.getResult()] = sizesOf(transfer.getSource());
      continue;
    }
    // A commit's result has the sizes of both its values.
    if (auto commit = dyn_cast<CommitOp>(op)) {
      for (auto [result, ifTrue, ifFalse] :
           llvm::zip(commit.getResults(), commit.getTrueValues(),
                     commit.getFalseValues())) {
        if (!isDynamic(result))
          continue;
        SmallVector<AffineExpr> sizes = sizesOf(ifTrue);
        if (sizes != sizesOf(ifFalse))
          return commit.emitOpError()
                 << "result #" << cast<OpResult>(result).getResultNumber()
                 << " has values of different sizes on the two sides";
        shapes[result] = sizes;
      }
      continue;
    }
    auto launch = dyn_cast<LaunchOp>(op);
    auto kernel = launch
                      ? dyn_cast_or_null<func::FuncOp>(
                            symbols.lookupSymbolIn(module, launch.getKernel()))
                      : func::FuncOp();
    if (!kernel || kernel.isExternal())
      return op.emitOpError()
             << "has results of dynamic shape but is not a launch of a "
                "kernel function on tensors";
    auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
    auto resolve = [&](BlockArgument arg,
                       int64_t dim) -> FailureOr<AffineExpr> {
      return sizesOf(launch.getArgs()[arg.getArgNumber()])[dim];
    };
    for (auto [result, returned] :
         llvm::zip(launch.getResults(), ret.getOperands())) {
      if (!isDynamic(result))
        continue;
      FailureOr<SmallVector<AffineExpr>> sizes =
          getShapeExprs(returned, kernel, resolve);
      if (failed(sizes))
        return launch.emitOpError()
               << "result #" << cast<OpResult>(result).getResultNumber()
               << " has a dynamic size that kernel @" << kernel.getSymName()
               << " does not compute from its arguments' sizes";
      shapes[result] = *sizes;
    }
  }
  return success();
}

/// One value of the plan.
struct Interval {
  Value value;
  StringRef space;
  int64_t bytes;
  unsigned start;
  unsigned end;
  int64_t offset = -1;
};

class PlanBuffersPass
    : public orchestra::impl::PlanBuffersBase<PlanBuffersPass> {
public:
  void runOnOperation() override;

private:
  LogicalResult planFunction(func::FuncOp func, ScheduleOp schedule,
                             MemorySpaceOp host);
};

} // namespace

LogicalResult PlanBuffersPass::planFunction(func::FuncOp func,
                                            ScheduleOp schedule,
                                            MemorySpaceOp host) {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  Block &body = schedule.getBody().front();
  unsigned endIndex = body.getOperations().size() + 1;

  // Dynamically shaped values are held at their sizes' upper bounds.
  FailureOr<SmallVector<DynamicDim>> dims = getDynamicDims(func);
  if (failed(dims))
    return failure();
  DenseMap<Value, SmallVector<AffineExpr>> shapes;
  if (failed(computeShapes(module, func, body, shapes)))
    return failure();
  // Values in definition order with their space; step index 0 is the start
  // of the run (arguments and constants).
  llvm::MapVector<Value, Interval> intervals;
  auto define = [&](Value value, StringRef space, unsigned index) {
    auto shaped = dyn_cast<ShapedType>(value.getType());
    if (!shaped || !shaped.hasRank())
      return failure();
    Type type = shaped;
    if (auto it = shapes.find(value); it != shapes.end()) {
      FailureOr<SmallVector<int64_t>> bound =
          getUpperBoundShape(it->second, *dims);
      if (failed(bound))
        return failure();
      type = shaped.clone(*bound);
    } else if (!shaped.hasStaticShape()) {
      return failure();
    }
    intervals[value] = {value, space, getBufferSize(type), index, index};
    return success();
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(define(arg, host.getSymName(), 0)))
      return func.emitError() << "argument #" << arg.getArgNumber()
                              << " has no size the plan can bound";

  // The memory space a launch runs in.
  auto launchSpace = [&](LaunchOp launch) -> FailureOr<StringRef> {
    FailureOr<MemorySpaceOp> deviceSpace =
        lookupDeviceMemorySpace(module, launch.getArch(), launch.getDeviceId());
    if (failed(deviceSpace))
      return launch.emitOpError()
             << "runs on a device without a declared memory space";
    return deviceSpace->getSymName();
  };

  // Where a commit's results live: where their first reader reads them (a
  // launch in its device's space, a transfer in its source space, the
  // results of the schedule in host memory).
  std::function<FailureOr<StringRef>(CommitOp)> commitSpace =
      [&](CommitOp commit) -> FailureOr<StringRef> {
    Operation *first = nullptr;
    for (Operation *user : commit->getUsers())
      if (!first || user->isBeforeInBlock(first))
        first = user;
    if (auto launch = dyn_cast_or_null<LaunchOp>(first))
      return launchSpace(launch);
    if (auto transfer = dyn_cast_or_null<TransferOp>(first))
      return transfer.getFrom();
    if (auto reader = dyn_cast_or_null<CommitOp>(first))
      return commitSpace(reader);
    return host.getSymName();
  };

  // Per (constant, space): the constant (or its copy) that lives there.
  DenseMap<std::pair<Value, StringRef>, Value> constantCopies;
  unsigned index = 0;
  for (Operation &op : body) {
    ++index;
    // Where this op reads its operands.
    StringRef readSpace = host.getSymName();
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      FailureOr<StringRef> space = launchSpace(launch);
      if (failed(space))
        return failure();
      readSpace = *space;
    } else if (auto transfer = dyn_cast<TransferOp>(op)) {
      readSpace = transfer.getFrom();
    } else if (auto commit = dyn_cast<CommitOp>(op)) {
      // A commit (a select step) reads its operands wherever they live and
      // writes its results, and holds its constants, where they are read.
      FailureOr<StringRef> space = commitSpace(commit);
      if (failed(space))
        return failure();
      readSpace = *space;
    }
    // Constants anywhere in the function live where their readers read
    // them, for the whole run (written once, when the plan is loaded): a
    // constant read in several spaces has a copy in each (the scheduler
    // charges no transfer for weights).
    for (OpOperand &use : op.getOpOperands()) {
      Value operand = use.get();
      Operation *def = operand.getDefiningOp();
      if (!def || !def->hasTrait<OpTrait::ConstantLike>())
        continue;
      Value &inSpace = constantCopies[{operand, readSpace}];
      if (!inSpace) {
        auto found = intervals.find(operand);
        if (found == intervals.end() || found->second.space == readSpace) {
          inSpace = operand;
        } else {
          OpBuilder builder(def);
          builder.setInsertionPointAfter(def);
          inSpace = builder.clone(*def)->getResult(0);
        }
      }
      use.set(inSpace);
      if (intervals.contains(inSpace))
        continue;
      if (failed(define(inSpace, readSpace, 0)))
        return def->emitError() << "constant used by the schedule must be a "
                                   "statically shaped tensor";
      intervals[inSpace].end = endIndex;
    }
    if (isa<YieldOp>(op)) {
      for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
        Interval &interval = intervals[operand];
        if (interval.space != host.getSymName())
          return op.emitOpError()
                 << "result #" << i << " lives in @" << interval.space
                 << "; results must be in @" << host.getSymName()
                 << " (insert an orchestra.transfer)";
        interval.end = endIndex;
      }
      continue;
    }
    for (auto [i, operand] : llvm::enumerate(op.getOperands())) {
      auto it = intervals.find(operand);
      if (it == intervals.end())
        return op.emitOpError() << "uses a value the plan does not know";
      if (it->second.space != readSpace && !isa<CommitOp>(op))
        return op.emitOpError()
               << "reads operand #" << i << " in @" << readSpace
               << " but it lives in @" << it->second.space
               << " (insert an orchestra.transfer)";
      it->second.end = std::max(it->second.end, index);
    }

    StringRef space;
    if (isa<LaunchOp>(op)) {
      space = readSpace;
    } else if (auto transfer = dyn_cast<TransferOp>(op)) {
      space = transfer.getTo();
    } else if (op.hasTrait<OpTrait::ConstantLike>()) {
      space = host.getSymName();
    } else if (isa<CommitOp>(op)) {
      space = readSpace;
      op.setAttr(attr::kSpace, FlatSymbolRefAttr::get(ctx, space));
    } else {
      return op.emitOpError()
             << "is not supported by the host plan yet (only launches, "
                "transfers, commits and constants are; run "
                "orchestra-outline-tasks first)";
    }
    for (Value result : op.getResults()) {
      if (failed(define(result, space, index)))
        return op.emitOpError() << "result of type " << result.getType()
                                << " has no size the plan can bound";
      if (op.hasTrait<OpTrait::ConstantLike>()) {
        intervals[result].start = 0;
        intervals[result].end = endIndex;
      }
    }
  }
  // A result never used still needs its buffer while it is written.

  // A commit's result takes the slot of its true value when that value
  // lives in the same space and only the commit reads it: a select step
  // then copies on false only (the runtime makes no copy onto itself).
  DenseMap<Value, Value> sharedSlot;
  auto slotOwner = [&](Value value) {
    while (Value owner = sharedSlot.lookup(value))
      value = owner;
    return value;
  };
  for (Operation &op : body) {
    auto commit = dyn_cast<CommitOp>(op);
    if (!commit)
      continue;
    for (auto [result, ifTrue] :
         llvm::zip(commit.getResults(), commit.getTrueValues())) {
      Operation *def = ifTrue.getDefiningOp();
      auto owner = intervals.find(slotOwner(ifTrue));
      auto own = intervals.find(result);
      if (!def || def->hasTrait<OpTrait::ConstantLike>() ||
          !ifTrue.hasOneUse() || owner == intervals.end() ||
          own == intervals.end() || owner->second.space != own->second.space ||
          owner->second.bytes != own->second.bytes)
        continue;
      owner->second.end = std::max(owner->second.end, own->second.end);
      sharedSlot[result] = ifTrue;
    }
  }

  // First fit, per memory space, in order of definition.
  llvm::MapVector<StringRef, std::pair<int64_t, int64_t>> usage;
  SmallVector<Interval *> placed;
  SmallVector<Interval *> order;
  for (auto &entry : intervals)
    if (!sharedSlot.contains(entry.first))
      order.push_back(&entry.second);
  // Definition order (intervals is in definition order except for
  // constants, which start at 0).
  DenseMap<Interval *, unsigned> position;
  for (auto [i, interval] : llvm::enumerate(order))
    position[interval] = i;
  llvm::sort(order, [&](Interval *a, Interval *b) {
    return std::make_pair(a->start, position[a]) <
           std::make_pair(b->start, position[b]);
  });
  for (Interval *interval : order) {
    int64_t size = alignedSize(interval->bytes);
    // Buffers live at the same time in the same space, by offset.
    SmallVector<Interval *> live;
    for (Interval *other : placed)
      if (other->space == interval->space && other->end >= interval->start)
        live.push_back(other);
    llvm::sort(live,
               [](Interval *a, Interval *b) { return a->offset < b->offset; });
    int64_t offset = 0;
    for (Interval *other : live) {
      int64_t otherSize = alignedSize(other->bytes);
      if (offset + size <= other->offset)
        break;
      offset = std::max(offset, other->offset + otherSize);
    }
    interval->offset = offset;
    placed.push_back(interval);
    auto &[peak, total] = usage[interval->space];
    peak = std::max(peak, offset + size);
    total += size;
  }

  // Each device space must hold its peak: the weights resident in it for the
  // whole run and the largest set of buffers live at once.
  SymbolTable symbols(module);
  for (auto &[space, sizes] : usage) {
    auto decl = symbols.lookup<MemorySpaceOp>(space);
    if (!decl || !decl.getCapacity() ||
        sizes.first <= static_cast<int64_t>(*decl.getCapacity()))
      continue;
    int64_t weights = 0;
    const Interval *largest = nullptr;
    for (auto &[value, interval] : intervals) {
      if (interval.space != space)
        continue;
      Operation *def = value.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>())
        weights += alignedSize(interval.bytes);
      if (!largest || interval.bytes > largest->bytes)
        largest = &interval;
    }
    InFlightDiagnostic diag = func.emitError()
                              << "the plan needs " << sizes.first
                              << " bytes of memory space @" << space << " ("
                              << decl.getArch() << " device "
                              << decl.getDeviceId() << "), which holds "
                              << *decl.getCapacity() << " bytes";
    diag.attachNote() << weights
                      << " bytes of it are constants (weights) resident there "
                         "for the whole run";
    if (largest)
      diag.attachNote(largest->value.getLoc())
          << "its largest buffer (" << largest->bytes << " bytes) is here";
    return diag;
  }

  // Record the plan.
  auto offsetsOf = [&](ValueRange values) {
    SmallVector<int64_t> offsets;
    for (Value value : values)
      offsets.push_back(intervals[slotOwner(value)].offset);
    return DenseI64ArrayAttr::get(ctx, offsets);
  };
  func->setAttr(attr::kArgOffsets, offsetsOf(func.getArguments()));
  // The sizes of dynamically shaped values, for the artifact and runtime.
  auto shapesOf = [&](ValueRange values) -> Attribute {
    if (llvm::none_of(values, [&](Value v) { return shapes.contains(v); }))
      return nullptr;
    SmallVector<Attribute> maps;
    for (Value value : values) {
      SmallVector<AffineExpr> sizes;
      if (auto it = shapes.find(value); it != shapes.end())
        sizes = it->second;
      else
        for (int64_t size : cast<ShapedType>(value.getType()).getShape())
          sizes.push_back(getAffineConstantExpr(size, ctx));
      maps.push_back(
          AffineMapAttr::get(AffineMap::get(0, dims->size(), sizes, ctx)));
    }
    return ArrayAttr::get(ctx, maps);
  };
  if (Attribute argShapes = shapesOf(func.getArguments()))
    func->setAttr(attr::kArgShapes, argShapes);
  for (Operation &op : body)
    if (Attribute opShapes = shapesOf(op.getResults()))
      op.setAttr(attr::kShapes, opShapes);
  for (auto &entry : intervals)
    if (Operation *def = entry.first.getDefiningOp()) {
      def->setAttr(attr::kOffsets, offsetsOf(def->getResults()));
      // Constants have no op that names their space.
      if (def->hasTrait<OpTrait::ConstantLike>())
        def->setAttr(attr::kSpace,
                     FlatSymbolRefAttr::get(ctx, entry.second.space));
    }
  NamedAttrList plan;
  for (auto &[space, sizes] : usage) {
    NamedAttrList entry;
    entry.append("peak",
                 IntegerAttr::get(IntegerType::get(ctx, 64), sizes.first));
    entry.append("total",
                 IntegerAttr::get(IntegerType::get(ctx, 64), sizes.second));
    plan.append(space, entry.getDictionary(ctx));
  }
  func->setAttr(attr::kPlan, plan.getDictionary(ctx));
  return success();
}

void PlanBuffersPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<std::pair<func::FuncOp, ScheduleOp>> work;
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<ScheduleOp> schedules;
    func.walk([&](ScheduleOp schedule) { schedules.push_back(schedule); });
    if (schedules.empty() && func->hasAttr(attr::kEntry) &&
        func.getBody().hasOneBlock()) {
      // An entry whose schedule did no work was folded away by
      // canonicalization; the plan still needs one (it copies inputs or
      // constants to the outputs).
      Operation *ret = func.getBody().front().getTerminator();
      OpBuilder builder(ret);
      auto schedule =
          ScheduleOp::create(builder, ret->getLoc(), ret->getOperandTypes());
      builder.createBlock(&schedule.getBody());
      YieldOp::create(builder, ret->getLoc(), ret->getOperands());
      ret->setOperands(schedule.getResults());
      schedules.push_back(schedule);
    }
    if (schedules.empty())
      continue;
    if (schedules.size() != 1 ||
        schedules.front()->getParentOp() != func.getOperation()) {
      func.emitError() << "the host plan needs exactly one schedule directly "
                          "in the function body";
      return signalPassFailure();
    }
    work.push_back({func, schedules.front()});
  }
  if (work.empty())
    return;
  FailureOr<MemorySpaceOp> host = lookupHostMemorySpace(module);
  if (failed(host))
    return signalPassFailure();
  for (auto [func, schedule] : work)
    if (failed(planFunction(func, schedule, *host)))
      return signalPassFailure();
}
