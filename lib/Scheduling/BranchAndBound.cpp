//===- BranchAndBound.cpp - Exact scheduling of small task graphs ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Depth-first branch and bound over active schedules. A node appends one
// ready task to the end of one device's queue, starting as early as its data
// and the device allow. Every schedule is matched or beaten by such a
// sequence: replaying a schedule in order of start times this way never makes
// a task later, and repeating the replay reaches a schedule that its own
// replay reproduces. That schedule's sequence has non-decreasing start times
// (ties in task order), so the search only extends sequences that keep this
// order, which removes most permutations of independent tasks.
//
// Bounds at a node, with `t0` the start of the last task appended (no later
// task starts before it):
//   - every unscheduled task starts no earlier than `t0` and than its
//     scheduled predecessors' finishes, then needs its minimum-cost path to
//     an exit;
//   - the devices are busy until their queue ends (or `t0`) and must still
//     do the minimum work of the unscheduled tasks.
// The initial upper bound is the iterated local search's schedule.
//
//===----------------------------------------------------------------------===//

#include "ListScheduling.h"

#include <algorithm>

using namespace mlir::orchestra::scheduling;

namespace {

class BranchAndBound {
public:
  BranchAndBound(const TaskGraph &graph, const SchedulerOptions &options)
      : graph(graph), nodeLimit(options.exactNodeLimit) {
    unsigned n = graph.getNumTasks();
    bottom.assign(n, 0);
    for (unsigned t : llvm::reverse(graph.getTopologicalOrder())) {
      double tail = 0;
      for (unsigned e : graph.getOutEdges(t))
        tail = std::max(tail, bottom[graph.getEdge(e).dst]);
      bottom[t] = graph.minCost(t) + tail;
      remainingWork += graph.minCost(t);
    }
    device.assign(n, 0);
    start.assign(n, 0);
    finish.assign(n, 0);
    scheduled.assign(n, false);
    missing.assign(n, 0);
    for (unsigned t = 0; t < n; ++t)
      missing[t] = graph.getInEdges(t).size();
    queueEnd.assign(graph.getNumDevices(), 0);
  }

  Schedule run(Schedule initial) {
    best = std::move(initial);
    search(0, 0, ~0u, 0);
    best.optimal = !aborted;
    return std::move(best);
  }

private:
  struct Move {
    unsigned task, device;
    double start, finish;
  };

  double lowerBound(double lastStart, double makespan) const {
    double bound = makespan;
    unsigned n = graph.getNumTasks();
    for (unsigned t = 0; t < n; ++t) {
      if (scheduled[t])
        continue;
      double earliest = lastStart;
      for (unsigned e : graph.getInEdges(t)) {
        unsigned pred = graph.getEdge(e).src;
        if (scheduled[pred])
          earliest = std::max(earliest, finish[pred]);
      }
      bound = std::max(bound, earliest + bottom[t]);
    }
    double busy = remainingWork;
    for (double end : queueEnd)
      busy += std::max(end, lastStart);
    return std::max(bound, busy / graph.getNumDevices());
  }

  void search(unsigned depth, double lastStart, unsigned lastTask,
              double makespan) {
    unsigned n = graph.getNumTasks();
    if (depth == n) {
      if (makespan < best.makespan) {
        best.device = device;
        best.start = start;
        best.finish = finish;
        best.makespan = makespan;
      }
      return;
    }
    if (++nodes > nodeLimit) {
      aborted = true;
      return;
    }
    double cutoff = best.makespan * (1 - 1e-12);
    if (lowerBound(lastStart, makespan) >= cutoff)
      return;

    std::vector<Move> moves;
    for (unsigned t = 0; t < n; ++t) {
      if (scheduled[t] || missing[t] != 0)
        continue;
      for (unsigned d = 0; d < graph.getNumDevices(); ++d) {
        if (!graph.canRun(t, d))
          continue;
        double s = queueEnd[d];
        for (unsigned e : graph.getInEdges(t)) {
          unsigned pred = graph.getEdge(e).src;
          s = std::max(s, finish[pred] + graph.commTime(e, device[pred], d));
        }
        // Canonical order: non-decreasing starts, ties by task index.
        if (s < lastStart ||
            (s == lastStart && lastTask != ~0u && t < lastTask))
          continue;
        if (s + bottom[t] >= cutoff)
          continue;
        moves.push_back({t, d, s, s + graph.getCost(t, d)});
      }
    }
    std::sort(moves.begin(), moves.end(), [](const Move &a, const Move &b) {
      if (a.finish != b.finish)
        return a.finish < b.finish;
      if (a.task != b.task)
        return a.task < b.task;
      return a.device < b.device;
    });
    for (const Move &move : moves) {
      if (aborted)
        return;
      if (move.start + bottom[move.task] >= best.makespan * (1 - 1e-12))
        continue;
      double savedEnd = queueEnd[move.device];
      double minCost = graph.minCost(move.task);
      scheduled[move.task] = true;
      device[move.task] = move.device;
      start[move.task] = move.start;
      finish[move.task] = move.finish;
      queueEnd[move.device] = move.finish;
      remainingWork -= minCost;
      for (unsigned e : graph.getOutEdges(move.task))
        --missing[graph.getEdge(e).dst];

      search(depth + 1, move.start, move.task, std::max(makespan, move.finish));

      for (unsigned e : graph.getOutEdges(move.task))
        ++missing[graph.getEdge(e).dst];
      remainingWork += minCost;
      queueEnd[move.device] = savedEnd;
      scheduled[move.task] = false;
    }
  }

  const TaskGraph &graph;
  uint64_t nodeLimit;
  uint64_t nodes = 0;
  bool aborted = false;
  std::vector<double> bottom;
  double remainingWork = 0;
  std::vector<unsigned> device;
  std::vector<double> start, finish;
  std::vector<bool> scheduled;
  std::vector<unsigned> missing;
  std::vector<double> queueEnd;
  Schedule best;
};

} // namespace

Schedule
mlir::orchestra::scheduling::scheduleExact(const TaskGraph &graph,
                                           const SchedulerOptions &options) {
  return BranchAndBound(graph, options).run(scheduleILS(graph, options));
}
