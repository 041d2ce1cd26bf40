//===- Schedule.cpp - Stage 2: grouping, costing and scheduling -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Groups the entry function into fusion groups, builds their task graph on
// the topology's devices with the cost model, schedules it with one of the
// algorithms of lib/Scheduling, and rewrites the body into an
// `orchestra.schedule` of tasks and transfers.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Schedule.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/CostModel.h"
#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Scheduling/Scheduler.h"
#include "orchestra/Support/Limits.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

#include <limits>

namespace mlir::orchestra {
#define GEN_PASS_DEF_SCHEDULE
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {

enum class NodeKind {
  /// A structured op with a reduction loop (matmul, conv, pooling, a
  /// reduction), or a loop: the expensive centre of a fusion group.
  Anchor,
  /// Elementwise structured ops and data movement: fused around anchors.
  Elementwise,
};

/// Constants up to this size (and splats of any size) are copied into the
/// kernels that use them; larger ones (weights) stay in the function, live in
/// the plan's memory and reach the kernels as arguments, so that they are
/// neither compiled into every kernel nor duplicated.
constexpr int64_t kMaxClonedConstantBytes = 256;

/// Whether `value` is the result of a constant op (a weight).
bool isConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() &&
         def->getNumResults() == 1;
}

bool isSmallConstant(Operation *op) {
  auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return true;
  if (getBufferSize(type) <= kMaxClonedConstantBytes)
    return true;
  auto value = op->getAttrOfType<DenseElementsAttr>("value");
  return value && value.isSplat();
}

/// Whether `op` reads the `i1` of a 0-d tensor: a branch's condition, which
/// crosses between tasks as that tensor.
bool isConditionRead(Operation *op) {
  auto extract = dyn_cast<tensor::ExtractOp>(op);
  return extract && extract.getTensor().getType().getRank() == 0 &&
         extract.getType().isInteger(1);
}

/// Ops copied into every group that uses them instead of being grouped:
/// small constants, `tensor.empty`, fills of those (cheaper to recompute
/// in each kernel than to store and pass), the computations of dynamic
/// sizes (`tensor.dim` of a tensor the group then reads, and index
/// arithmetic on those) and the reads of branch conditions (so that a
/// branch is a task apart from its condition's producer, and may be
/// speculated: design/0019).
bool isCloneable(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return op->getNumResults() == 1 && isSmallConstant(op);
  if (isa<tensor::DimOp>(op) || isConditionRead(op))
    return true;
  auto operandsCloneable = [&] {
    return llvm::all_of(op->getOperands(), [](Value operand) {
      Operation *def = operand.getDefiningOp();
      return def && isCloneable(def);
    });
  };
  if (isa<tensor::EmptyOp, linalg::FillOp>(op))
    return operandsCloneable();
  bool sizeArithmetic =
      op->getNumRegions() == 0 && op->getNumResults() > 0 &&
      isMemoryEffectFree(op) &&
      llvm::all_of(op->getResultTypes(),
                   [](Type type) { return type.isIndex(); }) &&
      llvm::all_of(op->getOperandTypes(),
                   [](Type type) { return type.isIndex(); });
  return sizeArithmetic && operandsCloneable();
}

NodeKind classify(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.getNumReductionLoops() > 0 ? NodeKind::Anchor
                                               : NodeKind::Elementwise;
  // A loop (a recurrent layer's steps) is a kernel's centre of its own: in
  // the group of its input projection, that matmul would lose its parallel
  // tiles (a task's parallel loop is its result's producer's).
  if (isa<LoopLikeOpInterface>(op))
    return NodeKind::Anchor;
  return NodeKind::Elementwise;
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

  /// Moves the ops of `from` into `into`; `from` is left empty (and is no
  /// task). The caller ensures that only `into` used `from`'s values.
  void merge(unsigned into, unsigned from) {
    Group &source = groups[from];
    Group &target = groups[into];
    for (Operation *op : source.ops) {
      target.ops.push_back(op);
      groupOf[op] = into;
    }
    target.hasAnchor |= source.hasAnchor;
    for (unsigned dep : source.deps)
      if (dep != into)
        target.deps.insert(dep);
    target.deps.remove(from);
    source.ops.clear();
    source.deps.clear();
    source.hasAnchor = false;
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

/// The devices that can run an op (bit d: device d of the topology).
using SupportMask = llvm::SmallBitVector;

/// Builds the fusion groups of `body` (ops in program order). Ops join a
/// group only when the same devices support them, so that an op one device
/// cannot run does not take its neighbours away from that device.
Grouping buildGroups(Block &body,
                     function_ref<SupportMask(Operation *)> getSupport) {
  Grouping grouping;
  for (Operation &opRef : body.without_terminator()) {
    Operation *op = &opRef;
    // Constants are cloned or passed, never tasks of their own; so are
    // fills and empty tensors, except one that is a result of the function
    // (nothing else computes its value).
    bool returned = isa<linalg::FillOp, tensor::EmptyOp>(op) &&
                    llvm::any_of(op->getUsers(), [&](Operation *user) {
                      return user == body.getTerminator();
                    });
    if ((isCloneable(op) && !returned) || op->hasTrait<OpTrait::ConstantLike>())
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
      if (getSupport(op) != getSupport(grouping.groups[*g].ops.front()))
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
    // The producer group of the op's initial value (the bias broadcast that
    // initializes a convolution, when the convolution joined the group of
    // its input or filter) comes along too when it has no anchor and only
    // this op reads it: as a task of its own it would write a whole tensor
    // to memory that the op's tiles compute in cache.
    SmallVector<Value> inits;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      for (OpOperand &init : dps.getDpsInitsMutable())
        inits.push_back(init.get());
    for (Value init : inits) {
      Operation *def = init.getDefiningOp();
      std::optional<unsigned> g = def ? grouping.lookup(def) : std::nullopt;
      if (!g || *g == group || grouping.groups[*g].hasAnchor ||
          grouping.groups[*g].ops.empty() ||
          getSupport(op) != getSupport(grouping.groups[*g].ops.front()))
        continue;
      bool onlyForOp = llvm::all_of(grouping.groups[*g].ops, [&](Operation *p) {
        return llvm::all_of(p->getUsers(), [&](Operation *user) {
          std::optional<unsigned> userGroup = grouping.lookup(user);
          return user == op || op->isProperAncestor(user) ||
                 (userGroup && *userGroup == *g);
        });
      });
      bool cycle = llvm::any_of(grouping.groups[*g].deps, [&](unsigned dep) {
        return dep != group && grouping.dependsOn(dep, group);
      });
      if (onlyForOp && !cycle)
        grouping.merge(group, *g);
    }
    for (unsigned producer : producerGroups)
      if (producer != group && !grouping.groups[producer].ops.empty())
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

/// A fusion group ready to become a task: its ops in program order, the
/// values it reads from outside, the cloned cheap producers and its results.
struct TaskInfo {
  SmallVector<Operation *> ops;
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> cloned;
  SmallVector<Value> results;
  Work work;
  /// The op the task is named after and located at.
  Operation *anchor = nullptr;
};

/// The fusion groups of an entry block as tasks, in dependence order.
struct EntryTasks {
  std::vector<TaskInfo> tasks;
  /// The task computing each grouped op's results.
  DenseMap<Operation *, unsigned> taskOf;
};

EntryTasks collectTasks(Block &body, const CostModel &model,
                        const CostShapes &shapes) {
  const Topology &topo = model.getTopology();
  DenseMap<Operation *, SupportMask> masks;
  auto getSupport = [&](Operation *op) -> SupportMask {
    auto [it, inserted] = masks.try_emplace(op);
    if (inserted) {
      it->second.resize(topo.devices.size());
      for (auto [d, device] : llvm::enumerate(topo.devices))
        if (model.supports(device, {op}))
          it->second.set(d);
    }
    return it->second;
  };
  Grouping grouping = buildGroups(body, getSupport);
  EntryTasks entry;
  for (unsigned g : topologicalOrder(grouping)) {
    Group &group = grouping.groups[g];
    // (Groups merged into another are empty.)
    if (group.ops.empty())
      continue;
    llvm::sort(group.ops, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    llvm::SmallPtrSet<Operation *, 8> members(group.ops.begin(),
                                              group.ops.end());
    TaskInfo task;
    task.ops = group.ops;
    // A cloned op comes after the cloned ops it reads; the tensor whose
    // size a cloned `tensor.dim` reads, or whose condition a cloned
    // `tensor.extract` reads, is an input.
    std::function<void(Operation *)> addCloned = [&](Operation *def) {
      if (task.cloned.contains(def))
        return;
      for (Value inner : def->getOperands()) {
        Operation *innerDef = inner.getDefiningOp();
        if (innerDef && isCloneable(innerDef))
          addCloned(innerDef);
        else if ((isa<tensor::DimOp>(def) || isConditionRead(def)) &&
                 task.inputs.insert(inner))
          task.work.bytes += shapes.estimateBytes(inner);
      }
      task.cloned.insert(def);
    };
    for (Operation *op : group.ops) {
      task.work.flops += shapes.estimateFlops(op);
      task.work.divergenceFlops += shapes.estimateDivergenceFlops(op);
      for (Value result : op->getResults())
        task.work.bytes += shapes.estimateBytes(result);
      for (Value input : getInputs(op)) {
        Operation *def = input.getDefiningOp();
        if (def && members.contains(def))
          continue;
        if (def && isCloneable(def)) {
          addCloned(def);
          continue;
        }
        if (task.inputs.insert(input))
          task.work.bytes += shapes.estimateBytes(input);
      }
    }
    // Results: values used outside the group.
    for (Operation *op : group.ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              Operation *ancestor = body.findAncestorOpInBlock(*user);
              return !ancestor || !members.contains(ancestor);
            }))
          task.results.push_back(result);
    task.anchor = group.ops.front();
    for (Operation *op : group.ops)
      if (classify(op) == NodeKind::Anchor) {
        task.anchor = op;
        break;
      }
    if (task.anchor->getNumResults() > 0)
      task.work.elementType =
          getElementTypeName(task.anchor->getResult(0).getType());
    for (Operation *op : group.ops)
      entry.taskOf[op] = entry.tasks.size();
    entry.tasks.push_back(std::move(task));
  }
  return entry;
}

/// Builds the task graph: task 0 is the source (arguments and weights on
/// the first device), tasks 1..N the groups, task N+1 the sink (results).
/// (task index in EntryTasks, device) pairs the scheduler must not use.
using ForbiddenPlacements = llvm::DenseSet<std::pair<unsigned, unsigned>>;
/// Devices that take no task: this build cannot compile for their arch.
using ExcludedDevices = llvm::SmallBitVector;

/// A branch task of the entry that divergence-to-speculation can split
/// (design/0019, decision 3): the task index in EntryTasks, the condition
/// tensor it reads, and the work of each side (with the task's other ops).
struct BranchTask {
  unsigned task;
  /// The task's scf.if.
  Operation *branch = nullptr;
  Value condition;
  Work sides[2];
  /// The ops each side's task runs (the task's other ops and the side's),
  /// which decide the devices that can run it.
  SmallVector<Operation *> sideOps[2];
};

/// Branches costed for speculation per compile (each schedules the program
/// once more).
constexpr unsigned kMaxSpeculationCandidates = 8;
/// The least gain, in parts of the makespan, for which a branch is
/// speculated.
constexpr double kMinSpeculationGain = 0.05;

/// Task `t` as a branch that divergence-to-speculation can split: one
/// `scf.if` with results whose condition the task reads from a 0-d tensor,
/// its results the task's, the task's other ops pure, and both sides safe to
/// run whatever the condition.
std::optional<BranchTask> getBranchTask(unsigned t, const TaskInfo &info,
                                        const CostShapes &shapes) {
  scf::IfOp branch;
  for (Operation *op : info.ops) {
    auto ifOp = dyn_cast<scf::IfOp>(op);
    if (ifOp && !branch && ifOp.getNumResults() > 0)
      branch = ifOp;
    else if (!isPure(op))
      return std::nullopt;
  }
  // Each side computes something: a side that only yields constants or
  // the task's values is no task of its own (and no GPU kernel).
  auto computes = [](Region &side) {
    return llvm::any_of(side.front().without_terminator(), [](Operation &op) {
      return !op.hasTrait<OpTrait::ConstantLike>();
    });
  };
  if (!branch ||
      llvm::any_of(info.results,
                   [&](Value v) { return v.getDefiningOp() != branch; }) ||
      !computes(branch.getThenRegion()) || !computes(branch.getElseRegion()) ||
      !canSpeculateSides(branch))
    return std::nullopt;
  Operation *read = branch.getCondition().getDefiningOp();
  if (!read || !isConditionRead(read) || !info.cloned.contains(read))
    return std::nullopt;
  BranchTask result{t,
                    branch.getOperation(),
                    read->getOperand(0),
                    {info.work, info.work},
                    {}};
  double common = 0, commonDivergence = 0;
  SmallVector<Operation *> commonOps;
  for (Operation *op : info.ops)
    if (op != branch.getOperation()) {
      common += shapes.estimateFlops(op);
      commonDivergence += shapes.estimateDivergenceFlops(op);
      commonOps.push_back(op);
    }
  Region *sides[] = {&branch.getThenRegion(), &branch.getElseRegion()};
  for (auto [s, side] : llvm::enumerate(sides)) {
    result.sides[s].flops = common;
    result.sides[s].divergenceFlops = commonDivergence;
    result.sideOps[s] = commonOps;
    for (Operation &op : side->front().without_terminator()) {
      result.sides[s].flops += shapes.estimateFlops(&op);
      result.sides[s].divergenceFlops += shapes.estimateDivergenceFlops(&op);
      result.sideOps[s].push_back(&op);
    }
  }
  return result;
}

/// The costs of task `t` (running `ops`) on each device: infinite where it
/// cannot run.
std::vector<double> getTaskCosts(ArrayRef<Operation *> ops, const Work &work,
                                 unsigned t, const CostModel &model,
                                 const ExcludedDevices &excluded,
                                 const ForbiddenPlacements &forbidden) {
  const Topology &topo = model.getTopology();
  std::vector<double> costs(topo.devices.size(), scheduling::kInfinity);
  for (auto [d, device] : llvm::enumerate(topo.devices)) {
    const TopologyMemorySpace *space = model.getDefaultSpace(d);
    if (!space || excluded.test(d) || !model.supports(device, ops) ||
        forbidden.contains({t, static_cast<unsigned>(d)}))
      continue;
    costs[d] = model.computeTime(device, work);
  }
  return costs;
}

/// With `speculated`, the graph of the same program with those branches
/// speculated: each one's task node runs the then side, a node after the
/// groups its else side, both without the condition, and a commit node
/// after the condition and both sides gives the branch's results to their
/// readers (costed as a copy of them). Branch i's else node is N + 1 + 2i,
/// its commit node N + 2 + 2i, for N tasks; the sink comes last.
FailureOr<scheduling::TaskGraph>
buildTaskGraph(func::FuncOp func, const EntryTasks &entry,
               const CostModel &model, const CostShapes &shapes,
               const ExcludedDevices &excluded,
               const ForbiddenPlacements &forbidden = {},
               ArrayRef<BranchTask> speculated = {}) {
  const Topology &topo = model.getTopology();
  unsigned numDevices = topo.devices.size();
  scheduling::TaskGraph graph(numDevices);
  std::vector<double> pinned(numDevices, scheduling::kInfinity);
  pinned[0] = 0;
  graph.addTask(pinned, "inputs");
  // The speculated branch of each task, by task index.
  DenseMap<unsigned, unsigned> branchOf;
  for (auto [i, branch] : llvm::enumerate(speculated))
    branchOf[branch.task] = i;
  for (auto [t, task] : llvm::enumerate(entry.tasks)) {
    auto branch = branchOf.find(t);
    std::vector<double> costs =
        branch == branchOf.end()
            ? getTaskCosts(task.ops, task.work, t, model, excluded, forbidden)
            : getTaskCosts(speculated[branch->second].sideOps[0],
                           speculated[branch->second].sides[0], t, model,
                           excluded, forbidden);
    bool runnable = false;
    for (unsigned d = 0; d < numDevices; ++d) {
      const TopologyMemorySpace *space = model.getDefaultSpace(d);
      runnable |= space && costs[d] < scheduling::kInfinity &&
                  task.work.bytes <= static_cast<double>(space->capacity);
    }
    if (!runnable) {
      InFlightDiagnostic diag = task.anchor->emitError()
                                << "no device of topology '" << topo.name
                                << "' can run this op's task";
      for (auto [d, device] : llvm::enumerate(topo.devices)) {
        Diagnostic &note = diag.attachNote() << "device '" << device.name
                                             << "' (" << device.arch << "): ";
        const TopologyMemorySpace *space = model.getDefaultSpace(d);
        if (!space)
          note << "has no default memory space";
        else if (excluded.test(d))
          note << "this build cannot compile for its arch yet (no lowering "
                  "pipeline)";
        else if (forbidden.contains(
                     {static_cast<unsigned>(t), static_cast<unsigned>(d)}))
          note << "kept off it: the weights resident there would not fit "
                  "beside this task";
        else if (Operation *op = model.getUnsupportedOp(device, task.ops))
          note << "its arch does not support '" << op->getName()
               << "' of the task";
        else if (!(costs[d] < scheduling::kInfinity))
          note << "has no peak throughput for element type "
               << task.work.elementType;
        else
          note << "the task's working set of "
               << static_cast<int64_t>(task.work.bytes)
               << " bytes exceeds its memory capacity of " << space->capacity
               << " bytes";
      }
      return failure();
    }
    std::string name = task.anchor->getName().stripDialect().str();
    graph.addTask(std::move(costs), name, task.work.bytes);
  }
  // The else side and the commit of each speculated branch.
  unsigned numTasks = entry.tasks.size();
  auto elseNode = [&](unsigned i) { return numTasks + 1 + 2 * i; };
  auto commitNode = [&](unsigned i) { return numTasks + 2 + 2 * i; };
  SmallVector<double> resultBytes(speculated.size(), 0);
  for (auto [i, branch] : llvm::enumerate(speculated)) {
    const TaskInfo &task = entry.tasks[branch.task];
    for (Value result : task.results)
      resultBytes[i] += shapes.estimateBytes(result);
    graph.addTask(getTaskCosts(branch.sideOps[1], branch.sides[1], branch.task,
                               model, excluded, forbidden),
                  "else", task.work.bytes);
    Work copy;
    copy.bytes = 2 * resultBytes[i];
    std::vector<double> costs(numDevices, scheduling::kInfinity);
    for (auto [d, device] : llvm::enumerate(topo.devices))
      if (!excluded.test(d))
        costs[d] = model.computeTime(device, copy);
    graph.addTask(std::move(costs), "commit", resultBytes[i]);
  }
  unsigned sink = graph.addTask(pinned, "outputs");

  auto producerTask = [&](Value value) -> unsigned {
    if (Operation *def = value.getDefiningOp()) {
      auto it = entry.taskOf.find(def);
      if (it != entry.taskOf.end()) {
        auto branch = branchOf.find(it->second);
        return branch == branchOf.end() ? it->second + 1
                                        : commitNode(branch->second);
      }
    }
    return 0;
  };
  // A constant costs no transfer: each device that reads it gets its own copy
  // in its memory, written once when the plan is loaded
  // (orchestra-plan-buffers).
  for (auto [t, task] : llvm::enumerate(entry.tasks)) {
    auto branch = branchOf.find(t);
    for (Value input : task.inputs) {
      if (isConstant(input))
        continue;
      double bytes = shapes.estimateBytes(input);
      if (branch == branchOf.end()) {
        graph.addEdge(producerTask(input), t + 1, bytes);
      } else if (input == speculated[branch->second].condition) {
        graph.addEdge(producerTask(input), commitNode(branch->second), bytes);
      } else {
        graph.addEdge(producerTask(input), t + 1, bytes);
        graph.addEdge(producerTask(input), elseNode(branch->second), bytes);
      }
    }
  }
  for (auto [i, branch] : llvm::enumerate(speculated)) {
    graph.addEdge(branch.task + 1, commitNode(i), resultBytes[i]);
    graph.addEdge(elseNode(i), commitNode(i), resultBytes[i]);
  }
  for (Value result : func.getBody().front().getTerminator()->getOperands())
    graph.addEdge(producerTask(result), sink, shapes.estimateBytes(result));

  for (unsigned p = 0; p < numDevices; ++p) {
    if (const TopologyMemorySpace *space = model.getDefaultSpace(p))
      graph.setCapacity(p, space->capacity);
    for (unsigned q = 0; q < numDevices; ++q)
      if (p != q)
        graph.setCommunication(p, q, model.getRouteLatency(p, q),
                               model.getRouteSecondsPerByte(p, q));
  }
  if (llvm::Error error = graph.finalize()) {
    func.emitError() << "cannot schedule: " << llvm::toString(std::move(error));
    return failure();
  }
  return graph;
}

/// Weights stay resident, for the whole run, in every device memory that
/// reads them (orchestra-plan-buffers); the task graph only checks each
/// task's working set against its device's capacity. Estimates what
/// `sched` needs of each device's memory (the distinct weights its tasks
/// read, plus the largest of their other working sets) and, on the first
/// device where that exceeds the capacity, forbids the device to the tasks
/// that start last on it until the estimate fits. Returns whether it
/// forbade anything.
bool forbidOverfullPlacements(const EntryTasks &entry,
                              const scheduling::Schedule &sched,
                              const CostModel &model, const CostShapes &largest,
                              ForbiddenPlacements &forbidden) {
  const Topology &topo = model.getTopology();
  for (unsigned d = 0; d < topo.devices.size(); ++d) {
    const TopologyMemorySpace *space = model.getDefaultSpace(d);
    if (!space)
      continue;
    // The tasks on d, latest start first.
    SmallVector<unsigned> onDevice;
    for (unsigned t = 0; t < entry.tasks.size(); ++t)
      if (sched.device[t + 1] == d)
        onDevice.push_back(t);
    llvm::stable_sort(onDevice, [&](unsigned a, unsigned b) {
      return sched.start[a + 1] > sched.start[b + 1];
    });
    // Buffers take whole 64-byte lines in the plan.
    auto padded = [&](Value value) {
      return static_cast<double>(llvm::alignTo(
          std::max<int64_t>(1,
                            static_cast<int64_t>(largest.estimateBytes(value))),
          kBufferAlignment));
    };
    auto estimate = [&](ArrayRef<unsigned> tasks) {
      llvm::DenseSet<Value> weights;
      double resident = 0, largest = 0;
      for (unsigned t : tasks) {
        double own = 0;
        for (Value input : entry.tasks[t].inputs) {
          if (!isConstant(input))
            own += padded(input);
          else if (weights.insert(input).second)
            resident += padded(input);
        }
        for (Value result : entry.tasks[t].results)
          own += padded(result);
        largest = std::max(largest, own);
      }
      return resident + largest;
    };
    double capacity = static_cast<double>(space->capacity);
    if (estimate(onDevice) <= capacity)
      continue;
    // Keep the earliest tasks; forbid d to the later ones until it fits.
    ArrayRef<unsigned> kept(onDevice);
    unsigned dropped = 0;
    while (!kept.empty() && estimate(kept) > capacity) {
      forbidden.insert({kept.front(), d});
      kept = kept.drop_front();
      ++dropped;
    }
    return dropped > 0;
  }
  return false;
}

class SchedulePass : public orchestra::impl::ScheduleBase<SchedulePass> {
public:
  using ScheduleBase::ScheduleBase;

  void runOnOperation() override;

private:
  LogicalResult declareTopology(ModuleOp module, const Topology &topo);
  LogicalResult checkEntry(func::FuncOp func);
  /// Checks that every task of the schedule `func` holds targets a device of
  /// `topo`, and completes its target with the device's keys.
  LogicalResult checkHandWrittenSchedule(func::FuncOp func,
                                         const Topology &topo);
};

/// The `target` dictionary of tasks on `device`: its arch keys plus arch,
/// device_id and, where the arch has it, one worker thread per core.
DictionaryAttr getTaskTarget(MLIRContext *ctx, const TopologyDevice &device,
                             const TargetInfo *info) {
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
  if (!target.get("num_threads") && info && info->lookupKey("num_threads"))
    target.append("num_threads", IntegerAttr::get(IntegerType::get(ctx, 64),
                                                  device.computeUnits));
  return target.getDictionary(ctx);
}

} // namespace

FailureOr<scheduling::TaskGraph>
mlir::orchestra::buildEntryTaskGraph(func::FuncOp func,
                                     const CostModel &model) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "entry function '" << func.getSymName()
                            << "' must have a single block";
  FailureOr<SmallVector<DynamicDim>> dims = getDynamicDims(func);
  if (failed(dims))
    return failure();
  CostShapes shapes(func, *dims, CostShapes::AtOpt);
  EntryTasks entry = collectTasks(func.getBody().front(), model, shapes);
  return buildTaskGraph(func, entry, model, shapes,
                        ExcludedDevices(model.getTopology().devices.size()));
}

LogicalResult SchedulePass::declareTopology(ModuleOp module,
                                            const Topology &topo) {
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  SymbolTable symbols(module);
  for (const TopologyMemorySpace &space : topo.memorySpaces) {
    const TopologyDevice *device = topo.lookupDevice(space.device);
    if (Operation *existing = symbols.lookup(space.name)) {
      auto decl = dyn_cast<MemorySpaceOp>(existing);
      if (!decl || decl.getKind() != space.kind ||
          decl.getArch() != device->arch ||
          static_cast<int64_t>(decl.getDeviceId()) != device->deviceId ||
          (decl.getCapacityAttr() &&
           decl.getCapacityAttr().getInt() != space.capacity))
        return existing->emitError()
               << "conflicts with memory space '" << space.name
               << "' of topology '" << topo.name << "'";
      if (!decl.getCapacityAttr())
        decl.setCapacityAttr(IntegerAttr::get(
            IntegerType::get(module.getContext(), 64), space.capacity));
      continue;
    }
    MemorySpaceOp::create(builder, module.getLoc(), space.name, space.kind,
                          device->arch, device->deviceId,
                          builder.getI64IntegerAttr(space.capacity));
  }

  // Record the topology: the artifact names it, and later stages map
  // (arch, device_id) back to devices.
  MLIRContext *ctx = module.getContext();
  SmallVector<DeviceAttr> devices;
  for (const TopologyDevice &device : topo.devices)
    devices.push_back(
        DeviceAttr::get(ctx, builder.getStringAttr(device.name),
                        builder.getStringAttr(device.arch), device.deviceId,
                        std::max<int64_t>(device.computeUnits, 1)));
  module->setAttr(
      attr::kTopology,
      TopologyAttr::get(ctx, builder.getStringAttr(topo.name), devices));
  return success();
}
LogicalResult SchedulePass::checkHandWrittenSchedule(func::FuncOp func,
                                                     const Topology &topo) {
  const TargetRegistry &registry = getTargetRegistry();
  WalkResult walk = func.walk([&](TaskOp task) {
    StringRef arch = task.getArch();
    int64_t deviceId = task.getDeviceId();
    auto device =
        llvm::find_if(topo.devices, [&](const TopologyDevice &candidate) {
          return candidate.arch == arch && candidate.deviceId == deviceId;
        });
    if (device != topo.devices.end()) {
      // The device's target keys, as the scheduler gives them, where the
      // task does not set them.
      NamedAttrList target(getTaskTarget(task.getContext(), *device,
                                         registry.lookup(device->arch)));
      for (NamedAttribute key : task.getTarget())
        target.set(key.getName(), key.getValue());
      task.setTargetAttr(target.getDictionary(task.getContext()));
      return WalkResult::advance();
    }
    task.emitError() << "task '" << task.getName() << "' targets " << arch
                     << " device " << deviceId << ", which topology '"
                     << topo.name << "' does not have";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult SchedulePass::checkEntry(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "entry function '" << func.getSymName()
                            << "' must have a single block";
  FailureOr<SmallVector<DynamicDim>> dims = getDynamicDims(func);
  if (failed(dims))
    return failure();
  // A dynamic size must be an expression in the entry's named dims
  // (orchestra-bind-dims), bounded over their ranges (design/0017).
  auto checkSizes = [&](Value value, auto emit) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    if (!tensor)
      return emit() << " is not a ranked tensor";
    // The largest size of each dimension: the plan holds the tensor at it.
    SmallVector<int64_t> largest(tensor.getShape());
    for (int64_t dim = 0; dim < tensor.getRank(); ++dim) {
      if (!tensor.isDynamicDim(dim))
        continue;
      FailureOr<AffineExpr> expr =
          getDimExpr(value, dim, func, resolveEntryArgDim);
      if (failed(expr) && isa<BlockArgument>(value))
        return emit() << " has dynamic dimension #" << dim
                      << ", which has no named, bounded dim (run "
                         "orchestra-bind-dims first)";
      if (failed(expr))
        return emit() << " has dimension #" << dim
                      << " of dynamic size that is not an affine expression "
                         "in the entry's named dims (it depends on data, or "
                         "was not named by orchestra-bind-dims)";
      std::optional<int64_t> bound = getUpperBound(*expr, *dims);
      if (!bound) {
        std::string text;
        llvm::raw_string_ostream(text) << *expr;
        return emit() << " has dimension #" << dim << " of size " << text
                      << ", which has no upper bound over the dims' ranges";
      }
      largest[dim] = *bound;
    }
    if (!tensor.hasStaticShape() && !getBoundedElementCount(largest))
      return emit() << " holds more than 2^40 elements at the dims' largest "
                       "sizes (the largest tensor OrchestraOS compiles; "
                       "bound the dims with --dim NAME=MIN..MAX)";
    return success();
  };
  // Element counts past the limit would overflow the byte counts and
  // offsets of the cost model and the plan.
  auto tooLarge = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() &&
           !getBoundedElementCount(shaped.getShape());
  };
  constexpr const char *kTooLarge =
      " holds more than 2^40 elements (the largest tensor OrchestraOS "
      "compiles)";
  FunctionType type = func.getFunctionType();
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (failed(checkSizes(arg, [&]() {
          return func.emitError()
                 << "argument #" << i << " of entry function '"
                 << func.getSymName() << "' (" << arg.getType() << ")";
        })))
      return failure();
    if (tooLarge(arg.getType()))
      return func.emitError()
             << "argument #" << i << " of entry function '" << func.getSymName()
             << "' (" << arg.getType() << ")" << kTooLarge;
  }
  for (auto [i, resultType] : llvm::enumerate(type.getResults()))
    if (!isa<RankedTensorType>(resultType))
      return func.emitError()
             << "result #" << i << " of entry function '" << func.getSymName()
             << "' has type " << resultType
             << "; entry results must be ranked tensors";
  WalkResult walk = func.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      Type type = result.getType();
      auto shaped = dyn_cast<ShapedType>(type);
      if (shaped && !shaped.hasRank()) {
        op->emitError() << "result type " << type
                        << " is not a ranked tensor; only ranked tensors are "
                           "supported";
        return WalkResult::interrupt();
      }
      if (shaped && !shaped.hasStaticShape() && isa<RankedTensorType>(type) &&
          failed(checkSizes(result, [&]() {
            return op->emitError() << "result type " << type;
          })))
        return WalkResult::interrupt();
      if (tooLarge(type)) {
        op->emitError() << "result type " << type << kTooLarge;
        return WalkResult::interrupt();
      }
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

void SchedulePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  std::optional<scheduling::Algorithm> algorithmKind =
      scheduling::parseAlgorithm(algorithm);
  if (!algorithmKind) {
    module.emitError() << "unknown scheduling algorithm '" << algorithm
                       << "'; expected one of "
                       << scheduling::getAlgorithmNames();
    return signalPassFailure();
  }
  FailureOr<func::FuncOp> entryOr = lookupEntryFunction(module, entry);
  if (failed(entryOr))
    return signalPassFailure();
  func::FuncOp func = *entryOr;
  // A schedule written by hand (e.g. to give a task an assembly or NKI
  // kernel) is kept as it is: checked against the topology, not redone.
  bool handWritten = llvm::any_of(func.getBody().getOps<ScheduleOp>(),
                                  [](ScheduleOp) { return true; });
  if (!handWritten && failed(checkEntry(func)))
    return signalPassFailure();

  const TargetRegistry &registry = getTargetRegistry();
  llvm::Expected<Topology> topo = Topology::resolve(topology, registry);
  if (!topo) {
    module.emitError() << "cannot use topology '" << topology
                       << "': " << llvm::toString(topo.takeError());
    return signalPassFailure();
  }
  if (failed(declareTopology(module, *topo)))
    return signalPassFailure();
  func->setAttr(attr::kEntry, UnitAttr::get(ctx));
  if (handWritten) {
    if (failed(checkHandWrittenSchedule(func, *topo)))
      return signalPassFailure();
    return;
  }
  CostModel model(*topo, registry);
  for (unsigned d = 0; d < topo->devices.size(); ++d)
    if (!model.getDefaultSpace(d)) {
      module.emitError() << "device '" << topo->devices[d].name
                         << "' of topology '" << topo->name
                         << "' has no default memory space";
      return signalPassFailure();
    }

  // Devices this build cannot compile for take no task (unless the schedule
  // only explores the topology).
  ExcludedDevices excluded(topo->devices.size());
  if (!planAllArchs)
    for (auto [d, device] : llvm::enumerate(topo->devices))
      if (!model.canCompile(device)) {
        excluded.set(d);
        module.emitRemark() << "device '" << device.name << "' (" << device.arch
                            << ") takes no task: this build cannot compile "
                               "for its arch yet (plan-all-archs places "
                               "tasks there anyway)";
      }

  Block &body = func.getBody().front();
  // Dynamic sizes are costed at their dims' opt; memory holds them at
  // their largest (design/0017).
  FailureOr<SmallVector<DynamicDim>> dims = getDynamicDims(func);
  if (failed(dims))
    return signalPassFailure();
  CostShapes shapes(func, *dims, CostShapes::AtOpt);
  CostShapes largest(func, *dims, CostShapes::AtMax);
  EntryTasks entryTasks = collectTasks(body, model, shapes);
  // A branch that no device can run as one task (on GPUs a task's branch
  // is not compiled yet) but whose sides devices can run is speculated
  // whatever the gain: both sides run, the commit keeps one (design/0019).
  SmallVector<BranchTask, 2> speculated;
  auto runnable = [&](ArrayRef<Operation *> ops) {
    for (auto [d, device] : llvm::enumerate(topo->devices))
      if (!excluded.test(d) && model.supports(device, ops))
        return true;
    return false;
  };
  for (auto [t, info] : llvm::enumerate(entryTasks.tasks)) {
    if (!speculate)
      continue;
    // Replaying a profiled plan: its speculated branches, and no other.
    if (replaySpeculation) {
      std::optional<BranchTask> branch = getBranchTask(t, info, shapes);
      if (branch && branch->branch->hasAttr(attr::kSpeculatedWhenProfiled))
        speculated.push_back(*branch);
      continue;
    }
    if (runnable(info.ops))
      continue;
    std::optional<BranchTask> branch = getBranchTask(t, info, shapes);
    if (branch && runnable(branch->sideOps[0]) && runnable(branch->sideOps[1]))
      speculated.push_back(*branch);
  }
  // Schedule; where the weights a schedule leaves resident on a device do
  // not fit beside its working sets, keep the tasks that start last there
  // off it and schedule again.
  ForbiddenPlacements forbidden;
  FailureOr<scheduling::TaskGraph> graph = failure();
  std::optional<scheduling::Schedule> scheduled;
  for (;;) {
    graph = buildTaskGraph(func, entryTasks, model, shapes, excluded, forbidden,
                           speculated);
    if (failed(graph))
      return signalPassFailure();
    llvm::Expected<scheduling::Schedule> result =
        scheduling::schedule(*graph, *algorithmKind);
    if (!result) {
      func.emitError() << "scheduling with '" << algorithm
                       << "' failed: " << llvm::toString(result.takeError());
      return signalPassFailure();
    }
    scheduled = std::move(*result);
    if (!forbidOverfullPlacements(entryTasks, *scheduled, model, largest,
                                  forbidden))
      break;
  }
  if (!forbidden.empty()) {
    llvm::SmallDenseMap<unsigned, unsigned> perDevice;
    for (auto [task, device] : forbidden)
      ++perDevice[device];
    SmallVector<unsigned> devices;
    for (unsigned d = 0; d < topo->devices.size(); ++d)
      if (perDevice.lookup(d))
        devices.push_back(d);
    InFlightDiagnostic remark = func.emitRemark()
                                << "weights are resident on the devices "
                                   "that read them; to fit them, the "
                                   "schedule keeps ";
    llvm::interleaveComma(devices, remark, [&](unsigned d) {
      remark << perDevice.lookup(d) << " task(s) off '" << topo->devices[d].name
             << "'";
    });
  }

  SmallVector<DictionaryAttr> targets;
  for (const TopologyDevice &device : topo->devices)
    targets.push_back(getTaskTarget(ctx, device, registry.lookup(device.arch)));

  // Speculation (design/0019, decision 3): each branch (in program order,
  // at most kMaxSpeculationCandidates) is scheduled once more with its sides
  // free of the condition and a commit after them, beside the branches
  // speculated so far; where that makespan is at least kMinSpeculationGain
  // shorter, the branch is speculated and that schedule is the one made.
  // Its task is marked for divergence-to-speculation with its sides'
  // devices; the then side's node stands for the task.
  unsigned candidates = 0;
  for (auto [t, info] : llvm::enumerate(entryTasks.tasks)) {
    if (!speculate || replaySpeculation)
      break;
    if (llvm::any_of(speculated,
                     [&](const BranchTask &b) { return b.task == t; }))
      continue;
    std::optional<BranchTask> branch = getBranchTask(t, info, shapes);
    if (!branch || candidates++ >= kMaxSpeculationCandidates)
      continue;
    speculated.push_back(*branch);
    FailureOr<scheduling::TaskGraph> speculatedGraph = buildTaskGraph(
        func, entryTasks, model, shapes, excluded, forbidden, speculated);
    if (failed(speculatedGraph))
      return signalPassFailure();
    llvm::Expected<scheduling::Schedule> result =
        scheduling::schedule(*speculatedGraph, *algorithmKind);
    if (!result) {
      llvm::consumeError(result.takeError());
      speculated.pop_back();
      continue;
    }
    if (result->makespan > (1 - kMinSpeculationGain) * scheduled->makespan) {
      speculated.pop_back();
      continue;
    }
    graph = std::move(speculatedGraph);
    scheduled = std::move(*result);
  }
  const scheduling::Schedule &sched = *scheduled;
  DenseMap<unsigned, DictionaryAttr> speculations;
  for (auto [i, branch] : llvm::enumerate(speculated)) {
    unsigned elseNode = entryTasks.tasks.size() + 1 + 2 * i;
    auto named = [&](StringRef name, Attribute value) {
      return NamedAttribute(StringAttr::get(ctx, name), value);
    };
    Builder b(ctx);
    speculations[branch.task] = DictionaryAttr::get(
        ctx, {named("then", targets[sched.device[branch.task + 1]]),
              named("else", targets[sched.device[elseNode]]),
              named("else_start", b.getF64FloatAttr(sched.start[elseNode])),
              named("else_finish", b.getF64FloatAttr(sched.finish[elseNode]))});
  }

  auto *terminator = body.getTerminator();
  OpBuilder builder(terminator);
  auto schedule =
      ScheduleOp::create(builder, func.getLoc(), terminator->getOperandTypes());
  schedule->setAttr(attr::kAlgorithm, builder.getStringAttr(algorithm));
  schedule->setAttr(attr::kPredictedMakespan,
                    builder.getF64FloatAttr(sched.makespan));
  Block *scheduleBody = new Block();
  schedule.getBody().push_back(scheduleBody);
  builder.setInsertionPointToEnd(scheduleBody);

  // Where each original value lives (device index) and when it is ready
  // there. Arguments and weights start on the first device.
  struct Location {
    unsigned device = 0;
    double ready = 0;
    /// The task that produced the value (0: arguments and weights).
    unsigned producer = 0;
  };
  DenseMap<Value, Location> locations;
  DenseMap<Value, Value> replacement;
  DenseMap<std::pair<Value, unsigned>, Value> transfers;
  // Per (producer task, consumer task): when the message's next byte
  // arrives.
  DenseMap<std::pair<unsigned, unsigned>, double> linkCursor;
  auto spaceRef = [&](unsigned device) {
    return FlatSymbolRefAttr::get(ctx, model.getDefaultSpace(device)->name);
  };
  // Returns `value` (an original value) as available on `device`.
  auto materialize = [&](Value value, unsigned device,
                         unsigned consumer) -> Value {
    Value current = replacement.lookup(value);
    if (!current)
      current = value;
    Location loc = locations.lookup(value);
    if (loc.device == device)
      return current;
    // Weights are resident: orchestra-plan-buffers gives every space that
    // reads a constant its own copy.
    if (isConstant(value))
      return current;
    Value &cached = transfers[{value, device}];
    if (!cached) {
      // Values from one producer task to one consumer task are one edge of
      // the task graph, one message (latency once, then the bytes of each
      // in turn); the predictions follow that model.
      double bytes = shapes.estimateBytes(value);
      double perByte = model.getRouteSecondsPerByte(loc.device, device);
      auto [cursor, first] =
          linkCursor.try_emplace({loc.producer, consumer}, 0.0);
      double start = first ? loc.ready : cursor->second;
      double finish =
          (first ? start + model.getRouteLatency(loc.device, device) : start) +
          bytes * perByte;
      cursor->second = finish;
      cached = TransferOp::create(
          builder, value.getLoc(), current.getType(), current,
          spaceRef(loc.device), spaceRef(device),
          builder.getF64FloatAttr(start), builder.getF64FloatAttr(finish));
    }
    return cached;
  };

  // Tasks in order of predicted start (a topological order). A speculated
  // branch's task reads its condition, which its then node does not wait
  // for: it is made in its commit node's turn (divergence-to-speculation
  // moves its sides up to their operands).
  unsigned sink = graph->getNumTasks() - 1;
  unsigned numTasks = entryTasks.tasks.size();
  DenseMap<unsigned, unsigned> branchAtCommit;
  for (auto [i, branch] : llvm::enumerate(speculated))
    branchAtCommit[numTasks + 2 + 2 * i] = branch.task + 1;
  unsigned taskIndex = 0;
  // The operands of a speculated branch's task but its condition, made in
  // its then node's turn (so that the transfers its sides read come in
  // schedule order, not after the condition).
  DenseMap<unsigned, SmallVector<Value>> branchArgs;
  auto isCondition = [&](unsigned t, Value input) {
    return llvm::any_of(speculated, [&](const BranchTask &branch) {
      return branch.task + 1 == t && branch.condition == input;
    });
  };
  for (unsigned node : scheduling::orderByStart(*graph, sched)) {
    unsigned t = node;
    if (node >= 1 && node <= numTasks && speculations.contains(node - 1)) {
      SmallVector<Value> &args = branchArgs[node];
      for (Value input : entryTasks.tasks[node - 1].inputs)
        args.push_back(isCondition(node, input)
                           ? Value()
                           : materialize(input, sched.device[node], node));
      continue;
    }
    // A speculated branch's results are ready when its commit node
    // finishes; they are where its task is (so that the schedule is valid
    // before divergence-to-speculation too).
    unsigned resultNode = node;
    if (auto branch = branchAtCommit.find(node); branch != branchAtCommit.end())
      t = branch->second;
    // (Past the tasks: the else sides and commits of speculated branches.)
    if (t == 0 || t > numTasks)
      continue;
    TaskInfo &info = entryTasks.tasks[t - 1];
    unsigned device = sched.device[t];
    SmallVector<Value> args = branchArgs.lookup(t);
    args.resize(info.inputs.size());
    for (auto [arg, input] : llvm::zip(args, info.inputs))
      if (!arg)
        arg = materialize(input, device, t);

    StringRef opName = info.anchor->getName().stripDialect();
    std::string name = ("t" + Twine(taskIndex++) + "_" + opName).str();
    auto task = TaskOp::create(builder, info.anchor->getLoc(),
                               ValueRange(info.results).getTypes(), name,
                               targets[device], args);
    task.setPredictedStartAttr(builder.getF64FloatAttr(sched.start[t]));
    task.setPredictedFinishAttr(builder.getF64FloatAttr(sched.finish[t]));
    if (DictionaryAttr speculate = speculations.lookup(t - 1))
      task->setAttr(attr::kSpeculate, speculate);
    {
      OpBuilder::InsertionGuard guard(builder);
      Block &taskBody = task.getBody().front();
      builder.setInsertionPointToEnd(&taskBody);
      IRMapping mapping;
      for (auto [input, arg] : llvm::zip(info.inputs, taskBody.getArguments()))
        mapping.map(input, arg);
      for (Operation *op : info.cloned)
        builder.clone(*op, mapping);
      for (Operation *op : info.ops)
        builder.clone(*op, mapping);
      SmallVector<Value> yielded;
      for (Value result : info.results)
        yielded.push_back(mapping.lookup(result));
      YieldOp::create(builder, task.getLoc(), yielded);
    }
    for (auto [result, newResult] :
         llvm::zip(info.results, task.getResults())) {
      replacement[result] = newResult;
      locations[result] = {device, sched.finish[resultNode], resultNode};
    }
  }

  // Results go back to the first device.
  SmallVector<Value> yielded;
  for (Value value : terminator->getOperands()) {
    if (!replacement.lookup(value)) {
      // An argument, a constant or another value defined outside the groups.
      yielded.push_back(value);
      continue;
    }
    yielded.push_back(materialize(value, 0, sink));
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
