//===- BranchProbes.cpp - Branch probes of GPU kernels --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The GPU half of the branch profiler (design/0019, decision 7): the task
// functions of a profiled kernel module take a counters buffer
// (orchestra-gpu-branch-counters, before outlining), and each backend lowers
// the probes in its device code to a warp vote and atomic adds
// (lowerBranchProbes, with the backend's mask and ballot).
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/BranchProbes.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Target/GPU/AttrNames.h"
#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUBRANCHCOUNTERS
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;
using namespace mlir::orchestra;

/// The counters of one branch: then lanes, else lanes, warps, divergent
/// warps (the runtime's layout, orx::kCountersPerBranch).
static constexpr int64_t kCountersPerBranch = 4;

LogicalResult gpucommon::lowerBranchProbes(Operation *root,
                                           const WarpVote &vote) {
  SmallVector<BranchProbeOp> probes;
  root->walk([&](BranchProbeOp probe) { probes.push_back(probe); });
  for (BranchProbeOp probe : probes) {
    Value counters = probe.getCounters();
    if (!counters)
      return probe.emitOpError()
             << "has no counters buffer in GPU device code "
                "(orchestra-gpu-branch-counters gives probes one before "
                "kernel outlining)";
    OpBuilder b(probe);
    Location loc = probe.getLoc();
    Type mask = b.getIntegerType(vote.width);
    Type i64 = b.getI64Type();
    Value active = vote.activeLanes(b, loc);
    Value taken = vote.ballot(b, loc, probe.getCondition(), active);
    // The warp's lowest active lane counts for the warp.
    Value lane = arith::IndexCastUIOp::create(
        b, loc, mask, gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr));
    Value leader = LLVM::CountTrailingZerosOp::create(b, loc, mask, active,
                                                      /*is_zero_poison=*/true);
    Value isLeader =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, leader);
    auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto lanesOf = [&](Value bits) -> Value {
      Value count = LLVM::CtPopOp::create(b, loc, mask, bits);
      return vote.width == 64 ? count
                              : arith::ExtUIOp::create(b, loc, i64, count);
    };
    Value thenLanes = lanesOf(taken);
    Value elseLanes = arith::SubIOp::create(b, loc, lanesOf(active), thenLanes);
    Value none = arith::ConstantOp::create(b, loc, b.getIntegerAttr(mask, 0));
    Value disagree = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, taken, none),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, taken, active));
    Value counts[kCountersPerBranch] = {
        thenLanes, elseLanes,
        arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1)),
        arith::ExtUIOp::create(b, loc, i64, disagree)};
    int64_t first = kCountersPerBranch * probe.getBranchId();
    for (int64_t k = 0; k < kCountersPerBranch; ++k) {
      Value index = arith::ConstantIndexOp::create(b, loc, first + k);
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, counts[k],
                                  counters, ValueRange{index});
    }
    probe.erase();
  }
  return success();
}

/// A probe of a loop's condition on the host side of a kernel (the
/// condition the host reads back each iteration: a memref.load of a
/// one-element buffer) moved into a launch of its own, one thread that
/// reads the condition again and counts it (an iteration or the exit).
static FailureOr<BranchProbeOp> moveIntoLaunch(BranchProbeOp probe) {
  auto load = probe.getCondition().getDefiningOp<memref::LoadOp>();
  auto loopCondition =
      dyn_cast<scf::ConditionOp>(probe->getBlock()->getTerminator());
  if (!load || load.getMemRefType().getNumElements() != 1 || !loopCondition ||
      loopCondition.getCondition() != probe.getCondition()) {
    probe.emitOpError()
        << "is outside every 'gpu.launch' of the task and is not a loop's "
           "condition read by the host: the strategy must map the branch "
           "onto the GPU";
    return failure();
  }
  OpBuilder builder(probe);
  Location loc = probe.getLoc();
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto launch =
      gpu::LaunchOp::create(builder, loc, one, one, one, one, one, one);
  builder.setInsertionPointToStart(&launch.getBody().front());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  SmallVector<Value> indices(load.getIndices().size(), zero);
  Value condition =
      memref::LoadOp::create(builder, loc, load.getMemRef(), indices);
  auto moved = BranchProbeOp::create(builder, loc, probe.getBranchId(),
                                     condition, Value());
  gpu::TerminatorOp::create(builder, loc);
  probe.erase();
  return moved;
}

namespace {
class GPUBranchCountersPass
    : public orchestra::gpucommon::impl::GPUBranchCountersBase<
          GPUBranchCountersPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto table = module->getAttrOfType<DictionaryAttr>(attr::kBranches);
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<BranchProbeOp> probes;
      func.walk([&](BranchProbeOp probe) { probes.push_back(probe); });
      if (probes.empty())
        continue;
      auto branches =
          table ? table.getAs<ArrayAttr>(func.getSymName()) : ArrayAttr();
      if (!branches) {
        func.emitError() << "has branch probes but no entry in the module's '"
                         << attr::kBranches << "' table";
        return signalPassFailure();
      }
      for (BranchProbeOp &probe : probes) {
        if (!probe->getParentOfType<gpu::LaunchOp>()) {
          FailureOr<BranchProbeOp> moved = moveIntoLaunch(probe);
          if (failed(moved))
            return signalPassFailure();
          probe = *moved;
        }
        if (probe.getBranchId() >= branches.size()) {
          probe.emitOpError() << "counts branch " << probe.getBranchId()
                              << ", but the table has " << branches.size()
                              << " for @" << func.getSymName();
          return signalPassFailure();
        }
      }
      auto type = MemRefType::get(
          {kCountersPerBranch * static_cast<int64_t>(branches.size())},
          IntegerType::get(ctx, 64));
      unsigned index = func.getNumArguments();
      auto marked = DictionaryAttr::get(
          ctx, {NamedAttribute(
                   StringAttr::get(ctx, gpucommon::attr::kBranchCounters),
                   UnitAttr::get(ctx))});
      if (failed(func.insertArgument(index, type, marked, func.getLoc()))) {
        func.emitError() << "cannot add the branch counters argument";
        return signalPassFailure();
      }
      for (BranchProbeOp probe : probes)
        probe.getCountersMutable().assign(func.getArgument(index));
    }
  }
};
} // namespace
