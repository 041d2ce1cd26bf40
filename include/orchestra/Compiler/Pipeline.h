//===- Pipeline.h - The compile pipeline of orchestra-compile ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The pass pipeline of stages 1-8 as a textual pipeline, shared by
// orchestra-compile and the tools that compile in-process (the ONNX
// conformance runner).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_COMPILER_PIPELINE_H
#define ORCHESTRA_COMPILER_PIPELINE_H

#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::orchestra {

struct CompileOptions {
  /// 'host' or a topology JSON file.
  std::string topology = "host";
  /// Scheduling algorithm: heft, peft, ils or exact.
  std::string scheduler = "ils";
  /// Entry function; empty picks 'main' or the only public function.
  std::string entry;
  /// 'default' (the registry's scripts), 'none', or a script file.
  std::string strategy = "default";
  /// Directory of the strategy scripts; empty uses
  /// $ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/.
  std::string strategiesDir;
  /// A tuning cache (orchestra-tune) whose variants the strategies apply;
  /// empty: none.
  std::string tuningCache;
  /// Where GPU kernels' device code (PTX, cubins) is also written; empty:
  /// nowhere.
  std::string deviceCodeDir;
  /// Stop after stage 3 (the scheduled program).
  bool scheduleOnly = false;
  /// Only stages 4-8, for a program that stages 1-3 already scheduled.
  bool afterSchedule = false;
};

/// The directory the default strategy scripts are read from: the option,
/// else $ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/.
std::string getStrategiesDir(const CompileOptions &options);

/// Stage 1 on MLIR input, before scheduling (textual, for `--pass-pipeline`):
/// elementwise arith/math on tensors to linalg, ops that run no iteration
/// replaced by their inits, convolutions channels-last, constant operands
/// stored in the layout the kernels read, matmul epilogues in the matmul's
/// shape. Registered as the named pipeline `orchestra-prepare`; the compile
/// pipeline and the scheduling benchmark both start with it.
std::string getPreparePipeline();

/// Registers the named pipelines (`orchestra-prepare`) with the global
/// pass registry (registerAllPasses calls it).
void registerCompilerPipelines();

/// The pass list (for a pass manager on the top-level module) of stages 1-8,
/// or 1-3 with `scheduleOnly`. On failure `error` says why (a missing
/// strategy script).
FailureOr<std::string> buildCompilePipeline(const CompileOptions &options,
                                            std::string &error);

} // namespace mlir::orchestra

#endif // ORCHESTRA_COMPILER_PIPELINE_H
