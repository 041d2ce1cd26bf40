//===- LocalSearch.cpp - Iterated local search over task placement --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The default scheduler. It starts from the better of HEFT and PEFT and
// improves it by iterated local search:
//
//   - a schedule is represented by its device assignment and the order of
//     its start times; decoding places the tasks in that order on their
//     devices, each at its earliest start (insertion into idle gaps). Decoding
//     a schedule's own assignment and order never makes a task later, so the
//     search only ever moves between valid, comparable schedules;
//   - the neighbourhood re-places one task of the critical path (the chain of
//     data and device dependences that ends at the last task) on another
//     device; the first move that shortens the makespan is taken (descent);
//   - when no move helps, the best schedule is perturbed by re-placing one to
//     three random tasks and the descent starts again.
//
// The number of decodings is bounded by SchedulerOptions (a budget in units of
// graph size, and an absolute cap), so the time is bounded on large graphs and
// the result is deterministic (fixed-seed generator). The result is never
// worse than HEFT's or PEFT's.
//
//===----------------------------------------------------------------------===//

#include "ListScheduling.h"

#include <algorithm>
#include <cmath>

using namespace mlir::orchestra::scheduling;

namespace {

bool isBetter(const Schedule &a, const Schedule &b) {
  return a.makespan < b.makespan - 1e-12 * std::fabs(b.makespan);
}

/// The critical path of `schedule`: from the task that finishes last, back
/// through the predecessor whose data arrived exactly at the start, or else
/// the task that occupied the device until then.
std::vector<unsigned> getCriticalTasks(const TaskGraph &graph,
                                       const Schedule &schedule) {
  unsigned n = graph.getNumTasks();
  std::vector<std::vector<unsigned>> onDevice(graph.getNumDevices());
  unsigned last = 0;
  for (unsigned t = 0; t < n; ++t) {
    onDevice[schedule.device[t]].push_back(t);
    if (schedule.finish[t] > schedule.finish[last])
      last = t;
  }
  auto close = [](double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
  };
  std::vector<unsigned> chain;
  std::vector<bool> seen(n, false);
  for (unsigned t = last; !seen[t];) {
    seen[t] = true;
    chain.push_back(t);
    double start = schedule.start[t];
    if (start <= 0)
      break;
    std::optional<unsigned> next;
    for (unsigned e : graph.getInEdges(t)) {
      unsigned pred = graph.getEdge(e).src;
      double arrival =
          schedule.finish[pred] +
          graph.commTime(e, schedule.device[pred], schedule.device[t]);
      if (close(arrival, start)) {
        next = pred;
        break;
      }
    }
    if (!next)
      for (unsigned other : onDevice[schedule.device[t]])
        if (other != t && close(schedule.finish[other], start)) {
          next = other;
          break;
        }
    if (!next)
      break;
    t = *next;
  }
  return chain;
}

class IteratedLocalSearch {
public:
  IteratedLocalSearch(const TaskGraph &graph, const SchedulerOptions &options)
      : graph(graph), random(options.seed) {
    double unit = graph.getNumTasks() + graph.getNumEdges();
    double byBudget = std::floor(options.searchBudget / std::max(1.0, unit));
    budget = static_cast<unsigned>(
        std::min<double>(options.maxEvaluations, byBudget));
  }

  Schedule run(Schedule initial) {
    Schedule best = std::move(initial);
    if (graph.getNumDevices() < 2 || graph.getNumTasks() < 2)
      return best;
    descend(best);
    while (evaluations < budget) {
      Schedule candidate = perturb(best);
      descend(candidate);
      if (isBetter(candidate, best))
        best = std::move(candidate);
    }
    return best;
  }

private:
  Schedule decode(const std::vector<unsigned> &order,
                  const std::vector<unsigned> &assignment) {
    ++evaluations;
    return decodeAssignment(graph, order, assignment);
  }

  /// First-improvement descent over critical-path re-placements.
  void descend(Schedule &current) {
    bool improved = true;
    while (improved && evaluations < budget) {
      improved = false;
      std::vector<unsigned> order = orderByStart(graph, current);
      std::vector<unsigned> assignment = current.device;
      for (unsigned t : getCriticalTasks(graph, current)) {
        unsigned original = assignment[t];
        for (unsigned d = 0; d < graph.getNumDevices(); ++d) {
          if (d == original || !graph.canRun(t, d))
            continue;
          if (evaluations >= budget)
            return;
          assignment[t] = d;
          Schedule candidate = decode(order, assignment);
          if (isBetter(candidate, current)) {
            current = std::move(candidate);
            improved = true;
            break;
          }
        }
        assignment[t] = original;
        if (improved)
          break;
      }
    }
  }

  /// Re-places one to three random tasks of `from` (critical ones half of
  /// the time) on random devices that can run them.
  Schedule perturb(const Schedule &from) {
    std::vector<unsigned> order = orderByStart(graph, from);
    std::vector<unsigned> assignment = from.device;
    std::vector<unsigned> critical = getCriticalTasks(graph, from);
    unsigned moves = 1 + random.below(3);
    for (unsigned i = 0; i < moves; ++i) {
      unsigned t = random.below(2) == 0
                       ? critical[random.below(critical.size())]
                       : random.below(graph.getNumTasks());
      std::vector<unsigned> devices;
      for (unsigned d = 0; d < graph.getNumDevices(); ++d)
        if (d != assignment[t] && graph.canRun(t, d))
          devices.push_back(d);
      if (!devices.empty())
        assignment[t] = devices[random.below(devices.size())];
    }
    return decode(order, assignment);
  }

  const TaskGraph &graph;
  Random random;
  unsigned budget = 0;
  unsigned evaluations = 0;
};

} // namespace

Schedule
mlir::orchestra::scheduling::scheduleILS(const TaskGraph &graph,
                                         const SchedulerOptions &options) {
  Schedule heft = scheduleHEFT(graph);
  Schedule peft = schedulePEFT(graph);
  Schedule start = isBetter(peft, heft) ? std::move(peft) : std::move(heft);
  return IteratedLocalSearch(graph, options).run(std::move(start));
}
