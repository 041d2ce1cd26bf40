//===- ModelGraphs.h - The scheduling benchmark on real models --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_BENCH_SCHED_MODELGRAPHS_H
#define ORCHESTRA_BENCH_SCHED_MODELGRAPHS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::orchestra::bench {

struct ModelReport {
  /// Markdown.
  std::string text;
  /// (what was checked, whether it held).
  std::vector<std::pair<std::string, bool>> checks;
};

/// Imports every model (.onnx or .mlir), builds its task graph on every
/// topology (JSON files, or "host") and compares the algorithms on it;
/// also times the whole orchestra-schedule pass.
llvm::Expected<ModelReport>
benchmarkModels(llvm::ArrayRef<std::string> models,
                llvm::ArrayRef<std::string> topologies);

} // namespace mlir::orchestra::bench

#endif // ORCHESTRA_BENCH_SCHED_MODELGRAPHS_H
