//===- Scheduler.h - Task-graph scheduling on heterogeneous devices -*- C++
//-*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The scheduling core of stage 2, independent of MLIR IR: a weighted task
// graph (a DAG whose tasks have a cost per device and whose edges carry data),
// a communication model between devices, and the algorithms that map tasks to
// devices and times:
//
//   - HEFT (Topcuoglu, Hariri and Wu, IEEE TPDS 2002): upward-rank priority,
//     earliest finish time with insertion into idle gaps;
//   - PEFT (Arabnejad and Barbosa, IEEE TPDS 2014): optimistic-cost-table
//     priority and look-ahead device choice;
//   - ILS (ours, the default): the best of HEFT and PEFT refined by iterated
//     local search over task re-placement along the critical path;
//   - Exact: depth-first branch and bound over active schedules, for graphs
//     of a few tasks (the benchmark's optimality reference).
//
// The model is the classic one of the list-scheduling literature: a device
// runs one task at a time without preemption; data sent between tasks on
// different devices arrives `latency + data * secondsPerUnit` after the
// producer finishes (links are contention-free); on the same device it is
// free. A device whose cost for a task is infinite cannot run it. A task whose
// working set exceeds a device's capacity cannot run there either.
//
// Everything is deterministic: ties break by index and the local search uses
// a fixed-seed generator.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SCHEDULING_SCHEDULER_H
#define ORCHESTRA_SCHEDULING_SCHEDULER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir::orchestra::scheduling {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// A weighted DAG to schedule on `numDevices` devices.
class TaskGraph {
public:
  struct Edge {
    unsigned src;
    unsigned dst;
    /// Amount of data sent (bytes, or abstract units for synthetic graphs).
    double data;
  };

  explicit TaskGraph(unsigned numDevices = 1) : numDevices(numDevices) {}

  /// Adds a task with its cost on every device (`costs.size() ==
  /// getNumDevices()`; infinity where the device cannot run it) and its
  /// working set (bytes the task needs resident on its device).
  unsigned addTask(std::vector<double> costs, std::string name = "",
                   double memory = 0);
  /// Adds a dependence `src -> dst` carrying `data`. Parallel edges between
  /// the same tasks are merged (their data adds up).
  void addEdge(unsigned src, unsigned dst, double data);

  /// Communication between devices: `latency + data * secondsPerUnit` from
  /// `from` to `to` (zero on the same device; infinity where no route
  /// exists). By default every pair of distinct devices has latency 0 and
  /// one second per unit: the model of the HEFT paper, where an edge's data is
  /// its communication cost.
  void setCommunication(unsigned from, unsigned to, double latency,
                        double secondsPerUnit);
  /// Memory capacity of `device` (bytes; default unlimited).
  void setCapacity(unsigned device, double bytes);

  /// Checks the graph (indices, costs, acyclicity, every task runnable
  /// somewhere) and builds the adjacency lists and the topological order.
  /// Must be called after the last change and before scheduling.
  llvm::Error finalize();

  unsigned getNumTasks() const { return costs.size() / numDevices; }
  unsigned getNumDevices() const { return numDevices; }
  unsigned getNumEdges() const { return edges.size(); }
  const Edge &getEdge(unsigned e) const { return edges[e]; }
  double getCost(unsigned task, unsigned device) const {
    return costs[task * numDevices + device];
  }
  /// Whether `device` can run `task` (finite cost, working set fits).
  bool canRun(unsigned task, unsigned device) const {
    return costs[task * numDevices + device] < kInfinity &&
           memory[task] <= capacity[device];
  }
  double getMemory(unsigned task) const { return memory[task]; }
  double getCapacity(unsigned device) const { return capacity[device]; }
  const std::string &getName(unsigned task) const { return names[task]; }

  /// Time for edge `e`'s data to go from `from` to `to`.
  double commTime(unsigned e, unsigned from, unsigned to) const {
    if (from == to)
      return 0;
    unsigned pair = from * numDevices + to;
    return latency[pair] + edges[e].data * perUnit[pair];
  }
  /// Mean communication time of edge `e` over the ordered pairs of distinct
  /// devices with a route (the `c-bar` of HEFT); 0 with one device.
  double meanCommTime(unsigned e) const;
  /// Mean cost of `task` over the devices that can run it (`w-bar`).
  double meanCost(unsigned task) const;
  /// Minimum cost of `task` over the devices that can run it.
  double minCost(unsigned task) const;

  /// Incoming / outgoing edges (indices into the edge list).
  llvm::ArrayRef<unsigned> getInEdges(unsigned task) const {
    return llvm::ArrayRef<unsigned>(inEdges).slice(
        inBegin[task], inBegin[task + 1] - inBegin[task]);
  }
  llvm::ArrayRef<unsigned> getOutEdges(unsigned task) const {
    return llvm::ArrayRef<unsigned>(outEdges).slice(
        outBegin[task], outBegin[task + 1] - outBegin[task]);
  }
  /// Tasks in a topological order (stable: by index among ready tasks).
  llvm::ArrayRef<unsigned> getTopologicalOrder() const { return topoOrder; }

  /// Length of the longest path when every task takes its minimum cost and
  /// communication is free: the denominator of the schedule length ratio.
  double getCriticalPathOfMinCosts() const;
  /// A lower bound on any schedule's makespan: the larger of the critical
  /// path of minimum costs and the total minimum work spread over all
  /// devices.
  double getLowerBound() const;

private:
  unsigned numDevices;
  std::vector<double> costs;
  std::vector<double> memory;
  std::vector<std::string> names;
  std::vector<Edge> edges;
  std::vector<double> latency;
  std::vector<double> perUnit;
  std::vector<double> capacity;
  bool communicationSet = false;
  // Built by finalize().
  std::vector<unsigned> inEdges, outEdges, inBegin, outBegin, topoOrder;
  std::vector<double> meanComm;
};

/// A schedule: where and when every task runs.
struct Schedule {
  std::vector<unsigned> device;
  std::vector<double> start;
  std::vector<double> finish;
  double makespan = 0;
  /// For the exact search: whether optimality was proven (false when the
  /// node limit was hit).
  bool optimal = false;
};

/// Checks that `schedule` is feasible for `graph`: every task on a device
/// that can run it for exactly its cost, dependences and communication times
/// respected, no two tasks overlapping on a device, makespan right. The error
/// names the first violation.
llvm::Error verifySchedule(const TaskGraph &graph, const Schedule &schedule);

/// Tasks of `schedule` ordered by start time (ties: topological position):
/// a topological order.
std::vector<unsigned> orderByStart(const TaskGraph &graph,
                                   const Schedule &schedule);

enum class Algorithm { HEFT, PEFT, ILS, Exact };

/// The algorithm's name as options spell it ("heft", "peft", "ils", "exact").
llvm::StringRef stringifyAlgorithm(Algorithm algorithm);
std::optional<Algorithm> parseAlgorithm(llvm::StringRef name);
/// "heft, peft, ils, exact" for help texts and diagnostics.
std::string getAlgorithmNames();

struct SchedulerOptions {
  /// Seed of the local search's generator.
  uint64_t seed = 0x5eed;
  /// Local search: schedule evaluations allowed, in units of tasks + edges
  /// (an evaluation of a graph with T tasks and E edges costs T + E units).
  /// Bounds the search's time independently of the graph's size.
  double searchBudget = 1.0e7;
  /// Local search: at most this many evaluations, whatever the graph's size.
  unsigned maxEvaluations = 2000;
  /// Exact search: give up (returning the best schedule found, not proven
  /// optimal) after this many search nodes.
  uint64_t exactNodeLimit = 50'000'000;
};

/// Schedules `graph` (finalized) with `algorithm`.
llvm::Expected<Schedule> schedule(const TaskGraph &graph, Algorithm algorithm,
                                  const SchedulerOptions &options = {});

} // namespace mlir::orchestra::scheduling

#endif // ORCHESTRA_SCHEDULING_SCHEDULER_H
