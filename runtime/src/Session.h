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
// The worker of a CUDA device does not wait for its steps to finish: it
// enqueues them on the device's streams (launches on the kernel stream,
// copies on the copy stream) and records an event after each. A step that
// depends on a GPU step of another stream waits for that event on the GPU
// (cuStreamWaitEvent); a step the workers run on the host waits for it with
// cuEventSynchronize. Arenas of CUDA memory spaces are device memory.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_SESSION_H
#define ORCHESTRA_RT_SESSION_H

#include "CudaDevice.h"
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
  /// A GPU step's time on the GPU, between CUDA events recorded around it
  /// on its stream; 0 for other steps and when the driver cannot time.
  uint64_t deviceNs = 0;
};

/// A step resolved to pointers into the arenas. Addresses in device memory
/// are CUdeviceptr values stored in pointers (CUDA runs on 64-bit hosts only).
struct PreparedStep {
  StepKind kind;
  uint32_t device;
  std::string name;
  /// Launch on a CPU: the kernel and the slot of each argument.
  KernelFn kernel = nullptr;
  std::vector<void *> args;
  /// Launch on a GPU: the kernel launches, in order.
  std::vector<CudaLaunch> gpuLaunches;
  /// Copy: the source and destination slots, and the CUDA devices whose
  /// memory they are in (null for host memory).
  const void *source = nullptr;
  void *destination = nullptr;
  size_t bytes = 0;
  CudaDevice *sourceGpu = nullptr;
  CudaDevice *destinationGpu = nullptr;
  /// A GPU step: the CUDA device and stream that run it asynchronously and
  /// the event recorded after it. Null for a step the worker runs itself
  /// (every step of a CPU queue, and copies between host memory).
  CudaDevice *gpu = nullptr;
  CUstream stream = nullptr;
  CUevent done = nullptr;
  /// Timing events around the step's kernels or copy on its stream, which
  /// measure its GPU time; null when the driver cannot time. (`done` stays
  /// a non-timing event: streams wait for it, which is cheaper so.)
  CUevent started = nullptr;
  CUevent finished = nullptr;
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
  Session();

  /// The completion flag of one step in the current run. A GPU step is Done
  /// once it is enqueued and its CUevent recorded.
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

  /// Host memory from mmap, or device memory of `gpu`.
  struct Arena {
    void *base = nullptr;
    /// The bytes mapped, or allocated on the GPU.
    size_t mappedBytes = 0;
    CudaDevice *gpu = nullptr;
  };

  bool createCudaDevices(const Artifact &artifact, std::string &error);
  bool allocateArenas(const Artifact &artifact, std::string &error);
  /// Copies the constants, loads the kernels, resolves the steps and pins the
  /// host arenas that GPUs copy to or from.
  bool prepareSteps(const Artifact &artifact, std::string &error);
  /// Resolves launch step `index` on its CUDA device into `step`.
  bool prepareGpuLaunch(const Artifact &artifact, size_t index,
                        PreparedStep &step, std::string &error);
  void startWorkers();
  void workerMain(size_t device);
  void executeStep(size_t index);
  /// Waits for the dependencies of step `index`; on failure finishes its
  /// event as failed and returns false.
  bool waitForDeps(size_t index);
  /// Enqueues a GPU step on its stream and records its event.
  bool enqueueGpuStep(const PreparedStep &step, std::string &error);
  /// Runs a copy that is not a GPU step, waiting for any GPU copy it makes.
  bool runCopy(const PreparedStep &step, std::string &error);
  /// Waits for the GPU steps of `device`'s queue in order and takes their end
  /// times.
  void finishGpuSteps(size_t device);
  uint64_t nowNs() const;

  /// The CUDA driver, when the artifact has a CUDA device.
  const CudaDriver *cudaDriver = nullptr;
  /// Per artifact device: its CUDA device, or null for a CPU.
  std::vector<std::unique_ptr<CudaDevice>> cudaDevices;
  /// Whether the plan uses each device (a step on it or a non-empty arena);
  /// unused GPUs are not opened.
  std::vector<bool> usedDevices;
  std::vector<Arena> arenas;
  std::vector<std::unique_ptr<LoadedBinary>> binaries;
  /// The parsed GPU module bundles among the binaries, by binary index.
  std::vector<std::unique_ptr<GpuBundle>> bundles;
  std::vector<PreparedStep> steps;
  std::vector<std::unique_ptr<StepEvent>> events;
  /// The step indices of each device's queue, in plan order.
  std::vector<std::vector<uint32_t>> queues;

  struct Slot {
    void *address;
    size_t bytes;
    std::string name;
    /// The CUDA device whose memory holds the slot, or null.
    CudaDevice *gpu;
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
