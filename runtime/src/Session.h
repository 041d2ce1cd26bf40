//===- Session.h - Running the plan of an artifact --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A session owns the devices of an artifact (through the drivers of the
// runtime HAL, hal/Device.h), the arenas of its memory spaces, its prepared
// kernels and one worker thread per device. Each worker is the queue of its
// device: it executes the steps placed on the device in plan order, each after
// the steps it depends on, so steps on different devices run concurrently.
//
// The worker of an asynchronous device does not wait for its steps to
// finish: it enqueues them on the device's queues (launches on the Compute
// queue, copies on the Transfer queue) and records an event after each. A
// step that depends on an asynchronous step of another queue waits for that
// event on its device when the device can (hal::Device::canWaitOnDevice),
// else on the host. The session names no vendor and no driver: adding a
// kind of device adds a driver, not code here.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_SESSION_H
#define ORCHESTRA_RT_SESSION_H

#include "hal/Device.h"
#include "orchestra_rt/Artifact.h"

#include <atomic>
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
  /// An asynchronous step's time on its device, between timing events
  /// recorded around it on its queue; 0 for other steps and when the driver
  /// cannot time.
  uint64_t deviceNs = 0;
  /// A select step: 1 when it took the true values, 0 the false ones; -1
  /// for other steps.
  int8_t selected = -1;
};

/// A copy resolved to the objects that make it: the two sides, and the
/// device that copies and waits, or null when both sides are host memory;
/// with `staging`, the two sides' devices cannot copy between each other,
/// and the copy goes through host memory: `source.device` downloads,
/// `destination.device` uploads.
struct PreparedCopy {
  hal::Memory source;
  hal::Memory destination;
  size_t bytes = 0;
  hal::Device *copier = nullptr;
  bool staging = false;
};

/// A step resolved to its device's objects and addresses in the arenas.
struct PreparedStep {
  StepKind kind;
  uint32_t device;
  std::string name;
  /// Launch: the kernel, made ready by the step's device.
  std::unique_ptr<hal::PreparedLaunch> launch;
  /// Copy: the two sides, and the copier when the worker copies.
  PreparedCopy copy;
  /// Select: the condition byte, and the copies of the false (0) and true
  /// (1) values into the results, made by the worker.
  hal::Memory condition;
  std::vector<PreparedCopy> alternatives[2];
  /// The device that runs the step asynchronously, on `queue`, recording
  /// `events` around it; null for a step the worker runs itself (every step
  /// of a synchronous device, copies that a device makes and waits for, and
  /// selects).
  hal::Device *async = nullptr;
  hal::Queue queue = hal::Queue::Compute;
  hal::StepEvents events;
  std::vector<uint32_t> deps;
  double predictedStart;
  double predictedFinish;
};

/// What a kernel's counters say of one of its branches on one device
/// (design/0019): a DivergenceProfile record before encoding.
struct BranchRecord {
  std::string kernel;
  uint32_t branchId = 0;
  /// Where the branch is in the source (the artifact's branch table).
  std::string location;
  /// The device's name in the artifact, and what the hardware is.
  std::string device;
  std::string hardwareId;
  /// Launches of the kernel on the device.
  uint64_t invocations = 0;
  /// Then path (or next loop iteration), else path (or loop exit).
  uint64_t thenCount = 0;
  uint64_t elseCount = 0;
  /// GPUs: warps that evaluated the condition, and those whose lanes
  /// disagreed; 0 on CPUs.
  uint64_t warps = 0;
  uint64_t divergentWarps = 0;
  /// FNV-1a of the inputs' dtypes and dims for the runs counted.
  uint64_t inputShapeHash = 0;
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

  /// Sets the shape of input `index` for the next runs: the sizes of the
  /// dynamic dims (design/0017); see orx_session_set_input_shape.
  bool setInputShape(size_t index, const std::vector<int64_t> &shape,
                     std::string &error);
  /// The shape of output `index` for the input shapes set.
  bool getOutputShape(size_t index, std::vector<int64_t> &shape,
                      std::string &error) const;

  /// Replaces kernel `symbol` (a kernel's symbol in the artifact) in every
  /// step that launches it by the kernel of that symbol in `data`, a kernel
  /// binary of `format` for the same devices (design/0019, decision 11).
  /// Between two runs: waits for a run in progress, never changes one.
  /// Prepares every such launch first and swaps them only if all succeed;
  /// on failure the old kernel stays and `error` says why.
  bool replaceKernel(const std::string &symbol, const std::string &format,
                     std::vector<uint8_t> data, std::string &error);

  /// The branch counters of every profiled kernel (KernelDesc::branches),
  /// one record per branch and device that runs the kernel, after the runs
  /// since the session was made or reset. Waits for a run in progress.
  /// GPU counters are read back from device memory; false with `error` set
  /// when that fails.
  bool getBranchProfile(std::vector<BranchRecord> &records, std::string &error);
  /// Zeroes the branch counters and launch counts.
  bool resetBranchProfile(std::string &error);

  const std::vector<PreparedStep> &getSteps() const { return steps; }
  /// Kernels replaced since the session was made.
  size_t getReplacedKernels() const { return replacedKernels; }
  /// Timings of the last successful run; empty before one.
  const std::vector<StepTiming> &getTrace() const { return trace; }

private:
  Session();

  /// The completion flag of one step in the current run. An asynchronous
  /// step is Done once it is enqueued and its event recorded.
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

  /// An arena: allocated by the device of its memory space.
  struct Arena {
    void *base = nullptr;
    /// The bytes allocated (at least 1).
    size_t bytes = 0;
    /// The device, or null when the device is not used.
    hal::Device *device = nullptr;
  };

  /// Creates the devices of the artifact that the plan uses.
  bool createDevices(const Artifact &artifact, std::string &error);
  bool allocateArenas(const Artifact &artifact, std::string &error);
  /// Copies the constants, prepares the kernels, resolves the steps and pins
  /// the host arenas that asynchronous devices copy to or from.
  bool prepareSteps(const Artifact &artifact, std::string &error);
  /// Resolves copy step `desc` into `step`.
  void prepareCopy(const Artifact &artifact, const StepDesc &desc,
                   PreparedStep &step);
  /// Resolves select step `desc` into `step`.
  void prepareSelect(const Artifact &artifact, const StepDesc &desc,
                     PreparedStep &step);
  /// Saves what the devices' calls change in the calling thread.
  std::vector<std::unique_ptr<hal::CallerState>> saveCallerStates() const;
  /// The memory of value `valueId`: host memory for host-memory devices.
  hal::Memory memoryOf(const Artifact &artifact, uint32_t valueId) const;
  void startWorkers();
  void workerMain(size_t device);
  void executeStep(size_t index);
  /// Waits for the dependencies of step `index`; on failure finishes its
  /// event as failed and returns false.
  bool waitForDeps(size_t index);
  /// Makes a copy that is not asynchronous and waits for it.
  static bool runCopy(const PreparedCopy &copy, std::string &error);
  /// Runs select step `step`: reads its condition, makes the copies of the
  /// list it chooses and records the choice in `timing`.
  bool runSelect(const PreparedStep &step, StepTiming &timing,
                 std::string &error);
  /// Waits for the asynchronous steps of `device`'s queue in order and
  /// takes their end times.
  void finishAsyncSteps(size_t device);
  uint64_t nowNs() const;

  /// Per artifact device: the device, or null when the plan does not use
  /// it (no step runs on it, none of its memory spaces holds a byte).
  std::vector<std::unique_ptr<hal::Device>> devices;
  std::vector<Arena> arenas;
  /// Events of the steps, owned here, recorded by their devices.
  std::vector<std::unique_ptr<hal::Event>> stepEvents;
  std::vector<PreparedStep> steps;
  std::vector<std::unique_ptr<StepEvent>> events;
  /// The step indices of each device's queue, in plan order.
  std::vector<std::vector<uint32_t>> queues;

  /// What replaceKernel needs of a launch step: its kernel's symbol, the
  /// binary it came from (arch and required features, which a replacement
  /// keeps) and the addresses of its values.
  struct LaunchSite {
    std::string symbol;
    uint32_t binary = 0;
    std::vector<void *> buffers;
  };
  /// Per step (empty for other steps than launches).
  std::vector<LaunchSite> launchSites;

  /// The branch counters of one profiled kernel on one device: the buffer
  /// its launches take after their values, and the launches counted.
  struct BranchCounters {
    /// The kernel, or UINT32_MAX for a select step's branch.
    uint32_t kernel = 0;
    uint32_t device = 0;
    std::string symbol;
    std::vector<std::string> locations;
    std::string deviceName;
    std::string hardwareId;
    /// kCountersPerBranch per branch: the counters themselves in host
    /// memory, or their copy read back from `onDevice`.
    std::vector<uint64_t> counts;
    /// A GPU's counters: its device memory, which the kernels' probes add
    /// to (null: `counts` are the counters).
    hal::Device *gpu = nullptr;
    void *onDevice = nullptr;
    std::atomic<uint64_t> launches{0};
  };
  std::vector<std::unique_ptr<BranchCounters>> branchCounters;
  /// Per step: the counters its launch updates, or null.
  std::vector<BranchCounters *> stepCounters;
  /// Appends the counters of launch step `index` (`desc`, on `device`) to
  /// its `buffers` when its kernel has branches.
  bool prepareBranchCounters(const Artifact &artifact, const StepDesc &desc,
                             size_t index, hal::Device &device,
                             std::vector<void *> &buffers, std::string &error);
  /// The binaries' arch and required features, by binary index.
  std::vector<BinaryDesc> binaryInfo;
  /// The index the next replacement binary takes: past the artifact's
  /// binaries and every earlier replacement (drivers cache binaries by
  /// index).
  uint32_t nextBinaryIndex = 0;
  size_t replacedKernels = 0;

  struct Slot {
    /// The bytes of a static tensor; of a dynamic one, at the run's sizes.
    size_t bytes;
    std::string name;
    /// Where the slot is.
    hal::Memory memory;
    /// The tensor (shape with -1 for dynamic dims, their sizes).
    TensorDesc desc;
    /// The bytes of the value's buffer (the largest dynamic size).
    size_t capacity;
  };
  std::vector<Slot> inputSlots;
  std::vector<Slot> outputSlots;

  std::vector<StepTiming> trace;

  /// Dynamic dims: their names and ranges, the shapes set for the inputs
  /// (static inputs: their own) and each step's size programs.
  std::vector<DimDesc> dims;
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<std::vector<SizeExpr>> stepSizes;
  /// The dims' sizes from the input shapes set; fails on a dynamic input
  /// without a shape or two inputs that disagree.
  bool bindDims(std::vector<int64_t> &values, std::string &error) const;
  /// The shape of `desc` at the dims' sizes `values`.
  bool evaluateShape(const TensorDesc &desc, const std::vector<int64_t> &values,
                     std::vector<int64_t> &shape, std::string &error) const;
  /// Sets the bytes of the dynamic slots and the launches' sizes for a run.
  bool prepareRun(std::string &error);

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
