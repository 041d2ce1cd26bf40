//===- Recompile.cpp - A cached compile redone with a branch profile ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The feedback loop's remapping (design/0019, decision 9), as built: the
// profile's branch weights go to the scheduler (orchestra-apply-branch-
// profile), which re-decides where each task runs and which branches to
// speculate; the new plan replaces the running one only when the scheduler
// predicts it faster, both plans costed with the same weights.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/JIT/JIT.h"
#include "orchestra/Profile/Profile.h"
#include "orchestra_rt/Artifact.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::orchestra;

void jit::OrchestraJITAction::print(raw_ostream &os) const {
  os << "`" << tag << "` recompile artifact " << getEntryName(hash) << " with "
     << records << " profile record(s)";
}

/// Reads the options of the cache entry at `base` (a path without suffix).
static LogicalResult readOptions(const std::string &base,
                                 CompileOptions &options, std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(base + ".json");
  if (!buffer) {
    error = "cannot read '" + base + ".json': " + buffer.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  const llvm::json::Object *json = value ? value->getAsObject() : nullptr;
  if (!json) {
    if (!value)
      llvm::consumeError(value.takeError());
    error = "'" + base + ".json' is not a JSON object";
    return failure();
  }
  auto string = [&](StringRef key) {
    return json->getString(key).value_or("").str();
  };
  options.topology =
      string("topology") == "file" ? base + ".topology.json" : "host";
  options.strategy = string("strategy") == "file" ? base + ".strategy.mlir"
                     : string("strategy").empty() ? "default"
                                                  : string("strategy");
  if (json->getBoolean("tuning_cache").value_or(false))
    options.tuningCache = base + ".tuning.json";
  if (!string("scheduler").empty())
    options.scheduler = string("scheduler");
  options.entry = string("entry");
  options.strategiesDir = string("strategies_dir");
  options.speculate = json->getBoolean("speculate").value_or(true);
  options.profileBranches =
      json->getBoolean("profile_branches").value_or(false);
  if (const llvm::json::Array *dims = json->getArray("dims"))
    for (const llvm::json::Value &dim : *dims)
      if (std::optional<StringRef> text = dim.getAsString())
        options.dims.push_back(text->str());
  return success();
}

/// The predicted makespan of the entry's schedule in `module`; 0 if none.
static double getPredictedMakespan(ModuleOp module) {
  double makespan = 0;
  module.walk([&](ScheduleOp schedule) {
    if (auto value =
            schedule->getAttrOfType<FloatAttr>(attr::kPredictedMakespan))
      makespan = std::max(makespan, value.getValueAsDouble());
  });
  return makespan;
}

FailureOr<jit::RecompileResult>
jit::recompileWithProfile(MLIRContext &context, StringRef dir, uint64_t hash,
                          StringRef profile, double minGain,
                          std::string &error) {
  std::string base =
      (dir + llvm::sys::path::get_separator() + getEntryName(hash)).str();
  if (!llvm::sys::fs::exists(base + ".orcx")) {
    error = "no cached artifact " + getEntryName(hash);
    return failure();
  }
  CompileOptions options;
  if (failed(readOptions(base, options, error)))
    return failure();
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(base + ".mlir", sourceMgr, &context);
  if (!module) {
    error = "cannot parse the cached module '" + base + ".mlir'";
    return failure();
  }

  std::vector<::orchestra::fdo::DivergenceProfile> profiles;
  if (!::orchestra::profile::readProfileFile(profile.str(), profiles, error))
    return failure();
  options.profileUse = profile.str();
  options.profileArtifact = base + ".orcx";

  RecompileResult result;
  bool ran = false;
  LogicalResult status = success();
  context.executeAction<OrchestraJITAction>(
      [&] {
        ran = true;
        // The running plan, rescheduled with the weights and its own
        // speculation decisions: its prediction.
        OwningOpRef<ModuleOp> running = module->clone();
        CompileOptions runningOptions = options;
        runningOptions.replaySpeculation = true;
        runningOptions.lastPhase = CompilePhase::Schedule;
        if (failed(runCompilePipeline(*running, runningOptions))) {
          error = "rescheduling the running plan with the profile failed";
          status = failure();
          return;
        }
        result.oldMakespan = getPredictedMakespan(*running);
        // The new plan: without probes, so that branches may be speculated.
        CompileOptions newOptions = options;
        newOptions.profileBranches = false;
        CompileHooks hooks;
        hooks.afterSchedule = [&](ModuleOp scheduled) {
          result.newMakespan = getPredictedMakespan(scheduled);
          return success();
        };
        FailureOr<orx::Artifact> artifact =
            compileToArtifact(*module, newOptions, hooks);
        if (failed(artifact)) {
          error = "compiling the new plan failed";
          status = failure();
          return;
        }
        if (result.oldMakespan > 0)
          result.predictedGain =
              (result.oldMakespan - result.newMakespan) / result.oldMakespan;
        std::string times =
            llvm::formatv("predicted {0:F1} us against {1:F1} us ({2:F1}%)",
                          result.newMakespan * 1e6, result.oldMakespan * 1e6,
                          result.predictedGain * 100)
                .str();
        if (result.predictedGain < minGain) {
          result.decision = Decision::NoGain;
          result.reason =
              "the recompiled plan is not faster enough: " + times +
              llvm::formatv(", less than the {0:F1}% required", minGain * 100)
                  .str();
          return;
        }
        result.decision = Decision::SwapArtifact;
        result.artifact = orx::serializeArtifact(*artifact);
        result.reason = "a new plan: " + times;
      },
      {module->getOperation()}, hash, profiles.size());
  if (!ran) {
    result.decision = Decision::Disabled;
    result.reason = "the recompilation ('orchestra-jit-recompile') is disabled";
    return result;
  }
  if (failed(status))
    return failure();
  return result;
}
