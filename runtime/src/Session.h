//===- Session.h - Running the plan of an artifact --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A session owns the arenas of an artifact's memory spaces, its loaded
// kernels and one worker thread per device. Each worker is the queue of its
// device: it executes the steps placed on the device in plan order, each after
// the steps it depends on, so steps on different devices run concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_SESSION_H
#define ORCHESTRA_RT_SESSION_H

#include "KernelLoader.h"
#include "orchestra_rt/Artifact.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace orx {

/// When one step of the last run ran, relative to the start of the run.
struct StepTiming {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
};

/// A step resolved to pointers into the arenas.
struct PreparedStep {
  StepKind kind;
  uint32_t device;
  std::string name;
  /// Launch: the kernel and the slot of each argument.
  KernelFn kernel = nullptr;
  std::vector<void *> args;
  /// Copy: the source and destination slots.
  const void *source = nullptr;
  void *destination = nullptr;
  size_t bytes = 0;
  std::vector<uint32_t> deps;
  double predictedStart;
  double predictedFinish;
};

class Session {
public:
  /// Allocates the arenas, copies the constants, loads the kernels and starts
  /// the workers. Returns null with `error` set on failure.
  static std::unique_ptr<Session> create(const Artifact &artifact,
                                         std::string &error);
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Runs the plan once; see orx_session_run.
  bool run(const void *const *inputs, const size_t *inputSizes,
           size_t numInputs, void *const *outputs, const size_t *outputSizes,
           size_t numOutputs, std::string &error);

  const std::vector<PreparedStep> &getSteps() const { return steps; }
  /// Timings of the last successful run; empty before one.
  const std::vector<StepTiming> &getTrace() const { return trace; }

private:
  Session() = default;

  /// The completion flag of one step in the current run.
  struct StepEvent {
    enum class State { Pending, Done, Failed };
    std::mutex mutex;
    std::condition_variable changed;
    State state = State::Pending;
    std::string error;
    StepTiming timing;

    void finish(State newState, std::string message = {});
    State wait();
  };

  struct Arena {
    void *base = nullptr;
    size_t mappedBytes = 0;
  };

  bool allocateArenas(const Artifact &artifact, std::string &error);
  bool prepareSteps(const Artifact &artifact, std::string &error);
  void startWorkers();
  void workerMain(size_t device);
  void executeStep(size_t index);
  uint64_t nowNs() const;

  std::vector<Arena> arenas;
  std::vector<std::unique_ptr<LoadedBinary>> binaries;
  std::vector<PreparedStep> steps;
  std::vector<std::unique_ptr<StepEvent>> events;
  /// The step indices of each device's queue, in plan order.
  std::vector<std::vector<uint32_t>> queues;

  struct Slot {
    void *address;
    size_t bytes;
    std::string name;
  };
  std::vector<Slot> inputSlots;
  std::vector<Slot> outputSlots;

  std::vector<StepTiming> trace;

  /// Serialises runs.
  std::mutex runMutex;
  /// Guards `generation`, `stopping` and `busyWorkers`.
  std::mutex controlMutex;
  std::condition_variable startRun;
  std::condition_variable runFinished;
  uint64_t generation = 0;
  bool stopping = false;
  size_t busyWorkers = 0;
  std::chrono::steady_clock::time_point runStart;
  std::vector<std::thread> workers;
};

} // namespace orx

#endif // ORCHESTRA_RT_SESSION_H
