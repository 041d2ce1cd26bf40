//===- GpuDevice.cpp - A GPU driven through streams and events ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "hal/GpuDevice.h"
#include "hal/HostMemory.h"

#include <algorithm>

using namespace orx;
using namespace orx::hal;

namespace {
/// An event of a GPU device: a vendor event that the device destroys.
struct GpuEvent final : Event {
  explicit GpuEvent(GpuDevice::Handle event) : event(event) {}
  GpuDevice::Handle event;
};
} // namespace

/// One kernel launch of a launch step with its parameters resolved.
struct GpuDevice::Launch {
  Handle function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Each parameter in an 8-byte word: a device address, or an immediate (a
  /// 4-byte one in the low bytes, which come first on the little-endian
  /// hosts GPUs run on). A tensor-map parameter is the device address of its
  /// map, encoded for this step's buffers and copied there once, when the
  /// launch is prepared (the buffers do not move for the session's life).
  std::vector<uint64_t> params;
  /// The parameters that are registers of the kernel's program: (parameter,
  /// register), set as the program runs.
  std::vector<std::pair<size_t, uint64_t>> registerParams;
  /// "launch 0 ('matmul_kernel') of kernel 'orx_kernel_task0'".
  std::string name;
};

/// The launches of one step, and the program that runs them (null: each
/// once, in order).
struct GpuDevice::PreparedLaunches final : PreparedLaunch {
  std::vector<Launch> launches;
  const Kernel *kernel = nullptr;
  /// The step's values (Buffer arguments of the program).
  std::vector<Address> buffers;
};

/// The vendor event of an event of a GPU device (every event a GPU device
/// sees is one: canWaitOnDevice admits devices of its own driver only).
static GpuDevice::Handle eventOf(const Event &event) {
  return static_cast<const GpuEvent &>(event).event;
}
static GpuDevice::Handle eventOf(const Event *event) {
  return event ? eventOf(*event) : nullptr;
}

static GpuDevice::Address deviceAddress(const void *pointer) {
  return static_cast<GpuDevice::Address>(reinterpret_cast<uintptr_t>(pointer));
}

/// Returns `ok`; when false, prefixes `error` with `context` and ": ".
static bool inContext(bool ok, const std::string &context, std::string &error) {
  if (!ok)
    error = context + ": " + error;
  return ok;
}

GpuDevice::~GpuDevice() = default;

std::string GpuDevice::describeMissingOrdinal(const DeviceDesc &desc,
                                              const std::string &api,
                                              int count) {
  return "device '" + desc.name + "' (" + desc.arch + ") is " + api +
         " device " + std::to_string(desc.deviceId) +
         ", but this machine has " + std::to_string(count) + " " + api +
         " device" + (count == 1 ? "" : "s") +
         (count == 1 ? " (0)" : " (0-" + std::to_string(count - 1) + ")");
}

bool GpuDevice::createStreams(std::string &error) {
  if (!activate(error))
    return false;
  for (Handle *stream : {&kernelStream, &copyStream, &hostStream})
    if (!inContext(createStream(*stream, error), description, error))
      return false;
  return true;
}

void GpuDevice::release() {
  std::string ignored;
  if (!activate(ignored))
    return;
  synchronize(ignored);
  for (Handle event : events)
    destroyEvent(event);
  events.clear();
  for (Address allocation : allocations)
    freeMemory(allocation);
  allocations.clear();
  for (auto &entry : modules)
    for (Handle module : entry.second)
      unloadModule(module);
  modules.clear();
  kernels.clear();
  for (void *pointer : pinnedHostMemory)
    unpinHostMemory(pointer);
  pinnedHostMemory.clear();
  for (Handle *stream : {&kernelStream, &copyStream, &hostStream}) {
    if (*stream)
      destroyStream(*stream);
    *stream = nullptr;
  }
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

bool GpuDevice::allocate(uint64_t bytes, const std::string &what, Address &out,
                         std::string &error) {
  std::string context = "cannot allocate " + what + " on " + description;
  if (!activate(error))
    return false;
  size_t size = static_cast<size_t>(std::max<uint64_t>(bytes, 1));
  if (!inContext(allocateMemory(size, out, error), context, error))
    return false;
  allocations.push_back(out);
  return inContext(zeroMemory(out, size, error), context, error);
}

bool GpuDevice::allocate(uint64_t bytes, const std::string &what, void *&out,
                         std::string &error) {
  Address base = 0;
  if (!allocate(bytes, what, base, error))
    return false;
  out = reinterpret_cast<void *>(static_cast<uintptr_t>(base));
  return true;
}

bool GpuDevice::upload(void *destination, const void *source, size_t bytes,
                       std::string &error) {
  return activate(error) && inContext(copyToDevice(deviceAddress(destination),
                                                   source, bytes, error),
                                      description, error);
}

void GpuDevice::registerHostMemory(void *pointer, size_t bytes,
                                   const std::string &what) {
  // Where the driver cannot pin memory (some sandboxes), copies go from
  // pageable memory: still correct, but the host waits for each.
  std::string ignored;
  if (activate(ignored) && pinHostMemory(pointer, bytes, ignored))
    pinnedHostMemory.push_back(pointer);
}

bool GpuDevice::finishSetup(std::string &error) {
  return activate(error) &&
         inContext(synchronizeDevice(error), description, error);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

bool GpuDevice::encodeTensorMap(const GpuTensorMapDesc &, Address,
                                std::vector<uint8_t> &, std::string &error) {
  error = "the " + getDriverName() + " driver has no tensor maps";
  return false;
}

bool GpuDevice::loadModules(size_t binaryIndex, const GpuBundle &bundle,
                            std::vector<Handle> &loaded, std::string &error) {
  for (const GpuModuleDesc &module : bundle.modules) {
    Handle handle = nullptr;
    if (!inContext(loadModule(module, handle, error),
                   "cannot load module '" + module.name +
                       "' of kernel binary " + std::to_string(binaryIndex) +
                       " (built for " + bundle.chip + ") on " + description,
                   error))
      return false;
    loaded.push_back(handle);
  }
  return true;
}

const GpuDevice::Kernel *GpuDevice::prepareKernel(size_t binaryIndex,
                                                  const GpuBundle &bundle,
                                                  const std::string &symbol,
                                                  std::string &error) {
  std::unique_ptr<Kernel> &kernel = kernels[{binaryIndex, symbol}];
  if (kernel)
    return kernel.get();
  auto fail = [&] {
    kernels.erase({binaryIndex, symbol});
    return nullptr;
  };
  if (!activate(error))
    return fail();
  auto moduleIt = modules.find(binaryIndex);
  if (moduleIt == modules.end()) {
    std::vector<Handle> loaded;
    bool ok = loadModules(binaryIndex, bundle, loaded, error);
    // Keep what did load, so that release() unloads it.
    moduleIt = modules.emplace(binaryIndex, std::move(loaded)).first;
    if (!ok)
      return fail();
  }
  const std::vector<Handle> &loaded = moduleIt->second;
  if (loaded.size() != bundle.modules.size()) {
    error = "the modules of kernel binary " + std::to_string(binaryIndex) +
            " failed to load on " + description;
    return fail();
  }

  auto result = std::make_unique<Kernel>();
  result->desc = bundle.lookupKernel(symbol);
  if (!result->desc) {
    error = "kernel '" + symbol + "' is not defined in kernel binary " +
            std::to_string(binaryIndex);
    return fail();
  }
  std::string what =
      "kernel '" + symbol + "' of kernel binary " + std::to_string(binaryIndex);
  for (size_t i = 0; i < result->desc->launches.size(); ++i) {
    const GpuLaunchDesc &launch = result->desc->launches[i];
    Handle function = nullptr;
    const GpuModuleDesc &module = bundle.modules[launch.module];
    if (!inContext(getFunction(loaded[launch.module], launch.function, function,
                               error),
                   what + ": module '" + module.name + "' has no function '" +
                       launch.function + "' on " + description,
                   error) ||
        !prepareFunction(function, launch, i, what, error))
      return fail();
    result->functions.push_back(function);
  }
  for (size_t i = 0; i < result->desc->scratchBytes.size(); ++i) {
    Address scratch = 0;
    if (!allocate(result->desc->scratchBytes[i],
                  "scratch buffer " + std::to_string(i) + " (" +
                      std::to_string(result->desc->scratchBytes[i]) +
                      " bytes) of " + what,
                  scratch, error))
      return fail();
    result->scratch.push_back(scratch);
  }
  kernel = std::move(result);
  return kernel.get();
}

bool GpuDevice::prepareLaunches(const Kernel &kernel,
                                const std::vector<Address> &buffers,
                                Address counters, std::vector<Launch> &out,
                                std::string &error) {
  const GpuKernelDesc &desc = *kernel.desc;
  for (size_t i = 0; i < desc.launches.size(); ++i) {
    const GpuLaunchDesc &launch = desc.launches[i];
    Launch prepared;
    prepared.function = kernel.functions[i];
    std::copy(launch.grid, launch.grid + 3, prepared.grid);
    std::copy(launch.block, launch.block + 3, prepared.block);
    prepared.sharedBytes = launch.dynamicSharedBytes;
    prepared.name = "launch " + std::to_string(i) + " ('" + launch.function +
                    "') of kernel '" + desc.symbol + "'";
    for (size_t j = 0; j < launch.args.size(); ++j) {
      const GpuArgDesc &arg = launch.args[j];
      std::string parameter = "parameter " + std::to_string(j);
      switch (arg.kind) {
      case GpuArgKind::Buffer:
        if (arg.value >= buffers.size()) {
          error = prepared.name + ": " + parameter + " is buffer " +
                  std::to_string(arg.value) + ", but the step has " +
                  std::to_string(buffers.size()) + " values";
          return false;
        }
        // Kernels are compiled assuming 64-byte aligned buffers
        // (orchestra-gpu-kernel-argument-alignment): every slot is.
        if (buffers[arg.value] % 64 != 0) {
          error = prepared.name + ": " + parameter + " is buffer " +
                  std::to_string(arg.value) +
                  ", whose device address is not 64-byte aligned";
          return false;
        }
        prepared.params.push_back(buffers[arg.value]);
        break;
      case GpuArgKind::Scratch:
        prepared.params.push_back(kernel.scratch[arg.value]);
        break;
      case GpuArgKind::Register:
        prepared.registerParams.emplace_back(prepared.params.size(), arg.value);
        prepared.params.push_back(0);
        break;
      case GpuArgKind::ProfileCounters:
        if (!counters) {
          error = prepared.name + ": " + parameter +
                  " takes the kernel's branch counters, but the artifact "
                  "gives the kernel no branch table";
          return false;
        }
        prepared.params.push_back(counters);
        break;
      case GpuArgKind::Immediate:
        prepared.params.push_back(arg.size == 4 ? arg.value & 0xffffffffu
                                                : arg.value);
        break;
      case GpuArgKind::TensorMap: {
        const GpuTensorMapDesc &map = arg.tensorMap;
        std::string what = prepared.name + ": the tensor map of " + parameter;
        Address base;
        if (map.source == GpuArgKind::Scratch) {
          base = kernel.scratch[map.sourceIndex];
        } else if (map.sourceIndex < buffers.size()) {
          base = buffers[map.sourceIndex];
        } else {
          error = what + " describes buffer " +
                  std::to_string(map.sourceIndex) + ", but the step has " +
                  std::to_string(buffers.size()) + " values";
          return false;
        }
        std::vector<uint8_t> encoded;
        if (!inContext(encodeTensorMap(map, base, encoded, error),
                       what + " on " + description, error))
          return false;
        // Its own device memory: two steps may launch the same kernel on
        // different buffers. The copy is synchronous, ordered after the
        // zeroing that allocate() queued.
        Address target = 0;
        if (!allocate(encoded.size(), what, target, error) ||
            !activate(error) ||
            !inContext(
                copyToDevice(target, encoded.data(), encoded.size(), error),
                description, error))
          return false;
        prepared.params.push_back(target);
        break;
      }
      }
    }
    out.push_back(std::move(prepared));
  }
  return true;
}

bool GpuDevice::enqueueLaunch(const Launch &launch,
                              const std::vector<Address> &registers,
                              std::string &error) const {
  // The API copies the parameter values when the launch is enqueued.
  std::vector<uint64_t> values = launch.params;
  for (auto [param, reg] : launch.registerParams)
    values[param] = registers[reg];
  std::vector<void *> params;
  for (uint64_t &value : values)
    params.push_back(&value);
  return inContext(launchKernel(launch.function, launch.grid, launch.block,
                                launch.sharedBytes, kernelStream, params.data(),
                                error),
                   launch.name + " on " + description, error);
}

bool GpuDevice::enqueueLaunches(const PreparedLaunches &prepared,
                                Handle started, std::string &error) const {
  if (!activate(error))
    return false;
  if (started && !record(started, kernelStream, error))
    return false;
  const GpuKernelDesc &desc = *prepared.kernel->desc;
  if (desc.program.empty()) {
    for (const Launch &launch : prepared.launches)
      if (!enqueueLaunch(launch, {}, error))
        return false;
    return true;
  }
  // The program (design/0019): loops whose condition the host reads back
  // each iteration, after the launches before it.
  std::vector<Address> registers(desc.registers, 0);
  auto source = [&](uint64_t kind, uint64_t index) -> Address {
    switch (static_cast<GpuArgKind>(kind)) {
    case GpuArgKind::Buffer:
      return prepared.buffers[index];
    case GpuArgKind::Scratch:
      return prepared.kernel->scratch[index];
    default:
      return registers[index];
    }
  };
  size_t loopStart = 0, loopEnd = 0;
  uint64_t iteration = 0;
  for (size_t pc = 0; pc < desc.program.size(); ++pc) {
    const GpuInstruction &instruction = desc.program[pc];
    switch (instruction.op) {
    case GpuOp::Launch:
      if (!enqueueLaunch(prepared.launches[instruction.a], registers, error))
        return false;
      break;
    case GpuOp::Set:
      registers[instruction.a] = source(instruction.b, instruction.c);
      break;
    case GpuOp::SetAlternating:
      registers[instruction.a] =
          prepared.kernel
              ->scratch[iteration % 2 ? instruction.c : instruction.b];
      break;
    case GpuOp::LoopBegin:
      loopStart = pc + 1;
      loopEnd = pc;
      while (desc.program[loopEnd].op != GpuOp::LoopEnd)
        ++loopEnd;
      iteration = 0;
      if (instruction.b == 0 && instruction.a == 0)
        pc = loopEnd;
      break;
    case GpuOp::ExitUnless: {
      uint8_t condition = 0;
      Address address = source(instruction.b, instruction.c);
      if (!copyOn(
              kernelStream, Memory{nullptr, &condition},
              Memory{const_cast<GpuDevice *>(this),
                     reinterpret_cast<void *>(static_cast<uintptr_t>(address))},
              1, error) ||
          !inContext(synchronizeStream(kernelStream, error), description,
                     error)) {
        error = "kernel '" + desc.symbol +
                "': cannot read a loop's condition: " + error;
        return false;
      }
      if (!condition)
        pc = loopEnd;
      break;
    }
    case GpuOp::LoopEnd:
      ++iteration;
      if (desc.program[loopStart - 1].b == 1 ||
          iteration < desc.program[loopStart - 1].a)
        pc = loopStart - 1;
      break;
    }
  }
  return true;
}

std::unique_ptr<PreparedLaunch>
GpuDevice::prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                         const std::vector<void *> &buffers,
                         const std::string &step, std::string &error) {
  const KernelDesc &kernel = artifact.kernels[kernelIndex];
  const BinaryDesc &binary = artifact.binaries[kernel.binary];
  if (!isGpuBundle(binary)) {
    error = describeForeignBinary(step, description, kernel, binary,
                                  "a GPU module bundle");
    return nullptr;
  }
  std::unique_ptr<GpuBundle> &bundle = bundles[kernel.binary];
  if (!bundle) {
    auto parsed = std::make_unique<GpuBundle>();
    if (!parseGpuBundleBinary(binary, kernel.binary, *parsed, error)) {
      bundles.erase(kernel.binary);
      return nullptr;
    }
    bundle = std::move(parsed);
  }
  if (!bundle->lookupKernel(kernel.symbol)) {
    error = "kernel '" + kernel.symbol + "' is not defined in kernel binary " +
            std::to_string(kernel.binary);
    return nullptr;
  }
  // The device record's arch, not the bundle's chip: one arch may take
  // images for several chips.
  if (binary.arch != desc.arch) {
    error = "kernel binary " + std::to_string(kernel.binary) +
            " is for arch '" + binary.arch + "', device '" + desc.name +
            "' is '" + desc.arch + "'";
    return nullptr;
  }
  const Kernel *prepared =
      prepareKernel(kernel.binary, *bundle, kernel.symbol, error);
  if (!prepared)
    return nullptr;
  std::vector<Address> addresses;
  for (void *buffer : buffers)
    addresses.push_back(deviceAddress(buffer));
  // A profiled kernel's counters come after its values (Session).
  Address counters = 0;
  if (!kernel.branches.empty() && !addresses.empty()) {
    counters = addresses.back();
    addresses.pop_back();
  }
  // The program's Buffer arguments name values of the step.
  for (const GpuInstruction &instruction : prepared->desc->program)
    if ((instruction.op == GpuOp::Set || instruction.op == GpuOp::ExitUnless) &&
        instruction.b == static_cast<uint64_t>(GpuArgKind::Buffer) &&
        instruction.c >= addresses.size()) {
      error = step + ": the program of kernel '" + kernel.symbol +
              "' reads buffer " + std::to_string(instruction.c) +
              ", but the step has " + std::to_string(addresses.size()) +
              " values";
      return nullptr;
    }
  auto result = std::make_unique<PreparedLaunches>();
  result->kernel = prepared;
  result->buffers = addresses;
  if (!prepareLaunches(*prepared, addresses, counters, result->launches,
                       error)) {
    error = step + ": " + error;
    return nullptr;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

bool GpuDevice::record(Handle event, Handle stream, std::string &error) const {
  return activate(error) &&
         inContext(recordEvent(event, stream, error), description, error);
}

bool GpuDevice::launch(PreparedLaunch &prepared, const StepEvents &events,
                       std::string &error) {
  auto &launch = static_cast<PreparedLaunches &>(prepared);
  return enqueueLaunches(launch, eventOf(events.started), error) &&
         (!events.finished ||
          record(eventOf(events.finished), kernelStream, error)) &&
         (!events.done || record(eventOf(events.done), kernelStream, error));
}

bool GpuDevice::canCopyWith(const Device &other) const {
  return other.getDriverName() == getDriverName();
}

bool GpuDevice::copyOn(Handle stream, Memory destination, Memory source,
                       size_t bytes, std::string &error) const {
  // canCopyWith admits devices of this driver only: both sides are GPU
  // devices or host memory.
  return activate(error) &&
         inContext(copyAsync(stream,
                             static_cast<const GpuDevice *>(destination.device),
                             destination.address,
                             static_cast<const GpuDevice *>(source.device),
                             source.address, bytes, error),
                   description, error);
}

bool GpuDevice::enqueueCopy(Memory destination, Memory source, size_t bytes,
                            const StepEvents &events, std::string &error) {
  return (!events.started ||
          record(eventOf(events.started), copyStream, error)) &&
         (bytes == 0 ||
          copyOn(copyStream, destination, source, bytes, error)) &&
         (!events.finished ||
          record(eventOf(events.finished), copyStream, error)) &&
         (!events.done || record(eventOf(events.done), copyStream, error));
}

bool GpuDevice::copyAndWait(Memory destination, Memory source, size_t bytes,
                            std::string &error) {
  return copyOn(hostStream, destination, source, bytes, error) &&
         inContext(synchronizeStream(hostStream, error), description, error);
}

std::unique_ptr<Event> GpuDevice::createEvent(bool timing, std::string &error) {
  Handle event = nullptr;
  if (!activate(error) ||
      !inContext(newEvent(timing, event, error), description, error))
    return nullptr;
  events.push_back(event);
  return std::make_unique<GpuEvent>(event);
}

bool GpuDevice::elapsedNanoseconds(const Event &start, const Event &end,
                                   uint64_t &out, std::string &error) const {
  float milliseconds = 0;
  if (!activate(error) ||
      !inContext(elapsedMilliseconds(eventOf(start), eventOf(end), milliseconds,
                                     error),
                 description, error))
    return false;
  out = static_cast<uint64_t>(std::max(0.0f, milliseconds) * 1e6f);
  return true;
}

bool GpuDevice::canWaitOnDevice(const Device &other) const {
  return other.getDriverName() == getDriverName();
}

bool GpuDevice::waitForEvent(Queue queue, const Event &event,
                             std::string &error) {
  return activate(error) &&
         inContext(streamWaitEvent(queue == Queue::Compute ? kernelStream
                                                           : copyStream,
                                   eventOf(event), error),
                   description, error);
}

bool GpuDevice::synchronizeEvent(const Event &event, std::string &error) {
  return activate(error) &&
         inContext(hostWaitEvent(eventOf(event), error), description, error);
}

bool GpuDevice::synchronize(std::string &error) {
  if (!activate(error))
    return false;
  for (Handle stream : {kernelStream, copyStream, hostStream})
    if (stream &&
        !inContext(synchronizeStream(stream, error), description, error))
      return false;
  return true;
}
