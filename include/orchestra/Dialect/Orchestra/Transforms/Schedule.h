//===- Schedule.h - The task graph of an entry function ---------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What `orchestra-schedule` schedules, for tools that study the scheduler
// (the schedule-quality benchmark): the entry function's fusion groups as a
// task graph costed on a topology.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_SCHEDULE_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_SCHEDULE_H

#include "orchestra/Scheduling/Scheduler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::orchestra {
class CostModel;

/// Builds the task graph of `func`'s fusion groups on the devices of
/// `model`'s topology (in its order): one task per group, plus a first task
/// that provides the entry arguments and weights and a last task that
/// receives the results, both pinned at no cost to the topology's first
/// device. Emits a diagnostic and fails when an op can run on no device.
FailureOr<scheduling::TaskGraph> buildEntryTaskGraph(func::FuncOp func,
                                                     const CostModel &model);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_SCHEDULE_H
