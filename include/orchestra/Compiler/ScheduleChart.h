//===- ScheduleChart.h - Gantt chart of a scheduled program -----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_COMPILER_SCHEDULECHART_H
#define ORCHESTRA_COMPILER_SCHEDULECHART_H

#include "orchestra/Scheduling/Gantt.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra {

/// The Gantt chart of a module after stage 2: one row per device of its
/// recorded topology (`orchestra.topology`) with its tasks, one row per pair
/// of memory spaces that transfers use, bars at the predicted times. Fails
/// with a diagnostic when the module has no scheduled entry function.
FailureOr<gantt::Chart> buildScheduleChart(ModuleOp module);

} // namespace mlir::orchestra

#endif // ORCHESTRA_COMPILER_SCHEDULECHART_H
