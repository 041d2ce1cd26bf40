//===- orchestra-tune.cpp - Search strategy variants per kernel shape -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Tuning mode of the strategies (docs/Tuning.md). For a model, finds the
// kernel ops that have strategy variants (those each backend's
// `collectTunableOps` hook names; today the CPU backend's `linalg.matmul`s,
// variants `@matmul_variant_<name>` of the arch's strategy script), and for
// each distinct shape compiles and runs that op alone with
// the script's default path and with every variant on this machine. The
// fastest (the plan's step time, best of two passes of --repeat runs) goes
// into the
// tuning cache, which `orchestra-compile --tuning-cache FILE` applies.
// Existing entries are kept (and not re-measured without --retune), so one
// cache can serve several models.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Support/TuningCache.h"
#include "orchestra/Target/Backend.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <limits>
#include <random>
#include <thread>

using namespace mlir;
using namespace mlir::orchestra;
namespace tuning = ::orchestra::tuning;

static llvm::cl::OptionCategory category("orchestra-tune options");
static llvm::cl::opt<std::string>
    inputFilename(llvm::cl::Positional,
                  llvm::cl::desc("<input .mlir or .onnx>"), llvm::cl::Required,
                  llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    topologySpec("topology",
                 llvm::cl::desc("'host' (default) or a topology JSON file: "
                                "the devices whose kernels are tuned"),
                 llvm::cl::value_desc("host|file"), llvm::cl::init("host"),
                 llvm::cl::cat(category));
static llvm::cl::opt<std::string> cachePath(
    "cache",
    llvm::cl::desc("The tuning cache to update (created when missing; "
                   "default: orchestra-tuning.json)"),
    llvm::cl::value_desc("file"), llvm::cl::init("orchestra-tuning.json"),
    llvm::cl::cat(category));
static llvm::cl::opt<unsigned>
    repeat("repeat",
           llvm::cl::desc("Timed runs per variant and pass after a "
                          "warm-up (default 10); two passes, the fastest run "
                          "counts"),
           llvm::cl::value_desc("N"), llvm::cl::init(10),
           llvm::cl::cat(category));
static llvm::cl::list<std::string>
    variantFilter("variants",
                  llvm::cl::desc("Only try these variants (comma-separated; "
                                 "default: every variant of the script)"),
                  llvm::cl::CommaSeparated, llvm::cl::cat(category));
static llvm::cl::opt<bool>
    retune("retune",
           llvm::cl::desc("Measure shapes the cache already has an entry for"),
           llvm::cl::cat(category));
static llvm::cl::opt<bool>
    listOnly("list",
             llvm::cl::desc("Print the tunable kernel ops and the variants, "
                            "measure nothing"),
             llvm::cl::cat(category));
static llvm::cl::opt<std::string> strategiesDir(
    "strategies-dir",
    llvm::cl::desc("Directory of the strategy scripts (default: "
                   "$ORCHESTRA_STRATEGIES_DIR, else the source tree's "
                   "strategies/)"),
    llvm::cl::value_desc("dir"), llvm::cl::init(""), llvm::cl::cat(category));
static llvm::cl::opt<bool>
    quiet("quiet", llvm::cl::desc("Print only errors and the summary"),
          llvm::cl::cat(category));

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
/// A kernel op to tune, the target of the device it runs on, and the
/// backend that named it.
struct Candidate {
  tuning::TuningKey key;
  DictionaryAttr target;
  const TargetBackend *backend = nullptr;
};
} // namespace

/// The variants a strategy script offers: its `@matmul_variant_<name>`
/// named sequences, in file order.
static llvm::Expected<std::vector<std::string>>
readVariants(MLIRContext *context, StringRef scriptPath) {
  llvm::SourceMgr sourceMgr;
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(scriptPath, &error);
  if (!file)
    return makeError("cannot read strategy script '" + scriptPath +
                     "': " + error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> script = parseSourceFile<ModuleOp>(sourceMgr, context);
  if (!script)
    return makeError("strategy script '" + scriptPath + "' does not parse");
  std::vector<std::string> variants;
  constexpr llvm::StringLiteral prefix = "matmul_variant_";
  script->walk([&](transform::NamedSequenceOp sequence) {
    StringRef name = sequence.getSymName();
    if (name.consume_front(prefix))
      variants.push_back(name.str());
  });
  return variants;
}

/// Runs stages 1-4 (up to outlining) and collects the tunable kernel ops.
static llvm::Expected<std::vector<Candidate>>
collectCandidates(MLIRContext *context, ModuleOp module) {
  CompileOptions options;
  options.topology = topologySpec;
  options.lastPhase = CompilePhase::Outline;
  if (failed(runCompilePipeline(module, options)))
    return makeError("compiling '" + inputFilename + "' failed");

  std::vector<Candidate> candidates;
  module.walk([&](ModuleOp kernels) {
    for (const TargetBackend &backend : getTargetBackends()) {
      if (!backend.collectTunableOps)
        continue;
      std::vector<TunableOp> ops;
      backend.collectTunableOps(kernels, ops);
      for (TunableOp &op : ops)
        if (llvm::none_of(candidates, [&](const Candidate &other) {
              return other.key == op.key;
            }))
          candidates.push_back({std::move(op.key), op.target, &backend});
    }
  });
  return candidates;
}

/// A one-device topology for `candidate`'s arch and target.
static Topology benchmarkTopology(const Candidate &candidate) {
  const TargetInfo *info = getTargetRegistry().lookup(candidate.key.arch);
  std::string kind = info ? info->defaultMemorySpace : "";
  llvm::json::Object target;
  if (candidate.target)
    for (NamedAttribute entry : candidate.target) {
      // Keys the device sets itself stay out of 'target'.
      if (entry.getName() == TargetRegistry::kArchKey ||
          entry.getName() == TargetRegistry::kDeviceIdKey)
        continue;
      Attribute value = entry.getValue();
      if (auto b = dyn_cast<BoolAttr>(value))
        target[entry.getName().str()] = b.getValue();
      else if (auto i = dyn_cast<IntegerAttr>(value))
        target[entry.getName().str()] = i.getInt();
      else if (auto f = dyn_cast<FloatAttr>(value))
        target[entry.getName().str()] = f.getValueAsDouble();
      else if (auto s = dyn_cast<StringAttr>(value))
        target[entry.getName().str()] = s.getValue().str();
    }
  int64_t units = std::max<int64_t>(candidate.key.threads, 1);
  Topology topology;
  topology.name = "orchestra-tune";
  TopologyDevice &device = topology.devices.emplace_back();
  device.name = "tune0";
  device.arch = candidate.key.arch;
  device.computeUnits = units;
  device.peakFlops["f32"] = 1.0e11 * units;
  device.memoryBandwidth = 2.0e10;
  device.launchOverhead = 5.0e-6;
  device.target = std::move(target);
  topology.memorySpaces.push_back(
      {"tune0_" + kind, device.name, kind, 8589934592LL});
  return topology;
}

namespace {
/// A compiled benchmark, ready to run.
struct Benchmark {
  orx::ArtifactPtr artifact;
  orx::SessionPtr session;
  std::vector<std::vector<float>> inputs;
  std::vector<const void *> inputData;
  std::vector<size_t> inputSizes;
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<void *> outputData;
  std::vector<size_t> outputSizes;
  std::vector<double> times;

  /// Runs the plan once; returns the milliseconds of its steps.
  llvm::Expected<double> run();
  double best();
};
} // namespace

llvm::Expected<double> Benchmark::run() {
  if (orx::StatusPtr status{orx_session_run(
          session.get(), inputData.data(), inputSizes.data(), inputData.size(),
          outputData.data(), outputSizes.data(), outputData.size())})
    return makeError(orx_status_message(status.get()));
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0, e = orx_session_trace_size(session.get()); i < e; ++i) {
    orx_trace_event_t event;
    if (orx::StatusPtr status{
            orx_session_trace_event(session.get(), i, &event)})
      return makeError(orx_status_message(status.get()));
    first = std::min(first, event.start_ns);
    last = std::max(last, event.end_ns);
  }
  return first < last ? (last - first) / 1e6 : 0.0;
}

double Benchmark::best() {
  return times.empty() ? std::numeric_limits<double>::infinity()
                       : *std::min_element(times.begin(), times.end());
}

/// Compiles the benchmark of `candidate` with `variant` ("default": no
/// tuning cache) and loads it.
static llvm::Expected<std::unique_ptr<Benchmark>>
compileBenchmark(const Candidate &candidate, StringRef variant,
                 StringRef workDir) {
  // A fresh context per compile: the transform dialect keeps the strategy
  // library it preloaded, and a second preload would define it twice.
  DialectRegistry registry;
  mlir::orchestra::registerAllDialectsAndExtensions(registry);
  MLIRContext contextStorage(registry);
  contextStorage.loadAllAvailableDialects();
  contextStorage.printOpOnDiagnostic(false);
  MLIRContext *context = &contextStorage;
  llvm::SmallString<256> topologyPath(workDir), variantCache(workDir);
  llvm::sys::path::append(topologyPath, "topology.json");
  llvm::sys::path::append(variantCache, "variant.json");
  if (llvm::Error err = benchmarkTopology(candidate).writeFile(topologyPath))
    return std::move(err);
  CompileOptions options;
  options.topology = topologyPath.str().str();
  options.strategiesDir = strategiesDir;
  if (variant != "default") {
    tuning::TuningCache cache;
    cache.insert({candidate.key, variant.str(), 0, 0});
    if (llvm::Error err = cache.writeFile(variantCache))
      return std::move(err);
    options.tuningCache = variantCache.str().str();
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      candidate.backend->getTuningBenchmark(candidate.key), context);
  if (!module)
    return makeError("the benchmark program does not parse");
  options.entry = "main";
  FailureOr<orx::Artifact> artifact = compileToArtifact(*module, options);
  if (failed(artifact))
    return makeError("compiling the benchmark failed");
  std::vector<uint8_t> bytes = orx::serializeArtifact(*artifact);

  auto benchmark = std::make_unique<Benchmark>();
  orx_artifact_t *rawArtifact = nullptr;
  if (orx::StatusPtr status{
          orx_artifact_load_memory(bytes.data(), bytes.size(), &rawArtifact)})
    return makeError(orx_status_message(status.get()));
  benchmark->artifact.reset(rawArtifact);
  orx_artifact_t *loaded = rawArtifact;
  orx_session_t *rawSession = nullptr;
  if (orx::StatusPtr status{orx_session_create(loaded, &rawSession)})
    return makeError(orx_status_message(status.get()));
  benchmark->session.reset(rawSession);

  std::mt19937 generator(42);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (size_t i = 0, e = orx_artifact_num_inputs(loaded); i < e; ++i) {
    orx_tensor_info_t info;
    if (orx::StatusPtr status{orx_artifact_input_info(loaded, i, &info)})
      return makeError(orx_status_message(status.get()));
    benchmark->inputs.emplace_back(info.byte_size / sizeof(float));
    for (float &value : benchmark->inputs.back())
      value = uniform(generator);
    benchmark->inputData.push_back(benchmark->inputs.back().data());
    benchmark->inputSizes.push_back(info.byte_size);
  }
  for (size_t i = 0, e = orx_artifact_num_outputs(loaded); i < e; ++i) {
    orx_tensor_info_t info;
    if (orx::StatusPtr status{orx_artifact_output_info(loaded, i, &info)})
      return makeError(orx_status_message(status.get()));
    benchmark->outputs.emplace_back(info.byte_size);
    benchmark->outputData.push_back(benchmark->outputs.back().data());
    benchmark->outputSizes.push_back(info.byte_size);
  }
  // The first run warms up the caches and the workers.
  if (llvm::Expected<double> warmUp = benchmark->run(); !warmUp)
    return warmUp.takeError();
  return benchmark;
}

static llvm::Error tune() {
  DialectRegistry registry;
  mlir::orchestra::registerAllDialectsAndExtensions(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  // The model, up to its kernels.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input)
    return makeError(error);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (onnx_import::isONNXModelPath(inputFilename)) {
    FailureOr<onnx_import::ImportResult> imported = onnx_import::importModel(
        &context, input->getBuffer(), inputFilename, {});
    if (failed(imported))
      return makeError("cannot import '" + inputFilename + "'");
    module = std::move(imported->module);
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return makeError("cannot parse '" + inputFilename + "'");
  }
  llvm::Expected<std::vector<Candidate>> candidates =
      collectCandidates(&context, *module);
  if (!candidates)
    return candidates.takeError();

  // The variants each arch's script offers.
  CompileOptions dirOptions;
  dirOptions.strategiesDir = strategiesDir;
  std::string dir = getStrategiesDir(dirOptions);
  llvm::StringMap<std::vector<std::string>> variantsOfArch;
  for (const Candidate &candidate : *candidates) {
    if (variantsOfArch.count(candidate.key.arch))
      continue;
    const TargetInfo *info = getTargetRegistry().lookup(candidate.key.arch);
    std::vector<std::string> variants;
    if (info && !info->strategyScript.empty()) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, info->strategyScript);
      llvm::Expected<std::vector<std::string>> found =
          readVariants(&context, path);
      if (!found)
        return found.takeError();
      variants = std::move(*found);
    }
    if (!variantFilter.empty()) {
      for (const std::string &name : variantFilter)
        if (name != "default" && !llvm::is_contained(variants, name))
          return makeError("the strategy of '" + candidate.key.arch +
                           "' has no variant '" + name + "'");
      llvm::erase_if(variants, [](const std::string &name) {
        return !llvm::is_contained(variantFilter, name);
      });
    }
    variantsOfArch[candidate.key.arch] = std::move(variants);
  }
  llvm::erase_if(*candidates, [&](const Candidate &candidate) {
    return variantsOfArch[candidate.key.arch].empty();
  });

  llvm::raw_ostream &os = llvm::outs();
  if (listOnly) {
    for (const Candidate &candidate : *candidates)
      os << candidate.key.str() << ": default, "
         << llvm::join(variantsOfArch[candidate.key.arch], ", ") << "\n";
    return llvm::Error::success();
  }

  tuning::TuningCache cache;
  if (llvm::sys::fs::exists(cachePath)) {
    llvm::Expected<tuning::TuningCache> existing =
        tuning::TuningCache::readFile(cachePath);
    if (!existing)
      return existing.takeError();
    cache = std::move(*existing);
  }
  cache.machine =
      llvm::formatv("{0}, {1} hardware threads", llvm::sys::getHostCPUName(),
                    std::thread::hardware_concurrency())
          .str();

  llvm::SmallString<128> workDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("orchestra-tune", workDir))
    return makeError("cannot create a temporary directory: " + ec.message());
  llvm::scope_exit cleanUp(
      [&] { (void)llvm::sys::fs::remove_directories(workDir); });

  size_t index = 0, tuned = 0, kept = 0;
  for (const Candidate &candidate : *candidates) {
    ++index;
    if (!retune && cache.lookup(candidate.key)) {
      ++kept;
      if (!quiet)
        llvm::errs() << llvm::formatv("[{0}/{1}] {2}: in the cache\n", index,
                                      candidates->size(), candidate.key.str());
      continue;
    }
    std::vector<std::string> variants{"default"};
    llvm::append_range(variants, variantsOfArch[candidate.key.arch]);
    if (!quiet)
      llvm::errs() << llvm::formatv("[{0}/{1}] {2}: measuring {3} variants\n",
                                    index, candidates->size(),
                                    candidate.key.str(), variants.size());
    // Two passes, the second in reverse order, one session alive at a time;
    // a variant's time is its fastest run. (On a shared machine the time of
    // a run moves by up to 2x for seconds at a time, e.g. when the VM's two
    // vCPUs land on one physical core; the fastest run is what the variant
    // can do, and two passes apart in time give each variant two chances.)
    std::vector<double> times(variants.size(),
                              std::numeric_limits<double>::infinity());
    for (unsigned pass = 0; pass < 2; ++pass)
      for (size_t step = 0; step < variants.size(); ++step) {
        size_t v = pass == 0 ? step : variants.size() - 1 - step;
        llvm::Expected<std::unique_ptr<Benchmark>> benchmark =
            compileBenchmark(candidate, variants[v], workDir);
        if (!benchmark)
          return makeError(candidate.key.str() + ", variant '" + variants[v] +
                           "': " + llvm::toString(benchmark.takeError()));
        for (unsigned run = 0; run < repeat; ++run) {
          llvm::Expected<double> time = (*benchmark)->run();
          if (!time)
            return makeError(candidate.key.str() + ", variant '" + variants[v] +
                             "': " + llvm::toString(time.takeError()));
          (*benchmark)->times.push_back(*time);
        }
        times[v] = std::min(times[v], (*benchmark)->best());
      }
    tuning::TuningEntry best{candidate.key, "", 0, 0};
    for (auto [variant, time] : llvm::zip(variants, times)) {
      if (!quiet)
        llvm::errs() << llvm::formatv("[{0}/{1}] {2}: {3,-16} {4,9:f3} ms\n",
                                      index, candidates->size(),
                                      candidate.key.str(), variant, time);
      if (variant == "default")
        best.defaultTimeMs = time;
      if (best.variant.empty() || time < best.timeMs) {
        best.variant = variant;
        best.timeMs = time;
      }
    }
    os << llvm::formatv("{0}: {1} ({2:f3} ms; default {3:f3} ms, {4:f2}x)\n",
                        candidate.key.str(), best.variant, best.timeMs,
                        best.defaultTimeMs, best.defaultTimeMs / best.timeMs);
    ++tuned;
    // Merged into the file after every shape, under its lock: an
    // interrupted run keeps what it measured, and runs that share the cache
    // keep each other's entries.
    llvm::Expected<tuning::TuningCache> merged =
        tuning::TuningCache::update(cachePath, {best}, cache.machine);
    if (!merged)
      return merged.takeError();
    cache = std::move(*merged);
  }
  if (tuned == 0 && !llvm::sys::fs::exists(cachePath)) {
    llvm::Expected<tuning::TuningCache> merged =
        tuning::TuningCache::update(cachePath, {}, cache.machine);
    if (!merged)
      return merged.takeError();
  }
  os << llvm::formatv("{0} kernel op(s) tuned, {1} already in the cache; "
                      "cache: {2}\n",
                      tuned, kept, cachePath.getValue());
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-tune");
  llvm::InitLLVM init(argc, argv);
  mlir::orchestra::registerAllPasses();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS strategy tuner\n\n"
      "Measures the strategy variants of each kernel op of a model on this "
      "machine and\nrecords the fastest in a tuning cache for "
      "`orchestra-compile --tuning-cache`.\n");
  if (llvm::Error err = tune()) {
    llvm::WithColor::error(llvm::errs(), "orchestra-tune")
        << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
