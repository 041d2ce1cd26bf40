//===- Session.cpp - Running the plan of an artifact ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/mman.h>

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
  if (!session->allocateArenas(artifact, error) ||
      !session->prepareSteps(artifact, error))
    return nullptr;
  session->startWorkers();
  return session;
}

bool Session::allocateArenas(const Artifact &artifact, std::string &error) {
  for (const MemorySpaceDesc &space : artifact.memorySpaces) {
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
    arenas.push_back({base, static_cast<size_t>(bytes)});
  }
  return true;
}

bool Session::prepareSteps(const Artifact &artifact, std::string &error) {
  auto slot = [&](uint32_t valueId) {
    const ValueDesc &value = artifact.values[valueId];
    return static_cast<char *>(arenas[value.space].base) + value.offset;
  };
  for (const ConstantDesc &constant : artifact.constants)
    if (!constant.data.empty())
      std::memcpy(slot(constant.value), constant.data.data(),
                  constant.data.size());

  // Load only the binaries some kernel uses, each once.
  std::vector<KernelFn> kernels(artifact.kernels.size(), nullptr);
  binaries.resize(artifact.binaries.size());
  for (size_t i = 0; i < artifact.kernels.size(); ++i) {
    const KernelDesc &kernel = artifact.kernels[i];
    std::unique_ptr<LoadedBinary> &binary = binaries[kernel.binary];
    if (!binary) {
      binary = LoadedBinary::load(artifact.binaries[kernel.binary],
                                  kernel.binary, error);
      if (!binary)
        return false;
    }
    kernels[i] = binary->lookup(kernel.symbol, error);
    if (!kernels[i])
      return false;
  }

  for (const StepDesc &desc : artifact.steps) {
    PreparedStep step;
    step.kind = desc.kind;
    step.device = desc.device;
    step.name = desc.name;
    step.deps = desc.deps;
    step.predictedStart = desc.predictedStart;
    step.predictedFinish = desc.predictedFinish;
    if (desc.kind == StepKind::Launch) {
      step.kernel = kernels[desc.kernel];
      for (uint32_t arg : desc.args)
        step.args.push_back(slot(arg));
    } else {
      step.source = slot(desc.args[0]);
      step.destination = slot(desc.args[1]);
      step.bytes = artifact.values[desc.args[0]].bytes;
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
    inputSlots.push_back({slot(artifact.inputValues[i]),
                          artifact.inputs[i].byteSize(),
                          describe(artifact.inputs[i])});
  for (size_t i = 0; i < artifact.outputs.size(); ++i)
    outputSlots.push_back({slot(artifact.outputValues[i]),
                           artifact.outputs[i].byteSize(),
                           describe(artifact.outputs[i])});
  return true;
}

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
  // Unload the kernels before the arenas they may point into go away.
  binaries.clear();
  for (Arena &arena : arenas)
    ::munmap(arena.base, arena.mappedBytes);
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
    bool last;
    {
      std::lock_guard<std::mutex> lock(controlMutex);
      last = --busyWorkers == 0;
    }
    if (last)
      runFinished.notify_all();
  }
}

void Session::executeStep(size_t index) {
  const PreparedStep &step = steps[index];
  StepEvent &event = *events[index];
  for (uint32_t dep : step.deps) {
    if (events[dep]->wait() == StepEvent::State::Failed) {
      // Finish (as failed) rather than return early: steps on other queues
      // may wait for this one.
      event.finish(StepEvent::State::Failed,
                   "step " + std::to_string(index) + " ('" + step.name +
                       "') did not run: step " + std::to_string(dep) +
                       " failed");
      return;
    }
  }
  event.timing.startNs = nowNs();
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
  } else if (step.bytes != 0) {
    std::memmove(step.destination, step.source, step.bytes);
  }
  event.timing.endNs = nowNs();
  event.finish(StepEvent::State::Done);
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
  for (size_t i = 0; i < numInputs; ++i)
    if (inputSlots[i].bytes)
      std::memcpy(inputSlots[i].address, inputs[i], inputSlots[i].bytes);
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

  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i]->state == StepEvent::State::Failed) {
      error = events[i]->error;
      return false;
    }
  }
  for (size_t i = 0; i < numOutputs; ++i)
    if (outputSlots[i].bytes)
      std::memcpy(outputs[i], outputSlots[i].address, outputSlots[i].bytes);
  for (const std::unique_ptr<StepEvent> &event : events)
    trace.push_back(event->timing);
  return true;
}
