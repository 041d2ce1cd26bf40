//===- TaskGraphGenerators.cpp - Synthetic task graphs --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Scheduling/TaskGraphGenerators.h"
#include "ListScheduling.h"

#include <algorithm>
#include <cmath>

using namespace mlir::orchestra::scheduling;

namespace {

/// Draws costs as the HEFT paper does; tasks and edges are added in order.
class CostDrawer {
public:
  explicit CostDrawer(const CostParameters &params)
      : params(params), random(params.seed * 0x2545f4914f6cdd1dull + 17) {
    meanCost = random.uniform(20, 100);
  }

  unsigned addTask(TaskGraph &graph, std::string name = "") {
    double mean = random.uniform(0, 2 * meanCost);
    std::vector<double> costs(params.numDevices);
    for (double &cost : costs)
      cost = random.uniform(mean * (1 - params.beta / 2),
                            mean * (1 + params.beta / 2));
    return graph.addTask(std::move(costs), std::move(name));
  }

  void addEdge(TaskGraph &graph, unsigned src, unsigned dst) {
    graph.addEdge(src, dst, random.uniform(0, 2 * params.ccr * meanCost));
  }

  Random &getRandom() { return random; }

private:
  CostParameters params;
  Random random;
  double meanCost;
};

TaskGraph finalized(TaskGraph graph) {
  llvm::cantFail(graph.finalize());
  return graph;
}

} // namespace

TaskGraph mlir::orchestra::scheduling::generateRandomGraph(
    const RandomGraphParameters &shape, const CostParameters &costs) {
  CostDrawer drawer(costs);
  Random &random = drawer.getRandom();
  TaskGraph graph(costs.numDevices);
  unsigned v = std::max(1u, shape.numTasks);

  // Levels of uniformly drawn width with mean alpha * sqrt(v).
  double meanWidth = std::max(1.0, shape.alpha * std::sqrt(double(v)));
  unsigned maxWidth =
      std::max(1u, static_cast<unsigned>(std::lround(2 * meanWidth - 1)));
  std::vector<std::vector<unsigned>> levels;
  for (unsigned created = 0; created < v;) {
    unsigned width = std::min(1 + random.below(maxWidth), v - created);
    levels.emplace_back();
    for (unsigned i = 0; i < width; ++i)
      levels.back().push_back(drawer.addTask(graph));
    created += width;
  }

  // Each task sends to 1..outDegree tasks of later levels, mostly the next.
  std::vector<bool> hasPred(v, false);
  for (unsigned l = 0; l + 1 < levels.size(); ++l) {
    for (unsigned task : levels[l]) {
      unsigned degree = 1 + random.below(std::max(1u, shape.outDegree));
      for (unsigned k = 0; k < degree; ++k) {
        unsigned target = l + 1;
        if (random.below(4) == 0)
          target += random.below(levels.size() - l - 1);
        const std::vector<unsigned> &level = levels[target];
        unsigned dst = level[random.below(level.size())];
        drawer.addEdge(graph, task, dst);
        hasPred[dst] = true;
      }
    }
  }
  // Every task below the first level has a predecessor.
  for (unsigned l = 1; l < levels.size(); ++l)
    for (unsigned task : levels[l])
      if (!hasPred[task]) {
        const std::vector<unsigned> &above = levels[l - 1];
        drawer.addEdge(graph, above[random.below(above.size())], task);
      }
  return finalized(std::move(graph));
}

TaskGraph mlir::orchestra::scheduling::generateGaussianElimination(
    unsigned matrixSize, const CostParameters &costs) {
  CostDrawer drawer(costs);
  TaskGraph graph(costs.numDevices);
  unsigned m = std::max(2u, matrixSize);
  // updates[j]: the latest task that updated column j.
  std::vector<unsigned> updates(m, ~0u);
  unsigned pivot = drawer.addTask(graph, "pivot0");
  for (unsigned k = 0; k + 1 < m; ++k) {
    std::vector<unsigned> next(m, ~0u);
    for (unsigned j = k + 1; j < m; ++j) {
      unsigned update = drawer.addTask(graph, "update" + std::to_string(k) +
                                                  "_" + std::to_string(j));
      drawer.addEdge(graph, pivot, update);
      if (updates[j] != ~0u)
        drawer.addEdge(graph, updates[j], update);
      next[j] = update;
    }
    updates = std::move(next);
    if (k + 2 < m) {
      unsigned nextPivot =
          drawer.addTask(graph, "pivot" + std::to_string(k + 1));
      drawer.addEdge(graph, updates[k + 1], nextPivot);
      pivot = nextPivot;
    }
  }
  return finalized(std::move(graph));
}

TaskGraph
mlir::orchestra::scheduling::generateFFT(unsigned points,
                                         const CostParameters &costs) {
  CostDrawer drawer(costs);
  TaskGraph graph(costs.numDevices);
  unsigned n = 2;
  while (n < points)
    n *= 2;
  // Recursive calls: a complete binary tree, parents before children.
  std::vector<unsigned> tree(2 * n - 1);
  for (unsigned i = 0; i < tree.size(); ++i) {
    tree[i] = drawer.addTask(graph, "call" + std::to_string(i));
    if (i > 0)
      drawer.addEdge(graph, tree[(i - 1) / 2], tree[i]);
  }
  // Butterflies: log2(n) levels of n tasks; level 0 reads the leaves.
  std::vector<unsigned> previous(tree.end() - n, tree.end());
  for (unsigned level = 0, stride = 1; stride < n; ++level, stride *= 2) {
    std::vector<unsigned> current(n);
    for (unsigned i = 0; i < n; ++i) {
      current[i] = drawer.addTask(graph, "butterfly" + std::to_string(level) +
                                             "_" + std::to_string(i));
      drawer.addEdge(graph, previous[i], current[i]);
      drawer.addEdge(graph, previous[i ^ stride], current[i]);
    }
    previous = std::move(current);
  }
  return finalized(std::move(graph));
}
