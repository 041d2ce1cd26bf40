//===- TaskGraph.cpp - Weighted task graphs and schedule checks -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Scheduling/Scheduler.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <queue>

using namespace mlir::orchestra::scheduling;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

unsigned TaskGraph::addTask(std::vector<double> taskCosts, std::string name,
                            double bytes) {
  assert(taskCosts.size() == numDevices && "one cost per device");
  unsigned id = getNumTasks();
  costs.insert(costs.end(), taskCosts.begin(), taskCosts.end());
  memory.push_back(bytes);
  names.push_back(name.empty() ? "n" + std::to_string(id) : std::move(name));
  return id;
}

void TaskGraph::addEdge(unsigned src, unsigned dst, double data) {
  edges.push_back({src, dst, data});
}

void TaskGraph::setCommunication(unsigned from, unsigned to, double lat,
                                 double secondsPerUnit) {
  if (!communicationSet) {
    latency.assign(numDevices * numDevices, 0);
    perUnit.assign(numDevices * numDevices, 1);
    communicationSet = true;
  }
  latency[from * numDevices + to] = lat;
  perUnit[from * numDevices + to] = secondsPerUnit;
}

void TaskGraph::setCapacity(unsigned device, double bytes) {
  if (capacity.size() != numDevices)
    capacity.assign(numDevices, kInfinity);
  capacity[device] = bytes;
}

llvm::Error TaskGraph::finalize() {
  if (numDevices == 0)
    return makeError("a task graph needs at least one device");
  unsigned n = getNumTasks();
  if (!communicationSet) {
    latency.assign(numDevices * numDevices, 0);
    perUnit.assign(numDevices * numDevices, 1);
    communicationSet = true;
  }
  if (capacity.size() != numDevices)
    capacity.assign(numDevices, kInfinity);
  for (unsigned d = 0; d < numDevices * numDevices; ++d)
    if (!(latency[d] >= 0) || !(perUnit[d] >= 0))
      return makeError("communication latency and time per unit must be "
                       "non-negative");

  for (unsigned t = 0; t < n; ++t) {
    bool runnable = false;
    for (unsigned d = 0; d < numDevices; ++d) {
      double c = getCost(t, d);
      if (!(c >= 0))
        return makeError(llvm::formatv(
            "task {0} ('{1}') has cost {2} on device {3}; costs must be "
            "non-negative (infinity: cannot run there)",
            t, names[t], c, d));
      runnable |= canRun(t, d);
    }
    if (!runnable)
      return makeError(llvm::formatv(
          "task {0} ('{1}') can run on no device (unsupported everywhere, "
          "or its working set of {2:f0} bytes exceeds every device's "
          "capacity)",
          t, names[t], memory[t]));
  }

  // Merge parallel edges.
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> edgeIndex;
  std::vector<Edge> merged;
  for (const Edge &edge : edges) {
    if (edge.src >= n || edge.dst >= n)
      return makeError(llvm::formatv("edge {0} -> {1} names a task that does "
                                     "not exist ({2} tasks)",
                                     edge.src, edge.dst, n));
    if (edge.src == edge.dst)
      return makeError(llvm::formatv("task {0} ('{1}') depends on itself",
                                     edge.src, names[edge.src]));
    if (!(edge.data >= 0))
      return makeError(llvm::formatv("edge {0} -> {1} carries negative data",
                                     edge.src, edge.dst));
    auto [it, inserted] =
        edgeIndex.try_emplace({edge.src, edge.dst}, merged.size());
    if (inserted)
      merged.push_back(edge);
    else
      merged[it->second].data += edge.data;
  }
  edges = std::move(merged);

  // Adjacency (CSR), edges in insertion order per task.
  inBegin.assign(n + 1, 0);
  outBegin.assign(n + 1, 0);
  for (const Edge &edge : edges) {
    ++inBegin[edge.dst + 1];
    ++outBegin[edge.src + 1];
  }
  for (unsigned t = 0; t < n; ++t) {
    inBegin[t + 1] += inBegin[t];
    outBegin[t + 1] += outBegin[t];
  }
  inEdges.assign(edges.size(), 0);
  outEdges.assign(edges.size(), 0);
  std::vector<unsigned> inFill(inBegin.begin(), inBegin.end() - 1);
  std::vector<unsigned> outFill(outBegin.begin(), outBegin.end() - 1);
  for (unsigned e = 0; e < edges.size(); ++e) {
    inEdges[inFill[edges[e].dst]++] = e;
    outEdges[outFill[edges[e].src]++] = e;
  }

  // Topological order, smallest index first among ready tasks.
  topoOrder.clear();
  std::vector<unsigned> indegree(n);
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      ready;
  for (unsigned t = 0; t < n; ++t)
    if ((indegree[t] = inBegin[t + 1] - inBegin[t]) == 0)
      ready.push(t);
  while (!ready.empty()) {
    unsigned t = ready.top();
    ready.pop();
    topoOrder.push_back(t);
    for (unsigned e : getOutEdges(t))
      if (--indegree[edges[e].dst] == 0)
        ready.push(edges[e].dst);
  }
  if (topoOrder.size() != n) {
    for (unsigned t = 0; t < n; ++t)
      if (indegree[t] != 0)
        return makeError(
            llvm::formatv("the task graph has a cycle through task {0} ('{1}')",
                          t, names[t]));
  }

  // Mean communication time per edge over routed pairs of distinct devices.
  meanComm.assign(edges.size(), 0);
  for (unsigned e = 0; e < edges.size(); ++e) {
    double sum = 0;
    unsigned pairs = 0;
    for (unsigned p = 0; p < numDevices; ++p)
      for (unsigned q = 0; q < numDevices; ++q) {
        if (p == q)
          continue;
        double time = commTime(e, p, q);
        if (time < kInfinity) {
          sum += time;
          ++pairs;
        }
      }
    meanComm[e] = pairs ? sum / pairs : 0;
  }
  return llvm::Error::success();
}

double TaskGraph::meanCommTime(unsigned e) const { return meanComm[e]; }

double TaskGraph::meanCost(unsigned task) const {
  double sum = 0;
  unsigned count = 0;
  for (unsigned d = 0; d < numDevices; ++d)
    if (canRun(task, d)) {
      sum += getCost(task, d);
      ++count;
    }
  return count ? sum / count : kInfinity;
}

double TaskGraph::minCost(unsigned task) const {
  double best = kInfinity;
  for (unsigned d = 0; d < numDevices; ++d)
    if (canRun(task, d))
      best = std::min(best, getCost(task, d));
  return best;
}

double TaskGraph::getCriticalPathOfMinCosts() const {
  std::vector<double> finish(getNumTasks(), 0);
  double longest = 0;
  for (unsigned t : topoOrder) {
    double start = 0;
    for (unsigned e : getInEdges(t))
      start = std::max(start, finish[edges[e].src]);
    finish[t] = start + minCost(t);
    longest = std::max(longest, finish[t]);
  }
  return longest;
}

double TaskGraph::getLowerBound() const {
  double work = 0;
  for (unsigned t = 0; t < getNumTasks(); ++t)
    work += minCost(t);
  return std::max(getCriticalPathOfMinCosts(), work / numDevices);
}

llvm::Error
mlir::orchestra::scheduling::verifySchedule(const TaskGraph &graph,
                                            const Schedule &schedule) {
  unsigned n = graph.getNumTasks();
  if (schedule.device.size() != n || schedule.start.size() != n ||
      schedule.finish.size() != n)
    return makeError(llvm::formatv("the schedule covers {0} tasks, the graph "
                                   "has {1}",
                                   schedule.device.size(), n));
  // Relative tolerance for float sums of costs.
  auto tolerance = [](double value) {
    return 1e-9 * std::max(1.0, std::fabs(value));
  };
  double makespan = 0;
  std::vector<std::vector<unsigned>> perDevice(graph.getNumDevices());
  for (unsigned t = 0; t < n; ++t) {
    unsigned d = schedule.device[t];
    if (d >= graph.getNumDevices())
      return makeError(llvm::formatv("task {0} is on device {1}, which does "
                                     "not exist",
                                     t, d));
    if (!graph.canRun(t, d))
      return makeError(llvm::formatv("task {0} ('{1}') is on device {2}, "
                                     "which cannot run it",
                                     t, graph.getName(t), d));
    if (schedule.start[t] < -tolerance(0))
      return makeError(llvm::formatv("task {0} starts before time 0", t));
    double duration = schedule.finish[t] - schedule.start[t];
    if (std::fabs(duration - graph.getCost(t, d)) >
        tolerance(schedule.finish[t]))
      return makeError(llvm::formatv("task {0} ('{1}') runs for {2}, its cost "
                                     "on device {3} is {4}",
                                     t, graph.getName(t), duration, d,
                                     graph.getCost(t, d)));
    for (unsigned e : graph.getInEdges(t)) {
      unsigned p = graph.getEdge(e).src;
      double arrival =
          schedule.finish[p] + graph.commTime(e, schedule.device[p], d);
      if (schedule.start[t] + tolerance(arrival) < arrival)
        return makeError(llvm::formatv(
            "task {0} ('{1}') starts at {2}, before the data of task {3} "
            "('{4}') arrives at {5}",
            t, graph.getName(t), schedule.start[t], p, graph.getName(p),
            arrival));
    }
    perDevice[d].push_back(t);
    makespan = std::max(makespan, schedule.finish[t]);
  }
  for (auto &tasks : perDevice) {
    std::sort(tasks.begin(), tasks.end(), [&](unsigned a, unsigned b) {
      if (schedule.start[a] != schedule.start[b])
        return schedule.start[a] < schedule.start[b];
      return schedule.finish[a] < schedule.finish[b];
    });
    for (size_t i = 1; i < tasks.size(); ++i) {
      unsigned a = tasks[i - 1], b = tasks[i];
      if (schedule.start[b] + tolerance(schedule.finish[a]) <
          schedule.finish[a])
        return makeError(
            llvm::formatv("tasks {0} and {1} overlap on device {2}", a, b,
                          schedule.device[a]));
    }
  }
  if (std::fabs(makespan - schedule.makespan) > tolerance(makespan))
    return makeError(llvm::formatv("the schedule's makespan is {0}, its last "
                                   "task finishes at {1}",
                                   schedule.makespan, makespan));
  return llvm::Error::success();
}
