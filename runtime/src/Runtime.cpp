//===- Runtime.cpp - The OrchestraOS runtime C API ------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The C entry points: thin wrappers that turn C++ results (and any exception,
// e.g. std::bad_alloc) into status objects.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/orchestra_rt.h"

#include "Session.h"
#include "TopologyCheck.h"
#include "orchestra_rt/Artifact.h"

#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <tuple>

struct orx_status_s {
  std::string message;
};

struct orx_artifact_s {
  orx::Artifact artifact;
};

struct orx_session_s {
  /// Held shared by every call that uses `impl`, exclusively by
  /// orx_session_replace_artifact while it swaps `impl`.
  mutable std::shared_mutex swapMutex;
  std::unique_ptr<orx::Session> impl;
  /// The entry's inputs and outputs (a replacement must have the same), and
  /// the shapes set for dynamic inputs (carried over to a replacement).
  std::vector<orx::TensorDesc> inputs, outputs;
  std::map<size_t, std::vector<int64_t>> inputShapes;
  /// The last branch profile snapshot (orx_session_branch_profile_size).
  std::vector<orx::BranchRecord> profile;
};

/// Returned when a status itself cannot be allocated; never freed.
static orx_status_s outOfMemoryStatus{"out of memory"};

static orx_status_t makeStatus(std::string message) {
  try {
    return new orx_status_s{std::move(message)};
  } catch (...) {
    return &outOfMemoryStatus;
  }
}

/// Runs `body` (which returns a status) and converts exceptions to statuses.
template <typename Body>
static orx_status_t guarded(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return &outOfMemoryStatus;
  } catch (const std::exception &e) {
    return makeStatus(std::string("internal error: ") + e.what());
  } catch (...) {
    return makeStatus("internal error");
  }
}

extern "C" {

const char *orx_status_message(orx_status_t status) {
  return status ? status->message.c_str() : "";
}

void orx_status_free(orx_status_t status) {
  if (status != &outOfMemoryStatus)
    delete status;
}

const char *orx_dtype_name(uint32_t dtype) {
  return orx::isValidDType(dtype)
             ? orx::dtypeName(static_cast<orx::DType>(dtype))
             : nullptr;
}

size_t orx_dtype_size(uint32_t dtype) {
  return orx::isValidDType(dtype)
             ? orx::dtypeSize(static_cast<orx::DType>(dtype))
             : 0;
}

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

orx_status_t orx_artifact_load_file(const char *path, orx_artifact_t **out) {
  if (!path || !out)
    return makeStatus("orx_artifact_load_file: null argument");
  *out = nullptr;
  return guarded([&]() -> orx_status_t {
    auto artifact = std::make_unique<orx_artifact_s>();
    std::string error;
    if (!orx::readArtifactFile(path, artifact->artifact, error))
      return makeStatus(error);
    *out = artifact.release();
    return nullptr;
  });
}

orx_status_t orx_artifact_load_memory(const void *data, size_t size,
                                      orx_artifact_t **out) {
  if (!out || (!data && size))
    return makeStatus("orx_artifact_load_memory: null argument");
  *out = nullptr;
  return guarded([&]() -> orx_status_t {
    auto artifact = std::make_unique<orx_artifact_s>();
    std::string error;
    if (!orx::parseArtifact(static_cast<const uint8_t *>(data), size,
                            artifact->artifact, error))
      return makeStatus(error);
    *out = artifact.release();
    return nullptr;
  });
}

void orx_artifact_free(orx_artifact_t *artifact) { delete artifact; }

const char *orx_artifact_entry_name(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.entryName.c_str() : nullptr;
}

const char *orx_artifact_topology_name(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.topologyName.c_str() : nullptr;
}

const char *orx_artifact_producer(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.producer.c_str() : nullptr;
}

uint64_t orx_artifact_hash(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.payloadHash : 0;
}

size_t orx_artifact_num_devices(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.devices.size() : 0;
}

const char *orx_artifact_device_name(const orx_artifact_t *artifact,
                                     size_t device) {
  if (!artifact || device >= artifact->artifact.devices.size())
    return nullptr;
  return artifact->artifact.devices[device].name.c_str();
}

const char *orx_artifact_device_arch(const orx_artifact_t *artifact,
                                     size_t device) {
  if (!artifact || device >= artifact->artifact.devices.size())
    return nullptr;
  return artifact->artifact.devices[device].arch.c_str();
}

const char *orx_artifact_device_driver(const orx_artifact_t *artifact,
                                       size_t device) {
  if (!artifact || device >= artifact->artifact.devices.size())
    return nullptr;
  return artifact->artifact.devices[device].driver.c_str();
}

orx_status_t orx_artifact_check_topology(const orx_artifact_t *artifact,
                                         const char *topology_json,
                                         size_t length) {
  return guarded([&]() -> orx_status_t {
    if (!artifact || (!topology_json && length))
      return makeStatus("null artifact or topology");
    std::string error;
    if (orx::checkTopology(
            artifact->artifact,
            std::string(topology_json ? topology_json : "", length), error))
      return nullptr;
    return makeStatus(std::move(error));
  });
}

size_t orx_artifact_num_memory_spaces(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.memorySpaces.size() : 0;
}

const char *orx_artifact_memory_space_name(const orx_artifact_t *artifact,
                                           size_t space) {
  if (!artifact || space >= artifact->artifact.memorySpaces.size())
    return nullptr;
  return artifact->artifact.memorySpaces[space].name.c_str();
}

uint64_t orx_artifact_memory_space_arena_bytes(const orx_artifact_t *artifact,
                                               size_t space) {
  if (!artifact || space >= artifact->artifact.memorySpaces.size())
    return 0;
  return artifact->artifact.memorySpaces[space].arenaBytes;
}

size_t orx_artifact_num_inputs(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.inputs.size() : 0;
}

size_t orx_artifact_num_outputs(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.outputs.size() : 0;
}

static orx_status_t tensorInfo(const std::vector<orx::TensorDesc> *tensors,
                               const char *kind, size_t index,
                               orx_tensor_info_t *out) {
  if (!tensors || !out)
    return makeStatus(std::string("orx_artifact_") + kind +
                      "_info: null argument");
  if (index >= tensors->size())
    return makeStatus(std::string("no ") + kind + " " + std::to_string(index) +
                      " (the entry has " + std::to_string(tensors->size()) +
                      ")");
  const orx::TensorDesc &desc = (*tensors)[index];
  out->name = desc.name.c_str();
  out->dtype = static_cast<uint32_t>(desc.dtype);
  out->rank = desc.shape.size();
  out->dims = desc.shape.data();
  out->byte_size = desc.isDynamic() ? 0 : desc.byteSize();
  return nullptr;
}

size_t orx_artifact_num_dims(const orx_artifact_t *artifact) {
  return artifact ? artifact->artifact.dims.size() : 0;
}

orx_status_t orx_artifact_dim_info(const orx_artifact_t *artifact, size_t index,
                                   const char **name, int64_t *min,
                                   int64_t *max) {
  if (!artifact || !name || !min || !max)
    return makeStatus("orx_artifact_dim_info: null argument");
  const std::vector<orx::DimDesc> &dims = artifact->artifact.dims;
  if (index >= dims.size())
    return makeStatus("no dim " + std::to_string(index) +
                      " (the artifact has " + std::to_string(dims.size()) +
                      ")");
  *name = dims[index].name.c_str();
  *min = dims[index].min;
  *max = dims[index].max;
  return nullptr;
}

orx_status_t orx_artifact_input_info(const orx_artifact_t *artifact,
                                     size_t index, orx_tensor_info_t *out) {
  return guarded([&] {
    return tensorInfo(artifact ? &artifact->artifact.inputs : nullptr, "input",
                      index, out);
  });
}

orx_status_t orx_artifact_output_info(const orx_artifact_t *artifact,
                                      size_t index, orx_tensor_info_t *out) {
  return guarded([&] {
    return tensorInfo(artifact ? &artifact->artifact.outputs : nullptr,
                      "output", index, out);
  });
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

orx_status_t orx_session_create(const orx_artifact_t *artifact,
                                orx_session_t **out) {
  if (!artifact || !out)
    return makeStatus("orx_session_create: null argument");
  *out = nullptr;
  return guarded([&]() -> orx_status_t {
    auto session = std::make_unique<orx_session_s>();
    std::string error;
    session->impl = orx::Session::create(artifact->artifact, error);
    if (!session->impl)
      return makeStatus(error);
    session->inputs = artifact->artifact.inputs;
    session->outputs = artifact->artifact.outputs;
    *out = session.release();
    return nullptr;
  });
}

void orx_session_free(orx_session_t *session) { delete session; }

orx_status_t orx_session_run(orx_session_t *session, const void *const *inputs,
                             const size_t *input_sizes, size_t num_inputs,
                             void *const *outputs, const size_t *output_sizes,
                             size_t num_outputs) {
  if (!session)
    return makeStatus("orx_session_run: null session");
  return guarded([&]() -> orx_status_t {
    std::shared_lock<std::shared_mutex> lock(session->swapMutex);
    std::string error;
    if (!session->impl->run(inputs, input_sizes, num_inputs, outputs,
                            output_sizes, num_outputs, error))
      return makeStatus(error);
    return nullptr;
  });
}

orx_status_t orx_session_set_input_shape(orx_session_t *session, size_t index,
                                         const int64_t *dims, size_t rank) {
  if (!session || (rank && !dims))
    return makeStatus("orx_session_set_input_shape: null argument");
  return guarded([&]() -> orx_status_t {
    std::unique_lock<std::shared_mutex> lock(session->swapMutex);
    std::string error;
    std::vector<int64_t> shape(dims, dims + rank);
    if (!session->impl->setInputShape(index, shape, error))
      return makeStatus(error);
    session->inputShapes[index] = std::move(shape);
    return nullptr;
  });
}

orx_status_t orx_session_output_shape(const orx_session_t *session,
                                      size_t index, int64_t *dims,
                                      size_t capacity, size_t *rank) {
  if (!session || !rank || (capacity && !dims))
    return makeStatus("orx_session_output_shape: null argument");
  return guarded([&]() -> orx_status_t {
    std::shared_lock<std::shared_mutex> lock(session->swapMutex);
    std::string error;
    std::vector<int64_t> shape;
    if (!session->impl->getOutputShape(index, shape, error))
      return makeStatus(error);
    *rank = shape.size();
    if (capacity < shape.size())
      return makeStatus("orx_session_output_shape: output " +
                        std::to_string(index) + " has rank " +
                        std::to_string(shape.size()) + ", more than the " +
                        std::to_string(capacity) + " dims given room");
    std::copy(shape.begin(), shape.end(), dims);
    return nullptr;
  });
}

size_t orx_session_trace_size(const orx_session_t *session) {
  if (!session)
    return 0;
  std::shared_lock<std::shared_mutex> lock(session->swapMutex);
  return session->impl->getTrace().size();
}

orx_status_t orx_session_trace_event(const orx_session_t *session, size_t index,
                                     orx_trace_event_t *out) {
  if (!session || !out)
    return makeStatus("orx_session_trace_event: null argument");
  std::shared_lock<std::shared_mutex> lock(session->swapMutex);
  const std::vector<orx::StepTiming> &trace = session->impl->getTrace();
  if (index >= trace.size())
    return makeStatus("no trace event " + std::to_string(index) + " (the " +
                      "last run traced " + std::to_string(trace.size()) + ")");
  const orx::PreparedStep &step = session->impl->getSteps()[index];
  out->name = step.name.c_str();
  out->kind = static_cast<uint32_t>(step.kind);
  out->device = step.device;
  out->start_ns = trace[index].startNs;
  out->end_ns = trace[index].endNs;
  out->device_ns = trace[index].deviceNs;
  out->predicted_start = step.predictedStart;
  out->predicted_finish = step.predictedFinish;
  return nullptr;
}

orx_status_t orx_session_replace_kernel(orx_session_t *session,
                                        const char *symbol, const void *data,
                                        size_t size, const char *format) {
  if (!session || !symbol || !format || (!data && size != 0))
    return makeStatus("orx_session_replace_kernel: null argument");
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  std::shared_lock<std::shared_mutex> lock(session->swapMutex);
  std::string error;
  if (!session->impl->replaceKernel(
          symbol, format, std::vector<uint8_t>(bytes, bytes + size), error))
    return makeStatus(error);
  return nullptr;
}

/// Describes how `a` and `b` (an input or output of two entries) differ;
/// empty when they have the same dtype and shape.
static std::string describeMismatch(const orx::TensorDesc &a,
                                    const orx::TensorDesc &b) {
  auto shape = [](const orx::TensorDesc &t) {
    std::string text = std::string(orx::dtypeName(t.dtype)) + "[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      text += (i ? "x" : "") +
              (t.shape[i] < 0 ? std::string("?") : std::to_string(t.shape[i]));
    return text + "]";
  };
  std::string left = shape(a), right = shape(b);
  return left == right ? std::string() : left + " against " + right;
}

orx_status_t orx_session_replace_artifact(orx_session_t *session,
                                          const orx_artifact_t *artifact) {
  if (!session || !artifact)
    return makeStatus("orx_session_replace_artifact: null argument");
  return guarded([&]() -> orx_status_t {
    const orx::Artifact &a = artifact->artifact;
    auto refuse = [](const std::string &why) {
      return makeStatus("cannot replace the session's plan: " + why +
                        "; the old plan stays");
    };
    for (auto [what, old, now] :
         {std::tuple("inputs", &session->inputs, &a.inputs),
          std::tuple("outputs", &session->outputs, &a.outputs)}) {
      if (old->size() != now->size())
        return refuse(std::string("the new artifact has ") +
                      std::to_string(now->size()) + " " + what + ", not " +
                      std::to_string(old->size()));
      for (size_t i = 0; i < old->size(); ++i) {
        std::string mismatch = describeMismatch((*old)[i], (*now)[i]);
        if (!mismatch.empty())
          return refuse(std::string(what).substr(0, strlen(what) - 1) + " " +
                        std::to_string(i) + " differs: " + mismatch);
      }
    }
    // Prepared before the old plan is touched.
    std::string error;
    std::unique_ptr<orx::Session> replacement = orx::Session::create(a, error);
    if (!replacement)
      return refuse(error);
    {
      std::shared_lock<std::shared_mutex> shapes(session->swapMutex);
      for (const auto &[index, shape] : session->inputShapes)
        if (!replacement->setInputShape(index, shape, error))
          return refuse(error);
    }
    std::unique_ptr<orx::Session> old;
    {
      // Waits for a run in progress (which holds the lock shared).
      std::unique_lock<std::shared_mutex> lock(session->swapMutex);
      old = std::move(session->impl);
      session->impl = std::move(replacement);
      session->profile.clear();
    }
    // The old plan's workers stop and its memory goes, outside the lock.
    old.reset();
    return nullptr;
  });
}

orx_status_t orx_session_branch_profile_size(orx_session_t *session,
                                             size_t *count) {
  if (!session || !count)
    return makeStatus("orx_session_branch_profile_size: null argument");
  std::unique_lock<std::shared_mutex> lock(session->swapMutex);
  std::string error;
  if (!session->impl->getBranchProfile(session->profile, error)) {
    session->profile.clear();
    return makeStatus(error);
  }
  *count = session->profile.size();
  return nullptr;
}

orx_status_t orx_session_branch_profile_record(const orx_session_t *session,
                                               size_t index,
                                               orx_branch_record_t *out) {
  if (!session || !out)
    return makeStatus("orx_session_branch_profile_record: null argument");
  std::shared_lock<std::shared_mutex> lock(session->swapMutex);
  if (index >= session->profile.size())
    return makeStatus("orx_session_branch_profile_record: index " +
                      std::to_string(index) +
                      " out of range (the snapshot "
                      "has " +
                      std::to_string(session->profile.size()) + " records)");
  const orx::BranchRecord &record = session->profile[index];
  out->kernel = record.kernel.c_str();
  out->branch_id = record.branchId;
  out->location = record.location.c_str();
  out->device = record.device.c_str();
  out->hardware_id = record.hardwareId.c_str();
  out->invocation_count = record.invocations;
  out->then_count = record.thenCount;
  out->else_count = record.elseCount;
  out->warps = record.warps;
  out->divergent_warps = record.divergentWarps;
  out->input_shape_hash = record.inputShapeHash;
  return nullptr;
}

orx_status_t orx_session_branch_profile_reset(orx_session_t *session) {
  if (!session)
    return makeStatus("orx_session_branch_profile_reset: null argument");
  std::unique_lock<std::shared_mutex> lock(session->swapMutex);
  session->profile.clear();
  std::string error;
  if (!session->impl->resetBranchProfile(error))
    return makeStatus(error);
  return nullptr;
}

int orx_session_trace_selected(const orx_session_t *session, size_t index) {
  if (!session)
    return -1;
  std::shared_lock<std::shared_mutex> lock(session->swapMutex);
  const std::vector<orx::StepTiming> &trace = session->impl->getTrace();
  return index < trace.size() ? trace[index].selected : -1;
}

} // extern "C"
