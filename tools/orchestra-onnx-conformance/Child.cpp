//===- Child.cpp - One test, in a forked child ----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Child.h"
#include "TestData.h"

#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/Frontend/ONNX/TensorData.h"
#include "orchestra/InitAll.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <cerrno>
#include <csignal>
#include <exception>
#include <optional>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;

//===----------------------------------------------------------------------===//
// Test-data tensors as MLIR constants (child side)
//===----------------------------------------------------------------------===//

/// The type the importer gives a graph input, or null when it has none that
/// the runner can compute (not a tensor, dynamic dimensions, ...).
static RankedTensorType getDeclaredType(MLIRContext *context,
                                        const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return nullptr;
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = onnx_data::getElementType(context, tensor.elem_type());
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
  Type element = onnx_data::getElementType(type.getContext(), tensor.dtype);
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
    std::string stage = "compile";
    CompileHooks hooks;
    hooks.onPhase = [&](StringRef phase) {
      if (phase != "artifact")
        return;
      stage = phase.str();
      channel.send("STAGE", stage);
    };
    FailureOr<orx::Artifact> artifact =
        compileToArtifact(*imported->module, config.compileOptions, hooks);
    if (failed(artifact))
      finishFailedStage(stage);
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
      // A dynamic dimension (-1) takes the data's size (design/0017).
      bool shapeMatches =
          tensor->shape.size() == shape.size() &&
          llvm::all_of(llvm::zip(shape, tensor->shape), [](auto dims) {
            return std::get<0>(dims) == -1 ||
                   std::get<0>(dims) == std::get<1>(dims);
          });
      if (!dtype || uint32_t(*dtype) != info.dtype || !shapeMatches)
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
      if (llvm::is_contained(shape, -1))
        if (orx::StatusPtr status{orx_session_set_input_shape(
                compiled.session.get(), i, tensor->shape.data(),
                tensor->shape.size())})
          channel.finish(Outcome::Fail, where + "runtime error: " +
                                            orx_status_message(status.get()));
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
    std::vector<std::vector<int64_t>> outputShapes(numOutputs);
    std::vector<std::vector<char>> outputs(numOutputs);
    std::vector<void *> outputData;
    std::vector<size_t> outputSizes;
    for (size_t i = 0; i < numOutputs; ++i) {
      if (orx::StatusPtr status{
              orx_artifact_output_info(artifact, i, &outputInfos[i])})
        channel.finish(Outcome::Fail, std::string("runtime error: ") +
                                          orx_status_message(status.get()));
      // The shape at the inputs' sizes.
      std::vector<int64_t> &outShape = outputShapes[i];
      outShape.resize(outputInfos[i].rank);
      size_t rank = 0;
      if (orx::StatusPtr status{orx_session_output_shape(
              compiled.session.get(), i, outShape.data(), outShape.size(),
              &rank)})
        channel.finish(Outcome::Fail, where + "runtime error: " +
                                          orx_status_message(status.get()));
      size_t bytes = orx_dtype_size(outputInfos[i].dtype);
      for (int64_t size : outShape)
        bytes *= static_cast<size_t>(size);
      outputs[i].resize(bytes);
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
      llvm::ArrayRef<int64_t> shape = outputShapes[i];
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
[[noreturn]] void conformance::childMain(const TestCase &test,
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
