//===- Session.cpp - Running the plan of an artifact ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <unistd.h>

using namespace orx;

/// The dim a dynamic size names when it is one dim alone (the dims of the
/// inputs), else -1.
static int64_t getDimIndex(const SizeExpr &size) {
  if (size.code.size() == 2 &&
      size.code[0] == static_cast<int64_t>(SizeOp::Dim))
    return size.code[1];
  return -1;
}

/// "f32[4x?]": a dynamic dimension is "?" (messages name its dim).
static std::string describeTensor(const TensorDesc &desc) {
  std::string result = dtypeName(desc.dtype);
  result += "[";
  for (size_t i = 0; i < desc.shape.size(); ++i)
    result +=
        (i ? "x" : "") + (desc.shape[i] == -1 ? std::string("?")
                                              : std::to_string(desc.shape[i]));
  return result + "]";
}

void Session::StepEvent::finish(State newState, std::string message) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    state = newState;
    error = std::move(message);
  }
  changed.notify_all();
}

Session::StepEvent::State Session::StepEvent::wait() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [&] { return state != State::Pending; });
  return state;
}

std::unique_ptr<Session> Session::create(const Artifact &artifact,
                                         std::string &error) {
  if (!verifyArtifact(artifact, error))
    return nullptr;
  std::unique_ptr<Session> session(new Session());
  if (!session->createDevices(artifact, error))
    return nullptr;
  auto callerStates = session->saveCallerStates();
  if (!session->allocateArenas(artifact, error) ||
      !session->prepareSteps(artifact, error))
    return nullptr;
  // Whatever set-up queued (memsets, the constants' copies) must be complete
  // before the queues run.
  for (const std::unique_ptr<hal::Device> &device : session->devices)
    if (device && !device->finishSetup(error))
      return nullptr;
  session->startWorkers();
  return session;
}

bool Session::createDevices(const Artifact &artifact, std::string &error) {
  // A device the plan does not use (no step runs on it, none of its memory
  // spaces holds a byte) needs neither its driver nor the device.
  std::vector<bool> used(artifact.devices.size(), false);
  for (const StepDesc &step : artifact.steps)
    used[step.device] = true;
  for (const MemorySpaceDesc &space : artifact.memorySpaces)
    if (space.arenaBytes != 0)
      used[space.device] = true;
  devices.resize(artifact.devices.size());
  for (size_t i = 0; i < artifact.devices.size(); ++i) {
    if (!used[i])
      continue;
    const DeviceDesc &desc = artifact.devices[i];
    hal::DeviceFactory factory = hal::lookupDriver(desc.driver);
    if (!factory) {
      std::string known;
      for (const std::string &name : hal::getDriverNames())
        known += (known.empty() ? "'" : ", '") + name + "'";
      error = "device '" + desc.name + "' (" + desc.arch +
              ") needs the runtime driver '" + desc.driver +
              "', which this runtime was built without (it has " + known + ")";
      return false;
    }
    devices[i] = factory(desc, error);
    if (!devices[i])
      return false;
  }
  return true;
}

std::vector<std::unique_ptr<hal::CallerState>>
Session::saveCallerStates() const {
  // One per driver: the devices of a driver share what they change.
  std::vector<std::unique_ptr<hal::CallerState>> states;
  std::vector<std::string> saved;
  for (const std::unique_ptr<hal::Device> &device : devices) {
    if (!device || std::find(saved.begin(), saved.end(),
                             device->getDriverName()) != saved.end())
      continue;
    saved.push_back(device->getDriverName());
    if (std::unique_ptr<hal::CallerState> state = device->saveCallerState())
      states.push_back(std::move(state));
  }
  return states;
}

bool Session::allocateArenas(const Artifact &artifact, std::string &error) {
  for (const MemorySpaceDesc &space : artifact.memorySpaces) {
    hal::Device *device = devices[space.device].get();
    Arena arena;
    arena.device = device;
    arena.bytes = static_cast<size_t>(std::max<uint64_t>(space.arenaBytes, 1));
    if (device && !device->allocate(space.arenaBytes,
                                    "the " + std::to_string(space.arenaBytes) +
                                        "-byte arena of memory space '" +
                                        space.name + "'",
                                    arena.base, error))
      return false;
    arenas.push_back(arena);
  }
  return true;
}

hal::Memory Session::memoryOf(const Artifact &artifact,
                              uint32_t valueId) const {
  const ValueDesc &value = artifact.values[valueId];
  const Arena &arena = arenas[value.space];
  hal::Device *device =
      arena.device && !arena.device->isHostMemory() ? arena.device : nullptr;
  return {device, static_cast<char *>(arena.base) + value.offset};
}

static std::string describeStep(const StepDesc &step, size_t index) {
  return "step " + std::to_string(index) + " ('" + step.name + "')";
}

/// Whether `device` can copy between memory of `source` and `destination`
/// (null: host memory).
static bool reachesBoth(hal::Device *device, hal::Device *source,
                        hal::Device *destination) {
  auto reaches = [&](hal::Device *side) {
    return !side || side == device || device->canCopyWith(*side);
  };
  return reaches(source) && reaches(destination);
}

/// Has the worker copy `copy` with one side's device, which waits, or both
/// (through host memory) when neither reaches the other; none for host
/// memory on both sides.
static void chooseCopier(PreparedCopy &copy) {
  hal::Device *source = copy.source.device;
  hal::Device *destination = copy.destination.device;
  if (!source && !destination)
    return; // host to host: the worker copies
  for (hal::Device *device : {source, destination})
    if (device && reachesBoth(device, source, destination)) {
      copy.copier = device;
      return;
    }
  copy.copier = source;
  copy.staging = true;
}

void Session::prepareCopy(const Artifact &artifact, const StepDesc &desc,
                          PreparedStep &step) {
  PreparedCopy &copy = step.copy;
  copy.source = memoryOf(artifact, desc.args[0]);
  copy.destination = memoryOf(artifact, desc.args[1]);
  copy.bytes = artifact.values[desc.args[0]].bytes;
  if (!copy.source.device && !copy.destination.device)
    return; // host to host: the worker copies
  // The queue's own device, when asynchronous and able to reach both sides,
  // enqueues the copy.
  hal::Device *queue = devices[desc.device].get();
  if (queue->isAsynchronous() &&
      reachesBoth(queue, copy.source.device, copy.destination.device)) {
    step.async = queue;
    step.queue = hal::Queue::Transfer;
    return;
  }
  chooseCopier(copy);
}

void Session::prepareSelect(const Artifact &artifact, const StepDesc &desc,
                            PreparedStep &step) {
  size_t n = desc.args.size() / 3;
  step.condition = memoryOf(artifact, desc.args[0]);
  for (int taken : {0, 1})
    for (size_t i = 0; i < n; ++i) {
      PreparedCopy copy;
      uint32_t source = desc.args[1 + (taken ? 0 : n) + i];
      copy.source = memoryOf(artifact, source);
      copy.destination = memoryOf(artifact, desc.args[1 + 2 * n + i]);
      // A value the plan put in its result's slot is there already.
      if (copy.source.device == copy.destination.device &&
          copy.source.address == copy.destination.address)
        continue;
      copy.bytes = artifact.values[source].bytes;
      chooseCopier(copy);
      step.alternatives[taken].push_back(copy);
    }
}

/// What the hardware of `desc` is: its arch, and for a CPU the model name
/// the kernel reports (/proc/cpuinfo).
static std::string getHardwareId(const DeviceDesc &desc) {
  std::string id = desc.arch;
  if (desc.driver != "cpu")
    return id;
  if (FILE *cpuinfo = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof(line), cpuinfo)) {
      if (std::strncmp(line, "model name", 10) != 0)
        continue;
      if (const char *colon = std::strchr(line, ':')) {
        std::string model = colon + 1;
        size_t first = model.find_first_not_of(" \t");
        size_t last = model.find_last_not_of(" \t\n");
        if (first != std::string::npos)
          id += " (" + model.substr(first, last - first + 1) + ")";
      }
      break;
    }
    std::fclose(cpuinfo);
  }
  return id;
}

bool Session::prepareBranchCounters(const Artifact &artifact,
                                    const StepDesc &desc, size_t index,
                                    hal::Device &device,
                                    std::vector<void *> &buffers,
                                    std::string &error) {
  const KernelDesc &kernel = artifact.kernels[desc.kernel];
  if (kernel.branches.empty())
    return true;
  // The kernel's probes write the counters from the device: host memory
  // for a host-memory device, device memory (read back by getBranchProfile)
  // for a GPU.
  bool inDeviceMemory = !device.isHostMemory();
  if (inDeviceMemory && !device.isAsynchronous()) {
    error = describeStep(desc, index) + ": kernel '" + kernel.symbol +
            "' counts its branches, which " + device.getDescription() +
            " cannot do (compile without --profile-branches)";
    return false;
  }
  BranchCounters *counters = nullptr;
  for (const std::unique_ptr<BranchCounters> &existing : branchCounters)
    if (existing->kernel == desc.kernel && existing->device == desc.device)
      counters = existing.get();
  if (!counters) {
    auto created = std::make_unique<BranchCounters>();
    created->kernel = desc.kernel;
    created->device = desc.device;
    created->symbol = kernel.symbol;
    created->locations = kernel.branches;
    created->deviceName = artifact.devices[desc.device].name;
    created->hardwareId = getHardwareId(artifact.devices[desc.device]);
    created->counts.assign(kCountersPerBranch * kernel.branches.size(), 0);
    if (inDeviceMemory &&
        !device.allocate(created->counts.size() * sizeof(uint64_t),
                         "the branch counters of kernel '" + kernel.symbol +
                             "'",
                         created->onDevice, error))
      return false;
    if (inDeviceMemory)
      created->gpu = &device;
    counters = created.get();
    branchCounters.push_back(std::move(created));
  }
  stepCounters[index] = counters;
  buffers.push_back(counters->onDevice ? counters->onDevice
                                       : counters->counts.data());
  return true;
}

bool Session::getBranchProfile(std::vector<BranchRecord> &records,
                               std::string &error) {
  std::lock_guard<std::mutex> lock(runMutex);
  // FNV-1a of the inputs' dtypes and dims.
  uint64_t shapeHash = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t value) {
    for (int byte = 0; byte < 8; ++byte) {
      shapeHash ^= (value >> (8 * byte)) & 0xff;
      shapeHash *= 0x100000001b3ull;
    }
  };
  for (size_t i = 0; i < inputSlots.size(); ++i) {
    mix(static_cast<uint64_t>(inputSlots[i].desc.dtype));
    mix(inputShapes[i].size());
    for (int64_t dim : inputShapes[i])
      mix(static_cast<uint64_t>(dim));
  }
  records.clear();
  for (const std::unique_ptr<BranchCounters> &counters : branchCounters) {
    // A run's end waits for its kernels: the counters are final.
    if (counters->gpu &&
        !counters->gpu->copyAndWait(
            hal::Memory{nullptr, counters->counts.data()},
            hal::Memory{counters->gpu, counters->onDevice},
            counters->counts.size() * sizeof(uint64_t), error)) {
      error = "cannot read the branch counters of kernel '" + counters->symbol +
              "' from " + counters->gpu->getDescription() + ": " + error;
      return false;
    }
    uint64_t launches = counters->launches.load(std::memory_order_relaxed);
    for (size_t b = 0; b < counters->locations.size(); ++b) {
      BranchRecord record;
      record.kernel = counters->symbol;
      record.branchId = static_cast<uint32_t>(b);
      record.location = counters->locations[b];
      record.device = counters->deviceName;
      record.hardwareId = counters->hardwareId;
      record.invocations = launches;
      const uint64_t *count = &counters->counts[kCountersPerBranch * b];
      record.thenCount = count[0];
      record.elseCount = count[1];
      record.warps = count[2];
      record.divergentWarps = count[3];
      record.inputShapeHash = shapeHash;
      records.push_back(std::move(record));
    }
  }
  return true;
}

bool Session::resetBranchProfile(std::string &error) {
  std::lock_guard<std::mutex> lock(runMutex);
  for (const std::unique_ptr<BranchCounters> &counters : branchCounters) {
    std::fill(counters->counts.begin(), counters->counts.end(), 0);
    counters->launches.store(0, std::memory_order_relaxed);
    if (counters->gpu &&
        !counters->gpu->copyAndWait(
            hal::Memory{counters->gpu, counters->onDevice},
            hal::Memory{nullptr, counters->counts.data()},
            counters->counts.size() * sizeof(uint64_t), error)) {
      error = "cannot zero the branch counters of kernel '" + counters->symbol +
              "' on " + counters->gpu->getDescription() + ": " + error;
      return false;
    }
  }
  return true;
}

bool Session::prepareSteps(const Artifact &artifact, std::string &error) {
  for (const ConstantDesc &constant : artifact.constants) {
    if (constant.data.empty())
      continue;
    const ValueDesc &value = artifact.values[constant.value];
    const Arena &arena = arenas[value.space];
    if (!arena.device->upload(static_cast<char *>(arena.base) + value.offset,
                              constant.data.data(), constant.data.size(),
                              error)) {
      error = "cannot copy the constant of value " +
              std::to_string(constant.value) + ": " + error;
      return false;
    }
  }

  std::vector<bool> pinned(arenas.size(), false);
  launchSites.resize(artifact.steps.size());
  stepCounters.assign(artifact.steps.size(), nullptr);
  for (size_t index = 0; index < artifact.steps.size(); ++index) {
    const StepDesc &desc = artifact.steps[index];
    hal::Device &device = *devices[desc.device];
    PreparedStep step;
    step.kind = desc.kind;
    step.device = desc.device;
    step.name = desc.name;
    step.deps = desc.deps;
    step.predictedStart = desc.predictedStart;
    step.predictedFinish = desc.predictedFinish;
    if (desc.kind == StepKind::Launch) {
      // A kernel addresses the memory of its own device, or host memory
      // from a host-memory device.
      std::vector<void *> buffers;
      for (uint32_t arg : desc.args) {
        const ValueDesc &value = artifact.values[arg];
        const Arena &arena = arenas[value.space];
        // (An arena of a device the plan does not use has no device.)
        if (arena.device != &device &&
            !(device.isHostMemory() && arena.device &&
              arena.device->isHostMemory())) {
          const MemorySpaceDesc &space = artifact.memorySpaces[value.space];
          error = describeStep(desc, index) + " on device '" +
                  artifact.devices[desc.device].name + "' uses value " +
                  std::to_string(arg) + ", which is in memory space '" +
                  space.name + "' of device '" +
                  artifact.devices[space.device].name +
                  "': its kernel cannot address it";
          return false;
        }
        buffers.push_back(static_cast<char *>(arena.base) + value.offset);
      }
      if (!prepareBranchCounters(artifact, desc, index, device, buffers, error))
        return false;
      step.launch = device.prepareLaunch(artifact, desc.kernel, buffers,
                                         describeStep(desc, index), error);
      launchSites[index] = {artifact.kernels[desc.kernel].symbol,
                            artifact.kernels[desc.kernel].binary, buffers};
      if (!step.launch)
        return false;
      if (device.isAsynchronous())
        step.async = &device;
    } else if (desc.kind == StepKind::Select) {
      prepareSelect(artifact, desc, step);
      // A speculated branch of a profiled compile: the select counts it.
      if (!desc.branchLocation.empty()) {
        auto counters = std::make_unique<BranchCounters>();
        counters->kernel = UINT32_MAX;
        counters->device = desc.device;
        counters->symbol = getSelectBranchName(index);
        counters->locations = {desc.branchLocation};
        counters->deviceName = artifact.devices[desc.device].name;
        counters->hardwareId = getHardwareId(artifact.devices[desc.device]);
        counters->counts.assign(kCountersPerBranch, 0);
        stepCounters[index] = counters.get();
        branchCounters.push_back(std::move(counters));
      }
    } else {
      prepareCopy(artifact, desc, step);
      // Pin host arenas that a device copies to or from, so that the copies
      // are asynchronous.
      hal::Device *copier = step.async ? step.async : step.copy.copier;
      for (uint32_t value : desc.args) {
        uint32_t space = artifact.values[value].space;
        if (!copier || !arenas[space].device ||
            !arenas[space].device->isHostMemory() || pinned[space])
          continue;
        // Whole pages: host-memory devices allocate them.
        size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        size_t pages = (arenas[space].bytes + page - 1) / page;
        copier->registerHostMemory(arenas[space].base, pages * page,
                                   "the arena of memory space '" +
                                       artifact.memorySpaces[space].name + "'");
        pinned[space] = true; // tried: once per arena
      }
    }
    if (step.async) {
      auto create = [&](hal::Event *&out, bool timing) {
        std::unique_ptr<hal::Event> event =
            step.async->createEvent(timing, error);
        out = event.get();
        stepEvents.push_back(std::move(event));
        return out != nullptr;
      };
      if (!create(step.events.done, /*timing=*/false))
        return false;
      if (step.async->canTime() && (!create(step.events.started, true) ||
                                    !create(step.events.finished, true)))
        return false;
    }
    steps.push_back(std::move(step));
    events.push_back(std::make_unique<StepEvent>());
  }

  queues.resize(artifact.devices.size());
  for (size_t i = 0; i < steps.size(); ++i)
    queues[steps[i].device].push_back(static_cast<uint32_t>(i));

  dims = artifact.dims;
  // Slots are described in messages as "'x' (f32[4x4])"; a dynamic
  // tensor's bytes are set per run (prepareRun).
  auto makeSlot = [&](const TensorDesc &desc, uint32_t value) -> Slot {
    return {desc.isDynamic() ? 0 : desc.byteSize(),
            "'" + desc.name + "' (" + describeTensor(desc) + ")",
            memoryOf(artifact, value), desc, artifact.values[value].bytes};
  };
  for (size_t i = 0; i < artifact.inputs.size(); ++i) {
    const TensorDesc &desc = artifact.inputs[i];
    inputSlots.push_back(makeSlot(desc, artifact.inputValues[i]));
    inputShapes.push_back(desc.isDynamic() ? std::vector<int64_t>()
                                           : desc.shape);
  }
  for (size_t i = 0; i < artifact.outputs.size(); ++i)
    outputSlots.push_back(
        makeSlot(artifact.outputs[i], artifact.outputValues[i]));
  for (const StepDesc &desc : artifact.steps)
    stepSizes.push_back(desc.sizes);
  for (const BinaryDesc &binary : artifact.binaries)
    binaryInfo.push_back(
        {binary.arch, binary.format, {}, binary.requiredFeatures});
  nextBinaryIndex = static_cast<uint32_t>(artifact.binaries.size());
  return true;
}

bool Session::replaceKernel(const std::string &symbol,
                            const std::string &format,
                            std::vector<uint8_t> data, std::string &error) {
  std::lock_guard<std::mutex> runLock(runMutex);
  auto fail = [&](const std::string &why) {
    error = "cannot replace kernel '" + symbol + "': " + why;
    return false;
  };
  std::vector<size_t> sites;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].kind == StepKind::Launch && launchSites[i].symbol == symbol)
      sites.push_back(i);
  if (sites.empty())
    return fail("no step of the plan launches it");
  // The drivers take a kernel binary from an artifact: one of the new binary
  // under a fresh index and the kernel in it, the arch and required
  // features those of the binary it replaces (copied: binaryInfo grows
  // below).
  BinaryDesc original = binaryInfo[launchSites[sites.front()].binary];
  Artifact replacement;
  uint32_t index = nextBinaryIndex;
  replacement.binaries.resize(index + 1);
  replacement.binaries[index] = {original.arch, format, std::move(data),
                                 original.requiredFeatures};
  replacement.kernels.push_back({symbol, index});
  auto callerStates = saveCallerStates();
  std::vector<std::unique_ptr<hal::PreparedLaunch>> launches;
  for (size_t i : sites) {
    const PreparedStep &step = steps[i];
    const BinaryDesc &binary = binaryInfo[launchSites[i].binary];
    if (binary.arch != original.arch)
      return fail("its steps run on devices of two archs ('" + original.arch +
                  "', '" + binary.arch + "')");
    std::string why;
    std::unique_ptr<hal::PreparedLaunch> launch =
        devices[step.device]->prepareLaunch(
            replacement, 0, launchSites[i].buffers,
            "step " + std::to_string(i) + " ('" + step.name + "')", why);
    if (!launch)
      return fail(why);
    launch->sizes = step.launch->sizes;
    launches.push_back(std::move(launch));
  }
  for (const std::unique_ptr<hal::Device> &device : devices) {
    std::string why;
    if (device && !device->finishSetup(why))
      return fail(why);
  }
  ++nextBinaryIndex;
  binaryInfo.resize(nextBinaryIndex);
  binaryInfo[index] = {original.arch, format, {}, original.requiredFeatures};
  for (size_t k = 0; k < sites.size(); ++k) {
    steps[sites[k]].launch = std::move(launches[k]);
    launchSites[sites[k]].binary = index;
  }
  ++replacedKernels;
  return true;
}

Session::Session() = default;

void Session::startWorkers() {
  for (size_t device = 0; device < queues.size(); ++device)
    workers.emplace_back(&Session::workerMain, this, device);
}

Session::~Session() {
  {
    std::lock_guard<std::mutex> lock(controlMutex);
    stopping = true;
  }
  startRun.notify_all();
  for (std::thread &worker : workers)
    if (worker.joinable())
      worker.join();
  auto callerStates = saveCallerStates();
  steps.clear();
  stepEvents.clear();
  // Devices whose memory is not the host's go first: they may have pinned
  // the host arenas of the others.
  for (std::unique_ptr<hal::Device> &device : devices)
    if (device && !device->isHostMemory())
      device.reset();
  callerStates.clear();
  devices.clear();
}

uint64_t Session::nowNs() const {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - runStart)
          .count());
}

void Session::workerMain(size_t device) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(controlMutex);
      startRun.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
    }
    for (uint32_t index : queues[device])
      executeStep(index);
    finishAsyncSteps(device);
    bool last;
    {
      std::lock_guard<std::mutex> lock(controlMutex);
      last = --busyWorkers == 0;
    }
    if (last)
      runFinished.notify_all();
  }
}

bool Session::waitForDeps(size_t index) {
  const PreparedStep &step = steps[index];
  StepEvent &event = *events[index];
  for (uint32_t dep : step.deps) {
    const PreparedStep &depStep = steps[dep];
    if (events[dep]->wait() == StepEvent::State::Failed) {
      // Finish (as failed) rather than return early: steps on other queues
      // may wait for this one.
      event.finish(StepEvent::State::Failed,
                   "step " + std::to_string(index) + " ('" + step.name +
                       "') did not run: step " + std::to_string(dep) +
                       " failed");
      return false;
    }
    // An asynchronous step is Done once enqueued: wait for its event, on the
    // device when this step is an asynchronous step of a queue that can wait
    // for it, else on the host. Steps of one queue run in order.
    if (!depStep.async ||
        (step.async == depStep.async && step.queue == depStep.queue))
      continue;
    std::string error;
    bool waited =
        step.async && step.async->canWaitOnDevice(*depStep.async)
            ? step.async->waitForEvent(step.queue, *depStep.events.done, error)
            : depStep.async->synchronizeEvent(*depStep.events.done, error);
    if (!waited) {
      event.finish(StepEvent::State::Failed,
                   "step " + std::to_string(index) + " ('" + step.name +
                       "') did not run: waiting for step " +
                       std::to_string(dep) + " ('" + depStep.name +
                       "') failed: " + error);
      return false;
    }
  }
  return true;
}

bool Session::runCopy(const PreparedCopy &copy, std::string &error) {
  if (copy.bytes == 0)
    return true;
  if (!copy.copier) {
    std::memmove(copy.destination.address, copy.source.address, copy.bytes);
    return true;
  }
  if (!copy.staging)
    return copy.copier->copyAndWait(copy.destination, copy.source, copy.bytes,
                                    error);
  // Neither side's device reaches the other: through host memory.
  std::vector<uint8_t> staging(copy.bytes);
  hal::Memory host{nullptr, staging.data()};
  return copy.source.device->copyAndWait(host, copy.source, copy.bytes,
                                         error) &&
         copy.destination.device->copyAndWait(copy.destination, host,
                                              copy.bytes, error);
}

bool Session::runSelect(const PreparedStep &step, StepTiming &timing,
                        std::string &error) {
  uint8_t condition = 0;
  if (!step.condition.device) {
    condition = *static_cast<const uint8_t *>(step.condition.address);
  } else if (!step.condition.device->copyAndWait(
                 hal::Memory{nullptr, &condition}, step.condition, 1, error)) {
    error = "cannot read the condition: " + error;
    return false;
  }
  int taken = condition != 0;
  timing.selected = static_cast<int8_t>(taken);
  for (const PreparedCopy &copy : step.alternatives[taken])
    if (!runCopy(copy, error))
      return false;
  return true;
}

void Session::executeStep(size_t index) {
  PreparedStep &step = steps[index];
  StepEvent &event = *events[index];
  if (!waitForDeps(index))
    return;
  event.timing.startNs = nowNs();
  auto fail = [&](const std::string &error) {
    event.finish(StepEvent::State::Failed, "step " + std::to_string(index) +
                                               " ('" + step.name +
                                               "') failed: " + error);
  };
  std::string error;
  bool ok;
  if (step.kind == StepKind::Launch) {
    ok = devices[step.device]->launch(*step.launch, step.events, error);
    if (BranchCounters *counters = stepCounters[index])
      counters->launches.fetch_add(1, std::memory_order_relaxed);
  } else if (step.kind == StepKind::Select) {
    ok = runSelect(step, event.timing, error);
    if (BranchCounters *counters = stepCounters[index]; ok && counters) {
      // Only this device's worker runs the step; a run's end orders it
      // before getBranchProfile.
      ++counters->counts[event.timing.selected == 1 ? 0 : 1];
      counters->launches.fetch_add(1, std::memory_order_relaxed);
    }
  } else if (step.async)
    ok = step.async->enqueueCopy(step.copy.destination, step.copy.source,
                                 step.copy.bytes, step.events, error);
  else
    ok = runCopy(step.copy, error);
  if (!ok)
    return fail(error);
  // An asynchronous step's end time is taken when its event completes
  // (finishAsyncSteps).
  if (!step.async)
    event.timing.endNs = nowNs();
  event.finish(StepEvent::State::Done);
}

void Session::finishAsyncSteps(size_t device) {
  for (uint32_t index : queues[device]) {
    const PreparedStep &step = steps[index];
    StepEvent &event = *events[index];
    if (!step.async || event.wait() != StepEvent::State::Done)
      continue;
    std::string error;
    if (!step.async->synchronizeEvent(*step.events.done, error)) {
      event.finish(StepEvent::State::Failed, "step " + std::to_string(index) +
                                                 " ('" + step.name +
                                                 "') failed: " + error);
      continue;
    }
    event.timing.endNs = nowNs();
    // The device time is a measurement, not a result: without it the trace
    // says 0.
    std::string timingError;
    if (step.events.started && !step.async->elapsedNanoseconds(
                                   *step.events.started, *step.events.finished,
                                   event.timing.deviceNs, timingError))
      event.timing.deviceNs = 0;
  }
}

bool Session::setInputShape(size_t index, const std::vector<int64_t> &shape,
                            std::string &error) {
  std::lock_guard<std::mutex> runLock(runMutex);
  if (index >= inputSlots.size()) {
    error = "no input " + std::to_string(index) + " (the artifact has " +
            std::to_string(inputSlots.size()) + ")";
    return false;
  }
  const Slot &slot = inputSlots[index];
  const TensorDesc &desc = slot.desc;
  std::string what = "input " + std::to_string(index) + " " + slot.name;
  if (shape.size() != desc.shape.size()) {
    error = what + ": expected rank " + std::to_string(desc.shape.size()) +
            ", got " + std::to_string(shape.size());
    return false;
  }
  size_t dynamic = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (desc.shape[axis] != -1) {
      if (shape[axis] != desc.shape[axis]) {
        error = what + ": dimension " + std::to_string(axis) + " is " +
                std::to_string(shape[axis]) + ", expected " +
                std::to_string(desc.shape[axis]);
        return false;
      }
      continue;
    }
    int64_t dim = getDimIndex(desc.dynamicSizes[dynamic++]);
    if (dim < 0 || static_cast<size_t>(dim) >= dims.size()) {
      error = what + ": dimension " + std::to_string(axis) +
              " is not one named dim";
      return false;
    }
    const DimDesc &range = dims[dim];
    if (shape[axis] < range.min || shape[axis] > range.max) {
      error = what + ": dimension " + std::to_string(axis) + " ('" +
              range.name + "') is " + std::to_string(shape[axis]) +
              ", outside the range " + std::to_string(range.min) + ".." +
              std::to_string(range.max) +
              " it was compiled for (compile with --dim " + range.name +
              "=MIN..MAX for another)";
      return false;
    }
  }
  inputShapes[index] = shape;
  return true;
}

bool Session::bindDims(std::vector<int64_t> &values, std::string &error) const {
  values.assign(dims.size(), -1);
  std::vector<size_t> boundBy(dims.size());
  for (size_t i = 0; i < inputSlots.size(); ++i) {
    const TensorDesc &desc = inputSlots[i].desc;
    if (!desc.isDynamic())
      continue;
    if (inputShapes[i].empty() && !desc.shape.empty()) {
      error = "input " + std::to_string(i) + " " + inputSlots[i].name +
              " has dynamic dimensions: set its shape first "
              "(orx_session_set_input_shape)";
      return false;
    }
    size_t dynamic = 0;
    for (size_t axis = 0; axis < desc.shape.size(); ++axis) {
      if (desc.shape[axis] != -1)
        continue;
      int64_t dim = getDimIndex(desc.dynamicSizes[dynamic++]);
      int64_t size = inputShapes[i][axis];
      if (values[dim] == -1) {
        values[dim] = size;
        boundBy[dim] = i;
      } else if (values[dim] != size) {
        error = "input " + std::to_string(i) + " " + inputSlots[i].name +
                ": dimension " + std::to_string(axis) + " ('" + dims[dim].name +
                "') is " + std::to_string(size) + ", but input " +
                std::to_string(boundBy[dim]) + " " +
                inputSlots[boundBy[dim]].name + " sets it to " +
                std::to_string(values[dim]);
        return false;
      }
    }
  }
  for (size_t dim = 0; dim < dims.size(); ++dim)
    if (values[dim] == -1) {
      error = "no input sets dim '" + dims[dim].name + "'";
      return false;
    }
  return true;
}

bool Session::evaluateShape(const TensorDesc &desc,
                            const std::vector<int64_t> &values,
                            std::vector<int64_t> &shape,
                            std::string &error) const {
  shape = desc.shape;
  size_t dynamic = 0;
  for (int64_t &size : shape)
    if (size == -1 &&
        !evaluateSize(desc.dynamicSizes[dynamic++], values, size, error))
      return false;
  return true;
}

bool Session::getOutputShape(size_t index, std::vector<int64_t> &shape,
                             std::string &error) const {
  if (index >= outputSlots.size()) {
    error = "no output " + std::to_string(index) + " (the artifact has " +
            std::to_string(outputSlots.size()) + ")";
    return false;
  }
  const TensorDesc &desc = outputSlots[index].desc;
  if (!desc.isDynamic()) {
    shape = desc.shape;
    return true;
  }
  std::vector<int64_t> values;
  return bindDims(values, error) && evaluateShape(desc, values, shape, error);
}

bool Session::prepareRun(std::string &error) {
  if (dims.empty())
    return true;
  std::vector<int64_t> values;
  if (!bindDims(values, error))
    return false;
  // The bytes of each dynamic input and output at these sizes, within the
  // buffer the plan holds for it.
  auto sizeSlot = [&](Slot &slot, const char *kind, size_t index) {
    if (!slot.desc.isDynamic())
      return true;
    std::vector<int64_t> shape;
    if (!evaluateShape(slot.desc, values, shape, error))
      return false;
    uint64_t bytes = dtypeSize(slot.desc.dtype);
    for (int64_t size : shape)
      if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(size), &bytes))
        bytes = std::numeric_limits<uint64_t>::max();
    if (bytes > slot.capacity) {
      error = std::string(kind) + " " + std::to_string(index) + " " +
              slot.name + " needs " + std::to_string(bytes) +
              " bytes at these sizes, more than its " +
              std::to_string(slot.capacity) + "-byte buffer";
      return false;
    }
    slot.bytes = bytes;
    return true;
  };
  for (size_t i = 0; i < inputSlots.size(); ++i)
    if (!sizeSlot(inputSlots[i], "input", i))
      return false;
  for (size_t i = 0; i < outputSlots.size(); ++i)
    if (!sizeSlot(outputSlots[i], "output", i))
      return false;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].launch)
      continue;
    std::vector<int64_t> &sizes = steps[i].launch->sizes;
    sizes.resize(stepSizes[i].size());
    for (size_t j = 0; j < sizes.size(); ++j)
      if (!evaluateSize(stepSizes[i][j], values, sizes[j], error)) {
        error = "step " + std::to_string(i) + " ('" + steps[i].name +
                "'): " + error;
        return false;
      }
  }
  return true;
}

bool Session::run(const void *const *inputs, const size_t *inputSizes,
                  size_t numInputs, void *const *outputs,
                  const size_t *outputSizes, size_t numOutputs,
                  std::string &error) {
  std::lock_guard<std::mutex> runLock(runMutex);
  if (numInputs != inputSlots.size()) {
    error = "expected " + std::to_string(inputSlots.size()) + " inputs, got " +
            std::to_string(numInputs);
    return false;
  }
  if (numOutputs != outputSlots.size()) {
    error = "expected " + std::to_string(outputSlots.size()) +
            " outputs, got " + std::to_string(numOutputs);
    return false;
  }
  if ((numInputs && (!inputs || !inputSizes)) ||
      (numOutputs && (!outputs || !outputSizes))) {
    error = "null input or output array";
    return false;
  }
  if (!prepareRun(error))
    return false;
  for (size_t i = 0; i < numInputs; ++i) {
    const Slot &slot = inputSlots[i];
    if (inputSizes[i] != slot.bytes) {
      error = "input " + std::to_string(i) + " " + slot.name + ": expected " +
              std::to_string(slot.bytes) + " bytes, got " +
              std::to_string(inputSizes[i]);
      return false;
    }
    if (slot.bytes && !inputs[i]) {
      error = "input " + std::to_string(i) + " " + slot.name + " is null";
      return false;
    }
  }
  for (size_t i = 0; i < numOutputs; ++i) {
    const Slot &slot = outputSlots[i];
    if (outputSizes[i] != slot.bytes) {
      error = "output " + std::to_string(i) + " " + slot.name + ": expected " +
              std::to_string(slot.bytes) + " bytes, got " +
              std::to_string(outputSizes[i]);
      return false;
    }
    if (slot.bytes && !outputs[i]) {
      error = "output " + std::to_string(i) + " " + slot.name + " is null";
      return false;
    }
  }

  trace.clear();
  auto callerStates = saveCallerStates();
  for (size_t i = 0; i < numInputs; ++i) {
    const Slot &slot = inputSlots[i];
    if (!slot.bytes)
      continue;
    if (!slot.memory.device) {
      std::memcpy(slot.memory.address, inputs[i], slot.bytes);
      continue;
    }
    hal::Memory host{nullptr, const_cast<void *>(inputs[i])};
    if (!slot.memory.device->copyAndWait(slot.memory, host, slot.bytes,
                                         error)) {
      error = "cannot copy input " + std::to_string(i) + " " + slot.name +
              " to " + slot.memory.device->getDescription() + ": " + error;
      return false;
    }
  }
  for (std::unique_ptr<StepEvent> &event : events) {
    event->state = StepEvent::State::Pending;
    event->error.clear();
    event->timing = {};
  }

  {
    std::unique_lock<std::mutex> lock(controlMutex);
    runStart = std::chrono::steady_clock::now();
    busyWorkers = workers.size();
    ++generation;
    startRun.notify_all();
    runFinished.wait(lock, [&] { return busyWorkers == 0; });
  }

  // Every asynchronous step has completed (finishAsyncSteps); wait for the
  // queues too.
  std::string syncError;
  for (const std::unique_ptr<hal::Device> &device : devices)
    if (device && syncError.empty())
      device->synchronize(syncError);
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i]->state == StepEvent::State::Failed) {
      error = events[i]->error;
      return false;
    }
  }
  if (!syncError.empty()) {
    error = syncError;
    return false;
  }
  for (size_t i = 0; i < numOutputs; ++i) {
    const Slot &slot = outputSlots[i];
    if (!slot.bytes)
      continue;
    if (!slot.memory.device) {
      std::memcpy(outputs[i], slot.memory.address, slot.bytes);
      continue;
    }
    hal::Memory host{nullptr, outputs[i]};
    if (!slot.memory.device->copyAndWait(host, slot.memory, slot.bytes,
                                         error)) {
      error = "cannot copy output " + std::to_string(i) + " " + slot.name +
              " from " + slot.memory.device->getDescription() + ": " + error;
      return false;
    }
  }
  for (const std::unique_ptr<StepEvent> &event : events)
    trace.push_back(event->timing);
  return true;
}
