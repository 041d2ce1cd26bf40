//===- Session.cpp - Running the plan of an artifact ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "KernelAllocator.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/mman.h>
#include <unistd.h>

using namespace orx;

static std::string describeTensor(const TensorDesc &desc) {
  std::string result = dtypeName(desc.dtype);
  result += "[";
  for (size_t i = 0; i < desc.shape.size(); ++i)
    result += (i ? "x" : "") + std::to_string(desc.shape[i]);
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
  // A GPU the plan does not use (no step runs on it, none of its memory
  // spaces holds a byte) needs neither the driver nor the device.
  session->usedDevices.assign(artifact.devices.size(), false);
  for (const StepDesc &step : artifact.steps)
    session->usedDevices[step.device] = true;
  for (const MemorySpaceDesc &space : artifact.memorySpaces)
    if (space.arenaBytes != 0)
      session->usedDevices[space.device] = true;
  for (size_t i = 0; i < artifact.devices.size(); ++i) {
    const DeviceDesc &device = artifact.devices[i];
    if (!isCudaArch(device.arch) || !session->usedDevices[i])
      continue;
    session->cudaDriver = CudaDriver::get(
        "device '" + device.name + "' (" + device.arch + ")", error);
    if (!session->cudaDriver)
      return nullptr;
    break;
  }
  // Creation makes the devices' contexts current; restore the caller's.
  CudaContextGuard guard(session->cudaDriver);
  if (!session->createCudaDevices(artifact, error) ||
      !session->allocateArenas(artifact, error) ||
      !session->prepareSteps(artifact, error))
    return nullptr;
  // The memsets of the arenas and the constants' copies must be complete
  // before the streams run.
  for (const std::unique_ptr<CudaDevice> &gpu : session->cudaDevices)
    if (gpu && !gpu->synchronizeContext(error))
      return nullptr;
  session->startWorkers();
  return session;
}

bool Session::createCudaDevices(const Artifact &artifact, std::string &error) {
  cudaDevices.resize(artifact.devices.size());
  for (size_t i = 0; i < artifact.devices.size(); ++i) {
    if (!isCudaArch(artifact.devices[i].arch) || !usedDevices[i])
      continue;
    cudaDevices[i] =
        CudaDevice::create(*cudaDriver, artifact.devices[i], error);
    if (!cudaDevices[i])
      return false;
  }
  return true;
}

bool Session::allocateArenas(const Artifact &artifact, std::string &error) {
  for (const MemorySpaceDesc &space : artifact.memorySpaces) {
    if (CudaDevice *gpu = cudaDevices[space.device].get()) {
      CUdeviceptr base = 0;
      if (!gpu->allocate(space.arenaBytes,
                         "the " + std::to_string(space.arenaBytes) +
                             "-byte arena of memory space '" + space.name + "'",
                         base, error))
        return false;
      arenas.push_back({reinterpret_cast<void *>(static_cast<uintptr_t>(base)),
                        static_cast<size_t>(space.arenaBytes), gpu});
      continue;
    }
    // Anonymous mappings are page-aligned (more than the 64 bytes kernels may
    // assume) and zero-filled on first touch, so a large arena costs nothing
    // until it is used. Every arena gets at least one page so that every
    // slot, even an empty one, has an address.
    uint64_t bytes = std::max<uint64_t>(space.arenaBytes, 1);
    void *base = MAP_FAILED;
    if (bytes <= std::numeric_limits<size_t>::max() / 2)
      base = ::mmap(nullptr, static_cast<size_t>(bytes), PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      error = "cannot allocate the " + std::to_string(space.arenaBytes) +
              "-byte arena of memory space '" + space.name + "'";
      return false;
    }
    arenas.push_back({base, static_cast<size_t>(bytes), nullptr});
  }
  return true;
}

/// The device address that `pointer` (an address in device memory, see
/// PreparedStep) stands for.
static CUdeviceptr toDeviceAddress(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

static std::string describeStep(const StepDesc &step, size_t index) {
  return "step " + std::to_string(index) + " ('" + step.name + "')";
}

bool Session::prepareSteps(const Artifact &artifact, std::string &error) {
  auto slot = [&](uint32_t valueId) {
    const ValueDesc &value = artifact.values[valueId];
    return static_cast<char *>(arenas[value.space].base) + value.offset;
  };
  auto gpuOf = [&](uint32_t valueId) {
    return arenas[artifact.values[valueId].space].gpu;
  };
  for (const ConstantDesc &constant : artifact.constants) {
    if (constant.data.empty())
      continue;
    if (CudaDevice *gpu = gpuOf(constant.value)) {
      if (!gpu->upload(toDeviceAddress(slot(constant.value)),
                       constant.data.data(), constant.data.size(), error)) {
        error = "cannot copy the constant of value " +
                std::to_string(constant.value) + ": " + error;
        return false;
      }
      continue;
    }
    std::memcpy(slot(constant.value), constant.data.data(),
                constant.data.size());
  }

  // Load only the binaries some kernel uses, each once. GPU module bundles
  // are parsed here and loaded by the devices whose steps launch them.
  std::vector<KernelFn> kernels(artifact.kernels.size(), nullptr);
  binaries.resize(artifact.binaries.size());
  bundles.resize(artifact.binaries.size());
  for (size_t i = 0; i < artifact.kernels.size(); ++i) {
    const KernelDesc &kernel = artifact.kernels[i];
    const BinaryDesc &binaryDesc = artifact.binaries[kernel.binary];
    if (isGpuBundle(binaryDesc)) {
      std::unique_ptr<GpuBundle> &bundle = bundles[kernel.binary];
      if (!bundle) {
        bundle = std::make_unique<GpuBundle>();
        if (!parseGpuBundleBinary(binaryDesc, kernel.binary, *bundle, error))
          return false;
      }
      if (!bundle->lookupKernel(kernel.symbol)) {
        error = "kernel '" + kernel.symbol +
                "' is not defined in kernel binary " +
                std::to_string(kernel.binary);
        return false;
      }
      continue;
    }
    std::unique_ptr<LoadedBinary> &binary = binaries[kernel.binary];
    if (!binary) {
      binary = LoadedBinary::load(binaryDesc, kernel.binary, error);
      if (!binary)
        return false;
    }
    kernels[i] = binary->lookup(kernel.symbol, error);
    if (!kernels[i])
      return false;
  }

  std::vector<bool> pinned(arenas.size(), false);
  for (size_t index = 0; index < artifact.steps.size(); ++index) {
    const StepDesc &desc = artifact.steps[index];
    const DeviceDesc &device = artifact.devices[desc.device];
    CudaDevice *queueGpu = cudaDevices[desc.device].get();
    PreparedStep step;
    step.kind = desc.kind;
    step.device = desc.device;
    step.name = desc.name;
    step.deps = desc.deps;
    step.predictedStart = desc.predictedStart;
    step.predictedFinish = desc.predictedFinish;
    if (desc.kind == StepKind::Launch) {
      // A kernel addresses the memory of its own device only.
      for (uint32_t arg : desc.args) {
        if (gpuOf(arg) == queueGpu)
          continue;
        const MemorySpaceDesc &space =
            artifact.memorySpaces[artifact.values[arg].space];
        error = describeStep(desc, index) + " on device '" + device.name +
                "' uses value " + std::to_string(arg) +
                ", which is in memory space '" + space.name + "' of device '" +
                artifact.devices[space.device].name +
                "': its kernel cannot address it";
        return false;
      }
      if (queueGpu) {
        if (!prepareGpuLaunch(artifact, index, step, error))
          return false;
      } else {
        const KernelDesc &kernel = artifact.kernels[desc.kernel];
        const BinaryDesc &binary = artifact.binaries[kernel.binary];
        if (isGpuBundle(binary)) {
          error = describeStep(desc, index) + " runs on device '" +
                  device.name + "' (" + device.arch + "), but its kernel '" +
                  kernel.symbol + "' is in kernel binary " +
                  std::to_string(kernel.binary) +
                  ", a GPU module bundle for '" + binary.arch + "'";
          return false;
        }
        step.kernel = kernels[desc.kernel];
        for (uint32_t arg : desc.args)
          step.args.push_back(slot(arg));
      }
    } else {
      step.source = slot(desc.args[0]);
      step.destination = slot(desc.args[1]);
      step.bytes = artifact.values[desc.args[0]].bytes;
      step.sourceGpu = gpuOf(desc.args[0]);
      step.destinationGpu = gpuOf(desc.args[1]);
      if (queueGpu && (step.sourceGpu || step.destinationGpu)) {
        step.gpu = queueGpu;
        step.stream = queueGpu->getCopyStream();
      }
      // Pin host arenas that a GPU copies to or from, so that the copies are
      // asynchronous. Where the driver cannot pin them (some sandboxes), the
      // copies go from pageable memory: still correct, but the host waits
      // for each.
      CudaDevice *copier = step.gpu         ? step.gpu
                           : step.sourceGpu ? step.sourceGpu
                                            : step.destinationGpu;
      for (uint32_t value : desc.args) {
        uint32_t space = artifact.values[value].space;
        if (!copier || arenas[space].gpu || pinned[space])
          continue;
        // Whole pages: the mapping is page-aligned and covers them.
        size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
        size_t pages = (arenas[space].mappedBytes + page - 1) / page;
        std::string ignored;
        copier->registerHostMemory(arenas[space].base, pages * page,
                                   "the arena of memory space '" +
                                       artifact.memorySpaces[space].name + "'",
                                   ignored);
        pinned[space] = true; // tried: once per arena
      }
    }
    if (step.gpu) {
      if (!step.gpu->createEvent(step.done, error))
        return false;
      if (step.gpu->canTime() &&
          (!step.gpu->createEvent(step.started, error, /*timing=*/true) ||
           !step.gpu->createEvent(step.finished, error, /*timing=*/true)))
        return false;
    }
    steps.push_back(std::move(step));
    events.push_back(std::make_unique<StepEvent>());
  }

  queues.resize(artifact.devices.size());
  for (size_t i = 0; i < steps.size(); ++i)
    queues[steps[i].device].push_back(static_cast<uint32_t>(i));

  // Described in messages as "'x' (f32[4x4])".
  auto describe = [](const TensorDesc &desc) {
    return "'" + desc.name + "' (" + describeTensor(desc) + ")";
  };
  for (size_t i = 0; i < artifact.inputs.size(); ++i)
    inputSlots.push_back(
        {slot(artifact.inputValues[i]), artifact.inputs[i].byteSize(),
         describe(artifact.inputs[i]), gpuOf(artifact.inputValues[i])});
  for (size_t i = 0; i < artifact.outputs.size(); ++i)
    outputSlots.push_back(
        {slot(artifact.outputValues[i]), artifact.outputs[i].byteSize(),
         describe(artifact.outputs[i]), gpuOf(artifact.outputValues[i])});
  return true;
}

bool Session::prepareGpuLaunch(const Artifact &artifact, size_t index,
                               PreparedStep &step, std::string &error) {
  const StepDesc &desc = artifact.steps[index];
  const DeviceDesc &device = artifact.devices[desc.device];
  CudaDevice &gpu = *cudaDevices[desc.device];
  const KernelDesc &kernel = artifact.kernels[desc.kernel];
  const BinaryDesc &binary = artifact.binaries[kernel.binary];
  if (!isGpuBundle(binary)) {
    error = describeStep(desc, index) + " runs on device '" + device.name +
            "' (" + device.arch + "), but its kernel '" + kernel.symbol +
            "' is in kernel binary " + std::to_string(kernel.binary) +
            " of format '" + binary.format + "', not a GPU module bundle";
    return false;
  }
  if (binary.arch != device.arch) {
    error = "kernel binary " + std::to_string(kernel.binary) +
            " is for arch '" + binary.arch + "', device '" + device.name +
            "' is '" + device.arch + "'";
    return false;
  }
  const CudaKernel *prepared = gpu.prepareKernel(
      kernel.binary, *bundles[kernel.binary], kernel.symbol, error);
  if (!prepared)
    return false;
  std::vector<CUdeviceptr> buffers;
  for (uint32_t arg : desc.args) {
    const ValueDesc &value = artifact.values[arg];
    buffers.push_back(toDeviceAddress(
        static_cast<char *>(arenas[value.space].base) + value.offset));
  }
  if (!gpu.prepareLaunches(*prepared, buffers, step.gpuLaunches, error)) {
    error = describeStep(desc, index) + ": " + error;
    return false;
  }
  step.gpu = &gpu;
  step.stream = gpu.getKernelStream();
  return true;
}

Session::Session() { retainKernelAllocator(); }

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
  // Release the GPUs (and unpin host arenas) before the arenas go away.
  cudaDevices.clear();
  // Unload the kernels before the arenas they may point into go away.
  binaries.clear();
  for (Arena &arena : arenas)
    if (!arena.gpu)
      ::munmap(arena.base, arena.mappedBytes);
  releaseKernelAllocator();
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
    finishGpuSteps(device);
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
    // A GPU step is Done once enqueued: wait for its event, on the GPU when
    // this step is a GPU step on another stream, else on the host.
    if (!depStep.gpu || (step.gpu && step.stream == depStep.stream))
      continue;
    std::string error;
    bool waited = step.gpu
                      ? step.gpu->waitEvent(step.stream, depStep.done, error)
                      : depStep.gpu->synchronizeEvent(depStep.done, error);
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

bool Session::enqueueGpuStep(const PreparedStep &step, std::string &error) {
  if (step.kind == StepKind::Launch) {
    if (!step.gpu->enqueueLaunches(step.gpuLaunches, step.started, error))
      return false;
  } else {
    if (step.started &&
        !step.gpu->recordEvent(step.started, step.stream, error))
      return false;
    if (step.bytes != 0 &&
        !step.gpu->enqueueCopy(step.stream, step.destinationGpu,
                               step.destination, step.sourceGpu, step.source,
                               step.bytes, error))
      return false;
  }
  if (step.finished &&
      !step.gpu->recordEvent(step.finished, step.stream, error))
    return false;
  return step.gpu->recordEvent(step.done, step.stream, error);
}

bool Session::runCopy(const PreparedStep &step, std::string &error) {
  if (step.bytes == 0)
    return true;
  if (!step.sourceGpu && !step.destinationGpu) {
    std::memmove(step.destination, step.source, step.bytes);
    return true;
  }
  // A CPU queue copies to or from GPU memory through the GPU's host stream.
  CudaDevice *gpu = step.sourceGpu ? step.sourceGpu : step.destinationGpu;
  return gpu->copyAndWait(step.destinationGpu, step.destination, step.sourceGpu,
                          step.source, step.bytes, error);
}

void Session::executeStep(size_t index) {
  const PreparedStep &step = steps[index];
  StepEvent &event = *events[index];
  if (!waitForDeps(index))
    return;
  event.timing.startNs = nowNs();
  auto fail = [&](const std::string &error) {
    event.finish(StepEvent::State::Failed, "step " + std::to_string(index) +
                                               " ('" + step.name +
                                               "') failed: " + error);
  };
  if (step.gpu) {
    // The end time is taken when the step's event completes
    // (finishGpuSteps).
    std::string error;
    if (!enqueueGpuStep(step, error))
      return fail(error);
    event.finish(StepEvent::State::Done);
    return;
  }
  if (step.kind == StepKind::Launch) {
    if (!step.kernel) {
      event.finish(StepEvent::State::Failed, "step " + std::to_string(index) +
                                                 " ('" + step.name +
                                                 "') has no kernel");
      return;
    }
    // Kernels get a copy of the argument array, so one that writes into it
    // cannot change the next run.
    void *args[16];
    std::vector<void *> heapArgs;
    void **argv = args;
    if (step.args.size() > 16) {
      heapArgs = step.args;
      argv = heapArgs.data();
    } else {
      std::copy(step.args.begin(), step.args.end(), args);
    }
    step.kernel(argv);
  } else {
    std::string error;
    if (!runCopy(step, error))
      return fail(error);
  }
  event.timing.endNs = nowNs();
  event.finish(StepEvent::State::Done);
}

void Session::finishGpuSteps(size_t device) {
  if (!cudaDevices[device])
    return;
  for (uint32_t index : queues[device]) {
    const PreparedStep &step = steps[index];
    StepEvent &event = *events[index];
    if (!step.gpu || event.wait() != StepEvent::State::Done)
      continue;
    std::string error;
    if (!step.gpu->synchronizeEvent(step.done, error)) {
      event.finish(StepEvent::State::Failed, "step " + std::to_string(index) +
                                                 " ('" + step.name +
                                                 "') failed: " + error);
      continue;
    }
    event.timing.endNs = nowNs();
    // The GPU time is a measurement, not a result: without it the trace
    // says 0.
    std::string timingError;
    if (step.started &&
        !step.gpu->elapsedNanoseconds(step.started, step.finished,
                                      event.timing.deviceNs, timingError))
      event.timing.deviceNs = 0;
  }
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
  CudaContextGuard guard(cudaDriver);
  for (size_t i = 0; i < numInputs; ++i) {
    const Slot &slot = inputSlots[i];
    if (!slot.bytes)
      continue;
    if (!slot.gpu) {
      std::memcpy(slot.address, inputs[i], slot.bytes);
      continue;
    }
    if (!slot.gpu->copyAndWait(slot.gpu, slot.address, nullptr, inputs[i],
                               slot.bytes, error)) {
      error = "cannot copy input " + std::to_string(i) + " " + slot.name +
              " to the GPU: " + error;
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

  // Every GPU step has completed (finishGpuSteps); wait for the streams too.
  std::string syncError;
  for (const std::unique_ptr<CudaDevice> &gpu : cudaDevices)
    if (gpu && syncError.empty())
      gpu->synchronize(syncError);
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
    if (!slot.gpu) {
      std::memcpy(outputs[i], slot.address, slot.bytes);
      continue;
    }
    if (!slot.gpu->copyAndWait(nullptr, outputs[i], slot.gpu, slot.address,
                               slot.bytes, error)) {
      error = "cannot copy output " + std::to_string(i) + " " + slot.name +
              " from the GPU: " + error;
      return false;
    }
  }
  for (const std::unique_ptr<StepEvent> &event : events)
    trace.push_back(event->timing);
  return true;
}
