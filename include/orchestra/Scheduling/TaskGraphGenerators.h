//===- TaskGraphGenerators.h - Synthetic task graphs ------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The task graphs of the list-scheduling literature, for the schedule-quality
// benchmark and the tests: the random DAGs of Topcuoglu, Hariri and Wu (IEEE
// TPDS 13(3), 2002, section 5.1) and two application graphs of that paper,
// Gaussian elimination and FFT. Costs follow the paper: a graph's mean
// computation cost w is drawn at random; each task's mean cost w_i is uniform
// in [0, 2w]; its cost on device j is uniform in
// [w_i (1 - beta/2), w_i (1 + beta/2)]; edge costs are uniform in
// [0, 2 CCR w], so that CCR is the ratio of mean communication to mean
// computation. Communication is uniform between devices (the edge's cost).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SCHEDULING_TASKGRAPHGENERATORS_H
#define ORCHESTRA_SCHEDULING_TASKGRAPHGENERATORS_H

#include "orchestra/Scheduling/Scheduler.h"

namespace mlir::orchestra::scheduling {

/// Cost parameters shared by every generator.
struct CostParameters {
  unsigned numDevices = 4;
  /// Communication to computation ratio.
  double ccr = 1.0;
  /// Range percentage of computation costs on devices (heterogeneity).
  double beta = 0.5;
  uint64_t seed = 1;
};

/// Shape parameters of a random DAG.
struct RandomGraphParameters {
  unsigned numTasks = 20;
  /// Shape: the DAG has about sqrt(v) / alpha levels of about
  /// alpha * sqrt(v) tasks (alpha < 1: long and thin; > 1: short and wide).
  double alpha = 1.0;
  /// Maximum out-degree of a task (edges go to later levels).
  unsigned outDegree = 3;
};

/// A random DAG of the HEFT paper's generator (finalized).
TaskGraph generateRandomGraph(const RandomGraphParameters &shape,
                              const CostParameters &costs);

/// The task graph of Gaussian elimination on an m x m matrix:
/// (m^2 + m - 2) / 2 tasks (a pivot and the column updates of each step).
TaskGraph generateGaussianElimination(unsigned matrixSize,
                                      const CostParameters &costs);

/// The task graph of the recursive FFT on `points` points (a power of two):
/// 2 * points - 1 recursive-call tasks and points * log2(points) butterflies.
TaskGraph generateFFT(unsigned points, const CostParameters &costs);

} // namespace mlir::orchestra::scheduling

#endif // ORCHESTRA_SCHEDULING_TASKGRAPHGENERATORS_H
