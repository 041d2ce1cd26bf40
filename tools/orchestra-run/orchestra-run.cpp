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

#include "CommandLine.h"
#include "Describe.h"
#include "JsonWriter.h"

#include "orchestra/Profile/Profile.h"
#include "orchestra/Support/AtomicFile.h"
#include "orchestra/Support/Npy.h"
#include "orchestra_rt/orchestra_rt.hpp"
#ifdef ORCHESTRA_HAVE_JIT
#include "orchestra_rt/orchestra_rt_jit.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace orchestra;

/// The host template (topologies/host.json) that `--topology host` names,
/// embedded at build time as the compiler embeds it.
static constexpr const char *kHostTopology =
#include "HostTopology.inc"
    ;

static std::string artifactPath;
static bool describe = false;
/// "json" for --describe=json.
static std::string describeFormat;
static std::string dumpConstantsDir;
static std::vector<std::string> inputArgs;
static std::string outputDir;
static std::string traceFile;
static std::string repeatText;
static unsigned repeat = 0;
static std::string topologySpec;
static bool quiet = false;
static std::string profileOut;
static bool printProfile = false;
static std::string jitServer;
static std::string jitAfterText = "10";
static std::string jitTimeoutText = "60";
static unsigned jitAfter = 10;
static unsigned jitTimeout = 60;
static std::string jitCheckText = "10";
static std::string jitMaxSlowdownText = "0.05";
static unsigned jitCheck = 10;
static double jitMaxSlowdown = 0.05;

static void parseCommandLine(int argc, char **argv) {
  CommandLine cl("orchestra-run",
                 "OrchestraOS artifact runner\n\nRuns the plan of an artifact "
                 "written by orchestra-compile on this machine.",
                 "<artifact.orcx>");
  cl.flag("describe",
          "Print the artifact's plan (devices, memory, entry, binaries, GPU "
          "launches and their parameters, steps) instead of running it; "
          "--describe=json prints it as JSON",
          &describe, &describeFormat, "json");
  cl.option("dump-constants", "DIR",
            "Write each constant's data to DIR/value_<value>.bin (raw bytes) "
            "instead of running (with --describe: both)",
            &dumpConstantsDir);
  cl.list("input", "[NAME=]FILE",
          "An input as a .npy file: FILE (in entry-argument order) or "
          "NAME=FILE (by input name); repeat for each input",
          &inputArgs);
  cl.option("jit-after", "N",
            "With --jit-server: send the profile after N runs (default 10)",
            &jitAfterText);
  cl.option("jit-check", "N",
            "With --jit-server: time the new plan's first N runs against "
            "the last N before the swap and swap the old plan back when it "
            "is more than --jit-max-slowdown slower (default 10; 0: no "
            "check)",
            &jitCheckText);
  cl.option("jit-max-slowdown", "F",
            "With --jit-check: the slowdown, a fraction, beyond which the "
            "old plan comes back (default 0.05)",
            &jitMaxSlowdownText);
  cl.option("jit-server", "HOST:PORT",
            "Send the branch profile of an artifact compiled with "
            "--profile-branches to the feedback service "
            "(orchestra-jit-server) after --jit-after runs, and run its new "
            "plan from the run after its reply on; after the last run, wait "
            "up to --jit-timeout for the reply and, on a new plan, run once "
            "more (the outputs are then the new plan's). Errors leave the "
            "old plan running",
            &jitServer);
  cl.option("jit-timeout", "S",
            "With --jit-server: the seconds the service has to answer "
            "(default 60)",
            &jitTimeoutText);
  cl.option("output-dir", "DIR",
            "Write the outputs to DIR/output_<i>.npy (created if missing); "
            "without it no output is written",
            &outputDir);
  cl.flag("print-profile",
          "Print the records of the DivergenceProfile file given in place "
          "of the artifact, one line each, instead of running",
          &printProfile);
  cl.option("profile-out", "FILE",
            "After the runs, write the counters of the kernels' branches "
            "(an artifact compiled with --profile-branches) to FILE as "
            "DivergenceProfile records (proto/divergence_profile.proto), "
            "one per branch and device",
            &profileOut);
  cl.flag("quiet", "Print nothing on success but --repeat's latency line",
          &quiet);
  cl.option("repeat", "N",
            "After the first (warm-up) run, time N more runs and print their "
            "median and minimum latency, and of their steps alone (without "
            "copying inputs and outputs in and out); with steps on "
            "asynchronous devices (GPUs), also of their device time (timing "
            "events around each, summed per run)",
            &repeatText);
  cl.option("topology", "NAME|PATH",
            "Refuse to run unless the artifact was built for this topology "
            "('host' or a JSON file)",
            &topologySpec);
  cl.option("trace", "FILE", "Write a Chrome trace (JSON) of the last run",
            &traceFile);
  cl.parse(argc, argv, artifactPath, "OrchestraOS version " ORCHESTRA_VERSION);
  if (!repeatText.empty()) {
    char *end = nullptr;
    errno = 0;
    unsigned long value = std::strtoul(repeatText.c_str(), &end, 10);
    if (repeatText[0] == '-' || *end != '\0' || errno || value > 1000000000) {
      std::cerr << "orchestra-run: error: --repeat takes a count, got '"
                << repeatText << "'\n";
      std::exit(1);
    }
    repeat = static_cast<unsigned>(value);
  }
  auto parseCount = [](const char *option, const std::string &text,
                       unsigned &out) {
    char *end = nullptr;
    errno = 0;
    unsigned long value = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno || value == 0 ||
        value > 1000000000) {
      std::cerr << "orchestra-run: error: --" << option
                << " takes a positive count, got '" << text << "'\n";
      std::exit(1);
    }
    out = static_cast<unsigned>(value);
  };
  parseCount("jit-after", jitAfterText, jitAfter);
  parseCount("jit-timeout", jitTimeoutText, jitTimeout);
  if (jitCheckText != "0")
    parseCount("jit-check", jitCheckText, jitCheck);
  else
    jitCheck = 0;
  char *end = nullptr;
  jitMaxSlowdown = std::strtod(jitMaxSlowdownText.c_str(), &end);
  if (jitMaxSlowdownText.empty() || *end != '\0' ||
      !(jitMaxSlowdown >= -1 && jitMaxSlowdown <= 100)) {
    std::cerr << "orchestra-run: error: --jit-max-slowdown takes a fraction "
                 "from -1 to 100, got '"
              << jitMaxSlowdownText << "'\n";
    std::exit(1);
  }
}

/// A failure: the message printed after "orchestra-run: error: ".
namespace {
struct Failure {
  std::string message;
};
} // namespace

/// Returns a failure (for `return fail(...)` in functions returning
/// std::optional<Failure>).
static std::optional<Failure> fail(std::string message) {
  return Failure{std::move(message)};
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

static std::string formatType(const std::string &elementType,
                              const std::vector<int64_t> &shape) {
  std::string result = elementType + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? "x" : "") +
              (shape[i] == -1 ? std::string("?") : std::to_string(shape[i]));
  return result + "]";
}

/// Whether `shape` is one of `info`'s shapes (any size where it is
/// dynamic; the session checks the dims' ranges).
static bool matchesShape(const TensorInfo &info,
                         const std::vector<int64_t> &shape) {
  if (shape.size() != info.shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (info.shape[i] != -1 && info.shape[i] != shape[i])
      return false;
  return true;
}

static bool isDynamic(const TensorInfo &info) {
  return std::find(info.shape.begin(), info.shape.end(), -1) !=
         info.shape.end();
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

/// Checks that the artifact was built for the topology --topology names
/// (the runtime compares the topology's name and devices with the
/// artifact's).
static std::optional<Failure> checkTopology(orx_artifact_t *artifact) {
  std::string text = kHostTopology;
  if (topologySpec != "host") {
    std::ifstream file(topologySpec, std::ios::binary);
    if (!file)
      return fail("cannot resolve topology '" + topologySpec +
                  "': cannot read it: " + std::strerror(errno));
    text.assign(std::istreambuf_iterator<char>(file),
                std::istreambuf_iterator<char>());
  }
  Status status{
      orx_artifact_check_topology(artifact, text.data(), text.size())};
  if (!status)
    return std::nullopt;
  std::string message = orx_status_message(status.get());
  // A mismatch names both topologies ("the artifact was built for ..."):
  // say which artifact; anything else is about the file.
  const std::string subject = "the artifact";
  if (message.rfind(subject + " was built", 0) == 0)
    return fail("artifact '" + artifactPath + "'" +
                message.substr(subject.size()));
  return fail("cannot resolve topology '" + topologySpec + "': " + message);
}

/// Reads the --input files in entry-argument order into `arrays`.
static std::optional<Failure> readInputs(const std::vector<TensorInfo> &inputs,
                                         std::vector<npy::Array> &arrays) {
  // An argument is NAME=FILE when NAME is an input of the entry.
  std::map<std::string, size_t> indexByName;
  for (size_t i = 0; i < inputs.size(); ++i)
    indexByName.emplace(inputs[i].name, i);
  std::vector<std::string> files(inputs.size());
  std::vector<bool> given(inputs.size(), false);
  size_t numNamed = 0, numPositional = 0;
  for (const std::string &arg : inputArgs) {
    size_t equals = arg.find('=');
    std::string name = arg.substr(0, equals);
    std::string file =
        equals == std::string::npos ? std::string() : arg.substr(equals + 1);
    auto it = indexByName.find(name);
    if (!file.empty() && it != indexByName.end()) {
      if (given[it->second])
        return fail("input '" + name + "' is given twice");
      given[it->second] = true;
      files[it->second] = file;
      ++numNamed;
      continue;
    }
    std::error_code ec;
    if (!file.empty() && !std::filesystem::exists(arg, ec)) {
      std::string known;
      for (const TensorInfo &input : inputs)
        known += (known.empty() ? "'" : ", '") + input.name + "'";
      return fail("the entry has no input named '" + name +
                  "' (its inputs: " + (known.empty() ? "none" : known) + ")");
    }
    if (numPositional < files.size())
      files[numPositional] = arg;
    ++numPositional;
  }
  if (numNamed && numPositional)
    return fail("--input mixes NAME=FILE and plain FILE arguments; use "
                "one form for all inputs");
  if (!numNamed && numPositional != inputs.size())
    return fail("the entry takes " + std::to_string(inputs.size()) +
                " inputs, got " + std::to_string(numPositional) +
                " --input files");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (numNamed && !given[i])
      return fail("missing input " + std::to_string(i) + " ('" +
                  inputs[i].name + "', " + formatType(inputs[i]) + ")");

  for (size_t i = 0; i < inputs.size(); ++i) {
    npy::Array array;
    std::string error;
    if (!npy::readFile(files[i], array, error))
      return fail("input " + std::to_string(i) + " ('" + inputs[i].name +
                  "'): " + error);
    std::optional<npy::ElementType> expected = getNpyType(inputs[i].dtype);
    if (!expected || array.type != *expected ||
        !matchesShape(inputs[i], array.shape)) {
      std::string hint = inputs[i].dtype == ORX_DTYPE_BF16
                             ? " (bf16 data is passed as its uint16 bits)"
                             : "";
      return fail("input " + std::to_string(i) + " ('" + inputs[i].name +
                  "'): expected " + formatType(inputs[i]) + ", got " +
                  formatType(npy::getElementTypeName(array.type), array.shape) +
                  " from '" + files[i] + "'" + hint);
    }
    arrays.push_back(std::move(array));
  }
  return std::nullopt;
}

/// Writes the trace of the session's last run as Chrome trace JSON.
static std::optional<Failure> writeTrace(orx_artifact_t *artifact,
                                         orx_session_t *session) {
  std::ostringstream text;
  JsonWriter json(text);
  std::string entry = orx_artifact_entry_name(artifact);
  // Keys in alphabetical order, as viewers and earlier traces have them.
  auto metadata = [&](const char *name, int64_t pid, int64_t tid,
                      const std::string &value) {
    json.beginObject();
    json.key("args");
    json.beginObject();
    json.member("name", value);
    json.endObject();
    json.member("name", name);
    json.member("ph", "M");
    json.member("pid", pid);
    if (tid >= 0)
      json.member("tid", tid);
    json.endObject();
  };
  json.beginObject();
  json.member("displayTimeUnit", "ms");
  json.key("traceEvents");
  json.beginArray();
  // Process 1 holds the scheduler's prediction, one row per device like the
  // measurement, so the two line up in the viewer.
  for (int64_t pid : {0, 1}) {
    metadata("process_name", pid, -1,
             pid == 0 ? entry : entry + " (predicted by the scheduler)");
    for (size_t i = 0, e = orx_artifact_num_devices(artifact); i < e; ++i)
      metadata("thread_name", pid, static_cast<int64_t>(i),
               std::string(orx_artifact_device_name(artifact, i)) + " (" +
                   orx_artifact_device_arch(artifact, i) + ")");
  }
  // Predictions are in seconds; the trace shows microseconds, rounded to
  // nanoseconds like the measured times.
  auto toMicroseconds = [](double seconds) {
    return std::round(seconds * 1e9) / 1e3;
  };
  auto span = [&](const char *name, const char *category, int64_t pid,
                  uint32_t device, double start, double duration) {
    json.member("cat", category);
    json.member("dur", duration);
    json.member("name", name);
    json.member("ph", "X");
    json.member("pid", pid);
    json.member("tid", static_cast<int64_t>(device));
    json.member("ts", start);
  };
  for (size_t i = 0, e = orx_session_trace_size(session); i < e; ++i) {
    orx_trace_event_t event;
    if (Status status{orx_session_trace_event(session, i, &event)})
      return fail(orx_status_message(status.get()));
    const char *category = event.kind == ORX_STEP_COPY     ? "transfer"
                           : event.kind == ORX_STEP_SELECT ? "commit"
                                                           : "task";
    int selected = orx_session_trace_selected(session, i);
    json.beginObject();
    json.key("args");
    json.beginObject();
    if (event.device_ns)
      json.member("gpu_us", static_cast<double>(event.device_ns) / 1e3);
    if (event.predicted_finish >= 0)
      json.member("predicted_finish_us",
                  toMicroseconds(event.predicted_finish));
    if (event.predicted_start >= 0)
      json.member("predicted_start_us", toMicroseconds(event.predicted_start));
    if (selected >= 0)
      json.member("selected", selected ? "true" : "false");
    json.member("step", static_cast<int64_t>(i));
    json.endObject();
    span(event.name, category, 0, event.device,
         static_cast<double>(event.start_ns) / 1e3,
         static_cast<double>(event.end_ns - event.start_ns) / 1e3);
    json.endObject();
    if (event.predicted_start < 0 || event.predicted_finish < 0)
      continue;
    json.beginObject();
    json.key("args");
    json.beginObject();
    json.member("step", static_cast<int64_t>(i));
    json.endObject();
    span(event.name, category, 1, event.device,
         toMicroseconds(event.predicted_start),
         toMicroseconds(event.predicted_finish) -
             toMicroseconds(event.predicted_start));
    json.endObject();
  }
  json.endArray();
  json.endObject();
  json.finish();
  std::string bytes = text.str(), error;
  if (!orchestra::writeFileAtomically(traceFile, bytes.data(), bytes.size(),
                                      error))
    return fail(error);
  return std::nullopt;
}

static std::string formatMilliseconds(double milliseconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", milliseconds);
  return buffer;
}

/// Writes the session's branch counters to --profile-out.
static std::optional<Failure> writeProfile(orx_session_t *session) {
  size_t count = 0;
  if (Status status{orx_session_branch_profile_size(session, &count)})
    return fail(orx_status_message(status.get()));
  if (count == 0)
    std::cerr << "orchestra-run: warning: '" << artifactPath
              << "' counts no branches (compile it with --profile-branches); "
                 "the profile '"
              << profileOut << "' is empty\n";
  std::vector<orchestra::fdo::DivergenceProfile> profiles;
  for (size_t i = 0; i < count; ++i) {
    orx_branch_record_t record;
    if (Status status{orx_session_branch_profile_record(session, i, &record)})
      return fail(orx_status_message(status.get()));
    profiles.push_back(profile::toDivergenceProfile(record));
  }
  std::string error;
  if (!profile::writeProfileFile(profileOut, profiles, error))
    return fail(error);
  return std::nullopt;
}

/// Loads the artifact, checks and reads the inputs, runs the plan (once, then
/// --repeat times) and writes the outputs, the trace and the summary.
static std::optional<Failure> runArtifact() {
  orx_artifact_t *rawArtifact = nullptr;
  if (Status status{orx_artifact_load_file(artifactPath.c_str(), &rawArtifact)})
    return fail("cannot load '" + artifactPath +
                "': " + orx_status_message(status.get()));
  Artifact artifact(rawArtifact);

  if (!topologySpec.empty())
    if (std::optional<Failure> failure = checkTopology(artifact.get()))
      return failure;

  std::vector<TensorInfo> inputs, outputs;
  for (size_t i = 0, e = orx_artifact_num_inputs(artifact.get()); i < e; ++i) {
    orx_tensor_info_t info;
    if (Status status{orx_artifact_input_info(artifact.get(), i, &info)})
      return fail(orx_status_message(status.get()));
    inputs.push_back(makeTensorInfo(info));
  }
  for (size_t i = 0, e = orx_artifact_num_outputs(artifact.get()); i < e; ++i) {
    orx_tensor_info_t info;
    if (Status status{orx_artifact_output_info(artifact.get(), i, &info)})
      return fail(orx_status_message(status.get()));
    outputs.push_back(makeTensorInfo(info));
  }

  std::vector<npy::Array> inputArrays;
  if (std::optional<Failure> failure = readInputs(inputs, inputArrays))
    return failure;

  orx_session_t *rawSession = nullptr;
  if (Status status{orx_session_create(artifact.get(), &rawSession)})
    return fail("cannot prepare '" + artifactPath +
                "': " + orx_status_message(status.get()));
  Session session(rawSession);
  // Dynamic inputs run at the shapes of their files.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!isDynamic(inputs[i]))
      continue;
    const std::vector<int64_t> &shape = inputArrays[i].shape;
    if (Status status{orx_session_set_input_shape(session.get(), i,
                                                  shape.data(), shape.size())})
      return fail(orx_status_message(status.get()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!isDynamic(outputs[i]))
      continue;
    std::vector<int64_t> shape(outputs[i].shape.size());
    size_t rank = 0;
    if (Status status{orx_session_output_shape(session.get(), i, shape.data(),
                                               shape.size(), &rank)})
      return fail(orx_status_message(status.get()));
    outputs[i].shape = shape;
    outputs[i].byteSize = orx_dtype_size(outputs[i].dtype);
    for (int64_t size : shape)
      outputs[i].byteSize *= static_cast<size_t>(size);
  }

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
      return fail("output " + std::to_string(i) +
                  " has an unknown element type");
    outputArrays[i].type = *type;
    outputArrays[i].shape = outputs[i].shape;
    outputArrays[i].data.resize(outputs[i].byteSize);
    outputData.push_back(outputArrays[i].data.data());
    outputSizes.push_back(outputs[i].byteSize);
  }

  // Runs the plan once; sets the milliseconds it took.
  auto runOnce = [&](double &milliseconds) -> std::optional<Failure> {
    auto start = std::chrono::steady_clock::now();
    Status status{orx_session_run(
        session.get(), inputData.data(), inputSizes.data(), inputData.size(),
        outputData.data(), outputSizes.data(), outputData.size())};
    auto end = std::chrono::steady_clock::now();
    if (status)
      return fail("running '" + artifactPath +
                  "' failed: " + orx_status_message(status.get()));
    milliseconds =
        std::chrono::duration<double, std::milli>(end - start).count();
    return std::nullopt;
  };

  // Of the last run: the span of its steps, from the first step's start to
  // the last one's end (the run without the staging of inputs and outputs),
  // and the sum of its steps' device times (0 when it ran nothing on an
  // asynchronous device), in milliseconds.
  auto measureSteps = [&](double &span,
                          double &deviceTime) -> std::optional<Failure> {
    uint64_t first = UINT64_MAX, last = 0, total = 0;
    for (size_t i = 0, e = orx_session_trace_size(session.get()); i < e; ++i) {
      orx_trace_event_t event;
      if (Status status{orx_session_trace_event(session.get(), i, &event)})
        return fail(orx_status_message(status.get()));
      first = std::min(first, event.start_ns);
      last = std::max(last, event.end_ns);
      total += event.device_ns;
    }
    span = first < last ? (last - first) / 1e6 : 0.0;
    deviceTime = total / 1e6;
    return std::nullopt;
  };

#ifdef ORCHESTRA_HAVE_JIT
  // The feedback loop's client: counts the runs, sends the profile, swaps
  // in the service's plan between two runs.
  std::unique_ptr<orx_jit_client_t, void (*)(orx_jit_client_t *)> jit(
      nullptr, orx_jit_client_free);
  if (!jitServer.empty()) {
    orx_jit_client_t *client = nullptr;
    if (Status status{orx_jit_client_create(jitServer.c_str(), artifact.get(),
                                            jitAfter, jitTimeout * 1000,
                                            &client)})
      return fail(orx_status_message(status.get()));
    jit.reset(client);
    if (Status status{
            orx_jit_client_set_check(jit.get(), jitCheck, jitMaxSlowdown)})
      return fail(orx_status_message(status.get()));
  }
  auto afterRun = [&]() -> std::optional<Failure> {
    if (jit)
      if (Status status{orx_jit_client_after_run(jit.get(), session.get())})
        return fail(orx_status_message(status.get()));
    return std::nullopt;
  };
  // Runs after a swap (and after a swap back) are timed apart.
  auto isSwapped = [&] {
    if (!jit)
      return false;
    orx_jit_state_t state = orx_jit_client_state(jit.get(), nullptr);
    return state == ORX_JIT_SWAPPED || state == ORX_JIT_REVERTED;
  };
#else
  if (!jitServer.empty())
    return fail("--jit-server: this build has no feedback client (gRPC was "
                "not found; scripts/setup.sh installs it)");
  auto afterRun = []() -> std::optional<Failure> { return std::nullopt; };
  auto isSwapped = [] { return false; };
#endif

  // The first run also warms up the caches and the workers.
  double firstRun = 0;
  if (std::optional<Failure> failure = runOnce(firstRun))
    return failure;
  if (std::optional<Failure> failure = afterRun())
    return failure;
  // The timed runs; with the feedback client, those after a swap apart.
  struct Timings {
    std::vector<double> latencies, spans, deviceTimes;
  } timings, swapped;
  auto timedRuns = [&](unsigned count) -> std::optional<Failure> {
    for (unsigned i = 0; i < count; ++i) {
      double latency = 0, span = 0, deviceTime = 0;
      if (std::optional<Failure> failure = runOnce(latency))
        return failure;
      if (std::optional<Failure> failure = measureSteps(span, deviceTime))
        return failure;
      Timings &into = isSwapped() ? swapped : timings;
      if (std::optional<Failure> failure = afterRun())
        return failure;
      into.latencies.push_back(latency);
      into.spans.push_back(span);
      if (deviceTime > 0)
        into.deviceTimes.push_back(deviceTime);
    }
    return std::nullopt;
  };
  if (std::optional<Failure> failure = timedRuns(repeat))
    return failure;

#ifdef ORCHESTRA_HAVE_JIT
  // A reply still on its way: waited for, and a new plan run once so that
  // the outputs are its own.
  if (jit) {
    if (Status status{
            orx_jit_client_finish(jit.get(), session.get(), jitTimeout * 1000)})
      return fail(orx_status_message(status.get()));
    // The new plan's own timed runs (as many as --repeat asked for; its
    // measured check happens during them), or one run, so that the outputs
    // are the new plan's.
    orx_jit_state_t state = orx_jit_client_state(jit.get(), nullptr);
    double latency = 0;
    if (state == ORX_JIT_SWAPPED && swapped.latencies.size() < repeat) {
      if (std::optional<Failure> failure =
              timedRuns(repeat - swapped.latencies.size()))
        return failure;
    } else if (state == ORX_JIT_SWAPPED && repeat == 0) {
      if (std::optional<Failure> failure = runOnce(latency))
        return failure;
    }
    const char *message = nullptr;
    state = orx_jit_client_state(jit.get(), &message);
    static const char *const names[] = {"counting", "waiting", "swapped",
                                        "kept",     "failed",  "reverted"};
    std::cerr << "orchestra-run: jit: " << names[state] << ": " << message
              << "\n";
  }
#endif

  if (!outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(outputDir, ec);
    if (ec)
      return fail("cannot create '" + outputDir + "': " + ec.message());
    for (size_t i = 0; i < outputArrays.size(); ++i) {
      std::string path = (std::filesystem::path(outputDir) /
                          ("output_" + std::to_string(i) + ".npy"))
                             .string();
      std::string error;
      if (!npy::writeFile(path, outputArrays[i], error))
        return fail(error);
    }
  }
  if (!traceFile.empty())
    if (std::optional<Failure> failure =
            writeTrace(artifact.get(), session.get()))
      return failure;
  if (!profileOut.empty())
    if (std::optional<Failure> failure = writeProfile(session.get()))
      return failure;

  std::ostream &os = std::cout;
  if (!quiet) {
    for (size_t i = 0; i < outputs.size(); ++i)
      os << "output_" << i << ": " << formatType(outputs[i]) << "\n";
    os << "run time: " << formatMilliseconds(firstRun) << " ms\n";
  }
  auto printStatistics = [&](const char *what, std::vector<double> &v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    os << what << ": median " << formatMilliseconds(median) << " ms, min "
       << formatMilliseconds(v.front()) << " ms\n";
  };
  auto printTimings = [&](const std::string &suffix, Timings &t) {
    if (t.latencies.empty())
      return;
    printStatistics(("latency" + suffix).c_str(), t.latencies);
    printStatistics(("steps" + suffix).c_str(), t.spans);
    if (t.deviceTimes.size() == t.latencies.size())
      printStatistics(("gpu" + suffix).c_str(), t.deviceTimes);
  };
  printTimings("", timings);
  printTimings(" after the swap", swapped);
  return std::nullopt;
}

/// On a crash: a one-line hint instead of a bare signal. Only
/// async-signal-safe calls.
static void handleCrash(int signal) {
  const char message[] =
      "orchestra-run: crashed (fatal signal); this is a bug in OrchestraOS or "
      "in a kernel of the artifact. Please report it with the artifact and "
      "the command line.\n";
  ssize_t ignored = ::write(STDERR_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

static int reportError(const std::string &message) {
  std::cerr << "orchestra-run: error: " << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT})
    std::signal(signal, handleCrash);
  parseCommandLine(argc, argv);
  if (printProfile) {
    std::vector<orchestra::fdo::DivergenceProfile> profiles;
    std::string error;
    if (!profile::readProfileFile(artifactPath, profiles, error))
      return reportError(error);
    for (const orchestra::fdo::DivergenceProfile &profile : profiles)
      std::cout << profile::formatProfile(profile) << "\n";
    return 0;
  }
  if (!dumpConstantsDir.empty()) {
    std::string error;
    if (!dumpConstants(artifactPath, dumpConstantsDir, error))
      return reportError("cannot dump the constants of '" + artifactPath +
                         "': " + error);
    if (!describe)
      return 0;
  }
  if (describe) {
    std::string error;
    bool described = describeFormat == "json"
                         ? describeArtifactJson(artifactPath, std::cout, error)
                         : describeArtifact(artifactPath, std::cout, error);
    if (!described)
      return reportError("cannot describe '" + artifactPath + "': " + error);
    return 0;
  }
  if (std::optional<Failure> failure = runArtifact())
    return reportError(failure->message);
  return 0;
}
