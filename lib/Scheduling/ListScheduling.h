//===- ListScheduling.h - Shared pieces of the schedulers -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Scheduling: device timelines with insertion into idle gaps,
// the list-scheduling decoders the algorithms share, and the algorithms'
// entry points.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_SCHEDULING_LISTSCHEDULING_H
#define ORCHESTRA_LIB_SCHEDULING_LISTSCHEDULING_H

#include "orchestra/Scheduling/Scheduler.h"

#include <utility>
#include <vector>

namespace mlir::orchestra::scheduling {

/// splitmix64: small, fast, and the same sequence on every platform.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound).
  unsigned below(unsigned bound) { return next() % bound; }
  /// Uniform in [low, high).
  double uniform(double low, double high) {
    return low + (high - low) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }

private:
  uint64_t state;
};

/// The busy intervals of one device, sorted and disjoint.
class Timeline {
public:
  /// The earliest time at or after `ready` where an interval of `duration`
  /// fits (in an idle gap or after the last interval).
  double earliestStart(double ready, double duration) const;
  void insert(double start, double finish);
  void clear() { busy.clear(); }

private:
  std::vector<std::pair<double, double>> busy;
};

/// Incremental list scheduling: tasks are placed one at a time, each after
/// all its predecessors, at its earliest start on the chosen device.
class ListScheduler {
public:
  explicit ListScheduler(const TaskGraph &graph);

  /// When the data of all of `task`'s predecessors is on `device`.
  double dataReady(unsigned task, unsigned device) const;
  /// Earliest start of `task` on `device` (insertion into gaps).
  double earliestStart(unsigned task, unsigned device) const {
    return timelines[device].earliestStart(dataReady(task, device),
                                           graph.getCost(task, device));
  }
  void place(unsigned task, unsigned device, double start);
  /// Places `task` on the device with the earliest finish time (ties: the
  /// lowest index); returns that device.
  unsigned placeEarliestFinish(unsigned task);

  const Schedule &getSchedule() const { return result; }
  Schedule takeSchedule() { return std::move(result); }

private:
  const TaskGraph &graph;
  std::vector<Timeline> timelines;
  Schedule result;
};

/// Upward ranks of HEFT: `rank(t) = w-bar(t) + max over successors s of
/// (c-bar(t, s) + rank(s))`.
std::vector<double> computeUpwardRanks(const TaskGraph &graph);

/// Schedules tasks in `order` (a topological order) on the fixed devices of
/// `assignment`, each at its earliest start (insertion).
Schedule decodeAssignment(const TaskGraph &graph,
                          const std::vector<unsigned> &order,
                          const std::vector<unsigned> &assignment);

Schedule scheduleHEFT(const TaskGraph &graph);
Schedule schedulePEFT(const TaskGraph &graph);
Schedule scheduleILS(const TaskGraph &graph, const SchedulerOptions &options);
Schedule scheduleExact(const TaskGraph &graph, const SchedulerOptions &options);

} // namespace mlir::orchestra::scheduling

#endif // ORCHESTRA_LIB_SCHEDULING_LISTSCHEDULING_H
