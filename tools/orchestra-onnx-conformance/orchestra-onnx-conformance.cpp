//===- orchestra-onnx-conformance.cpp - ONNX backend test-suite runner ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Runs the ONNX backend test suite (the `model.onnx` + `test_data_set_*/`
// directories of Debian's libonnx-testdata) through the whole OrchestraOS
// path: import, compile for the host topology, build the artifact, load it
// with the runtime, run every data set and compare every output.
//
// Each test runs in a forked child, so that a crash or a hang is contained
// and classified. The child reports over a pipe in lines of the form
//
//   STAGE <import|compile|artifact|run|...>   (where a later crash happened)
//   OPS <op type>...                          (for the per-op report)
//   NOTE <text>                               (shown with -v)
//   RESULT <PASS|FAIL|UNSUPPORTED|CRASH|SKIPPED> <one-line reason>
//
// and its stdout/stderr go to a second pipe that -v shows for tests that do
// not pass. The parent never compiles or runs a model itself; it schedules
// children and writes the summary, the expectations and the Markdown report.
//
// With --peer, a peer runtime (ONNX Runtime) runs every test too, in one
// long-lived process beside the children (PeerRuntime.h); the parent compares
// its outputs with the test data through the same routine (TestData.h).
//
//===----------------------------------------------------------------------===//

#include "PeerRuntime.h"
#include "TestData.h"

#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <map>
#include <memory>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;
namespace cl = llvm::cl;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("orchestra-onnx-conformance options");

static cl::opt<std::string> suiteOption(
    "suite",
    cl::desc("Suites to run: node, pytorch-converted, pytorch-operator, "
             "simple, real, or all (the first four); a comma-separated list "
             "picks several"),
    cl::value_desc("name"), cl::init("all"), cl::cat(category));
static cl::opt<std::string>
    filterOption("filter",
                 cl::desc("Run only the tests whose 'suite/test' name "
                          "matches REGEX (anywhere; anchor with ^ and $)"),
                 cl::value_desc("REGEX"), cl::cat(category));
static cl::opt<unsigned>
    jobsOption("jobs",
               cl::desc("Tests run at a time, each in its own process "
                        "(default: the number of cores)"),
               cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::alias jobsAlias("j", cl::desc("Alias for --jobs"),
                           cl::aliasopt(jobsOption), cl::cat(category));
static cl::opt<std::string> dataDirOption(
    "data-dir", cl::desc("Directory holding one subdirectory per suite"),
    cl::value_desc("DIR"), cl::init("/usr/share/libonnx-testdata/data"),
    cl::cat(category));
static cl::opt<std::string> expectOption(
    "expect",
    cl::desc("Tests expected to pass ('suite/test' per line, '#' comments); "
             "exit with status 1 when one of them does not pass"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> updateOption(
    "update-expectations",
    cl::desc("Write the sorted list of passing tests to FILE (entries of "
             "tests outside this run's --suite/--filter are kept)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    reportOption("report-md",
                 cl::desc("Write a Markdown report (per suite, per op of the "
                          "node suite, and every test that does not pass)"),
                 cl::value_desc("FILE"), cl::cat(category));
static cl::opt<unsigned>
    timeoutOption("timeout",
                  cl::desc("CPU seconds a test may use before it is killed "
                           "and counted as failed; a test whose CPU time "
                           "stops growing for as long is killed too "
                           "(default: 120; 0: no limit)"),
                  cl::value_desc("SECONDS"), cl::init(120), cl::cat(category));
static cl::opt<bool> verboseOption(
    "v",
    cl::desc("Show the time of each test, bound inputs, and the diagnostics "
             "and stderr of every test that does not pass"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> peerOption(
    "peer",
    cl::desc("Run every test in a peer runtime too, on the same inputs, and "
             "compare its outputs the same way, so that the summary and the "
             "report show both pass rates: 'onnxruntime' (ONNX Runtime's CPU "
             "execution provider, run by --peer-python)"),
    cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string> peerPythonOption(
    "peer-python",
    cl::desc("The Python interpreter, with numpy, onnx and onnxruntime, that "
             "runs the peer (default: " ORCHESTRA_DEFAULT_PEER_PYTHON ")"),
    cl::value_desc("PATH"), cl::init(ORCHESTRA_DEFAULT_PEER_PYTHON),
    cl::cat(category));
// Testing hooks for the runner's own tests: make a child crash or hang.
static cl::opt<std::string>
    injectCrashOption("inject-crash",
                      cl::desc("(testing) tests matching REGEX raise SIGSEGV "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));
static cl::opt<std::string> injectHangOption(
    "inject-hang",
    cl::desc("(testing) tests matching REGEX spin forever when "
             "the compile starts"),
    cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

static cl::opt<std::string>
    injectStallOption("inject-stall",
                      cl::desc("(testing) tests matching REGEX wait forever "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

/// The suites `--suite all` runs, in report order. `real` (whole models,
/// large) runs only when asked for.
static const char *const kDefaultSuites[] = {"node", "pytorch-converted",
                                             "pytorch-operator", "simple"};
static const char *const kKnownSuites[] = {
    "node", "pytorch-converted", "pytorch-operator", "simple", "real"};

/// The domain of the training ops; tests that import it are not counted.
static const char kTrainingDomain[] = "ai.onnx.preview.training";

/// The one-line reasons are cut at this many characters.
static constexpr size_t kMaxReasonLength = 500;
/// The parent keeps at most this many bytes of a child's output (its end).
static constexpr size_t kMaxLogBytes = 64 * 1024;

//===----------------------------------------------------------------------===//
// Outcomes
//===----------------------------------------------------------------------===//

namespace {

enum class Outcome { Pass, Fail, Unsupported, Crash, Skipped };

/// One test: `<data-dir>/<suite>/<name>/`.
struct TestCase {
  std::string suite;
  std::string name;
  std::string dir;
  std::string getId() const { return suite + "/" + name; }
};

/// What the parent knows about a finished test.
struct TestResult {
  Outcome outcome = Outcome::Crash;
  std::string reason;
  /// Distinct op types of the top-level graph, sorted.
  std::vector<std::string> opTypes;
  /// The last stage the child announced.
  std::string stage = "start";
  std::vector<std::string> notes;
  /// The end of the child's stdout and stderr.
  std::string log;
  double seconds = 0;
};

/// The peer's part of a run (--peer).
struct PeerRun {
  /// Null when no peer ran.
  const PeerKind *kind = nullptr;
  std::string version;
  /// By test.
  std::vector<std::optional<PeerResult>> results;

  /// Whether the peer passed test `index`.
  bool passed(size_t index) const {
    return kind && results[index] && results[index]->passed;
  }
};

} // namespace

static StringRef getOutcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Pass:
    return "PASS";
  case Outcome::Fail:
    return "FAIL";
  case Outcome::Unsupported:
    return "UNSUPPORTED";
  case Outcome::Crash:
    return "CRASH";
  case Outcome::Skipped:
    return "SKIPPED";
  }
  llvm_unreachable("unknown outcome");
}

static std::optional<Outcome> parseOutcome(StringRef name) {
  for (Outcome outcome : {Outcome::Pass, Outcome::Fail, Outcome::Unsupported,
                          Outcome::Crash, Outcome::Skipped})
    if (name == getOutcomeName(outcome))
      return outcome;
  return std::nullopt;
}

/// Makes `text` one line (newlines and tabs become spaces, runs of spaces
/// collapse) of at most kMaxReasonLength characters.
static std::string makeOneLine(StringRef text) {
  std::string line;
  for (char c : text.trim()) {
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
    if (c == ' ' && !line.empty() && line.back() == ' ')
      continue;
    line.push_back(c);
  }
  if (line.size() > kMaxReasonLength)
    line = line.substr(0, kMaxReasonLength - 3) + "...";
  return line;
}

//===----------------------------------------------------------------------===//
// Test-data tensors as MLIR constants (child side)
//===----------------------------------------------------------------------===//

/// The MLIR element type the importer gives an ONNX type: signless integers
/// (signedness is an attribute of the function), bool as i1.
static Type getMLIRElementType(MLIRContext *context, int32_t dtype) {
  Builder b(context);
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return b.getI8Type();
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return b.getI16Type();
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return b.getI64Type();
  default:
    return nullptr;
  }
}

/// The type the importer gives a graph input, or null when it has none that
/// the runner can compute (not a tensor, dynamic dimensions, ...).
static RankedTensorType getDeclaredType(MLIRContext *context,
                                        const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return nullptr;
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = getMLIRElementType(context, tensor.elem_type());
  if (!element || !tensor.has_shape())
    return nullptr;
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return nullptr;
    shape.push_back(dim.dim_value());
  }
  return RankedTensorType::get(shape, element);
}

/// The tensor as a constant of `type` for ImportOptions::bindableInputs, or
/// null when it does not have that type.
static DenseElementsAttr getBindableValue(const HostTensor &tensor,
                                          RankedTensorType type) {
  Type element = getMLIRElementType(type.getContext(), tensor.dtype);
  if (element != type.getElementType() ||
      llvm::ArrayRef<int64_t>(tensor.shape) != type.getShape())
    return nullptr;
  if (element.isInteger(1)) {
    // i1 elements are bit-packed in a raw buffer; build them from bools.
    SmallVector<bool> values;
    values.reserve(tensor.bytes.size());
    for (char byte : tensor.bytes)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, values);
  }
  llvm::ArrayRef<char> raw(tensor.bytes.data(), tensor.bytes.size());
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, detectedSplat))
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

//===----------------------------------------------------------------------===//
// The child: one test
//===----------------------------------------------------------------------===//

namespace {

/// Everything a child needs besides its test.
struct ChildConfig {
  std::string pipeline;
  std::optional<llvm::Regex> injectCrash;
  std::optional<llvm::Regex> injectHang;
  std::optional<llvm::Regex> injectStall;
};

/// The child's end of the message pipe. Writes are unbuffered so that what
/// was sent survives a crash.
class Channel {
public:
  explicit Channel(int fd) : fd(fd) {}

  void send(StringRef kind, StringRef text) {
    std::string line = kind.str();
    if (!text.empty())
      line += " " + makeOneLine(text);
    line += "\n";
    const char *data = line.data();
    size_t left = line.size();
    while (left) {
      ssize_t written = ::write(fd, data, left);
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        return;
      data += written;
      left -= written;
    }
  }

  /// Reports the result and ends the child. Nothing is cleaned up: the
  /// process is about to disappear.
  [[noreturn]] void finish(Outcome outcome, StringRef reason) {
    send(("RESULT " + getOutcomeName(outcome)).str(), reason);
    llvm::errs().flush();
    ::_exit(0);
  }

private:
  int fd;
};

/// The fd of the message pipe, for the fatal-error handler.
int childChannelFd = -1;

/// A diagnostic the child saw.
struct CollectedDiagnostic {
  DiagnosticSeverity severity;
  std::string message;
  /// The name of the ONNX node the location names, if any.
  std::string node;
};

/// One test_data_set_* directory.
struct DataSet {
  std::string name;
  std::string dir;
  /// By graph input (non-initializer inputs, in graph order); none when the
  /// file is absent or the input is not a tensor the runner can hold.
  std::vector<std::optional<HostTensor>> inputs;
};

/// A compiled and loaded artifact.
struct Compiled {
  orx::ArtifactPtr artifact;
  orx::SessionPtr session;
  std::vector<std::string> boundInputs;
  /// The data set whose values the bound inputs took.
  size_t dataSet = 0;
};

} // namespace

/// The first NameLoc in `loc` (the importer names ops after their node).
static std::string getNodeName(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// Runs one test and reports through `channel`. Never returns.
[[noreturn]] static void runChild(const TestCase &test,
                                  const ChildConfig &config, Channel &channel) {
  channel.send("STAGE", "load");
  SmallString<256> modelPath(test.dir);
  llvm::sys::path::append(modelPath, "model.onnx");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> modelFile =
      llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!modelFile)
    channel.finish(Outcome::Fail,
                   "cannot read model.onnx: " + modelFile.getError().message());
  StringRef modelBytes = (*modelFile)->getBuffer();
  onnx::ModelProto model;
  if (modelBytes.size() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(modelBytes.data(),
                            static_cast<int>(modelBytes.size())))
    channel.finish(Outcome::Fail,
                   "model.onnx is not a valid ONNX model (the protobuf does "
                   "not parse)");

  std::set<std::string> opTypes;
  for (const onnx::NodeProto &node : model.graph().node())
    opTypes.insert(node.op_type());
  if (!opTypes.empty())
    channel.send("OPS", llvm::join(opTypes, " "));
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain() == kTrainingDomain)
      channel.finish(Outcome::Skipped,
                     std::string("training (imports ") + kTrainingDomain + ")");

  // Graph inputs that take test data: those that are not initializers.
  std::set<std::string> initializers;
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    initializers.insert(initializer.name());
  std::vector<const onnx::ValueInfoProto *> graphInputs;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (!initializers.count(input.name()))
      graphInputs.push_back(&input);

  std::vector<DataSet> dataSets;
  for (auto &[index, dir] : listDataSets(test.dir)) {
    DataSet set;
    set.name = llvm::sys::path::filename(dir).str();
    set.dir = dir;
    for (size_t i = 0; i < graphInputs.size(); ++i) {
      SmallString<256> path(dir);
      llvm::sys::path::append(path, "input_" + std::to_string(i) + ".pb");
      std::optional<HostTensor> tensor;
      // Sequence and optional inputs are stored as other protos; the
      // importer reports those inputs as unsupported.
      if (llvm::sys::fs::exists(path) &&
          graphInputs[i]->type().has_tensor_type()) {
        TensorError error;
        tensor = readTensorFile(path, error);
        if (!tensor && !error.unsupportedType)
          channel.finish(Outcome::Fail, set.name + "/input_" +
                                            std::to_string(i) +
                                            ".pb: " + error.message);
        if (tensor)
          relabelBFloat16(*tensor, graphInputs[i]->type());
      }
      set.inputs.push_back(std::move(tensor));
    }
    dataSets.push_back(std::move(set));
  }
  if (dataSets.empty())
    channel.finish(Outcome::Fail, "no test_data_set_* directory");

  // One context for the test; the runner runs tests in parallel processes,
  // so MLIR's own threads would only compete with them.
  DialectRegistry registry;
  orchestra::registerAllDialectsAndExtensions(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.disableMultithreading();
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  // Every diagnostic is kept for the one-line reason and printed to the
  // child's stderr, which -v shows.
  std::vector<CollectedDiagnostic> diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    CollectedDiagnostic collected{diag.getSeverity(), diag.str(),
                                  getNodeName(diag.getLocation())};
    llvm::errs() << diag.getLocation() << ": " << collected.message << "\n";
    for (Diagnostic &note : diag.getNotes())
      llvm::errs() << "  note: " << note.str() << "\n";
    diagnostics.push_back(std::move(collected));
    return success();
  });

  // Ends the child with the outcome that the diagnostics of a failed stage
  // call for.
  auto finishFailedStage = [&](StringRef stage) {
    auto errors = llvm::make_filter_range(
        diagnostics, [](const CollectedDiagnostic &diag) {
          return diag.severity == DiagnosticSeverity::Error;
        });
    // The message, prefixed with the node it is about when it does not say.
    auto describe = [](const CollectedDiagnostic &diag) {
      if (diag.node.empty() || StringRef(diag.message).starts_with("node '"))
        return diag.message;
      return "node '" + diag.node + "': " + diag.message;
    };
    for (const CollectedDiagnostic &diag : errors)
      if (StringRef(diag.message).contains("internal error"))
        channel.finish(Outcome::Crash, describe(diag));
    for (const CollectedDiagnostic &diag : errors)
      if (StringRef(diag.message).contains("unsupported"))
        channel.finish(Outcome::Unsupported, describe(diag));
    for (const CollectedDiagnostic &diag : errors)
      channel.finish(Outcome::Fail,
                     (stage + " error: " + describe(diag)).str());
    channel.finish(Outcome::Fail,
                   (stage + " failed without a diagnostic").str());
  };

  // Imports with the graph inputs of `dataSet` offered as bindable,
  // compiles, builds the artifact and loads it.
  auto compile = [&](size_t dataSet) {
    onnx_import::ImportOptions options;
    for (size_t i = 0; i < graphInputs.size(); ++i) {
      const std::optional<HostTensor> &tensor = dataSets[dataSet].inputs[i];
      RankedTensorType type = getDeclaredType(&context, *graphInputs[i]);
      if (!tensor || !type)
        continue;
      // A value of another type than the input's would be an import error
      // even when the input is not needed as a constant; such data sets
      // fail at run time with a clearer message.
      if (DenseElementsAttr value = getBindableValue(*tensor, type))
        options.bindableInputs[graphInputs[i]->name()] = value;
    }
    diagnostics.clear();
    channel.send("STAGE", "import");
    FailureOr<onnx_import::ImportResult> imported =
        onnx_import::importModel(&context, modelBytes, modelPath, options);
    if (failed(imported))
      finishFailedStage("import");

    channel.send("STAGE", "compile");
    if (config.injectCrash && config.injectCrash->match(test.getId()))
      std::raise(SIGSEGV);
    if (config.injectHang && config.injectHang->match(test.getId()))
      for (volatile unsigned spin = 0;; spin = spin + 1)
        ;
    if (config.injectStall && config.injectStall->match(test.getId()))
      for (;;)
        ::pause();
    PassManager pm(&context, ModuleOp::getOperationName());
    std::string pipelineError;
    llvm::raw_string_ostream pipelineErrorStream(pipelineError);
    if (failed(parsePassPipeline(config.pipeline, pm, pipelineErrorStream)))
      channel.finish(Outcome::Crash,
                     "the compile pipeline does not parse: " + pipelineError);
    if (failed(pm.run(*imported->module)))
      finishFailedStage("compile");

    channel.send("STAGE", "artifact");
    FailureOr<orx::Artifact> artifact =
        buildArtifact(*imported->module, /*entry=*/"");
    if (failed(artifact))
      finishFailedStage("artifact");
    // Through the serialized form, as a file written by orchestra-compile
    // would be loaded.
    std::vector<uint8_t> bytes = orx::serializeArtifact(*artifact);
    Compiled compiled;
    compiled.dataSet = dataSet;
    compiled.boundInputs = imported->boundInputs;
    channel.send("STAGE", "load artifact");
    orx_artifact_t *rawArtifact = nullptr;
    if (orx::StatusPtr status{
            orx_artifact_load_memory(bytes.data(), bytes.size(), &rawArtifact)})
      channel.finish(Outcome::Fail, std::string("runtime error: the artifact "
                                                "does not load: ") +
                                        orx_status_message(status.get()));
    compiled.artifact.reset(rawArtifact);
    orx_session_t *rawSession = nullptr;
    if (orx::StatusPtr status{
            orx_session_create(compiled.artifact.get(), &rawSession)})
      channel.finish(Outcome::Fail,
                     std::string("runtime error: cannot create a session: ") +
                         orx_status_message(status.get()));
    compiled.session.reset(rawSession);
    if (!compiled.boundInputs.empty())
      channel.send("NOTE", "bound to constants: " +
                               llvm::join(compiled.boundInputs, ", ") +
                               " (values of " + dataSets[dataSet].name + ")");
    return compiled;
  };

  auto indexOfInput = [&](StringRef name) -> std::optional<size_t> {
    for (size_t i = 0; i < graphInputs.size(); ++i)
      if (graphInputs[i]->name() == name)
        return i;
    return std::nullopt;
  };

  // Whether data set `b` gives the bound inputs the values of `a`.
  auto sameBoundValues = [&](const Compiled &compiled, size_t b) {
    for (const std::string &name : compiled.boundInputs) {
      std::optional<size_t> i = indexOfInput(name);
      const std::optional<HostTensor> &x =
          dataSets[compiled.dataSet].inputs[*i];
      const std::optional<HostTensor> &y = dataSets[b].inputs[*i];
      if (!y || x->bytes != y->bytes || x->shape != y->shape)
        return false;
    }
    return true;
  };

  Compiled compiled = compile(0);
  for (size_t setIndex = 0; setIndex < dataSets.size(); ++setIndex) {
    const DataSet &set = dataSets[setIndex];
    // Bound inputs are constants of the artifact: a data set that gives
    // them other values needs its own compile.
    if (!sameBoundValues(compiled, setIndex))
      compiled = compile(setIndex);
    std::string where = dataSets.size() > 1 ? set.name + ": " : "";
    orx_artifact_t *artifact = compiled.artifact.get();

    // Inputs by name.
    std::vector<const void *> inputData;
    std::vector<size_t> inputSizes;
    for (size_t i = 0, e = orx_artifact_num_inputs(artifact); i < e; ++i) {
      orx_tensor_info_t info;
      if (orx::StatusPtr status{orx_artifact_input_info(artifact, i, &info)})
        channel.finish(Outcome::Fail, std::string("runtime error: ") +
                                          orx_status_message(status.get()));
      llvm::ArrayRef<int64_t> shape(info.dims, info.rank);
      std::optional<size_t> index = indexOfInput(info.name);
      if (!index)
        channel.finish(Outcome::Fail, std::string("the artifact's input '") +
                                          info.name + "' is not a graph input");
      const std::optional<HostTensor> &tensor = set.inputs[*index];
      if (!tensor)
        channel.finish(Outcome::Fail, where + "no test data for input " +
                                          std::to_string(*index) + " ('" +
                                          info.name + "')");
      std::optional<orx_dtype_t> dtype = getOrxDType(tensor->dtype);
      if (!dtype || uint32_t(*dtype) != info.dtype ||
          llvm::ArrayRef<int64_t>(tensor->shape) != shape)
        channel.finish(
            Outcome::Fail,
            where + "input " + std::to_string(*index) + " ('" + info.name +
                "'): the artifact takes " + formatType(info.dtype, shape) +
                ", the data is " + getDTypeName(tensor->dtype).str() + "[" +
                llvm::join(llvm::map_range(
                               tensor->shape,
                               [](int64_t d) { return std::to_string(d); }),
                           "x") +
                "]");
      inputData.push_back(tensor->bytes.data());
      inputSizes.push_back(tensor->bytes.size());
    }

    // Expected outputs, by index of the graph outputs.
    size_t numOutputs = orx_artifact_num_outputs(artifact);
    std::vector<HostTensor> expected;
    for (size_t i = 0;; ++i) {
      SmallString<256> path(set.dir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".pb");
      if (!llvm::sys::fs::exists(path))
        break;
      TensorError error;
      std::optional<HostTensor> tensor = readTensorFile(path, error);
      if (!tensor)
        channel.finish(
            error.unsupportedType ? Outcome::Unsupported : Outcome::Fail,
            set.name + "/output_" + std::to_string(i) + ".pb: " +
                (error.unsupportedType ? "unsupported: " : "") + error.message);
      if (int(i) < model.graph().output_size())
        relabelBFloat16(*tensor, model.graph().output(i).type());
      expected.push_back(std::move(*tensor));
    }
    if (expected.size() != numOutputs)
      channel.finish(Outcome::Fail, where + "the artifact has " +
                                        std::to_string(numOutputs) +
                                        " outputs, the test data " +
                                        std::to_string(expected.size()));

    std::vector<orx_tensor_info_t> outputInfos(numOutputs);
    std::vector<std::vector<char>> outputs(numOutputs);
    std::vector<void *> outputData;
    std::vector<size_t> outputSizes;
    for (size_t i = 0; i < numOutputs; ++i) {
      if (orx::StatusPtr status{
              orx_artifact_output_info(artifact, i, &outputInfos[i])})
        channel.finish(Outcome::Fail, std::string("runtime error: ") +
                                          orx_status_message(status.get()));
      outputs[i].resize(outputInfos[i].byte_size);
      outputData.push_back(outputs[i].data());
      outputSizes.push_back(outputs[i].size());
    }

    channel.send("STAGE", "run");
    if (orx::StatusPtr status{orx_session_run(
            compiled.session.get(), inputData.data(), inputSizes.data(),
            inputData.size(), outputData.data(), outputSizes.data(),
            outputData.size())})
      channel.finish(Outcome::Fail, where + "runtime error: " +
                                        orx_status_message(status.get()));

    channel.send("STAGE", "compare");
    std::vector<std::string> mismatches;
    for (size_t i = 0; i < numOutputs; ++i) {
      const orx_tensor_info_t &info = outputInfos[i];
      llvm::ArrayRef<int64_t> shape(info.dims, info.rank);
      std::string what =
          "output " + std::to_string(i) + " ('" + info.name + "'): ";
      std::optional<orx_dtype_t> dtype = getOrxDType(expected[i].dtype);
      if (!dtype || uint32_t(*dtype) != info.dtype ||
          llvm::ArrayRef<int64_t>(expected[i].shape) != shape) {
        mismatches.push_back(
            what + "got " + formatType(info.dtype, shape) + ", expected " +
            formatType(dtype ? uint32_t(*dtype) : ~0u, expected[i].shape));
        continue;
      }
      std::string difference = compareValues(expected[i], outputs[i]);
      if (!difference.empty())
        mismatches.push_back(what + difference);
    }
    if (!mismatches.empty()) {
      std::string reason = where + mismatches.front();
      if (mismatches.size() > 1)
        reason += " (and " + std::to_string(mismatches.size() - 1) +
                  " more output(s) differ)";
      for (const std::string &mismatch : mismatches)
        llvm::errs() << where << mismatch << "\n";
      channel.finish(Outcome::Fail, reason);
    }
  }
  channel.finish(Outcome::Pass, "");
}

/// LLVM's fatal errors (report_fatal_error) end the child as a crash with
/// their message.
static void reportFatalError(void *, const char *reason, bool) {
  if (childChannelFd >= 0) {
    Channel channel(childChannelFd);
    channel.send("RESULT CRASH", std::string("LLVM ERROR: ") + reason);
  }
  ::_exit(70);
}

/// The child's entry: sets up reporting and runs the test. Exceptions that
/// escape the importer (libonnx and protobuf report with exceptions) are
/// crashes.
[[noreturn]] static void childMain(const TestCase &test,
                                   const ChildConfig &config, int fd) {
  childChannelFd = fd;
  llvm::install_fatal_error_handler(reportFatalError, nullptr);
  Channel channel(fd);
  try {
    runChild(test, config, channel);
  } catch (const std::exception &error) {
    channel.finish(Outcome::Crash,
                   std::string("uncaught exception: ") + error.what());
  } catch (...) {
    channel.finish(Outcome::Crash, "uncaught exception");
  }
}

//===----------------------------------------------------------------------===//
// The parent: scheduling children
//===----------------------------------------------------------------------===//

/// The CPU time (user + system) process `pid` has used, in seconds; 0 when
/// /proc does not say.
static double getCPUSeconds(pid_t pid) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileAsStream("/proc/" + std::to_string(pid) +
                                          "/stat");
  if (!file)
    return 0;
  // "pid (comm) state ppid ... utime stime ...": utime and stime are the
  // 14th and 15th fields; comm may contain spaces, so count after ')'.
  StringRef text = (*file)->getBuffer();
  size_t paren = text.rfind(')');
  if (paren == StringRef::npos)
    return 0;
  SmallVector<StringRef> fields;
  text.drop_front(paren + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  uint64_t user = 0, system = 0;
  if (fields.size() < 13 || fields[11].getAsInteger(10, user) ||
      fields[12].getAsInteger(10, system))
    return 0;
  return double(user + system) / ::sysconf(_SC_CLK_TCK);
}

namespace {
/// The limit on a process's CPU time (--timeout) while it runs one test:
/// exceeded when the test has used more than the limit, or when the
/// process's CPU time has not grown for as long (a deadlock, a wait on
/// something that never comes). The limit is on CPU time, so that a loaded
/// machine does not turn slow passes into timeouts.
class CPUTimeLimit {
public:
  CPUTimeLimit() = default;
  explicit CPUTimeLimit(pid_t pid)
      : pid(pid), start(std::chrono::steady_clock::now()),
        startCPUSeconds(getCPUSeconds(pid)) {}

  /// Why the test is over a limit of `seconds`; empty while it is not.
  /// Looks at the process once a second.
  std::string check(unsigned seconds) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!seconds || pid < 0 || elapsed < lastCheck + 1)
      return "";
    lastCheck = elapsed;
    double cpu = getCPUSeconds(pid) - startCPUSeconds;
    if (cpu > lastCPUSeconds) {
      lastCPUSeconds = cpu;
      lastProgress = elapsed;
    }
    if (cpu > seconds)
      return "timeout: more than " + std::to_string(seconds) + " s of CPU time";
    if (elapsed > lastProgress + seconds)
      return "timeout: no progress (CPU time) for " + std::to_string(seconds) +
             " s";
    return "";
  }

private:
  pid_t pid = -1;
  std::chrono::steady_clock::time_point start;
  double startCPUSeconds = 0;
  /// The test's CPU seconds at the last check, and the elapsed seconds at
  /// that check and when its CPU time last grew.
  double lastCPUSeconds = 0;
  double lastCheck = 0;
  double lastProgress = 0;
};
} // namespace

namespace {

/// A running child.
struct Child {
  pid_t pid = -1;
  size_t test = 0;
  int messageFd = -1;
  int logFd = -1;
  std::string messageBuffer;
  std::chrono::steady_clock::time_point start;
  /// Why the child was killed for taking too long; empty if it was not.
  std::string timedOut;
  CPUTimeLimit cpuLimit;
  bool gotResult = false;
  TestResult result;
};

} // namespace

/// Process groups of the running children and of the peer, for the
/// interrupt handler.
static std::unique_ptr<volatile sig_atomic_t[]> runningGroups;
static unsigned numRunningSlots = 0;
static volatile sig_atomic_t peerGroup = 0;

/// On Ctrl-C (called from LLVM's signal handler), takes the children, each
/// in its own process group, along and ends the run without a summary.
static void killRunningChildren() {
  for (unsigned i = 0; i < numRunningSlots; ++i)
    if (pid_t group = runningGroups[i])
      ::kill(-group, SIGKILL);
  if (pid_t group = peerGroup)
    ::kill(-group, SIGKILL);
  ::_exit(130);
}

static std::string getSignalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "";
  }
}

/// The line of a crash log that says what went wrong: a failed assertion,
/// an LLVM fatal error, an unreachable.
static std::string findCrashMessage(StringRef log) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines)
    if (line.contains("Assertion") || line.contains("LLVM ERROR") ||
        line.contains("UNREACHABLE") || line.contains("terminate called"))
      return makeOneLine(line);
  return "";
}

/// Handles one complete line of a child's messages.
static void handleMessage(Child &child, StringRef line) {
  auto [kind, text] = line.split(' ');
  if (kind == "STAGE") {
    child.result.stage = text.str();
  } else if (kind == "OPS") {
    SmallVector<StringRef> ops;
    text.split(ops, ' ', -1, /*KeepEmpty=*/false);
    child.result.opTypes.assign(ops.begin(), ops.end());
  } else if (kind == "NOTE") {
    child.result.notes.push_back(text.str());
  } else if (kind == "RESULT" && !child.gotResult) {
    auto [name, reason] = text.split(' ');
    if (std::optional<Outcome> outcome = parseOutcome(name)) {
      child.gotResult = true;
      child.result.outcome = *outcome;
      child.result.reason = reason.str();
    }
  }
}

static void drainMessages(Child &child) {
  if (child.messageFd < 0)
    return;
  bool open = readAvailable(child.messageFd, child.messageBuffer);
  size_t newline;
  while ((newline = child.messageBuffer.find('\n')) != std::string::npos) {
    handleMessage(child, StringRef(child.messageBuffer).take_front(newline));
    child.messageBuffer.erase(0, newline + 1);
  }
  if (!open) {
    ::close(child.messageFd);
    child.messageFd = -1;
  }
}

static void drainLog(Child &child) {
  if (child.logFd < 0)
    return;
  bool open = readAvailable(child.logFd, child.result.log);
  if (child.result.log.size() > kMaxLogBytes)
    child.result.log.erase(0, child.result.log.size() - kMaxLogBytes);
  if (!open) {
    ::close(child.logFd);
    child.logFd = -1;
  }
}

/// Classifies a child that has exited with wait status `status`.
static void finalizeChild(Child &child, int status) {
  drainMessages(child);
  drainLog(child);
  if (child.messageFd >= 0)
    ::close(child.messageFd);
  if (child.logFd >= 0)
    ::close(child.logFd);
  TestResult &result = child.result;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - child.start)
                       .count();
  if (child.gotResult)
    return;
  if (!child.timedOut.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = child.timedOut + " (during " + result.stage + ")";
    return;
  }
  result.outcome = Outcome::Crash;
  std::string detail = findCrashMessage(result.log);
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    std::string name = getSignalName(signal);
    result.reason = "signal " + std::to_string(signal) +
                    (name.empty() ? "" : " (" + name + ")") + " during " +
                    result.stage;
    if (signal == SIGKILL)
      result.reason += " (killed from outside; out of memory?)";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    result.reason = "exited with status " +
                    std::to_string(WEXITSTATUS(status)) + " during " +
                    result.stage;
  } else {
    result.reason = "exited without a result during " + result.stage;
  }
  if (!detail.empty())
    result.reason = makeOneLine(result.reason + ": " + detail);
}

/// Forks the child of `tests[index]`. Returns false (and fills `result`)
/// when no process could be started.
static bool spawnChild(const std::vector<TestCase> &tests, size_t index,
                       const ChildConfig &config, Child &child,
                       TestResult &result) {
  int messagePipe[2], logPipe[2];
  if (::pipe2(messagePipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    return false;
  }
  if (::pipe2(logPipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    ::close(messagePipe[0]);
    ::close(messagePipe[1]);
    return false;
  }
  // Buffered output would be written twice, once by each process.
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot fork: ") + strerror(errno);
    for (int fd : {messagePipe[0], messagePipe[1], logPipe[0], logPipe[1]})
      ::close(fd);
    return false;
  }
  if (pid == 0) {
    // Child: its own process group (a timeout kills the tools it started
    // too), stdin from /dev/null, stdout and stderr into the log pipe.
    ::setpgid(0, 0);
    llvm::sys::SetInterruptFunction(nullptr);
    ::close(messagePipe[0]);
    ::close(logPipe[0]);
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0)
      ::dup2(null, STDIN_FILENO);
    ::dup2(logPipe[1], STDOUT_FILENO);
    ::dup2(logPipe[1], STDERR_FILENO);
    childMain(tests[index], config, messagePipe[1]);
  }
  ::setpgid(pid, pid);
  ::close(messagePipe[1]);
  ::close(logPipe[1]);
  ::fcntl(messagePipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(logPipe[0], F_SETFL, O_NONBLOCK);
  child.pid = pid;
  child.test = index;
  child.messageFd = messagePipe[0];
  child.logFd = logPipe[0];
  child.start = std::chrono::steady_clock::now();
  child.cpuLimit = CPUTimeLimit(pid);
  return true;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// "PASS        node/test_add", "FAIL        node/test_x: reason".
static void printResultLine(llvm::raw_ostream &os, const TestCase &test,
                            const TestResult &result) {
  os << llvm::left_justify(getOutcomeName(result.outcome), 11) << " "
     << test.getId();
  if (!result.reason.empty())
    os << ": " << result.reason;
  os << "\n";
}

/// "    onnxruntime: PASS", "    onnxruntime: FAIL: reason"; with -v, the
/// time too.
static void printPeerResultLine(llvm::raw_ostream &os, const PeerKind &kind,
                                const PeerResult &result) {
  os << "    " << kind.option << ": " << (result.passed ? "PASS" : "FAIL");
  if (!result.reason.empty())
    os << ": " << result.reason;
  os << "\n";
  if (verboseOption)
    os << "    " << kind.option
       << " time: " << llvm::format("%.2f", result.seconds) << " s\n";
}

/// With -v: the time, the notes and, for tests that do not pass, the
/// child's diagnostics and stderr.
static void printDetails(llvm::raw_ostream &os, const TestResult &result) {
  os << "    time: " << llvm::format("%.2f", result.seconds) << " s\n";
  for (const std::string &note : result.notes)
    os << "    note: " << note << "\n";
  if (result.outcome == Outcome::Pass || result.outcome == Outcome::Skipped)
    return;
  SmallVector<StringRef> lines;
  StringRef(result.log).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    os << "    | " << line << "\n";
}

/// Live progress on a terminal: one line on stderr, rewritten in place.
class Progress {
public:
  Progress(size_t total)
      : total(total), enabled(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Erases the progress line before a result line is printed.
  void clear() {
    if (enabled && shown)
      llvm::errs() << "\r\x1b[K";
    shown = false;
  }

  void update(size_t done, size_t running, size_t failed) {
    if (!enabled)
      return;
    llvm::errs() << "\r\x1b[K[" << done << "/" << total << "] " << running
                 << " running, " << failed << " not passing";
    llvm::errs().flush();
    shown = true;
  }

private:
  size_t total;
  bool enabled;
  bool shown = false;
};

namespace {
/// Per-suite (or per-op) counts.
struct Counts {
  unsigned pass = 0, fail = 0, unsupported = 0, crash = 0, skipped = 0;

  void add(Outcome outcome) {
    switch (outcome) {
    case Outcome::Pass:
      ++pass;
      break;
    case Outcome::Fail:
      ++fail;
      break;
    case Outcome::Unsupported:
      ++unsupported;
      break;
    case Outcome::Crash:
      ++crash;
      break;
    case Outcome::Skipped:
      ++skipped;
      break;
    }
  }
  /// The tests that count: all but the skipped training tests.
  unsigned counted() const { return pass + fail + unsupported + crash; }

  /// With a peer, of the tests that count: those the peer passes, those
  /// only the peer passes and those only OrchestraOS passes.
  unsigned peerPass = 0, onlyPeer = 0, onlyOurs = 0;

  void addPeer(Outcome outcome, bool peerPassed) {
    if (outcome == Outcome::Skipped)
      return;
    bool passed = outcome == Outcome::Pass;
    peerPass += peerPassed;
    onlyPeer += peerPassed && !passed;
    onlyOurs += passed && !peerPassed;
  }
};
} // namespace

/// Counts test `index` of the run, and the peer's result when a peer ran.
static void countTest(Counts &counts, size_t index,
                      const std::vector<TestResult> &results,
                      const PeerRun &peerRun) {
  counts.add(results[index].outcome);
  if (peerRun.kind)
    counts.addPeer(results[index].outcome, peerRun.passed(index));
}

/// Counts per suite and in total.
static void countBySuite(const std::vector<TestCase> &tests,
                         const std::vector<TestResult> &results,
                         const PeerRun &peerRun,
                         std::map<std::string, Counts> &bySuite,
                         Counts &total) {
  for (size_t i = 0; i < tests.size(); ++i) {
    countTest(bySuite[tests[i].suite], i, results, peerRun);
    countTest(total, i, results, peerRun);
  }
}

static std::string formatPercent(unsigned part, unsigned whole) {
  if (!whole)
    return "-";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.1f%%", 100.0 * part / whole);
  return text;
}

/// "12 (34.5%)", right-aligned in `width`.
static std::string formatCount(unsigned part, unsigned whole, unsigned width) {
  std::string text =
      std::to_string(part) + " (" + formatPercent(part, whole) + ")";
  if (text.size() < width)
    text.insert(0, width - text.size(), ' ');
  return text;
}

/// The suites that appear in `tests`, in report order.
static std::vector<std::string>
getSuitesInOrder(const std::vector<TestCase> &tests) {
  std::vector<std::string> suites;
  for (const char *suite : kKnownSuites)
    if (llvm::any_of(tests,
                     [&](const TestCase &t) { return t.suite == suite; }))
      suites.push_back(suite);
  return suites;
}

static void printSummary(llvm::raw_ostream &os,
                         const std::vector<TestCase> &tests,
                         const std::vector<TestResult> &results,
                         const PeerRun &peerRun) {
  std::map<std::string, Counts> bySuite;
  Counts total;
  countBySuite(tests, results, peerRun, bySuite, total);
  os << "\nResults by suite (percentages of the tests that are not skipped "
        "training tests):\n";
  os << llvm::left_justify("suite", 18) << llvm::right_justify("tests", 6)
     << llvm::right_justify("pass", 15) << llvm::right_justify("fail", 15)
     << llvm::right_justify("unsupported", 15)
     << llvm::right_justify("crash", 15) << llvm::right_justify("training", 9)
     << "\n";
  auto printRow = [&](StringRef name, const Counts &c) {
    unsigned n = c.counted();
    os << llvm::left_justify(name, 18)
       << llvm::right_justify(std::to_string(n), 6)
       << formatCount(c.pass, n, 15) << formatCount(c.fail, n, 15)
       << formatCount(c.unsupported, n, 15) << formatCount(c.crash, n, 15)
       << llvm::right_justify(std::to_string(c.skipped), 9) << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    printRow(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    printRow("total", total);
  os << "Pass rate (excluding training tests):";
  for (const std::string &suite : getSuitesInOrder(tests))
    os << " " << suite << " "
       << formatPercent(bySuite[suite].pass, bySuite[suite].counted()) << ";";
  os << " total " << formatPercent(total.pass, total.counted()) << "\n";
  if (!peerRun.kind)
    return;

  StringRef peerName = peerRun.kind->option;
  os << "\nResults of " << peerRun.kind->title << " " << peerRun.version
     << " (--peer=" << peerName
     << ") on the same tests, compared the same way:\n";
  std::string onlyPeer = ("only " + peerName).str();
  os << llvm::left_justify("suite", 18) << llvm::right_justify("tests", 6)
     << llvm::right_justify("pass", 15)
     << llvm::right_justify(onlyPeer, std::max<size_t>(onlyPeer.size(), 10) + 2)
     << llvm::right_justify("only OrchestraOS", 18) << "\n";
  auto printPeerRow = [&](StringRef name, const Counts &c) {
    unsigned n = c.counted();
    os << llvm::left_justify(name, 18)
       << llvm::right_justify(std::to_string(n), 6)
       << formatCount(c.peerPass, n, 15)
       << llvm::right_justify(std::to_string(c.onlyPeer),
                              std::max<size_t>(onlyPeer.size(), 10) + 2)
       << llvm::right_justify(std::to_string(c.onlyOurs), 18) << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    printPeerRow(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    printPeerRow("total", total);
  os << "Pass rate of " << peerName << " (excluding training tests):";
  for (const std::string &suite : getSuitesInOrder(tests))
    os << " " << suite << " "
       << formatPercent(bySuite[suite].peerPass, bySuite[suite].counted())
       << ";";
  os << " total " << formatPercent(total.peerPass, total.counted()) << "\n";
}

/// Markdown: characters that would start markup are escaped.
static std::string escapeMarkdown(StringRef text) {
  std::string result;
  for (char c : text) {
    if (StringRef("\\`*_[]<>|").contains(c))
      result.push_back('\\');
    result.push_back(c);
  }
  return result;
}

/// The tests of the run that count (not skipped training tests) and
/// satisfy `predicate`, by id.
template <typename Predicate>
static std::vector<size_t> selectTests(const std::vector<TestCase> &tests,
                                       const std::vector<TestResult> &results,
                                       Predicate predicate) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome != Outcome::Skipped && predicate(i))
      selected.push_back(i);
  llvm::sort(selected, [&](size_t a, size_t b) {
    return tests[a].getId() < tests[b].getId();
  });
  return selected;
}

static bool writeReport(StringRef path, StringRef command,
                        const std::vector<TestCase> &tests,
                        const std::vector<TestResult> &results,
                        const PeerRun &peerRun, std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = ec.message();
    return false;
  }
  const PeerKind *peer = peerRun.kind;
  os << "# ONNX backend test suite results\n\n"
     << "<!-- Generated by orchestra-onnx-conformance; do not edit. -->\n\n"
     << "Generated with `" << command << "` from the ONNX backend test "
     << "data in `" << dataDirOption << "`. Each test is imported, compiled "
     << "for the `host` topology and run; floating-point outputs must match "
     << "within rtol " << kToleranceText[0] << " and atol " << kToleranceText[1]
     << ", integers and bools exactly.";
  if (peer)
    os << " Each test also runs in " << peer->title << " " << peerRun.version
       << " (\"" << peer->shortName
       << "\" below; CPU execution provider, every graph optimisation, one "
          "thread) "
       << "on the same inputs; its outputs are compared the same way, with "
       << "the same tolerances. A model " << peer->shortName
       << " does not load or run counts as a failure.";
  os << "\n\n";

  std::map<std::string, Counts> bySuite;
  Counts total;
  countBySuite(tests, results, peerRun, bySuite, total);
  os << "## By suite\n\n"
     << "| Suite | Tests | Pass | Fail | Unsupported | Crash | Pass rate |";
  if (peer)
    os << " " << peer->shortName << " pass | " << peer->shortName
       << " rate | Only " << peer->shortName << " | Only OrchestraOS |";
  os << "\n|---|---:|---:|---:|---:|---:|---:|";
  if (peer)
    os << "---:|---:|---:|---:|";
  os << "\n";
  auto row = [&](StringRef name, const Counts &c) {
    os << "| " << name << " | " << c.counted() << " | " << c.pass << " | "
       << c.fail << " | " << c.unsupported << " | " << c.crash << " | "
       << formatPercent(c.pass, c.counted()) << " |";
    if (peer)
      os << " " << c.peerPass << " | " << formatPercent(c.peerPass, c.counted())
         << " | " << c.onlyPeer << " | " << c.onlyOurs << " |";
    os << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    row(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    row("**total**", total);
  os << "\nTraining tests (models that import `" << kTrainingDomain
     << "`) are not counted: " << total.skipped << " skipped.\n";

  // Per op type of the node suite: a test counts under each distinct op
  // type of its top-level graph.
  std::map<std::string, Counts> byOp;
  for (size_t i = 0; i < tests.size(); ++i)
    if (tests[i].suite == "node" && results[i].outcome != Outcome::Skipped)
      for (const std::string &op : results[i].opTypes)
        countTest(byOp[op], i, results, peerRun);
  if (!byOp.empty()) {
    os << "\n## Node tests by op type\n\n"
       << "A test counts under every op type of its graph; crashes count "
          "as failures.\n\n"
       << "| Op | Tests | Pass | Fail | Unsupported |";
    if (peer)
      os << " " << peer->shortName << " pass | Only " << peer->shortName
         << " | Only OrchestraOS |";
    os << "\n|---|---:|---:|---:|---:|";
    if (peer)
      os << "---:|---:|---:|";
    os << "\n";
    for (auto &[op, c] : byOp) {
      os << "| " << escapeMarkdown(op) << " | " << c.counted() << " | "
         << c.pass << " | " << c.fail + c.crash << " | " << c.unsupported
         << " |";
      if (peer)
        os << " " << c.peerPass << " | " << c.onlyPeer << " | " << c.onlyOurs
           << " |";
      os << "\n";
    }
  }

  std::vector<size_t> failing = selectTests(tests, results, [&](size_t i) {
    return results[i].outcome != Outcome::Pass;
  });
  os << "\n## Tests that do not pass\n\n";
  if (failing.empty())
    os << "None.\n";
  else if (peer)
    os << "**" << peer->shortName << " passes** marks the tests " << peer->title
       << " passes.\n\n";
  for (size_t i : failing) {
    os << "- `" << tests[i].getId() << "`";
    if (peerRun.passed(i))
      os << " (**" << peer->shortName << " passes**)";
    os << ": " << getOutcomeName(results[i].outcome).lower() << " — "
       << escapeMarkdown(results[i].reason) << "\n";
  }
  if (!peer)
    return true;

  std::vector<size_t> peerFailing =
      selectTests(tests, results, [&](size_t i) { return !peerRun.passed(i); });
  os << "\n## Tests " << peer->title << " does not pass\n\n";
  if (peerFailing.empty())
    os << "None.\n";
  else
    os << "With " << peer->shortName << "'s error or how its outputs "
       << "differ; **OrchestraOS passes** marks the tests OrchestraOS "
       << "passes.\n\n";
  for (size_t i : peerFailing) {
    os << "- `" << tests[i].getId() << "`";
    if (results[i].outcome == Outcome::Pass)
      os << " (**OrchestraOS passes**)";
    const std::optional<PeerResult> &result = peerRun.results[i];
    os << ": " << escapeMarkdown(result ? result->reason : "no result") << "\n";
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Expectations
//===----------------------------------------------------------------------===//

/// Reads `suite/test` lines; '#' starts a comment.
static bool readExpectations(StringRef path, std::set<std::string> &tests,
                             std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = file.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      tests.insert(line.str());
  }
  return true;
}

static bool writeExpectations(StringRef path, StringRef command,
                              const std::set<std::string> &tests,
                              std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = ec.message();
    return false;
  }
  os << "# ONNX backend tests (suite/test) that pass with OrchestraOS.\n"
     << "# Generated by: " << command << "\n"
     << "# orchestra-onnx-conformance --expect fails when one of them stops "
        "passing;\n"
     << "# regenerate with --update-expectations after a converter lands.\n";
  for (const std::string &test : tests)
    os << test << "\n";
  return true;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The command line, for the report and the expectations header.
static std::string getCommandLine(int argc, char **argv) {
  std::string command = llvm::sys::path::filename(argv[0]).str();
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
      return llvm::isAlnum(c) || StringRef("-_=./,:+@%").contains(c);
    });
    command += " " + (plain ? arg.str() : "'" + arg.str() + "'");
  }
  return command;
}

/// Where the build puts the peer's script: share/orchestra/ beside the
/// runner's bin/.
static std::string getPeerScriptPath(const char *argv0, const PeerKind &kind) {
  std::string executable = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&getPeerScriptPath));
  SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(path, "share", "orchestra", kind.script);
  return path.str().str();
}

static int usageError(const llvm::Twine &message) {
  llvm::errs() << "orchestra-onnx-conformance: error: " << message << "\n";
  return 2;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  orchestra::registerAllPasses();
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS ONNX backend test-suite runner\n\n"
      "Imports, compiles (topology 'host') and runs every test of the ONNX\n"
      "backend test data, each in its own process, and compares the outputs\n"
      "(floats: rtol 1e-3, atol 1e-7; integers and bools exactly). Prints\n"
      "PASS, FAIL, UNSUPPORTED (a diagnostic says 'unsupported'), CRASH (a\n"
      "signal or an internal error) or SKIPPED (training) per test, then\n"
      "per-suite counts and 'N passed, M failed'. With --peer=onnxruntime,\n"
      "ONNX Runtime runs every test too, and its results are shown beside\n"
      "OrchestraOS's (a line per test, a table per suite, the report's\n"
      "columns); they do not change the exit status.\n\n"
      "Examples:\n"
      "  orchestra-onnx-conformance --suite node --filter 'test_(add|mul)'\n"
      "  orchestra-onnx-conformance --suite all --jobs 8 "
      "--report-md results.md\n"
      "  orchestra-onnx-conformance --expect expected-passes.txt\n"
      "  orchestra-onnx-conformance --update-expectations "
      "expected-passes.txt\n"
      "  orchestra-onnx-conformance --filter '^node/test_relu$' -v\n"
      "  orchestra-onnx-conformance --suite all --peer=onnxruntime "
      "--report-md results.md\n\n"
      "Exit status: 0; 1 when a test listed by --expect does not pass or a\n"
      "test crashes; 2 on a usage error or when the peer cannot run.\n");
  std::string command = getCommandLine(argc, argv);

  // Suites.
  std::vector<std::string> suites;
  SmallVector<StringRef> suiteNames;
  StringRef(suiteOption).split(suiteNames, ',', -1, /*KeepEmpty=*/false);
  for (StringRef name : suiteNames) {
    name = name.trim();
    if (name == "all") {
      suites.insert(suites.end(), std::begin(kDefaultSuites),
                    std::end(kDefaultSuites));
    } else if (llvm::is_contained(kKnownSuites, name)) {
      suites.push_back(name.str());
    } else {
      return usageError("unknown suite '" + name +
                        "' (known: node, pytorch-converted, pytorch-operator, "
                        "simple, real, all)");
    }
  }
  std::sort(suites.begin(), suites.end());
  suites.erase(std::unique(suites.begin(), suites.end()), suites.end());
  if (suites.empty())
    return usageError("no suite given");
  bool explicitSuites = StringRef(suiteOption) != "all";

  const PeerKind *peerKind = nullptr;
  if (!peerOption.empty()) {
    peerKind = lookupPeerKind(peerOption);
    if (!peerKind)
      return usageError("unknown peer '" + peerOption +
                        "' (known: " + getKnownPeerNames() + ")");
  }

  std::optional<llvm::Regex> filter;
  auto compileRegex = [](StringRef text, std::optional<llvm::Regex> &regex,
                         StringRef option) {
    if (text.empty())
      return true;
    regex.emplace(text);
    std::string error;
    if (!regex->isValid(error)) {
      usageError("invalid --" + option + " regex '" + text + "': " + error);
      return false;
    }
    return true;
  };
  ChildConfig config;
  if (!compileRegex(filterOption, filter, "filter") ||
      !compileRegex(injectCrashOption, config.injectCrash, "inject-crash") ||
      !compileRegex(injectHangOption, config.injectHang, "inject-hang") ||
      !compileRegex(injectStallOption, config.injectStall, "inject-stall"))
    return 2;

  // The pipeline is built once here; every child parses it.
  CompileOptions compileOptions;
  compileOptions.topology = "host";
  std::string pipelineError;
  FailureOr<std::string> pipeline =
      buildCompilePipeline(compileOptions, pipelineError);
  if (failed(pipeline))
    return usageError(pipelineError);
  config.pipeline = *pipeline;

  std::set<std::string> expected;
  if (!expectOption.empty()) {
    std::string error;
    if (!readExpectations(expectOption, expected, error))
      return usageError("cannot read '" + expectOption + "': " + error);
  }

  // Tests: every directory of each selected suite.
  auto isSelected = [&](StringRef suite, StringRef id) {
    return llvm::is_contained(suites, suite) && (!filter || filter->match(id));
  };
  if (!llvm::sys::fs::is_directory(dataDirOption))
    return usageError("'" + dataDirOption + "' is not a directory");
  std::vector<TestCase> tests;
  unsigned withoutModel = 0;
  for (const std::string &suite : suites) {
    SmallString<256> suiteDir(dataDirOption);
    llvm::sys::path::append(suiteDir, suite);
    if (!llvm::sys::fs::is_directory(suiteDir)) {
      if (explicitSuites)
        return usageError("no suite '" + suite + "' in '" + dataDirOption +
                          "'");
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(suiteDir, ec), end;
         it != end && !ec; it.increment(ec)) {
      if (!llvm::sys::fs::is_directory(it->path()))
        continue;
      TestCase test{suite, llvm::sys::path::filename(it->path()).str(),
                    it->path()};
      if (!isSelected(suite, test.getId()))
        continue;
      // The `real` suite ships only download links (data.json).
      SmallString<256> model(it->path());
      llvm::sys::path::append(model, "model.onnx");
      if (!llvm::sys::fs::exists(model)) {
        ++withoutModel;
        continue;
      }
      tests.push_back(std::move(test));
    }
  }
  if (withoutModel)
    llvm::errs() << "orchestra-onnx-conformance: note: " << withoutModel
                 << " test directories without model.onnx were skipped\n";
  // Suites in report order, tests by name: the order of a --jobs 1 run.
  auto suiteRank = [](StringRef suite) {
    return llvm::find(kKnownSuites, suite) - std::begin(kKnownSuites);
  };
  llvm::sort(tests, [&](const TestCase &a, const TestCase &b) {
    return std::make_pair(suiteRank(a.suite), a.name) <
           std::make_pair(suiteRank(b.suite), b.name);
  });
  if (tests.empty())
    llvm::errs() << "orchestra-onnx-conformance: warning: no test selected\n";

  unsigned jobs = jobsOption
                      ? unsigned(jobsOption)
                      : std::max(1u, std::thread::hardware_concurrency());
  unsigned timeout = timeoutOption;
  numRunningSlots = jobs;
  runningGroups.reset(new volatile sig_atomic_t[jobs]());
  llvm::sys::SetInterruptFunction(killRunningChildren);

  // The peer starts before the first test: one that cannot run ends the
  // run before it begins.
  std::unique_ptr<PeerRuntime> peer;
  PeerRun peerRun;
  if (peerKind) {
    std::string script = getPeerScriptPath(argv[0], *peerKind);
    llvm::Expected<std::unique_ptr<PeerRuntime>> started =
        PeerRuntime::start(*peerKind, peerPythonOption, script);
    if (!started)
      return usageError("--peer=" + peerKind->option +
                        " cannot run: " + llvm::toString(started.takeError()));
    peer = std::move(*started);
    peerGroup = std::max<pid_t>(peer->getPid(), 0);
    peerRun.kind = peerKind;
    peerRun.version = peer->getVersion().str();
    peerRun.results.resize(tests.size());
  }

  // Run: at most `jobs` children, and the peer beside them one test at a
  // time; a test's result is printed once both have finished it.
  auto startTime = std::chrono::steady_clock::now();
  std::vector<TestResult> results(tests.size());
  std::vector<bool> finished(tests.size());
  std::vector<std::optional<Child>> slots(jobs);
  Progress progress(tests.size());
  size_t next = 0, nextForPeer = 0, done = 0, notPassing = 0;
  CPUTimeLimit peerLimit;
  llvm::raw_ostream &os = llvm::outs();
  auto report = [&](size_t index) {
    if (!finished[index] || (peer && !peerRun.results[index]))
      return;
    progress.clear();
    const TestResult &result = results[index];
    printResultLine(os, tests[index], result);
    if (peer)
      printPeerResultLine(os, *peerKind, *peerRun.results[index]);
    if (verboseOption)
      printDetails(os, result);
    os.flush();
    ++done;
    if (result.outcome != Outcome::Pass && result.outcome != Outcome::Skipped)
      ++notPassing;
  };
  while (done < tests.size()) {
    for (unsigned slot = 0; slot < jobs && next < tests.size(); ++slot) {
      if (slots[slot])
        continue;
      Child child;
      size_t index = next++;
      if (!spawnChild(tests, index, config, child, results[index])) {
        finished[index] = true;
        report(index);
        continue;
      }
      runningGroups[slot] = child.pid;
      slots[slot] = std::move(child);
    }
    if (peer && !peer->isBusy() && nextForPeer < tests.size()) {
      peer->submit(nextForPeer, tests[nextForPeer].dir);
      peerLimit = CPUTimeLimit(peer->getPid());
      ++nextForPeer;
    }

    std::vector<pollfd> fds;
    for (std::optional<Child> &child : slots) {
      if (!child)
        continue;
      for (int fd : {child->messageFd, child->logFd})
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    }
    if (peer && peer->getReplyFd() >= 0)
      fds.push_back({peer->getReplyFd(), POLLIN, 0});
    // A short timeout also notices children that exited while a tool they
    // started still holds their stderr.
    ::poll(fds.data(), fds.size(), 50);

    size_t running = 0;
    for (unsigned slot = 0; slot < jobs; ++slot) {
      std::optional<Child> &child = slots[slot];
      if (!child)
        continue;
      drainMessages(*child);
      drainLog(*child);
      if (child->timedOut.empty() && !child->gotResult) {
        child->timedOut = child->cpuLimit.check(timeout);
        if (!child->timedOut.empty()) {
          ::kill(-child->pid, SIGKILL);
          ::kill(child->pid, SIGKILL);
        }
      }
      int status = 0;
      pid_t waited = ::waitpid(child->pid, &status, WNOHANG);
      if (waited == 0) {
        ++running;
        continue;
      }
      if (waited < 0)
        status = 0;
      // Tools the child started die with it.
      ::kill(-child->pid, SIGKILL);
      finalizeChild(*child, status);
      results[child->test] = std::move(child->result);
      runningGroups[slot] = 0;
      size_t index = child->test;
      finished[index] = true;
      child.reset();
      report(index);
    }

    if (peer) {
      if (peer->isBusy()) {
        std::string timedOut = peerLimit.check(timeout);
        if (!timedOut.empty())
          peer->abort(timedOut + " (in " + peerKind->title.str() + ")");
      }
      if (std::optional<std::pair<size_t, PeerResult>> result = peer->poll()) {
        result->second.reason = makeOneLine(result->second.reason);
        peerRun.results[result->first] = std::move(result->second);
        report(result->first);
      }
      // A peer that died was started again.
      peerGroup = std::max<pid_t>(peer->getPid(), 0);
    }
    progress.update(done, running, notPassing);
  }
  progress.clear();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - startTime)
                       .count();

  // The summary does not depend on the order in which tests finished.
  printSummary(os, tests, results, peerRun);
  os << "Time: " << llvm::format("%.1f", seconds) << " s with " << jobs
     << " job(s)\n";

  int exitCode = 0;
  std::vector<size_t> crashes;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome == Outcome::Crash)
      crashes.push_back(i);
  if (!crashes.empty()) {
    os << "\nCrashes (" << crashes.size() << "):\n";
    for (size_t i : crashes) {
      os << "  ";
      printResultLine(os, tests[i], results[i]);
    }
    exitCode = 1;
  }

  llvm::StringMap<size_t> indexById;
  for (size_t i = 0; i < tests.size(); ++i)
    indexById[tests[i].getId()] = i;
  if (!expectOption.empty()) {
    // Regressions: expected passes of this run's selection that did not
    // pass or were not found.
    std::vector<std::string> regressions;
    for (const std::string &id : expected) {
      StringRef suite = StringRef(id).split('/').first;
      if (!isSelected(suite, id))
        continue;
      auto it = indexById.find(id);
      if (it == indexById.end()) {
        regressions.push_back("MISSING     " + id +
                              ": no such test in the data directory");
        continue;
      }
      const TestResult &result = results[it->second];
      if (result.outcome == Outcome::Pass)
        continue;
      std::string line;
      llvm::raw_string_ostream lineStream(line);
      printResultLine(lineStream, tests[it->second], result);
      regressions.push_back(StringRef(line).rtrim().str());
    }
    if (!regressions.empty()) {
      os << "\nExpected to pass (" << expectOption << ") but did not ("
         << regressions.size() << "):\n";
      for (const std::string &line : regressions)
        os << "  " << line << "\n";
      exitCode = 1;
    }
    unsigned newPasses = 0;
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass &&
          !expected.count(tests[i].getId()))
        ++newPasses;
    if (newPasses)
      os << "\n"
         << newPasses << " tests pass that are not in " << expectOption
         << "; run with --update-expectations " << expectOption
         << " to add them\n";
  }

  if (!updateOption.empty()) {
    // Entries outside this run's selection stay; the selection's entries
    // are replaced by its passes.
    std::set<std::string> passing;
    if (llvm::sys::fs::exists(updateOption)) {
      std::string error;
      if (!readExpectations(updateOption, passing, error))
        return usageError("cannot read '" + updateOption + "': " + error);
      for (auto it = passing.begin(); it != passing.end();) {
        StringRef suite = StringRef(*it).split('/').first;
        it = isSelected(suite, *it) ? passing.erase(it) : std::next(it);
      }
    }
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass)
        passing.insert(tests[i].getId());
    std::string error;
    if (!writeExpectations(updateOption, command, passing, error))
      return usageError("cannot write '" + updateOption + "': " + error);
    os << "\nWrote " << passing.size() << " expected passes to " << updateOption
       << "\n";
  }

  if (!reportOption.empty()) {
    std::string error;
    if (!writeReport(reportOption, command, tests, results, peerRun, error))
      return usageError("cannot write '" + reportOption + "': " + error);
  }

  unsigned passed = 0, failed = 0;
  for (const TestResult &result : results) {
    if (result.outcome == Outcome::Pass)
      ++passed;
    else if (result.outcome != Outcome::Skipped)
      ++failed;
  }
  if (peerRun.kind) {
    unsigned peerPassed = 0, peerFailed = 0;
    for (size_t i = 0; i < tests.size(); ++i) {
      if (results[i].outcome == Outcome::Skipped)
        continue;
      if (peerRun.passed(i))
        ++peerPassed;
      else
        ++peerFailed;
    }
    os << "\n"
       << peerRun.kind->option << " " << peerRun.version << ": " << peerPassed
       << " passed, " << peerFailed << " failed";
  }
  os << "\n" << passed << " passed, " << failed << " failed\n";
  os.flush();
  return exitCode;
}
