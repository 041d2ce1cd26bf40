//===- orchestra-run.cpp - Run an OrchestraOS artifact --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Loads an artifact (`.orcx`) through the runtime's C API, feeds it .npy
// inputs, runs its plan and writes the outputs as .npy files, optionally with
// a Chrome trace of the run and latency statistics over repeated runs; or,
// with --describe, prints what the artifact holds.
//
//===----------------------------------------------------------------------===//

#include "Describe.h"

#include "orchestra/Support/Npy.h"

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>

using namespace orchestra;
using llvm::StringRef;

static llvm::cl::OptionCategory runCategory("orchestra-run options");

static llvm::cl::opt<std::string>
    artifactPath(llvm::cl::Positional, llvm::cl::Required,
                 llvm::cl::desc("<artifact.orcx>"), llvm::cl::cat(runCategory));

static llvm::cl::opt<bool> describe(
    "describe",
    llvm::cl::desc("Print the artifact's plan (devices, memory, entry, "
                   "binaries, GPU launches and their parameters, steps) "
                   "instead of running it"),
    llvm::cl::cat(runCategory));

static llvm::cl::opt<std::string> dumpConstantsDir(
    "dump-constants",
    llvm::cl::desc("Write each constant's data to DIR/value_<value>.bin "
                   "(raw bytes) instead of running (with --describe: both)"),
    llvm::cl::value_desc("DIR"), llvm::cl::cat(runCategory));

static llvm::cl::list<std::string> inputArgs(
    "input",
    llvm::cl::desc("An input as a .npy file: FILE (in entry-argument order) "
                   "or NAME=FILE (by input name); repeat for each input"),
    llvm::cl::value_desc("[NAME=]FILE"), llvm::cl::cat(runCategory));

static llvm::cl::opt<std::string> outputDir(
    "output-dir",
    llvm::cl::desc("Write the outputs to DIR/output_<i>.npy (created if "
                   "missing); without it no output is written"),
    llvm::cl::value_desc("DIR"), llvm::cl::cat(runCategory));

static llvm::cl::opt<std::string>
    traceFile("trace",
              llvm::cl::desc("Write a Chrome trace (JSON) of the last run"),
              llvm::cl::value_desc("FILE"), llvm::cl::cat(runCategory));

static llvm::cl::opt<unsigned> repeat(
    "repeat",
    llvm::cl::desc("After the first (warm-up) run, time N more runs and print "
                   "their median and minimum latency, and of their steps "
                   "alone (without copying inputs and outputs in and out); "
                   "with GPU steps, also of the GPU time of those steps "
                   "(CUDA events around each, summed per run)"),
    llvm::cl::value_desc("N"), llvm::cl::init(0), llvm::cl::cat(runCategory));

static llvm::cl::opt<std::string> topologySpec(
    "topology",
    llvm::cl::desc("Refuse to run unless the artifact was built for this "
                   "topology ('host' or a JSON file)"),
    llvm::cl::value_desc("NAME|PATH"), llvm::cl::cat(runCategory));

static llvm::cl::opt<bool>
    quiet("quiet",
          llvm::cl::desc("Print nothing on success but --repeat's "
                         "latency line"),
          llvm::cl::cat(runCategory));

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
using Status = orx::StatusPtr;
using Artifact = orx::ArtifactPtr;
using Session = orx::SessionPtr;

/// An input or output of the artifact's entry.
struct TensorInfo {
  std::string name;
  uint32_t dtype;
  std::vector<int64_t> shape;
  size_t byteSize;
};
} // namespace

/// The .npy element type that holds `dtype`; bf16 travels as its uint16 bits.
static std::optional<npy::ElementType> getNpyType(uint32_t dtype) {
  switch (dtype) {
  case ORX_DTYPE_F32:
    return npy::ElementType::F32;
  case ORX_DTYPE_F64:
    return npy::ElementType::F64;
  case ORX_DTYPE_F16:
    return npy::ElementType::F16;
  case ORX_DTYPE_BF16:
    return npy::ElementType::U16;
  case ORX_DTYPE_I1:
    return npy::ElementType::Bool;
  case ORX_DTYPE_I8:
    return npy::ElementType::I8;
  case ORX_DTYPE_I16:
    return npy::ElementType::I16;
  case ORX_DTYPE_I32:
    return npy::ElementType::I32;
  case ORX_DTYPE_I64:
    return npy::ElementType::I64;
  case ORX_DTYPE_U8:
    return npy::ElementType::U8;
  case ORX_DTYPE_U16:
    return npy::ElementType::U16;
  case ORX_DTYPE_U32:
    return npy::ElementType::U32;
  case ORX_DTYPE_U64:
    return npy::ElementType::U64;
  default:
    return std::nullopt;
  }
}

static std::string formatType(StringRef elementType,
                              llvm::ArrayRef<int64_t> shape) {
  std::string result = elementType.str() + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? "x" : "") + std::to_string(shape[i]);
  return result + "]";
}

static std::string formatType(const TensorInfo &info) {
  const char *name = orx_dtype_name(info.dtype);
  return formatType(name ? name : "?", info.shape);
}

static TensorInfo makeTensorInfo(const orx_tensor_info_t &info) {
  return {info.name, info.dtype,
          std::vector<int64_t>(info.dims, info.dims + info.rank),
          info.byte_size};
}

/// A device as the topology check compares and prints it: name and arch.
using DeviceKey = std::pair<std::string, std::string>;

/// "cpu0:x86_64, cpu1:x86_64".
static std::string joinDevices(llvm::ArrayRef<DeviceKey> devices) {
  std::string result;
  for (const DeviceKey &device : devices)
    result += (result.empty() ? "" : ", ") + device.first + ":" + device.second;
  return result;
}

/// Checks that the artifact was built for the topology --topology names: same
/// name, same devices (name and arch) in the same order.
static llvm::Error checkTopology(orx_artifact_t *artifact) {
  llvm::Expected<mlir::orchestra::Topology> topology =
      mlir::orchestra::Topology::resolve(topologySpec,
                                         mlir::orchestra::getTargetRegistry());
  if (!topology)
    return makeError("cannot resolve topology '" + topologySpec +
                     "': " + llvm::toString(topology.takeError()));
  std::vector<DeviceKey> artifactDevices, topologyDevices;
  for (size_t i = 0, e = orx_artifact_num_devices(artifact); i < e; ++i)
    artifactDevices.emplace_back(orx_artifact_device_name(artifact, i),
                                 orx_artifact_device_arch(artifact, i));
  for (const mlir::orchestra::TopologyDevice &device : topology->devices)
    topologyDevices.emplace_back(device.name, device.arch);
  StringRef artifactTopology = orx_artifact_topology_name(artifact);
  if (topology->name == artifactTopology && artifactDevices == topologyDevices)
    return llvm::Error::success();
  return makeError("artifact '" + artifactPath + "' was built for topology '" +
                   artifactTopology + "' (devices " +
                   joinDevices(artifactDevices) + "), not '" + topology->name +
                   "' (" + joinDevices(topologyDevices) + ")");
}

/// Reads the --input files in entry-argument order into `arrays`.
static llvm::Error readInputs(llvm::ArrayRef<TensorInfo> inputs,
                              std::vector<npy::Array> &arrays) {
  // An argument is NAME=FILE when NAME is an input of the entry.
  llvm::StringMap<size_t> indexByName;
  for (size_t i = 0; i < inputs.size(); ++i)
    indexByName.try_emplace(inputs[i].name, i);
  std::vector<std::string> files(inputs.size());
  std::vector<bool> given(inputs.size(), false);
  size_t numNamed = 0, numPositional = 0;
  for (const std::string &arg : inputArgs) {
    auto [name, file] = StringRef(arg).split('=');
    auto it = indexByName.find(name);
    if (!file.empty() && it != indexByName.end()) {
      if (given[it->second])
        return makeError("input '" + name + "' is given twice");
      given[it->second] = true;
      files[it->second] = file.str();
      ++numNamed;
      continue;
    }
    if (!file.empty() && !llvm::sys::fs::exists(arg)) {
      std::string known;
      for (const TensorInfo &input : inputs)
        known += (known.empty() ? "'" : ", '") + input.name + "'";
      return makeError("the entry has no input named '" + name +
                       "' (its inputs: " + (known.empty() ? "none" : known) +
                       ")");
    }
    if (numPositional < files.size())
      files[numPositional] = arg;
    ++numPositional;
  }
  if (numNamed && numPositional)
    return makeError("--input mixes NAME=FILE and plain FILE arguments; use "
                     "one form for all inputs");
  if (!numNamed && numPositional != inputs.size())
    return makeError("the entry takes " + llvm::Twine(inputs.size()) +
                     " inputs, got " + llvm::Twine(numPositional) +
                     " --input files");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (numNamed && !given[i])
      return makeError("missing input " + llvm::Twine(i) + " ('" +
                       inputs[i].name + "', " + formatType(inputs[i]) + ")");

  for (size_t i = 0; i < inputs.size(); ++i) {
    llvm::Expected<npy::Array> array = npy::readFile(files[i]);
    if (!array)
      return makeError("input " + llvm::Twine(i) + " ('" + inputs[i].name +
                       "'): " + llvm::toString(array.takeError()));
    std::optional<npy::ElementType> expected = getNpyType(inputs[i].dtype);
    if (!expected || array->type != *expected ||
        array->shape != inputs[i].shape) {
      std::string hint = inputs[i].dtype == ORX_DTYPE_BF16
                             ? " (bf16 data is passed as its uint16 bits)"
                             : "";
      return makeError(
          "input " + llvm::Twine(i) + " ('" + inputs[i].name + "'): expected " +
          formatType(inputs[i]) + ", got " +
          formatType(npy::getElementTypeName(array->type), array->shape) +
          " from '" + files[i] + "'" + hint);
    }
    arrays.push_back(std::move(*array));
  }
  return llvm::Error::success();
}

/// Writes the trace of the session's last run as Chrome trace JSON.
static llvm::Error writeTrace(orx_artifact_t *artifact,
                              orx_session_t *session) {
  std::error_code ec;
  llvm::raw_fd_ostream os(traceFile, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write '" + traceFile + "': " + ec.message());
  llvm::json::Array events;
  events.push_back(llvm::json::Object{
      {"name", "process_name"},
      {"ph", "M"},
      {"pid", 0},
      {"args", llvm::json::Object{
                   {"name", std::string(orx_artifact_entry_name(artifact))}}}});
  // Process 1 holds the scheduler's prediction, one row per device like the
  // measurement, so the two line up in the viewer.
  for (int64_t pid : {0, 1}) {
    if (pid == 1)
      events.push_back(llvm::json::Object{
          {"name", "process_name"},
          {"ph", "M"},
          {"pid", 1},
          {"args", llvm::json::Object{
                       {"name", std::string(orx_artifact_entry_name(artifact)) +
                                    " (predicted by the scheduler)"}}}});
    for (size_t i = 0, e = orx_artifact_num_devices(artifact); i < e; ++i)
      events.push_back(llvm::json::Object{
          {"name", "thread_name"},
          {"ph", "M"},
          {"pid", pid},
          {"tid", static_cast<int64_t>(i)},
          {"args",
           llvm::json::Object{
               {"name", std::string(orx_artifact_device_name(artifact, i)) +
                            " (" + orx_artifact_device_arch(artifact, i) +
                            ")"}}}});
  }
  for (size_t i = 0, e = orx_session_trace_size(session); i < e; ++i) {
    orx_trace_event_t event;
    if (Status status{orx_session_trace_event(session, i, &event)})
      return makeError(orx_status_message(status.get()));
    // Predictions are in seconds; the trace shows microseconds, rounded to
    // nanoseconds like the measured times.
    auto toMicroseconds = [](double seconds) {
      return std::round(seconds * 1e9) / 1e3;
    };
    llvm::json::Object args{{"step", static_cast<int64_t>(i)}};
    if (event.predicted_start >= 0)
      args["predicted_start_us"] = toMicroseconds(event.predicted_start);
    if (event.predicted_finish >= 0)
      args["predicted_finish_us"] = toMicroseconds(event.predicted_finish);
    if (event.device_ns)
      args["gpu_us"] = static_cast<double>(event.device_ns) / 1e3;
    events.push_back(llvm::json::Object{
        {"name", event.name},
        {"cat", event.kind == ORX_STEP_COPY ? "transfer" : "task"},
        {"ph", "X"},
        {"pid", 0},
        {"tid", static_cast<int64_t>(event.device)},
        {"ts", static_cast<double>(event.start_ns) / 1e3},
        {"dur", static_cast<double>(event.end_ns - event.start_ns) / 1e3},
        {"args", std::move(args)}});
    if (event.predicted_start >= 0 && event.predicted_finish >= 0)
      events.push_back(llvm::json::Object{
          {"name", event.name},
          {"cat", event.kind == ORX_STEP_COPY ? "transfer" : "task"},
          {"ph", "X"},
          {"pid", 1},
          {"tid", static_cast<int64_t>(event.device)},
          {"ts", toMicroseconds(event.predicted_start)},
          {"dur", toMicroseconds(event.predicted_finish) -
                      toMicroseconds(event.predicted_start)},
          {"args", llvm::json::Object{{"step", static_cast<int64_t>(i)}}}});
  }
  os << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                     {"traceEvents", std::move(events)},
                                     {"displayTimeUnit", "ms"}}));
  return llvm::Error::success();
}

/// Loads the artifact, checks and reads the inputs, runs the plan (once, then
/// --repeat times) and writes the outputs, the trace and the summary.
static llvm::Error runArtifact() {
  orx_artifact_t *rawArtifact = nullptr;
  if (Status status{orx_artifact_load_file(artifactPath.c_str(), &rawArtifact)})
    return makeError("cannot load '" + artifactPath +
                     "': " + orx_status_message(status.get()));
  Artifact artifact(rawArtifact);

  if (!topologySpec.empty())
    if (llvm::Error err = checkTopology(artifact.get()))
      return err;

  std::vector<TensorInfo> inputs, outputs;
  for (size_t i = 0, e = orx_artifact_num_inputs(artifact.get()); i < e; ++i) {
    orx_tensor_info_t info;
    if (Status status{orx_artifact_input_info(artifact.get(), i, &info)})
      return makeError(orx_status_message(status.get()));
    inputs.push_back(makeTensorInfo(info));
  }
  for (size_t i = 0, e = orx_artifact_num_outputs(artifact.get()); i < e; ++i) {
    orx_tensor_info_t info;
    if (Status status{orx_artifact_output_info(artifact.get(), i, &info)})
      return makeError(orx_status_message(status.get()));
    outputs.push_back(makeTensorInfo(info));
  }

  std::vector<npy::Array> inputArrays;
  if (llvm::Error err = readInputs(inputs, inputArrays))
    return err;

  orx_session_t *rawSession = nullptr;
  if (Status status{orx_session_create(artifact.get(), &rawSession)})
    return makeError("cannot prepare '" + artifactPath +
                     "': " + orx_status_message(status.get()));
  Session session(rawSession);

  std::vector<const void *> inputData;
  std::vector<size_t> inputSizes;
  for (const npy::Array &array : inputArrays) {
    inputData.push_back(array.data.data());
    inputSizes.push_back(array.data.size());
  }
  std::vector<npy::Array> outputArrays(outputs.size());
  std::vector<void *> outputData;
  std::vector<size_t> outputSizes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::optional<npy::ElementType> type = getNpyType(outputs[i].dtype);
    if (!type)
      return makeError("output " + llvm::Twine(i) +
                       " has an unknown element type");
    outputArrays[i].type = *type;
    outputArrays[i].shape = outputs[i].shape;
    outputArrays[i].data.resize(outputs[i].byteSize);
    outputData.push_back(outputArrays[i].data.data());
    outputSizes.push_back(outputs[i].byteSize);
  }

  // Runs the plan once; returns the milliseconds it took.
  auto runOnce = [&]() -> llvm::Expected<double> {
    auto start = std::chrono::steady_clock::now();
    Status status{orx_session_run(
        session.get(), inputData.data(), inputSizes.data(), inputData.size(),
        outputData.data(), outputSizes.data(), outputData.size())};
    auto end = std::chrono::steady_clock::now();
    if (status)
      return makeError("running '" + artifactPath +
                       "' failed: " + orx_status_message(status.get()));
    return std::chrono::duration<double, std::milli>(end - start).count();
  };

  // The span of the last run's steps, from the first step's start to the
  // last one's end, in milliseconds: the run without the staging of inputs
  // and outputs (copies between the caller's buffers and the session's).
  auto stepSpan = [&]() -> llvm::Expected<double> {
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0, e = orx_session_trace_size(session.get()); i < e; ++i) {
      orx_trace_event_t event;
      if (Status status{orx_session_trace_event(session.get(), i, &event)})
        return makeError(orx_status_message(status.get()));
      first = std::min(first, event.start_ns);
      last = std::max(last, event.end_ns);
    }
    return first < last ? (last - first) / 1e6 : 0.0;
  };

  // The sum of the last run's GPU times (CUDA events around each GPU step),
  // in milliseconds; 0 when it ran nothing on a GPU.
  auto gpuTime = [&]() -> llvm::Expected<double> {
    uint64_t total = 0;
    for (size_t i = 0, e = orx_session_trace_size(session.get()); i < e; ++i) {
      orx_trace_event_t event;
      if (Status status{orx_session_trace_event(session.get(), i, &event)})
        return makeError(orx_status_message(status.get()));
      total += event.device_ns;
    }
    return total / 1e6;
  };

  // The first run also warms up the caches and the workers.
  llvm::Expected<double> firstRun = runOnce();
  if (!firstRun)
    return firstRun.takeError();
  std::vector<double> latencies, spans, gpuTimes;
  for (unsigned i = 0; i < repeat; ++i) {
    llvm::Expected<double> latency = runOnce();
    if (!latency)
      return latency.takeError();
    latencies.push_back(*latency);
    llvm::Expected<double> span = stepSpan();
    if (!span)
      return span.takeError();
    spans.push_back(*span);
    llvm::Expected<double> gpu = gpuTime();
    if (!gpu)
      return gpu.takeError();
    if (*gpu > 0)
      gpuTimes.push_back(*gpu);
  }

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return makeError("cannot create '" + outputDir + "': " + ec.message());
    for (size_t i = 0; i < outputArrays.size(); ++i) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".npy");
      if (llvm::Error err = npy::writeFile(path, outputArrays[i]))
        return err;
    }
  }
  if (!traceFile.empty())
    if (llvm::Error err = writeTrace(artifact.get(), session.get()))
      return err;

  llvm::raw_ostream &os = llvm::outs();
  if (!quiet) {
    for (size_t i = 0; i < outputs.size(); ++i)
      os << "output_" << i << ": " << formatType(outputs[i]) << "\n";
    os << "run time: " << llvm::format("%.3f", *firstRun) << " ms\n";
  }
  auto printStatistics = [&](llvm::StringRef what, std::vector<double> &v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    os << what << ": median " << llvm::format("%.3f", median) << " ms, min "
       << llvm::format("%.3f", v.front()) << " ms\n";
  };
  if (!latencies.empty()) {
    printStatistics("latency", latencies);
    printStatistics("steps", spans);
    if (gpuTimes.size() == latencies.size())
      printStatistics("gpu", gpuTimes);
  }
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(runCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS artifact runner\n\n"
      "Runs the plan of an artifact written by orchestra-compile on this "
      "machine.\n");
  if (!dumpConstantsDir.empty()) {
    std::string error;
    if (!dumpConstants(artifactPath, dumpConstantsDir, error)) {
      llvm::WithColor::error(llvm::errs(), "orchestra-run")
          << "cannot dump the constants of '" << artifactPath << "': " << error
          << "\n";
      return 1;
    }
    if (!describe)
      return 0;
  }
  if (describe) {
    std::string error;
    if (!describeArtifact(artifactPath, llvm::outs(), error)) {
      llvm::WithColor::error(llvm::errs(), "orchestra-run")
          << "cannot describe '" << artifactPath << "': " << error << "\n";
      return 1;
    }
    return 0;
  }
  if (llvm::Error err = runArtifact()) {
    llvm::WithColor::error(llvm::errs(), "orchestra-run")
        << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
