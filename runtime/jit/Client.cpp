//===- Client.cpp - The feedback loop's client ----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/orchestra_rt_jit.h"

#include "orchestra/Profile/Profile.h"
#include "orchestra_jit.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fdo = orchestra::fdo;

struct orx_status_s;

struct orx_jit_client_s {
  std::string address;
  uint64_t hash = 0;
  uint32_t runsBeforeProfile = 1;
  uint32_t timeoutMs = 0;
  uint32_t runs = 0;
  /// The kernel the request names (the first profiled one).
  std::string kernelId;

  orx_jit_state_t state = ORX_JIT_COUNTING;
  std::string message;

  /// The artifact the session started with (restored by a swap back), and
  /// the measured check of a new plan: the steps' spans of the last
  /// `checkRuns` runs before the swap and of the first after it.
  const orx_artifact_t *original = nullptr;
  uint32_t checkRuns = 10;
  double maxSlowdown = 0.05;
  std::vector<double> before, after;

  /// The request in flight: its thread, and once done its status and reply.
  std::thread worker;
  std::mutex mutex;
  std::condition_variable done;
  bool replied = false;
  grpc::Status status;
  fdo::RecompileReply reply;
};

/// The status message of `status` (owned by the caller), freed here.
static std::string takeMessage(orx_status_t status) {
  std::string message = orx_status_message(status);
  orx_status_free(status);
  return message;
}

/// A status for a null argument, through the runtime's own constructor: a
/// session call with null arguments returns one.
static orx_status_t nullArgument() {
  return orx_session_replace_artifact(nullptr, nullptr);
}

/// Snapshots the session's profile and sends it from a background thread.
static void send(orx_jit_client_t &client, orx_session_t *session) {
  size_t count = 0;
  if (orx_status_t status = orx_session_branch_profile_size(session, &count)) {
    client.state = ORX_JIT_FAILED;
    client.message = "cannot read the branch profile: " + takeMessage(status);
    return;
  }
  if (count == 0) {
    client.state = ORX_JIT_KEPT;
    client.message = "nothing to send: the artifact counts no branches "
                     "(compile it with --profile-branches)";
    return;
  }
  auto request = std::make_shared<fdo::RecompileRequest>();
  request->set_artifact_hash(client.hash);
  for (size_t i = 0; i < count; ++i) {
    orx_branch_record_t record;
    if (orx_status_t status =
            orx_session_branch_profile_record(session, i, &record)) {
      client.state = ORX_JIT_FAILED;
      client.message = "cannot read the branch profile: " + takeMessage(status);
      return;
    }
    *request->add_profiles() = orchestra::profile::toDivergenceProfile(record);
    if (i == 0) {
      request->set_kernel_id(record.kernel);
      client.kernelId = record.kernel;
    }
  }
  client.state = ORX_JIT_WAITING;
  client.message = "the profile is sent to " + client.address;
  client.worker = std::thread([&client, request] {
    auto channel =
        grpc::CreateChannel(client.address, grpc::InsecureChannelCredentials());
    std::unique_ptr<fdo::OrchestraJIT::Stub> stub =
        fdo::OrchestraJIT::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::milliseconds(client.timeoutMs));
    fdo::RecompileReply reply;
    grpc::Status status = stub->RecompileKernel(&context, *request, &reply);
    std::lock_guard<std::mutex> lock(client.mutex);
    client.status = status;
    client.reply = std::move(reply);
    client.replied = true;
    client.done.notify_all();
  });
}

/// Applies a reply that has arrived (under no lock: the worker is done).
static void apply(orx_jit_client_t &client, orx_session_t *session) {
  client.worker.join();
  if (!client.status.ok()) {
    client.state = ORX_JIT_FAILED;
    client.message = "the feedback service at " + client.address +
                     " answered " +
                     std::to_string(int(client.status.error_code())) + " (" +
                     client.status.error_message() + "); the old plan stays";
    return;
  }
  const fdo::RecompileReply &reply = client.reply;
  switch (reply.decision()) {
  case fdo::RecompileReply::SWAP_ARTIFACT: {
    orx_artifact_t *artifact = nullptr;
    if (orx_status_t status = orx_artifact_load_memory(
            reply.artifact().data(), reply.artifact().size(), &artifact)) {
      client.state = ORX_JIT_FAILED;
      client.message =
          "the service's new artifact is refused: " + takeMessage(status) +
          "; the old plan stays";
      return;
    }
    orx_status_t status = orx_session_replace_artifact(session, artifact);
    orx_artifact_free(artifact);
    if (status) {
      client.state = ORX_JIT_FAILED;
      client.message = takeMessage(status);
      return;
    }
    client.state = ORX_JIT_SWAPPED;
    client.message = "swapped in a new plan after run " +
                     std::to_string(client.runs) + ": " + reply.reason();
    return;
  }
  case fdo::RecompileReply::SWAP_KERNEL: {
    if (orx_status_t status = orx_session_replace_kernel(
            session, client.kernelId.c_str(), reply.binary().data(),
            reply.binary().size(), reply.binary_format().c_str())) {
      client.state = ORX_JIT_FAILED;
      client.message = takeMessage(status);
      return;
    }
    client.state = ORX_JIT_SWAPPED;
    client.message = "swapped in a new kernel '" + client.kernelId +
                     "' after run " + std::to_string(client.runs) + ": " +
                     reply.reason();
    return;
  }
  case fdo::RecompileReply::DISABLED:
    client.state = ORX_JIT_KEPT;
    client.message =
        "the service's recompilation is disabled: " + reply.reason();
    return;
  default:
    client.state = ORX_JIT_KEPT;
    client.message = "no new plan: " + reply.reason();
    return;
  }
}

/// The span of the session's last run's steps, in milliseconds; 0 before
/// a run.
static double lastSpan(orx_session_t *session) {
  uint64_t first = UINT64_MAX, last = 0;
  for (size_t i = 0, e = orx_session_trace_size(session); i < e; ++i) {
    orx_trace_event_t event;
    if (orx_status_t status = orx_session_trace_event(session, i, &event)) {
      orx_status_free(status);
      return 0;
    }
    first = std::min(first, event.start_ns);
    last = std::max(last, event.end_ns);
  }
  return first < last ? (last - first) / 1e6 : 0;
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n == 0  ? 0
         : n % 2 ? values[n / 2]
                 : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// Records the last run's span for the measured check of a swap, and once
/// the new plan has run `checkRuns` times, keeps it or swaps back.
static void measure(orx_jit_client_t &client, orx_session_t *session) {
  if (client.checkRuns == 0)
    return;
  double span = lastSpan(session);
  if (client.state == ORX_JIT_COUNTING || client.state == ORX_JIT_WAITING) {
    client.before.push_back(span);
    if (client.before.size() > client.checkRuns)
      client.before.erase(client.before.begin());
    return;
  }
  if (client.state != ORX_JIT_SWAPPED ||
      client.after.size() >= client.checkRuns || client.before.empty())
    return;
  client.after.push_back(span);
  if (client.after.size() < client.checkRuns)
    return;
  double old = median(client.before), now = median(client.after);
  char times[160];
  std::snprintf(times, sizeof(times),
                "the new plan's steps took %.3f ms (median of %zu runs) "
                "against %.3f ms before",
                now, client.after.size(), old);
  if (now <= old * (1 + client.maxSlowdown)) {
    client.message += std::string("; kept: ") + times;
    return;
  }
  if (orx_status_t status =
          orx_session_replace_artifact(session, client.original)) {
    client.state = ORX_JIT_FAILED;
    client.message = "cannot swap the old plan back: " + takeMessage(status);
    return;
  }
  client.state = ORX_JIT_REVERTED;
  client.message = std::string("swapped the old plan back: ") + times +
                   " (more than " +
                   std::to_string(int(client.maxSlowdown * 100)) + "% slower)";
}

extern "C" {

orx_status_t orx_jit_client_create(const char *address,
                                   const orx_artifact_t *artifact,
                                   uint32_t runs_before_profile,
                                   uint32_t timeout_ms,
                                   orx_jit_client_t **out) {
  if (!address || !artifact || !out)
    return nullArgument();
  auto client = std::make_unique<orx_jit_client_s>();
  client->address = address;
  client->hash = orx_artifact_hash(artifact);
  client->original = artifact;
  client->runsBeforeProfile = runs_before_profile ? runs_before_profile : 1;
  client->timeoutMs = timeout_ms;
  *out = client.release();
  return nullptr;
}

orx_status_t orx_jit_client_after_run(orx_jit_client_t *client,
                                      orx_session_t *session) {
  if (!client || !session)
    return nullArgument();
  ++client->runs;
  measure(*client, session);
  if (client->state == ORX_JIT_COUNTING &&
      client->runs >= client->runsBeforeProfile)
    send(*client, session);
  else if (client->state == ORX_JIT_WAITING) {
    bool replied;
    {
      std::lock_guard<std::mutex> lock(client->mutex);
      replied = client->replied;
    }
    if (replied)
      apply(*client, session);
  }
  return nullptr;
}

orx_status_t orx_jit_client_finish(orx_jit_client_t *client,
                                   orx_session_t *session,
                                   uint32_t timeout_ms) {
  if (!client || !session)
    return nullArgument();
  if (client->state != ORX_JIT_WAITING)
    return nullptr;
  bool replied;
  {
    std::unique_lock<std::mutex> lock(client->mutex);
    replied = client->done.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                    [&] { return client->replied; });
  }
  if (replied)
    apply(*client, session);
  else
    client->message = "no reply from " + client->address + " within " +
                      std::to_string(timeout_ms) + " ms; the old plan stays";
  return nullptr;
}

orx_status_t orx_jit_client_set_check(orx_jit_client_t *client, uint32_t runs,
                                      double max_slowdown) {
  if (!client)
    return nullArgument();
  client->checkRuns = runs;
  client->maxSlowdown = max_slowdown;
  return nullptr;
}

orx_jit_state_t orx_jit_client_state(const orx_jit_client_t *client,
                                     const char **message) {
  if (!client)
    return ORX_JIT_FAILED;
  if (message)
    *message = client->message.c_str();
  return client->state;
}

void orx_jit_client_free(orx_jit_client_t *client) {
  if (!client)
    return;
  // The request's deadline bounds the wait.
  if (client->worker.joinable())
    client->worker.join();
  delete client;
}

} // extern "C"
