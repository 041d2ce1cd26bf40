//===- SchedulerTest.cpp - Tests of the scheduling algorithms -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Scheduling/Scheduler.h"
#include "orchestra/Scheduling/TaskGraphGenerators.h"

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>

using namespace mlir::orchestra::scheduling;

namespace {

const Algorithm kAll[] = {Algorithm::HEFT, Algorithm::PEFT, Algorithm::ILS,
                          Algorithm::Exact};

Schedule mustSchedule(const TaskGraph &graph, Algorithm algorithm) {
  llvm::Expected<Schedule> result = schedule(graph, algorithm);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  if (llvm::Error error = verifySchedule(graph, *result))
    ADD_FAILURE() << stringifyAlgorithm(algorithm).str() << ": "
                  << llvm::toString(std::move(error));
  return std::move(*result);
}

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "";
}

/// The example of the HEFT paper (Topcuoglu et al. 2002, figure 2): ten
/// tasks on three processors.
TaskGraph heftPaperExample() {
  TaskGraph graph(3);
  const double costs[10][3] = {
      {14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17},  {12, 13, 10},
      {13, 16, 9}, {7, 15, 11},  {5, 11, 14},  {18, 12, 20}, {21, 7, 16}};
  for (const auto &row : costs)
    graph.addTask({row[0], row[1], row[2]});
  const unsigned edges[][3] = {{0, 1, 18}, {0, 2, 12}, {0, 3, 9},  {0, 4, 11},
                               {0, 5, 14}, {1, 7, 19}, {1, 8, 16}, {2, 6, 23},
                               {3, 7, 27}, {3, 8, 23}, {4, 8, 13}, {5, 7, 15},
                               {6, 9, 17}, {7, 9, 11}, {8, 9, 13}};
  for (const auto &edge : edges)
    graph.addEdge(edge[0], edge[1], edge[2]);
  llvm::cantFail(graph.finalize());
  return graph;
}

/// Fork-join on two devices: A -> {B, C} -> D with communication 5 per edge.
/// Running B and C apart costs one transfer each way; the optimum is
/// A(0-1) B(1-11) on one device, C(6-16) D(16-17) on the other: 17.
TaskGraph forkJoin() {
  TaskGraph graph(2);
  unsigned a = graph.addTask({1, 1}, "A");
  unsigned b = graph.addTask({10, 10}, "B");
  unsigned c = graph.addTask({10, 10}, "C");
  unsigned d = graph.addTask({1, 1}, "D");
  graph.addEdge(a, b, 5);
  graph.addEdge(a, c, 5);
  graph.addEdge(b, d, 5);
  graph.addEdge(c, d, 5);
  llvm::cantFail(graph.finalize());
  return graph;
}

/// The optimum by enumeration of every task order and device assignment,
/// each task appended to its device's queue: independent of the branch and
/// bound's pruning.
double bruteForceOptimum(const TaskGraph &graph) {
  unsigned n = graph.getNumTasks(), p = graph.getNumDevices();
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0);
  double best = kInfinity;
  do {
    // Skip orders that are not topological.
    std::vector<unsigned> position(n);
    for (unsigned i = 0; i < n; ++i)
      position[order[i]] = i;
    bool topological = true;
    for (unsigned e = 0; e < graph.getNumEdges(); ++e)
      topological &=
          position[graph.getEdge(e).src] < position[graph.getEdge(e).dst];
    if (!topological)
      continue;
    unsigned assignments = 1;
    for (unsigned i = 0; i < n; ++i)
      assignments *= p;
    for (unsigned code = 0; code < assignments; ++code) {
      std::vector<unsigned> device(n);
      for (unsigned t = 0, rest = code; t < n; ++t, rest /= p)
        device[t] = rest % p;
      std::vector<double> finish(n), queueEnd(p, 0);
      double makespan = 0;
      bool feasible = true;
      for (unsigned t : order) {
        if (!graph.canRun(t, device[t])) {
          feasible = false;
          break;
        }
        double start = queueEnd[device[t]];
        for (unsigned e : graph.getInEdges(t)) {
          unsigned pred = graph.getEdge(e).src;
          start = std::max(
              start, finish[pred] + graph.commTime(e, device[pred], device[t]));
        }
        finish[t] = start + graph.getCost(t, device[t]);
        queueEnd[device[t]] = finish[t];
        makespan = std::max(makespan, finish[t]);
      }
      if (feasible)
        best = std::min(best, makespan);
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

} // namespace

TEST(TaskGraph, RanksAndBounds) {
  TaskGraph graph = forkJoin();
  EXPECT_DOUBLE_EQ(graph.getCriticalPathOfMinCosts(), 12);
  EXPECT_DOUBLE_EQ(graph.getLowerBound(), 12);
  EXPECT_DOUBLE_EQ(graph.meanCost(1), 10);
  EXPECT_DOUBLE_EQ(graph.meanCommTime(0), 5);
}

TEST(TaskGraph, RejectsCycles) {
  TaskGraph graph(1);
  graph.addTask({1}, "a");
  graph.addTask({1}, "b");
  graph.addEdge(0, 1, 1);
  graph.addEdge(1, 0, 1);
  EXPECT_NE(errorOf(graph.finalize()).find("cycle"), std::string::npos);
}

TEST(TaskGraph, RejectsTaskRunnableNowhere) {
  TaskGraph graph(2);
  graph.addTask({kInfinity, 3}, "big", /*memory=*/100);
  graph.setCapacity(1, 50);
  std::string error = errorOf(graph.finalize());
  EXPECT_NE(error.find("('big') can run on no device"), std::string::npos)
      << error;
}

TEST(TaskGraph, RejectsBadEdgesAndCosts) {
  TaskGraph self(1);
  self.addTask({1});
  self.addEdge(0, 0, 1);
  EXPECT_NE(errorOf(self.finalize()).find("depends on itself"),
            std::string::npos);
  TaskGraph dangling(1);
  dangling.addTask({1});
  dangling.addEdge(0, 3, 1);
  EXPECT_NE(errorOf(dangling.finalize()).find("does not exist"),
            std::string::npos);
  TaskGraph negative(1);
  negative.addTask({-1});
  EXPECT_NE(errorOf(negative.finalize()).find("non-negative"),
            std::string::npos);
}

TEST(TaskGraph, MergesParallelEdges) {
  TaskGraph graph(2);
  graph.addTask({1, 1});
  graph.addTask({1, 1});
  graph.addEdge(0, 1, 2);
  graph.addEdge(0, 1, 3);
  llvm::cantFail(graph.finalize());
  ASSERT_EQ(graph.getNumEdges(), 1u);
  EXPECT_DOUBLE_EQ(graph.getEdge(0).data, 5);
}

TEST(Scheduler, ForkJoinIsOptimalForEveryAlgorithm) {
  TaskGraph graph = forkJoin();
  for (Algorithm algorithm : kAll) {
    Schedule result = mustSchedule(graph, algorithm);
    EXPECT_DOUBLE_EQ(result.makespan, 17)
        << stringifyAlgorithm(algorithm).str();
    // B and C run on different devices, D next to C.
    EXPECT_NE(result.device[1], result.device[2]);
  }
  EXPECT_EQ(bruteForceOptimum(graph), 17);
}

TEST(Scheduler, HEFTPaperExample) {
  TaskGraph graph = heftPaperExample();
  // Schedule length of HEFT in the paper's figure 2(a).
  EXPECT_DOUBLE_EQ(mustSchedule(graph, Algorithm::HEFT).makespan, 80);
  double ils = mustSchedule(graph, Algorithm::ILS).makespan;
  EXPECT_LE(ils, 80);
  Schedule exact = mustSchedule(graph, Algorithm::Exact);
  EXPECT_TRUE(exact.optimal);
  EXPECT_LE(exact.makespan, ils);
  EXPECT_GE(exact.makespan, graph.getLowerBound());
}

TEST(Scheduler, IndependentTasksSpread) {
  // Two independent tasks: each on the device that is fast for it.
  TaskGraph graph(2);
  graph.addTask({2, 5});
  graph.addTask({2, 3});
  llvm::cantFail(graph.finalize());
  for (Algorithm algorithm : kAll) {
    Schedule result = mustSchedule(graph, algorithm);
    EXPECT_DOUBLE_EQ(result.makespan, 3) << stringifyAlgorithm(algorithm).str();
    EXPECT_EQ(result.device[0], 0u);
    EXPECT_EQ(result.device[1], 1u);
  }
}

TEST(Scheduler, InsertionFillsIdleGaps) {
  // x runs only on device 1 and sends to y, which runs only on device 0, so
  // y waits for the transfer until 11. z, independent and of lower priority,
  // goes into the idle gap before y rather than after it.
  TaskGraph graph(2);
  unsigned x = graph.addTask({kInfinity, 1}, "x");
  unsigned y = graph.addTask({1, kInfinity}, "y");
  unsigned z = graph.addTask({5, kInfinity}, "z");
  graph.addEdge(x, y, 10);
  llvm::cantFail(graph.finalize());
  for (Algorithm algorithm : kAll) {
    Schedule result = mustSchedule(graph, algorithm);
    EXPECT_DOUBLE_EQ(result.start[y], 11)
        << stringifyAlgorithm(algorithm).str();
    EXPECT_DOUBLE_EQ(result.start[z], 0) << stringifyAlgorithm(algorithm).str();
    EXPECT_DOUBLE_EQ(result.makespan, 12);
  }
}

TEST(Scheduler, UnsupportedDevicesAndCapacity) {
  // Device 0 cannot run task 1 (infinite cost); device 1 cannot hold task 2's
  // working set. Both would be fastest there.
  TaskGraph graph(2);
  unsigned a = graph.addTask({1, 1}, "a", 10);
  unsigned b = graph.addTask({kInfinity, 50}, "b", 10);
  unsigned c = graph.addTask({50, 1}, "c", 1000);
  graph.addEdge(a, b, 1);
  graph.addEdge(a, c, 1);
  graph.setCapacity(1, 100);
  llvm::cantFail(graph.finalize());
  for (Algorithm algorithm : kAll) {
    Schedule result = mustSchedule(graph, algorithm);
    EXPECT_EQ(result.device[b], 1u) << stringifyAlgorithm(algorithm).str();
    EXPECT_EQ(result.device[c], 0u) << stringifyAlgorithm(algorithm).str();
  }
}

TEST(Scheduler, ExactMatchesBruteForceOnRandomGraphs) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    RandomGraphParameters shape{5 + unsigned(seed % 2), 1.0, 2};
    CostParameters costs{2, seed % 3 == 0 ? 5.0 : 1.0, 0.75, seed};
    TaskGraph graph = generateRandomGraph(shape, costs);
    double optimum = bruteForceOptimum(graph);
    Schedule exact = mustSchedule(graph, Algorithm::Exact);
    EXPECT_TRUE(exact.optimal);
    EXPECT_NEAR(exact.makespan, optimum, 1e-9 * optimum) << "seed " << seed;
    for (Algorithm algorithm :
         {Algorithm::HEFT, Algorithm::PEFT, Algorithm::ILS})
      EXPECT_GE(mustSchedule(graph, algorithm).makespan, optimum * (1 - 1e-9));
  }
}

TEST(Scheduler, ILSNeverWorseThanHEFTOrPEFT) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    RandomGraphParameters shape{20 + unsigned(seed % 4) * 20, 1.0, 3};
    CostParameters costs{4, seed % 2 ? 5.0 : 0.5, 1.0, seed};
    TaskGraph graph = generateRandomGraph(shape, costs);
    double heft = mustSchedule(graph, Algorithm::HEFT).makespan;
    double peft = mustSchedule(graph, Algorithm::PEFT).makespan;
    double ils = mustSchedule(graph, Algorithm::ILS).makespan;
    EXPECT_LE(ils, std::min(heft, peft));
  }
}

TEST(Scheduler, Deterministic) {
  RandomGraphParameters shape{60, 1.0, 3};
  CostParameters costs{4, 1.0, 1.0, 7};
  TaskGraph graph = generateRandomGraph(shape, costs);
  Schedule first = mustSchedule(graph, Algorithm::ILS);
  Schedule second = mustSchedule(graph, Algorithm::ILS);
  EXPECT_EQ(first.device, second.device);
  EXPECT_EQ(first.start, second.start);
}

TEST(Scheduler, ExactRefusesLargeGraphs) {
  RandomGraphParameters shape{40, 1.0, 3};
  TaskGraph graph = generateRandomGraph(shape, CostParameters{});
  llvm::Expected<Schedule> result = schedule(graph, Algorithm::Exact);
  ASSERT_FALSE(result);
  EXPECT_NE(llvm::toString(result.takeError()).find("at most 24 tasks"),
            std::string::npos);
}

TEST(Scheduler, VerifierCatchesViolations) {
  TaskGraph graph = forkJoin();
  Schedule result = mustSchedule(graph, Algorithm::HEFT);
  Schedule early = result;
  early.start[3] -= 1;
  early.finish[3] -= 1;
  EXPECT_NE(errorOf(verifySchedule(graph, early)).find("before the data"),
            std::string::npos);
  Schedule overlap = result;
  overlap.device[2] = overlap.device[1];
  EXPECT_FALSE(errorOf(verifySchedule(graph, overlap)).empty());
}

TEST(Generators, Sizes) {
  CostParameters costs;
  EXPECT_EQ(generateGaussianElimination(5, costs).getNumTasks(), 14u);
  EXPECT_EQ(generateFFT(8, costs).getNumTasks(), 15u + 24u);
  RandomGraphParameters shape{100, 0.5, 3};
  TaskGraph graph = generateRandomGraph(shape, costs);
  EXPECT_EQ(graph.getNumTasks(), 100u);
  // Only the first level has entry tasks.
  EXPECT_GT(graph.getNumEdges(), 99u);
}

TEST(Algorithms, Names) {
  for (Algorithm algorithm : kAll)
    EXPECT_EQ(parseAlgorithm(stringifyAlgorithm(algorithm)), algorithm);
  EXPECT_FALSE(parseAlgorithm("fifo"));
}
