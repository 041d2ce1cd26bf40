//===- Place.cpp - Fusion grouping and placement on CPU devices -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Stage 2 in its simple form: group the entry function into fusion groups,
// place each group on a CPU device of the topology by earliest estimated
// finish time, and rewrite the body into an `orchestra.schedule`.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace mlir::orchestra {
#define GEN_PASS_DEF_PLACE
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {

enum class NodeKind {
  /// A structured op with a reduction loop (matmul, conv, pooling, a
  /// reduction): the expensive centre of a fusion group.
  Anchor,
  /// Elementwise structured ops and data movement: fused around anchors.
  Elementwise,
};

/// Constants up to this size (and splats of any size) are copied into the
/// kernels that use them; larger ones (weights) stay in the function, live in
/// the plan's memory and reach the kernels as arguments, so that they are
/// neither compiled into every kernel nor duplicated.
constexpr int64_t kMaxClonedConstantBytes = 256;

bool isSmallConstant(Operation *op) {
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return true;
  if (getBufferSize(type) <= kMaxClonedConstantBytes)
    return true;
  auto value = op->getAttrOfType<DenseElementsAttr>("value");
  return value && value.isSplat();
}

/// Ops copied into every group that uses them instead of being grouped:
/// small constants, `tensor.empty`, and fills of those (cheaper to recompute
/// in each kernel than to store and pass).
bool isCloneable(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return op->getNumResults() == 1 && isSmallConstant(op);
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (!isa<linalg::FillOp>(op))
    return false;
  return llvm::all_of(op->getOperands(), [](Value operand) {
    Operation *def = operand.getDefiningOp();
    return def && isCloneable(def);
  });
}

NodeKind classify(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.getNumReductionLoops() > 0 ? NodeKind::Anchor
                                               : NodeKind::Elementwise;
  return NodeKind::Elementwise;
}

int64_t numElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 1;
  return shaped.getNumElements();
}

/// Bytes of a value for the estimates: its buffer size for static tensors,
/// one 8-byte word for anything else (scalars, index).
int64_t byteSize(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped && shaped.hasStaticShape() &&
      shaped.getElementType().isIntOrFloat())
    return getBufferSize(type);
  return 8;
}

/// Arithmetic work of one op, for the placement estimate: iterations times
/// the scalar ops of the body for structured ops, one per result element
/// otherwise.
double estimateFlops(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges())
      iterations *= ShapedType::isDynamic(range) ? 1 : range;
    int64_t bodyOps = 0;
    if (Block *body = linalgOp.getBlock())
      bodyOps = std::max<int64_t>(1, body->getOperations().size() - 1);
    return iterations * bodyOps;
  }
  double flops = 0;
  for (Type type : op->getResultTypes())
    flops += numElements(type);
  return flops;
}

/// One fusion group.
struct Group {
  SmallVector<Operation *> ops;
  bool hasAnchor = false;
  /// Groups whose results this one uses.
  llvm::SetVector<unsigned> deps;
};

/// Union of fusion groups built in program order.
class Grouping {
public:
  unsigned create(Operation *op, NodeKind kind) {
    groups.emplace_back();
    groups.back().ops.push_back(op);
    groups.back().hasAnchor = kind == NodeKind::Anchor;
    groupOf[op] = groups.size() - 1;
    return groups.size() - 1;
  }

  void add(unsigned group, Operation *op, NodeKind kind) {
    groups[group].ops.push_back(op);
    groups[group].hasAnchor |= kind == NodeKind::Anchor;
    groupOf[op] = group;
  }

  std::optional<unsigned> lookup(Operation *op) const {
    auto it = groupOf.find(op);
    if (it == groupOf.end())
      return std::nullopt;
    return it->second;
  }

  /// Whether `from` depends, directly or not, on `to`.
  bool dependsOn(unsigned from, unsigned to) const {
    SmallVector<unsigned> worklist = {from};
    llvm::DenseSet<unsigned> seen;
    while (!worklist.empty()) {
      unsigned g = worklist.pop_back_val();
      if (g == to)
        return true;
      if (!seen.insert(g).second)
        continue;
      llvm::append_range(worklist, groups[g].deps);
    }
    return false;
  }

  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
};

/// Whether every use of `value` is in `user`.
bool onlyUsedBy(Value value, Operation *user) {
  return llvm::all_of(value.getUsers(), [&](Operation *u) {
    return user == u || user->isProperAncestor(u);
  });
}

/// All values `op` reads from outside itself: operands and captures of its
/// regions.
SmallVector<Value> getInputs(Operation *op) {
  llvm::SetVector<Value> inputs(op->operand_begin(), op->operand_end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, inputs);
  return inputs.takeVector();
}

/// Builds the fusion groups of `body` (ops in program order).
Grouping buildGroups(Block &body) {
  Grouping grouping;
  for (Operation &opRef : body.without_terminator()) {
    Operation *op = &opRef;
    // Constants are cloned or passed, never tasks of their own.
    if (isCloneable(op) || op->hasTrait<OpTrait::ConstantLike>())
      continue;
    NodeKind kind = classify(op);
    SmallVector<Value> inputs = getInputs(op);

    // Producer groups of this op's inputs.
    llvm::SetVector<unsigned> producerGroups;
    for (Value input : inputs)
      if (Operation *def = input.getDefiningOp())
        if (std::optional<unsigned> g = grouping.lookup(def))
          producerGroups.insert(*g);

    // Try to join the group of a producer whose value only this op uses.
    std::optional<unsigned> joined;
    for (Value input : inputs) {
      Operation *def = input.getDefiningOp();
      if (!def)
        continue;
      std::optional<unsigned> g = grouping.lookup(def);
      if (!g || !onlyUsedBy(input, op))
        continue;
      if (kind == NodeKind::Anchor && grouping.groups[*g].hasAnchor)
        continue;
      // An elementwise op joins an anchor's group only as its consumer, or a
      // group without anchor as a producer chain; both are fine. Reject
      // joins that would make the group depend on itself.
      bool cycle = llvm::any_of(producerGroups, [&](unsigned other) {
        return other != *g && grouping.dependsOn(other, *g);
      });
      if (cycle)
        continue;
      joined = g;
      break;
    }
    unsigned group = joined ? (grouping.add(*joined, op, kind), *joined)
                            : grouping.create(op, kind);
    for (unsigned producer : producerGroups)
      if (producer != group)
        grouping.groups[group].deps.insert(producer);
  }
  return grouping;
}

/// Orders groups so that every group comes after those it depends on
/// (stable: by the position of each group's first op otherwise).
SmallVector<unsigned> topologicalOrder(const Grouping &grouping) {
  unsigned n = grouping.groups.size();
  SmallVector<unsigned> indegree(n, 0);
  SmallVector<SmallVector<unsigned>> users(n);
  for (unsigned g = 0; g < n; ++g)
    for (unsigned dep : grouping.groups[g].deps) {
      ++indegree[g];
      users[dep].push_back(g);
    }
  SmallVector<unsigned> order;
  // Groups are created in program order, so the smallest ready index is the
  // one whose first op comes first.
  std::set<unsigned> ready;
  for (unsigned g = 0; g < n; ++g)
    if (indegree[g] == 0)
      ready.insert(g);
  while (!ready.empty()) {
    unsigned g = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(g);
    for (unsigned user : users[g])
      if (--indegree[user] == 0)
        ready.insert(user);
  }
  assert(order.size() == n && "fusion groups must form a DAG");
  return order;
}

/// A CPU device of the topology that tasks can be placed on.
struct PlacementDevice {
  const TopologyDevice *device;
  const TopologyMemorySpace *space;
  DictionaryAttr target;
  double available = 0;
};

class PlacePass : public orchestra::impl::PlaceBase<PlacePass> {
public:
  using PlaceBase::PlaceBase;

  void runOnOperation() override;

private:
  LogicalResult declareTopology(ModuleOp module, const Topology &topo);
  FailureOr<SmallVector<PlacementDevice>> getDevices(ModuleOp module,
                                                     const Topology &topo);
  LogicalResult checkEntry(func::FuncOp func);
};

} // namespace

LogicalResult PlacePass::declareTopology(ModuleOp module,
                                         const Topology &topo) {
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  SymbolTable symbols(module);
  for (const TopologyMemorySpace &space : topo.memorySpaces) {
    const TopologyDevice *device = topo.lookupDevice(space.device);
    if (Operation *existing = symbols.lookup(space.name)) {
      auto decl = dyn_cast<MemorySpaceOp>(existing);
      if (!decl || decl.getKind() != space.kind ||
          decl.getArch() != device->arch ||
          static_cast<int64_t>(decl.getDeviceId()) != device->deviceId)
        return existing->emitError()
               << "conflicts with memory space '" << space.name
               << "' of topology '" << topo.name << "'";
      continue;
    }
    MemorySpaceOp::create(builder, module.getLoc(), space.name, space.kind,
                          device->arch, device->deviceId);
  }

  // Record the topology: the artifact names it, and later stages map
  // (arch, device_id) back to devices.
  SmallVector<Attribute> devices;
  for (const TopologyDevice &device : topo.devices) {
    NamedAttrList entry;
    entry.append("name", builder.getStringAttr(device.name));
    entry.append("arch", builder.getStringAttr(device.arch));
    entry.append("device_id", builder.getI64IntegerAttr(device.deviceId));
    entry.append("compute_units",
                 builder.getI64IntegerAttr(device.computeUnits));
    devices.push_back(entry.getDictionary(builder.getContext()));
  }
  NamedAttrList record;
  record.append("name", builder.getStringAttr(topo.name));
  record.append("devices", builder.getArrayAttr(devices));
  module->setAttr("orchestra.topology",
                  record.getDictionary(builder.getContext()));
  return success();
}

FailureOr<SmallVector<PlacementDevice>>
PlacePass::getDevices(ModuleOp module, const Topology &topo) {
  const TargetRegistry &registry = getTargetRegistry();
  MLIRContext *ctx = module.getContext();
  SmallVector<PlacementDevice> devices;
  for (const TopologyDevice &device : topo.devices) {
    const TargetInfo *info = registry.lookup(device.arch);
    if (!info || info->executableFormat != ExecutableFormat::NativeObject)
      continue;
    const TopologyMemorySpace *space =
        topo.getDefaultMemorySpace(device, registry);
    if (!space)
      continue;
    // The task target: the device's arch keys plus arch, device_id and, by
    // default, one worker thread per core.
    NamedAttrList target;
    target.append(TargetRegistry::kArchKey, StringAttr::get(ctx, device.arch));
    target.append(TargetRegistry::kDeviceIdKey,
                  IntegerAttr::get(IntegerType::get(ctx, 64), device.deviceId));
    for (const auto &[key, value] : device.target) {
      Attribute attr;
      if (std::optional<int64_t> i = value.getAsInteger())
        attr = IntegerAttr::get(IntegerType::get(ctx, 64), *i);
      else if (std::optional<StringRef> s = value.getAsString())
        attr = StringAttr::get(ctx, *s);
      else if (std::optional<bool> b = value.getAsBoolean())
        attr = BoolAttr::get(ctx, *b);
      else if (std::optional<double> d = value.getAsNumber())
        attr = FloatAttr::get(Float64Type::get(ctx), *d);
      if (attr)
        target.set(StringRef(key), attr);
    }
    if (!target.get("num_threads") && info->lookupKey("num_threads"))
      target.append("num_threads", IntegerAttr::get(IntegerType::get(ctx, 64),
                                                    device.computeUnits));
    devices.push_back({&device, space, target.getDictionary(ctx)});
  }
  if (devices.empty()) {
    module.emitError() << "topology '" << topo.name
                       << "' has no CPU device to place work on";
    return failure();
  }
  return devices;
}

LogicalResult PlacePass::checkEntry(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "entry function '" << func.getSymName()
                            << "' must have a single block";
  auto isStaticTensor = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape();
  };
  FunctionType type = func.getFunctionType();
  for (auto [i, argType] : llvm::enumerate(type.getInputs()))
    if (!isStaticTensor(argType))
      return func.emitError()
             << "argument #" << i << " of entry function '" << func.getSymName()
             << "' has type " << argType
             << "; entry arguments must be ranked tensors of static shape";
  for (auto [i, resultType] : llvm::enumerate(type.getResults()))
    if (!isStaticTensor(resultType))
      return func.emitError()
             << "result #" << i << " of entry function '" << func.getSymName()
             << "' has type " << resultType
             << "; entry results must be ranked tensors of static shape";
  WalkResult walk = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto shaped = dyn_cast<ShapedType>(type);
          shaped && (!shaped.hasRank() || !shaped.hasStaticShape())) {
        op->emitError() << "result type " << type
                        << " is not a ranked tensor of static shape; only "
                           "static shapes are supported";
        return WalkResult::interrupt();
      }
    if (llvm::any_of(op->getResultTypes(),
                     [](Type type) { return isa<MemRefType>(type); })) {
      op->emitError() << "works on memrefs; the entry function must work on "
                         "tensors (value semantics)";
      return WalkResult::interrupt();
    }
    if (op->getParentOp() == func.getOperation() &&
        !op->hasTrait<OpTrait::IsTerminator>() && !isMemoryEffectFree(op) &&
        !isa<linalg::LinalgOp>(op)) {
      op->emitError() << "has memory effects; the entry function must be a "
                         "value-semantics tensor program";
      return WalkResult::interrupt();
    }
    if (isa<ScheduleOp, TaskOp, LaunchOp>(op)) {
      op->emitError() << "the entry function is already scheduled";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void PlacePass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<func::FuncOp> entryOr = lookupEntryFunction(module, entry);
  if (failed(entryOr))
    return signalPassFailure();
  func::FuncOp func = *entryOr;
  if (failed(checkEntry(func)))
    return signalPassFailure();

  llvm::Expected<Topology> topo =
      Topology::resolve(topology, getTargetRegistry());
  if (!topo) {
    module.emitError() << "cannot use topology '" << topology
                       << "': " << llvm::toString(topo.takeError());
    return signalPassFailure();
  }
  if (failed(declareTopology(module, *topo)))
    return signalPassFailure();
  func->setAttr("orchestra.entry", UnitAttr::get(&getContext()));
  FailureOr<SmallVector<PlacementDevice>> devicesOr = getDevices(module, *topo);
  if (failed(devicesOr))
    return signalPassFailure();
  SmallVector<PlacementDevice> &devices = *devicesOr;
  MLIRContext *ctx = &getContext();

  // Entry arguments and results live in the first device's default space.
  const TopologyDevice &hostDevice = topo->devices.front();
  const TopologyMemorySpace *hostSpace =
      topo->getDefaultMemorySpace(hostDevice, getTargetRegistry());
  if (!hostSpace) {
    module.emitError() << "device '" << hostDevice.name << "' of topology '"
                       << topo->name << "' has no default memory space";
    return signalPassFailure();
  }

  Block &body = func.getBody().front();
  Grouping grouping = buildGroups(body);
  SmallVector<unsigned> order = topologicalOrder(grouping);

  // Transfer estimate between two spaces; infinite without a link.
  auto transferTime = [&](StringRef from, StringRef to, int64_t bytes) {
    if (from == to)
      return 0.0;
    const TopologyLink *link = topo->lookupLink(from, to);
    if (!link || link->bandwidth <= 0)
      return std::numeric_limits<double>::infinity();
    return link->latency + bytes / link->bandwidth;
  };

  // Where each value lives and when it is ready.
  struct Location {
    StringRef space;
    double ready = 0;
  };
  DenseMap<Value, Location> locations;
  for (BlockArgument arg : func.getArguments())
    locations[arg] = {hostSpace->name, 0};
  // Constants that are not cloned (weights) start in host memory.
  for (Operation &op : body)
    if (op.hasTrait<OpTrait::ConstantLike>() && !isCloneable(&op))
      for (Value result : op.getResults())
        locations[result] = {hostSpace->name, 0};

  auto *terminator = body.getTerminator();
  OpBuilder builder(terminator);
  auto schedule =
      ScheduleOp::create(builder, func.getLoc(), terminator->getOperandTypes());
  Block *scheduleBody = new Block();
  schedule.getBody().push_back(scheduleBody);
  builder.setInsertionPointToEnd(scheduleBody);

  DenseMap<Value, Value> replacement;
  DenseMap<std::pair<Value, StringRef>, Value> transfers;
  // Returns `value` (an original value) as available in `space`.
  auto materialize = [&](Value value, StringRef space, Location loc) {
    Value current = replacement.lookup(value);
    if (!current)
      current = value;
    if (loc.space == space)
      return current;
    Value &cached = transfers[{value, space}];
    if (!cached)
      cached =
          TransferOp::create(builder, value.getLoc(), current.getType(),
                             current, FlatSymbolRefAttr::get(ctx, loc.space),
                             FlatSymbolRefAttr::get(ctx, space));
    return cached;
  };

  unsigned taskIndex = 0;
  for (unsigned g : order) {
    Group &group = grouping.groups[g];
    llvm::sort(group.ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(),
                                              group.ops.end());

    // Inputs (values from other groups or arguments) and cloned ops.
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> cloned;
    double flops = 0;
    int64_t bytes = 0;
    for (Operation *op : group.ops) {
      flops += estimateFlops(op);
      for (Type type : op->getResultTypes())
        bytes += byteSize(type);
      for (Value input : getInputs(op)) {
        Operation *def = input.getDefiningOp();
        if (def && members.contains(def))
          continue;
        if (def && isCloneable(def)) {
          // A cloned fill needs its own (cloneable) operands first.
          for (Value inner : def->getOperands())
            if (Operation *innerDef = inner.getDefiningOp())
              cloned.insert(innerDef);
          cloned.insert(def);
          continue;
        }
        inputs.insert(input);
        bytes += byteSize(input.getType());
      }
    }
    // Results: values used outside the group.
    SmallVector<Value> results;
    for (Operation *op : group.ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              Operation *ancestor = body.findAncestorOpInBlock(*user);
              return !ancestor || !members.contains(ancestor);
            }))
          results.push_back(result);

    // Earliest finish over the devices.
    std::string elementType = "f32";
    if (!results.empty())
      if (auto shaped = dyn_cast<ShapedType>(results.front().getType())) {
        llvm::raw_string_ostream os(elementType);
        elementType.clear();
        os << shaped.getElementType();
      }
    unsigned best = 0;
    double bestStart = 0, bestFinish = std::numeric_limits<double>::infinity();
    for (auto [d, device] : llvm::enumerate(devices)) {
      double start = device.available;
      for (Value input : inputs) {
        Location loc = locations.lookup(input);
        start = std::max(start,
                         loc.ready + transferTime(loc.space, device.space->name,
                                                  byteSize(input.getType())));
      }
      double peak = device.device->peakFlops.lookup(elementType);
      if (peak <= 0)
        peak = device.device->peakFlops.lookup("f32");
      double compute = peak > 0 ? flops / peak : 0;
      double memory = device.device->memoryBandwidth > 0
                          ? bytes / device.device->memoryBandwidth
                          : 0;
      double finish =
          start + std::max(compute, memory) + device.device->launchOverhead;
      if (finish < bestFinish) {
        best = d;
        bestStart = start;
        bestFinish = finish;
      }
    }
    if (!std::isfinite(bestFinish)) {
      group.ops.front()->emitError()
          << "no device of topology '" << topo->name
          << "' can receive the operands of this op (missing links)";
      return signalPassFailure();
    }
    PlacementDevice &device = devices[best];
    device.available = bestFinish;

    SmallVector<Value> args;
    for (Value input : inputs)
      args.push_back(
          materialize(input, device.space->name, locations.lookup(input)));

    // Name the task after its anchor (or its first op).
    Operation *anchor = group.ops.front();
    for (Operation *op : group.ops)
      if (classify(op) == NodeKind::Anchor) {
        anchor = op;
        break;
      }
    StringRef opName = anchor->getName().stripDialect();
    std::string name = ("t" + Twine(taskIndex++) + "_" + opName).str();

    auto task = TaskOp::create(builder, anchor->getLoc(),
                               ValueRange(results).getTypes(), name,
                               device.target, args);
    task.setPredictedStartAttr(builder.getF64FloatAttr(bestStart));
    task.setPredictedFinishAttr(builder.getF64FloatAttr(bestFinish));
    {
      OpBuilder::InsertionGuard guard(builder);
      Block &taskBody = task.getBody().front();
      builder.setInsertionPointToEnd(&taskBody);
      IRMapping mapping;
      for (auto [input, arg] : llvm::zip(inputs, taskBody.getArguments()))
        mapping.map(input, arg);
      for (Operation *op : cloned)
        builder.clone(*op, mapping);
      for (Operation *op : group.ops)
        builder.clone(*op, mapping);
      SmallVector<Value> yielded;
      for (Value result : results)
        yielded.push_back(mapping.lookup(result));
      YieldOp::create(builder, task.getLoc(), yielded);
    }
    for (auto [result, newResult] : llvm::zip(results, task.getResults())) {
      replacement[result] = newResult;
      locations[result] = {device.space->name, bestFinish};
    }
  }

  // Results go back to the host space.
  SmallVector<Value> yielded;
  for (Value value : terminator->getOperands()) {
    auto it = locations.find(value);
    if (it == locations.end()) {
      // A constant or another value defined outside the groups.
      yielded.push_back(replacement.lookup(value) ? replacement.lookup(value)
                                                  : value);
      continue;
    }
    yielded.push_back(materialize(value, hostSpace->name, it->second));
  }
  YieldOp::create(builder, func.getLoc(), yielded);
  terminator->setOperands(schedule.getResults());

  // Erase the original ops, users first.
  SmallVector<Operation *> toErase;
  for (Operation &op : body)
    if (&op != schedule.getOperation() && &op != terminator)
      toErase.push_back(&op);
  for (Operation *op : llvm::reverse(toErase))
    if (op->use_empty())
      op->erase();
}
