//===- Pipeline.cpp - The compile pipeline of orchestra-compile -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/Pipeline.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "orchestra/Target/TargetRegistry.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace mlir::orchestra;

std::string orchestra::getStrategiesDir(const CompileOptions &options) {
  if (!options.strategiesDir.empty())
    return options.strategiesDir;
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("ORCHESTRA_STRATEGIES_DIR"))
    if (!env->empty())
      return *env;
  return ORCHESTRA_STRATEGIES_DIR;
}

std::string orchestra::getPreparePipeline() {
  return "func.func(convert-elementwise-to-linalg,"
         "orchestra-fold-empty-loops,"
         "orchestra-convert-convolutions-to-nhwc,"
         "orchestra-pretranspose-constant-operands,"
         "orchestra-fold-matmul-reshapes)";
}

void orchestra::registerCompilerPipelines() {
  PassPipelineRegistration<>(
      "orchestra-prepare",
      "Stage 1 of the compile pipeline, before scheduling: linalg on tensors "
      "in the layouts the kernels read (orchestra-compile --print-pipeline "
      "shows the whole pipeline)",
      [](OpPassManager &pm) {
        if (failed(parsePassPipeline(getPreparePipeline(), pm)))
          llvm::report_fatal_error("the orchestra-prepare pipeline is "
                                   "malformed");
      });
}

FailureOr<std::string>
orchestra::buildCompilePipeline(const CompileOptions &options,
                                std::string &error) {
  std::string scheduleOptions =
      "topology=" + options.topology + " algorithm=" + options.scheduler;
  if (!options.entry.empty())
    scheduleOptions += " entry=" + options.entry;
  // Stage 1 (getPreparePipeline), stage 2: scheduling, stage 3: transfer
  // clean-up, speculation.
  std::string pipeline = getPreparePipeline() + ",orchestra-schedule{" +
                         scheduleOptions +
                         "},canonicalize,divergence-to-speculation";
  if (options.scheduleOnly)
    return pipeline;
  if (options.afterSchedule)
    pipeline.clear();

  // Stage 4: outlining and the plan's memory.
  pipeline += std::string(pipeline.empty() ? "" : ",") +
              "orchestra-outline-tasks,orchestra-deduplicate-kernels,"
              "orchestra-plan-buffers";
  // Tuned variants (orchestra-tune) onto the kernel ops, for stage 5.
  if (!options.tuningCache.empty() && options.strategy != "none") {
    if (!llvm::sys::fs::exists(options.tuningCache)) {
      error = "tuning cache '" + options.tuningCache + "' not found";
      return failure();
    }
    pipeline +=
        ",orchestra-apply-tuning-cache{cache=\"" + options.tuningCache + "\"}";
  }

  // Stages 5-8: per-arch strategy and lowering. The strategy scripts are
  // loaded by the upstream preload pass and applied by the upstream
  // transform interpreter inside orchestra-lower-kernels.
  bool applyStrategy = options.strategy != "none";
  if (applyStrategy) {
    SmallVector<std::string> scripts;
    if (options.strategy != "default") {
      scripts.push_back(options.strategy);
    } else {
      std::string dir = getStrategiesDir(options);
      const TargetRegistry &registry = getTargetRegistry();
      for (StringRef arch : registry.getArchs()) {
        const TargetInfo *info = registry.lookup(arch);
        if (info->strategyScript.empty())
          continue;
        SmallVector<std::string> files(info->strategyLibraries.begin(),
                                       info->strategyLibraries.end());
        files.push_back(info->strategyScript);
        for (const std::string &file : files) {
          SmallString<256> path(dir);
          llvm::sys::path::append(path, file);
          if (!llvm::sys::fs::exists(path)) {
            error = "strategy script '" + path.str().str() + "' of arch '" +
                    arch.str() + "' not found (set --strategies-dir)";
            return failure();
          }
          if (!llvm::is_contained(scripts, path.str().str()))
            scripts.push_back(path.str().str());
        }
      }
    }
    for (const std::string &script : scripts)
      if (!llvm::sys::fs::exists(script)) {
        error = "strategy script '" + script + "' not found";
        return failure();
      }
    if (!scripts.empty())
      pipeline += ",transform-preload-library{transform-library-paths=" +
                  llvm::join(scripts, ",") + "}";
  }
  pipeline += ",orchestra-lower-kernels{apply-strategy=" +
              std::string(applyStrategy ? "true" : "false");
  // Quoted: the directory may contain spaces.
  if (!options.deviceCodeDir.empty())
    pipeline += " device-code-dir=\"" + options.deviceCodeDir + "\"";
  pipeline += "}";
  return pipeline;
}
