//===- ListScheduling.cpp - HEFT, PEFT and the list-scheduling core -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "ListScheduling.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <queue>

using namespace mlir::orchestra::scheduling;

//===----------------------------------------------------------------------===//
// Timeline
//===----------------------------------------------------------------------===//

double Timeline::earliestStart(double ready, double duration) const {
  // Intervals are disjoint and sorted, so their finishes are sorted too: skip
  // every interval that ends at or before `ready`.
  auto it = std::upper_bound(
      busy.begin(), busy.end(), ready,
      [](double time, const std::pair<double, double> &interval) {
        return time < interval.second;
      });
  double candidate = ready;
  for (; it != busy.end(); ++it) {
    if (candidate + duration <= it->first)
      return candidate;
    candidate = std::max(candidate, it->second);
  }
  return candidate;
}

void Timeline::insert(double start, double finish) {
  // Ordered by (start, finish): a zero-length interval goes before an
  // interval starting at the same time, so finishes stay sorted.
  std::pair<double, double> interval(start, finish);
  busy.insert(std::upper_bound(busy.begin(), busy.end(), interval), interval);
}

//===----------------------------------------------------------------------===//
// ListScheduler
//===----------------------------------------------------------------------===//

ListScheduler::ListScheduler(const TaskGraph &graph)
    : graph(graph), timelines(graph.getNumDevices()) {
  unsigned n = graph.getNumTasks();
  result.device.assign(n, 0);
  result.start.assign(n, 0);
  result.finish.assign(n, 0);
}

double ListScheduler::dataReady(unsigned task, unsigned device) const {
  double ready = 0;
  for (unsigned e : graph.getInEdges(task)) {
    unsigned pred = graph.getEdge(e).src;
    ready = std::max(ready, result.finish[pred] +
                                graph.commTime(e, result.device[pred], device));
  }
  return ready;
}

void ListScheduler::place(unsigned task, unsigned device, double start) {
  double finish = start + graph.getCost(task, device);
  timelines[device].insert(start, finish);
  result.device[task] = device;
  result.start[task] = start;
  result.finish[task] = finish;
  result.makespan = std::max(result.makespan, finish);
}

unsigned ListScheduler::placeEarliestFinish(unsigned task) {
  unsigned best = 0;
  double bestStart = 0, bestFinish = kInfinity;
  for (unsigned d = 0; d < graph.getNumDevices(); ++d) {
    if (!graph.canRun(task, d))
      continue;
    double start = earliestStart(task, d);
    double finish = start + graph.getCost(task, d);
    if (finish < bestFinish) {
      best = d;
      bestStart = start;
      bestFinish = finish;
    }
  }
  place(task, best, bestStart);
  return best;
}

//===----------------------------------------------------------------------===//
// Priorities and decoders
//===----------------------------------------------------------------------===//

std::vector<double>
mlir::orchestra::scheduling::computeUpwardRanks(const TaskGraph &graph) {
  std::vector<double> rank(graph.getNumTasks(), 0);
  llvm::ArrayRef<unsigned> order = graph.getTopologicalOrder();
  for (unsigned t : llvm::reverse(order)) {
    double tail = 0;
    for (unsigned e : graph.getOutEdges(t))
      tail = std::max(tail, graph.meanCommTime(e) + rank[graph.getEdge(e).dst]);
    rank[t] = graph.meanCost(t) + tail;
  }
  return rank;
}

/// Repeatedly takes the ready task of highest `priority` (ties: lowest
/// topological position) and lets `placeTask(scheduler, task)` place it.
template <typename PlaceFn>
static Schedule scheduleByPriority(const TaskGraph &graph,
                                   const std::vector<double> &priority,
                                   PlaceFn placeTask) {
  unsigned n = graph.getNumTasks();
  std::vector<unsigned> position(n);
  llvm::ArrayRef<unsigned> topo = graph.getTopologicalOrder();
  for (unsigned i = 0; i < n; ++i)
    position[topo[i]] = i;
  auto lower = [&](unsigned a, unsigned b) {
    if (priority[a] != priority[b])
      return priority[a] < priority[b];
    return position[a] > position[b];
  };
  std::priority_queue<unsigned, std::vector<unsigned>, decltype(lower)> ready(
      lower);
  std::vector<unsigned> missing(n);
  for (unsigned t = 0; t < n; ++t)
    if ((missing[t] = graph.getInEdges(t).size()) == 0)
      ready.push(t);
  ListScheduler scheduler(graph);
  while (!ready.empty()) {
    unsigned t = ready.top();
    ready.pop();
    placeTask(scheduler, t);
    for (unsigned e : graph.getOutEdges(t))
      if (--missing[graph.getEdge(e).dst] == 0)
        ready.push(graph.getEdge(e).dst);
  }
  return scheduler.takeSchedule();
}

Schedule mlir::orchestra::scheduling::decodeAssignment(
    const TaskGraph &graph, const std::vector<unsigned> &order,
    const std::vector<unsigned> &assignment) {
  ListScheduler scheduler(graph);
  for (unsigned t : order)
    scheduler.place(t, assignment[t],
                    scheduler.earliestStart(t, assignment[t]));
  return scheduler.takeSchedule();
}

std::vector<unsigned>
mlir::orchestra::scheduling::orderByStart(const TaskGraph &graph,
                                          const Schedule &schedule) {
  unsigned n = graph.getNumTasks();
  std::vector<unsigned> position(n);
  llvm::ArrayRef<unsigned> topo = graph.getTopologicalOrder();
  for (unsigned i = 0; i < n; ++i)
    position[topo[i]] = i;
  std::vector<unsigned> order(topo.begin(), topo.end());
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    if (schedule.start[a] != schedule.start[b])
      return schedule.start[a] < schedule.start[b];
    return position[a] < position[b];
  });
  return order;
}

//===----------------------------------------------------------------------===//
// HEFT and PEFT
//===----------------------------------------------------------------------===//

Schedule mlir::orchestra::scheduling::scheduleHEFT(const TaskGraph &graph) {
  return scheduleByPriority(graph, computeUpwardRanks(graph),
                            [](ListScheduler &scheduler, unsigned task) {
                              scheduler.placeEarliestFinish(task);
                            });
}

Schedule mlir::orchestra::scheduling::schedulePEFT(const TaskGraph &graph) {
  unsigned n = graph.getNumTasks(), p = graph.getNumDevices();
  // Optimistic cost table: OCT(t, d) = max over successors s of
  // min over devices q of (OCT(s, q) + w(s, q) + (q != d ? c-bar : 0)).
  // The inner minimum is min(best(s) + c-bar, OCT(s, d) + w(s, d)) with
  // best(s) = min over q of OCT(s, q) + w(s, q), so a row costs O(p).
  std::vector<double> oct(static_cast<size_t>(n) * p, 0);
  std::vector<double> best(n, kInfinity);
  for (unsigned t : llvm::reverse(graph.getTopologicalOrder())) {
    for (unsigned d = 0; d < p; ++d) {
      double value = 0;
      for (unsigned e : graph.getOutEdges(t)) {
        unsigned s = graph.getEdge(e).dst;
        double sameDevice = graph.canRun(s, d)
                                ? oct[s * p + d] + graph.getCost(s, d)
                                : kInfinity;
        value = std::max(value,
                         std::min(best[s] + graph.meanCommTime(e), sameDevice));
      }
      oct[t * p + d] = value;
      if (graph.canRun(t, d))
        best[t] = std::min(best[t], value + graph.getCost(t, d));
    }
  }
  std::vector<double> rank(n, 0);
  for (unsigned t = 0; t < n; ++t) {
    double sum = 0;
    unsigned count = 0;
    for (unsigned d = 0; d < p; ++d)
      if (graph.canRun(t, d)) {
        sum += oct[t * p + d];
        ++count;
      }
    rank[t] = count ? sum / count : 0;
  }
  return scheduleByPriority(
      graph, rank, [&](ListScheduler &scheduler, unsigned task) {
        unsigned bestDevice = 0;
        double bestStart = 0, bestValue = kInfinity;
        for (unsigned d = 0; d < p; ++d) {
          if (!graph.canRun(task, d))
            continue;
          double start = scheduler.earliestStart(task, d);
          double value = start + graph.getCost(task, d) + oct[task * p + d];
          if (value < bestValue) {
            bestDevice = d;
            bestStart = start;
            bestValue = value;
          }
        }
        scheduler.place(task, bestDevice, bestStart);
      });
}
