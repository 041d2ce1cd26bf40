//===- BranchProfiler.cpp - Probes in front of each branch of a kernel ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The instrumentation half of the feedback loop (design/0019, decision 7):
// each condition of an `scf.if` or `scf.while` left in a kernel after its
// strategy gets an `orchestra.branch_probe`, numbered in pre-order; the
// backend lowers the probes, the runtime owns the counters.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_BRANCHPROFILER
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {
class BranchProfilerPass
    : public orchestra::impl::BranchProfilerBase<BranchProfilerPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr(attr::kBranches)) {
      module.emitError() << "kernel module is already instrumented ('"
                         << attr::kBranches << "' is set)";
      return signalPassFailure();
    }
    Builder builder(&getContext());
    SmallVector<NamedAttribute> table;
    for (auto kernel : module.getOps<FunctionOpInterface>()) {
      if (!kernel->hasAttr(attr::kAbi) || kernel.isExternal())
        continue;
      SmallVector<Attribute> locations;
      kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
        Value condition;
        Location loc = op->getLoc();
        if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
          condition = ifOp.getCondition();
        } else if (auto conditionOp = dyn_cast<scf::ConditionOp>(op)) {
          condition = conditionOp.getCondition();
          loc = conditionOp->getParentOp()->getLoc();
        } else {
          return;
        }
        OpBuilder probeBuilder(op);
        BranchProbeOp::create(probeBuilder, op->getLoc(), locations.size(),
                              condition, Value());
        locations.push_back(loc);
      });
      if (!locations.empty())
        table.push_back(builder.getNamedAttr(
            cast<SymbolOpInterface>(kernel.getOperation()).getName(),
            builder.getArrayAttr(locations)));
    }
    if (!table.empty())
      module->setAttr(attr::kBranches, builder.getDictionaryAttr(table));
  }
};
} // namespace
