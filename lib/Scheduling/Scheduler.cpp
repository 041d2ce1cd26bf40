//===- Scheduler.cpp - Algorithm selection --------------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "ListScheduling.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir::orchestra::scheduling;

llvm::StringRef
mlir::orchestra::scheduling::stringifyAlgorithm(Algorithm algorithm) {
  switch (algorithm) {
  case Algorithm::HEFT:
    return "heft";
  case Algorithm::PEFT:
    return "peft";
  case Algorithm::ILS:
    return "ils";
  case Algorithm::Exact:
    return "exact";
  }
  llvm_unreachable("unknown algorithm");
}

std::optional<Algorithm>
mlir::orchestra::scheduling::parseAlgorithm(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Algorithm>>(name)
      .Case("heft", Algorithm::HEFT)
      .Case("peft", Algorithm::PEFT)
      .Case("ils", Algorithm::ILS)
      .Case("exact", Algorithm::Exact)
      .Default(std::nullopt);
}

std::string mlir::orchestra::scheduling::getAlgorithmNames() {
  return "heft, peft, ils, exact";
}

llvm::Expected<Schedule>
mlir::orchestra::scheduling::schedule(const TaskGraph &graph,
                                      Algorithm algorithm,
                                      const SchedulerOptions &options) {
  if (graph.getTopologicalOrder().size() != graph.getNumTasks())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the task graph was not finalized");
  if (graph.getNumTasks() == 0)
    return Schedule{};
  switch (algorithm) {
  case Algorithm::HEFT:
    return scheduleHEFT(graph);
  case Algorithm::PEFT:
    return schedulePEFT(graph);
  case Algorithm::ILS:
    return scheduleILS(graph, options);
  case Algorithm::Exact:
    if (graph.getNumTasks() > 24)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the exact search takes graphs of at most 24 tasks; this one has " +
              std::to_string(graph.getNumTasks()));
    return scheduleExact(graph, options);
  }
  llvm_unreachable("unknown algorithm");
}
