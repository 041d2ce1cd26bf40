//===- orchestra-sched-bench.cpp - Schedule-quality benchmark -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Compares the scheduling algorithms on the workloads of the list-scheduling
// literature, independently of any hardware:
//
//   - random DAGs of the HEFT paper's generator over its parameter grid;
//   - Gaussian elimination and FFT graphs;
//   - graphs of at most 12 tasks, against the optimum of the exact search;
//   - a 10,000-task graph on 16 devices, for the scheduler's own run time;
//   - optionally the task graphs of real models (ONNX) on shipped topologies.
//
// Every schedule is checked for feasibility. Seeds are fixed, so the output is
// the same on every run (except the measured times).
//
//===----------------------------------------------------------------------===//

#include "ModelGraphs.h"

#include "orchestra/Scheduling/Scheduler.h"
#include "orchestra/Scheduling/TaskGraphGenerators.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace mlir::orchestra::scheduling;
namespace cl = llvm::cl;

static cl::OptionCategory category("orchestra-sched-bench options");
static cl::opt<bool> quick("quick",
                           cl::desc("A small subset (seconds), for the tests"),
                           cl::init(false), cl::cat(category));
static cl::opt<unsigned>
    repetitions("repetitions",
                cl::desc("Random DAGs per parameter combination (default 3: "
                         "1,125 graphs)"),
                cl::init(3), cl::cat(category));
static cl::opt<std::string>
    markdownFile("markdown",
                 cl::desc("Also write the report as Markdown to this file"),
                 cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::list<std::string>
    models("model",
           cl::desc("Also schedule this model (.onnx or .mlir) on every "
                    "--model-topology"),
           cl::value_desc("file"), cl::cat(category));
static cl::list<std::string> modelTopologies(
    "model-topology",
    cl::desc("Topology JSON files for --model (default: the shipped "
             "cpu+hopper, dgx-h100 and mixed-vendor)"),
    cl::value_desc("file"), cl::cat(category));

namespace {

const Algorithm kAlgorithms[] = {Algorithm::HEFT, Algorithm::PEFT,
                                 Algorithm::ILS};
constexpr unsigned kNumAlgorithms = 3;
constexpr unsigned kILS = 2;

/// Writes text to stdout and, with --markdown, to the report file.
class Report {
public:
  Report() {
    if (!markdownFile.empty()) {
      std::error_code ec;
      file = std::make_unique<llvm::raw_fd_ostream>(markdownFile, ec);
      if (ec) {
        llvm::errs() << "orchestra-sched-bench: error: cannot write '"
                     << markdownFile << "': " << ec.message() << "\n";
        std::exit(1);
      }
    }
  }
  template <typename... Ts>
  void print(const char *fmt, Ts &&...args) {
    std::string text = llvm::formatv(fmt, std::forward<Ts>(args)...).str();
    llvm::outs() << text;
    if (file)
      *file << text;
  }

private:
  std::unique_ptr<llvm::raw_fd_ostream> file;
};

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// Schedules `graph` with `algorithm`, checks the result and returns it.
Schedule run(const TaskGraph &graph, Algorithm algorithm,
             double *time = nullptr) {
  auto begin = std::chrono::steady_clock::now();
  llvm::Expected<Schedule> result = schedule(graph, algorithm);
  if (time)
    *time += seconds(begin);
  if (!result) {
    llvm::errs() << "orchestra-sched-bench: error: "
                 << stringifyAlgorithm(algorithm) << ": "
                 << llvm::toString(result.takeError()) << "\n";
    std::exit(1);
  }
  if (llvm::Error error = verifySchedule(graph, *result)) {
    llvm::errs() << "orchestra-sched-bench: error: "
                 << stringifyAlgorithm(algorithm)
                 << " produced an invalid schedule: "
                 << llvm::toString(std::move(error)) << "\n";
    std::exit(1);
  }
  return std::move(*result);
}

/// Running statistics of every algorithm over a set of graphs.
struct Stats {
  unsigned graphs = 0;
  double makespan[kNumAlgorithms] = {};
  double slr[kNumAlgorithms] = {};
  double bound[kNumAlgorithms] = {};
  double time[kNumAlgorithms] = {};
  unsigned better[kNumAlgorithms] = {}, equal[kNumAlgorithms] = {},
           worse[kNumAlgorithms] = {};

  void add(const TaskGraph &graph) {
    double cp = graph.getCriticalPathOfMinCosts();
    double lb = graph.getLowerBound();
    double results[kNumAlgorithms];
    for (unsigned a = 0; a < kNumAlgorithms; ++a) {
      results[a] = run(graph, kAlgorithms[a], &time[a]).makespan;
      makespan[a] += results[a];
      slr[a] += results[a] / cp;
      bound[a] += results[a] / lb;
    }
    for (unsigned a = 0; a < kNumAlgorithms; ++a) {
      double heft = results[0], tolerance = 1e-9 * heft;
      if (results[a] < heft - tolerance)
        ++better[a];
      else if (results[a] > heft + tolerance)
        ++worse[a];
      else
        ++equal[a];
    }
    ++graphs;
  }
  Stats &operator+=(const Stats &other) {
    graphs += other.graphs;
    for (unsigned a = 0; a < kNumAlgorithms; ++a) {
      makespan[a] += other.makespan[a];
      slr[a] += other.slr[a];
      bound[a] += other.bound[a];
      time[a] += other.time[a];
      better[a] += other.better[a];
      equal[a] += other.equal[a];
      worse[a] += other.worse[a];
    }
    return *this;
  }
  double meanSLR(unsigned a) const { return slr[a] / graphs; }
  /// How much lower the mean SLR of `a` is than HEFT's, in percent.
  double gainOverHEFT(unsigned a) const { return 100 * (1 - slr[a] / slr[0]); }
};

void printStatsTable(Report &report, const Stats &stats) {
  report.print("| algorithm | mean makespan | mean SLR | vs HEFT: better / "
               "equal / worse | makespan / lower bound | time per graph |\n"
               "| --- | ---: | ---: | ---: | ---: | ---: |\n");
  for (unsigned a = 0; a < kNumAlgorithms; ++a) {
    double n = stats.graphs;
    report.print("| {0} | {1:f1} | {2:f4} | {3:f1}% / {4:f1}% / {5:f1}% | "
                 "{6:f4} | {7:f2} ms |\n",
                 stringifyAlgorithm(kAlgorithms[a]), stats.makespan[a] / n,
                 stats.slr[a] / n, 100 * stats.better[a] / n,
                 100 * stats.equal[a] / n, 100 * stats.worse[a] / n,
                 stats.bound[a] / n, 1e3 * stats.time[a] / n);
  }
  report.print("\n");
}

/// Mean SLR per value of one parameter.
void printBreakdown(Report &report, llvm::StringRef parameter,
                    const std::map<double, Stats> &byValue, double &worstLoss) {
  report.print("| {0} | graphs | HEFT SLR | PEFT SLR | ILS SLR | ILS vs "
               "HEFT |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n",
               parameter);
  for (const auto &[value, stats] : byValue) {
    report.print("| {0} | {1} | {2:f4} | {3:f4} | {4:f4} | {5:f2}% |\n", value,
                 stats.graphs, stats.meanSLR(0), stats.meanSLR(1),
                 stats.meanSLR(2), -stats.gainOverHEFT(kILS));
    worstLoss = std::min(worstLoss, stats.gainOverHEFT(kILS));
  }
  report.print("\n");
}

struct Checks {
  std::vector<std::pair<std::string, bool>> items;
  void add(std::string what, bool ok) {
    items.push_back({std::move(what), ok});
  }
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS schedule-quality benchmark\n\n"
      "Compares HEFT, PEFT and the default scheduler (ILS) on random DAGs\n"
      "of the HEFT paper's generator, Gaussian elimination and FFT graphs,\n"
      "small graphs against the optimum, a 10,000-task graph, and the task\n"
      "graphs of real models. Output is Markdown.\n");
  Report report;
  Checks checks;

  const unsigned taskCounts[] = {20, 40, 60, 80, 100};
  const double ccrs[] = {0.1, 0.5, 1, 5, 10};
  const double alphas[] = {0.5, 1, 2};
  const double betas[] = {0.1, 0.25, 0.5, 0.75, 1.0};
  const unsigned outDegrees[] = {1, 2, 3, 4, 5};
  const unsigned deviceCounts[] = {2, 4, 8};
  unsigned reps = quick ? 1 : repetitions.getValue();

  // 1. Random DAGs.
  Stats all;
  std::map<double, Stats> byTasks, byCCR, byAlpha, byBeta;
  Stats heterogeneous;
  uint64_t seed = 1;
  auto start = std::chrono::steady_clock::now();
  for (unsigned v : taskCounts)
    for (double ccr : ccrs)
      for (double alpha : alphas)
        for (double beta : betas)
          for (unsigned rep = 0; rep < reps; ++rep, ++seed) {
            if (quick && seed % 13 != 0)
              continue;
            RandomGraphParameters shape;
            shape.numTasks = v;
            shape.alpha = alpha;
            shape.outDegree = outDegrees[seed % 5];
            CostParameters costs;
            costs.numDevices = deviceCounts[seed % 3];
            costs.ccr = ccr;
            costs.beta = beta;
            costs.seed = seed;
            TaskGraph graph = generateRandomGraph(shape, costs);
            Stats one;
            one.add(graph);
            for (Stats *stats : {&all, &byTasks[v], &byCCR[ccr],
                                 &byAlpha[alpha], &byBeta[beta]})
              *stats += one;
            if (beta >= 0.5)
              heterogeneous += one;
          }
  report.print("## Random DAGs (HEFT paper generator)\n\n"
               "{0} graphs: v in {{20,40,60,80,100}, CCR in "
               "{{0.1,0.5,1,5,10}, alpha in {{0.5,1,2}, beta in "
               "{{0.1,0.25,0.5,0.75,1}, out-degree 1-5 and 2/4/8 devices in "
               "turn; {1:f1} s.\n\n",
               all.graphs, seconds(start));
  printStatsTable(report, all);
  double worstLoss = 0;
  printBreakdown(report, "tasks", byTasks, worstLoss);
  printBreakdown(report, "CCR", byCCR, worstLoss);
  printBreakdown(report, "alpha", byAlpha, worstLoss);
  printBreakdown(report, "beta", byBeta, worstLoss);
  double heteroGain = heterogeneous.gainOverHEFT(kILS);
  report.print("Heterogeneous settings (beta >= 0.5, {0} graphs): ILS mean SLR "
               "{1:f2}% lower than HEFT's, PEFT's {2:f2}% lower.\n\n",
               heterogeneous.graphs, heteroGain, heterogeneous.gainOverHEFT(1));
  checks.add("random DAGs: ILS mean SLR <= HEFT's and PEFT's",
             all.meanSLR(kILS) <= all.meanSLR(0) &&
                 all.meanSLR(kILS) <= all.meanSLR(1));
  checks.add("random DAGs: ILS >= 5% lower SLR than HEFT for beta >= 0.5",
             heteroGain >= 5);
  checks.add("random DAGs: no setting's mean SLR more than 1% above HEFT's",
             worstLoss >= -1);

  // 2. Application graphs.
  {
    Stats gauss, fft;
    auto begin = std::chrono::steady_clock::now();
    uint64_t appSeed = 100000;
    for (double ccr : ccrs)
      for (double beta : betas) {
        for (unsigned m : {5u, 10u, 15u, 20u}) {
          if (quick && m > 10)
            continue;
          CostParameters costs{deviceCounts[appSeed % 3], ccr, beta, appSeed++};
          gauss.add(generateGaussianElimination(m, costs));
        }
        for (unsigned points : {4u, 8u, 16u, 32u}) {
          if (quick && points > 8)
            continue;
          CostParameters costs{deviceCounts[appSeed % 3], ccr, beta, appSeed++};
          fft.add(generateFFT(points, costs));
        }
      }
    report.print("## Application graphs\n\nGaussian elimination (m = 5, 10, "
                 "15, 20; {0} graphs over the CCR and beta grids):\n\n",
                 gauss.graphs);
    printStatsTable(report, gauss);
    report.print("FFT (4, 8, 16, 32 points; {0} graphs):\n\n", fft.graphs);
    printStatsTable(report, fft);
    report.print("({0:f1} s)\n\n", seconds(begin));
  }

  // 3. Small graphs against the optimum.
  {
    auto begin = std::chrono::steady_clock::now();
    double gap[kNumAlgorithms] = {};
    unsigned proven = 0, total = 0, optimalHits[kNumAlgorithms] = {};
    uint64_t smallSeed = 200000;
    for (unsigned v : {6u, 8u, 10u, 12u})
      for (double ccr : {0.5, 1.0, 5.0})
        for (double beta : {0.25, 0.75, 1.0})
          for (unsigned rep = 0; rep < (quick ? 1u : 4u); ++rep) {
            if (quick && v > 8)
              continue;
            RandomGraphParameters shape{v, 1.0, 3};
            CostParameters costs{2 + unsigned(smallSeed % 2), ccr, beta,
                                 smallSeed++};
            TaskGraph graph = generateRandomGraph(shape, costs);
            ++total;
            Schedule exact = run(graph, Algorithm::Exact);
            if (!exact.optimal)
              continue;
            ++proven;
            for (unsigned a = 0; a < kNumAlgorithms; ++a) {
              double makespan = run(graph, kAlgorithms[a]).makespan;
              gap[a] += makespan / exact.makespan - 1;
              if (makespan <= exact.makespan * (1 + 1e-9))
                ++optimalHits[a];
            }
          }
    report.print("## Small graphs against the optimum\n\n{0} random graphs of "
                 "6-12 tasks on 2-3 devices; the exact search proved the "
                 "optimum of {1} ({2:f1} s).\n\n"
                 "| algorithm | mean gap to optimum | optimal schedules |\n"
                 "| --- | ---: | ---: |\n",
                 total, proven, seconds(begin));
    for (unsigned a = 0; a < kNumAlgorithms; ++a)
      report.print(
          "| {0} | {1:f2}% | {2} / {3} |\n", stringifyAlgorithm(kAlgorithms[a]),
          proven ? 100 * gap[a] / proven : 0.0, optimalHits[a], proven);
    report.print("\n");
    checks.add("small graphs: ILS mean gap to the optimum <= 5%",
               proven > 0 && 100 * gap[kILS] / proven <= 5);
  }

  // 4. Scheduler run time on a large graph.
  {
    RandomGraphParameters shape{10000, 1.0, 3};
    CostParameters costs{16, 1.0, 0.5, 4242};
    TaskGraph graph = generateRandomGraph(shape, costs);
    report.print("## Scheduler run time\n\n10,000 tasks, {0} edges, 16 "
                 "devices:\n\n| algorithm | time | makespan / lower bound "
                 "|\n| --- | ---: | ---: |\n",
                 graph.getNumEdges());
    for (unsigned a = 0; a < kNumAlgorithms; ++a) {
      double time = 0;
      Schedule result = run(graph, kAlgorithms[a], &time);
      report.print("| {0} | {1:f3} s | {2:f4} |\n",
                   stringifyAlgorithm(kAlgorithms[a]), time,
                   result.makespan / graph.getLowerBound());
      if (kAlgorithms[a] == Algorithm::ILS)
        checks.add("10,000 tasks on 16 devices: ILS < 2 s", time < 2);
    }
    report.print("\n");
  }

  // 5. Real models.
  if (!models.empty()) {
    std::vector<std::string> topologies(modelTopologies.begin(),
                                        modelTopologies.end());
    if (topologies.empty())
      for (const char *name : {"cpu+hopper", "dgx-h100", "mixed-vendor"})
        topologies.push_back(std::string(ORCHESTRA_TOPOLOGIES_DIR) + "/" +
                             name + ".json");
    llvm::Expected<mlir::orchestra::bench::ModelReport> modelReport =
        mlir::orchestra::bench::benchmarkModels(models, topologies);
    if (!modelReport) {
      llvm::errs() << "orchestra-sched-bench: error: "
                   << llvm::toString(modelReport.takeError()) << "\n";
      return 1;
    }
    report.print("{0}", modelReport->text);
    for (auto &[what, passed] : modelReport->checks)
      checks.add(what, passed);
  }

  report.print("## Checks\n\n");
  bool ok = true;
  for (const auto &[what, passed] : checks.items) {
    report.print("- [{0}] {1}\n", passed ? "x" : " ", what);
    ok &= passed;
  }
  report.print("\n{0}: mean SLR {1:f4}, {2:f1}% better than HEFT\n",
               stringifyAlgorithm(Algorithm::ILS), all.meanSLR(kILS),
               100.0 * all.better[kILS] / all.graphs);
  return ok ? 0 : 1;
}
