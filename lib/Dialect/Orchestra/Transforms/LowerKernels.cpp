//===- LowerKernels.cpp - Stages 5-8, dispatched on arch ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_LOWERKERNELS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

/// The textual pipeline that lowers a kernel module of `info`'s arch.
static std::string getKernelPipeline(const TargetInfo &info, bool applyStrategy,
                                     bool profileBranches = false) {
  std::string pipeline;
  if (!info.preparePipeline.empty())
    pipeline += info.preparePipeline + ",";
  if (applyStrategy && !info.strategyScript.empty()) {
    if (!info.preStrategyPipeline.empty())
      pipeline += info.preStrategyPipeline + ",";
    pipeline +=
        "transform-interpreter{entry-point=" + info.strategyEntryPoint + "},";
  }
  if (profileBranches)
    pipeline += "orchestra-branch-profiler,";
  pipeline += info.loweringPipeline;
  return "builtin.module(" + pipeline + ")";
}

namespace {
class LowerKernelsPass
    : public orchestra::impl::LowerKernelsBase<LowerKernelsPass> {
public:
  using LowerKernelsBase::LowerKernelsBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    // The nested pipelines run on modules of this context: load what their
    // passes need up front (dynamic pipelines cannot load dialects).
    const TargetRegistry &targets = getTargetRegistry();
    for (StringRef arch : targets.getArchs()) {
      const TargetInfo *info = targets.lookup(arch);
      if (info->loweringPipeline.empty())
        continue;
      FailureOr<OpPassManager> pm =
          parsePassPipeline(getKernelPipeline(*info, true), llvm::nulls());
      if (succeeded(pm))
        pm->getDependentDialects(registry);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (profileBranches)
      module->setAttr(attr::kProfileBranches, UnitAttr::get(&getContext()));
    const TargetRegistry &targets = getTargetRegistry();
    SmallVector<ModuleOp> kernelModules;
    for (auto nested : module.getOps<ModuleOp>())
      if (nested->hasAttr(attr::kArch) && !nested->hasAttr(attr::kKernels))
        kernelModules.push_back(nested);
    for (ModuleOp kernels : kernelModules) {
      auto arch = kernels->getAttrOfType<StringAttr>(attr::kArch);
      const TargetInfo *info = arch ? targets.lookup(arch.getValue()) : nullptr;
      if (!info) {
        kernels.emitError() << "kernel module has no known arch";
        return signalPassFailure();
      }
      if (info->loweringPipeline.empty()) {
        kernels.emitError() << "arch '" << info->arch
                            << "' has no lowering pipeline in this build "
                               "yet; its tasks cannot be compiled";
        return signalPassFailure();
      }
      if (!applyStrategy && info->loweringNeedsStrategy) {
        kernels.emitError()
            << "arch '" << info->arch
            << "' cannot be compiled without its strategy: its lowering maps "
               "the strategy's loops onto the device (the plain lowering, "
               "--strategy=none, is for CPU kernels)";
        return signalPassFailure();
      }
      bool profile = profileBranches && info->lowersBranchProbes;
      if (profileBranches && !profile)
        kernels.emitWarning()
            << "--profile-branches: the backend of arch '" << info->arch
            << "' does not lower branch probes yet; its kernels are not "
               "profiled";
      std::string pipeline = getKernelPipeline(*info, applyStrategy, profile);
      FailureOr<OpPassManager> pm = parsePassPipeline(pipeline, llvm::nulls());
      if (failed(pm)) {
        kernels.emitError() << "invalid lowering pipeline for arch '"
                            << info->arch << "': " << pipeline;
        return signalPassFailure();
      }
      if (!deviceCodeDir.empty())
        kernels->setAttr(attr::kDeviceCodeDir,
                         StringAttr::get(&getContext(), deviceCodeDir));
      if (failed(runPipeline(*pm, kernels)))
        return signalPassFailure();
    }
  }
};
} // namespace
