//===- ModelGraphs.cpp - The scheduling benchmark on real models ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "ModelGraphs.h"

#include "orchestra/Dialect/Orchestra/Transforms/CostModel.h"
#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"
#include "orchestra/Dialect/Orchestra/Transforms/Schedule.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra/Scheduling/Scheduler.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <set>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::scheduling;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static double secondsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
      .count();
}

/// Imports `path` and converts elementwise tensor ops to linalg (stage 1).
static llvm::Expected<OwningOpRef<ModuleOp>> loadModel(MLIRContext *context,
                                                       StringRef path) {
  OwningOpRef<ModuleOp> module;
  if (onnx_import::isONNXModelPath(path)) {
    FailureOr<onnx_import::ImportResult> imported =
        onnx_import::importModelFile(context, path);
    if (failed(imported))
      return makeError("cannot import '" + path + "'");
    module = std::move(imported->module);
  } else {
    module = parseSourceFile<ModuleOp>(path, context);
    if (!module)
      return makeError("cannot parse '" + path + "'");
  }
  PassManager pm(context, ModuleOp::getOperationName());
  // Stage 1 exactly as orchestra-compile runs it: the named pipeline.
  if (failed(parsePassPipeline("orchestra-prepare", pm)) ||
      failed(pm.run(*module)))
    return makeError("stage 1 failed on '" + path + "'");
  return std::move(module);
}

/// A short model name: the file's directory for `DIR/model.onnx`, else the
/// file's stem.
static std::string getModelName(StringRef path) {
  StringRef stem = llvm::sys::path::stem(path);
  if (stem == "model")
    return llvm::sys::path::filename(llvm::sys::path::parent_path(path)).str();
  return stem.str();
}

llvm::Expected<bench::ModelReport>
bench::benchmarkModels(ArrayRef<std::string> models,
                       ArrayRef<std::string> topologies) {
  DialectRegistry registry;
  registerAllDialectsAndExtensions(registry);
  registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  const TargetRegistry &targets = getTargetRegistry();

  const Algorithm algorithms[] = {Algorithm::HEFT, Algorithm::PEFT,
                                  Algorithm::ILS};
  ModelReport report;
  llvm::raw_string_ostream os(report.text);
  os << "## Real models\n\nThe task graphs of models imported from ONNX "
        "(fusion groups costed by the cost model) on the shipped "
        "topologies. Makespans are the cost model's predictions.\n\n"
        "| model | topology | tasks | HEFT | PEFT | ILS | ILS vs HEFT | ILS "
        "/ lower bound | device kinds (ILS) | transfers (ILS) | pass time "
        "(ILS) |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
        "--- | ---: | ---: |\n";
  for (const std::string &path : models) {
    llvm::Expected<OwningOpRef<ModuleOp>> module = loadModel(&context, path);
    if (!module)
      return module.takeError();
    FailureOr<func::FuncOp> func = lookupEntryFunction(**module, "");
    if (failed(func))
      return makeError("'" + path + "' has no entry function");
    std::string name = getModelName(path);
    for (const std::string &topologySpec : topologies) {
      llvm::Expected<Topology> topology =
          Topology::resolve(topologySpec, targets);
      if (!topology)
        return topology.takeError();
      CostModel model(*topology, targets);
      FailureOr<TaskGraph> graph = buildEntryTaskGraph(*func, model);
      if (failed(graph))
        return makeError("cannot build the task graph of '" + path + "'");
      double makespan[3] = {};
      Schedule ils;
      for (unsigned a = 0; a < 3; ++a) {
        llvm::Expected<Schedule> result = schedule(*graph, algorithms[a]);
        if (!result)
          return result.takeError();
        if (llvm::Error error = verifySchedule(*graph, *result))
          return error;
        makespan[a] = result->makespan;
        if (algorithms[a] == Algorithm::ILS)
          ils = std::move(*result);
      }
      // Device kinds and cross-device edges of the ILS schedule (the first
      // and last tasks are the pinned inputs and outputs).
      std::set<std::string> kinds;
      for (unsigned t = 1; t + 1 < graph->getNumTasks(); ++t)
        kinds.insert(topology->devices[ils.device[t]].arch);
      unsigned transfers = 0;
      for (unsigned e = 0; e < graph->getNumEdges(); ++e) {
        const TaskGraph::Edge &edge = graph->getEdge(e);
        transfers += ils.device[edge.src] != ils.device[edge.dst];
      }
      // The whole pass, on a copy of the module.
      OwningOpRef<ModuleOp> copy = (*module)->clone();
      PassManager pm(&context, ModuleOp::getOperationName());
      std::string pipeline =
          "orchestra-schedule{topology=" + topologySpec + " algorithm=ils}";
      if (failed(parsePassPipeline(pipeline, pm)))
        return makeError("cannot parse '" + pipeline + "'");
      auto begin = std::chrono::steady_clock::now();
      if (failed(pm.run(*copy)))
        return makeError("orchestra-schedule failed on '" + path + "'");
      double passTime = secondsSince(begin);

      std::string kindList;
      for (const std::string &kind : kinds)
        kindList += (kindList.empty() ? "" : ", ") + kind;
      os << llvm::formatv(
          "| {0} | {1} | {2} | {3:f3} ms | {4:f3} ms | {5:f3} ms | {6:f1}% | "
          "{7:f3} | {8} | {9} | {10:f1} ms |\n",
          name, topology->name, graph->getNumTasks() - 2, 1e3 * makespan[0],
          1e3 * makespan[1], 1e3 * makespan[2],
          100 * (makespan[2] / makespan[0] - 1),
          makespan[2] / graph->getLowerBound(), kindList, transfers,
          1e3 * passTime);
      if (name.find("resnet18") != std::string::npos)
        report.checks.push_back(
            {llvm::formatv("orchestra-schedule on ResNet-18 ({0}) < 100 ms",
                           topology->name)
                 .str(),
             passTime < 0.1});
      if (name.find("transformer") != std::string::npos &&
          topology->name == "mixed-vendor")
        report.checks.push_back(
            {"transformer on mixed-vendor: more than one device kind, with "
             "transfers",
             kinds.size() > 1 && transfers > 0});
    }
  }
  os << "\n";
  return report;
}
