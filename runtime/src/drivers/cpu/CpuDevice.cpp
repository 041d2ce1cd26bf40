//===- CpuDevice.cpp - The host CPU as a device ---------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The `cpu` driver: a synchronous device whose memory is the host's. Arenas
// are anonymous mappings; kernels are ELF shared objects of the artifact
// (KernelLoader), run on the session's worker thread of the device (a kernel
// parallelises itself across the device's threads).
//
//===----------------------------------------------------------------------===//

#include "KernelAllocator.h"
#include "KernelLoader.h"
#include "hal/Device.h"
#include "hal/HostMemory.h"
#include "orchestra_rt/GpuBundle.h"
#include "orchestra_rt/PjrtBundle.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace orx;
using namespace orx::hal;

namespace {

/// A kernel and the slot of each of its arguments.
struct CpuLaunch final : PreparedLaunch {
  KernelFn kernel = nullptr;
  std::vector<void *> args;
};

class CpuDevice final : public Device {
public:
  explicit CpuDevice(const DeviceDesc &desc)
      : description("device '" + desc.name + "' (" + desc.arch + ")") {
    retainKernelAllocator();
  }

  ~CpuDevice() override {
    // Unload the kernels before the arenas go away.
    binaries.clear();
    releaseKernelAllocator();
  }

  const std::string &getDriverName() const override { return name(); }
  const std::string &getDescription() const override { return description; }
  bool isHostMemory() const override { return true; }
  bool isAsynchronous() const override { return false; }

  static const std::string &name() {
    static const std::string cpu = "cpu";
    return cpu;
  }

  bool allocate(uint64_t bytes, const std::string &what, void *&out,
                std::string &error) override {
    return arenas.allocate(bytes, what, out, error);
  }

  bool upload(void *destination, const void *source, size_t bytes,
              std::string &error) override {
    std::memcpy(destination, source, bytes);
    return true;
  }

  std::unique_ptr<PreparedLaunch>
  prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                const std::vector<void *> &buffers, const std::string &step,
                std::string &error) override {
    const KernelDesc &kernel = artifact.kernels[kernelIndex];
    const BinaryDesc &binary = artifact.binaries[kernel.binary];
    if (isGpuBundle(binary)) {
      error = step + " runs on " + description + ", but its kernel '" +
              kernel.symbol + "' is in kernel binary " +
              std::to_string(kernel.binary) + ", a GPU module bundle for '" +
              binary.arch + "'";
      return nullptr;
    }
    if (isPjrtBundle(binary)) {
      error = step + " runs on " + description + ", but its kernel '" +
              kernel.symbol + "' is in kernel binary " +
              std::to_string(kernel.binary) + ", a PJRT program bundle for '" +
              binary.arch + "'";
      return nullptr;
    }
    std::unique_ptr<LoadedBinary> &loaded = binaries[kernel.binary];
    if (!loaded) {
      loaded = LoadedBinary::load(binary, kernel.binary, error);
      if (!loaded) {
        binaries.erase(kernel.binary);
        return nullptr;
      }
    }
    auto launch = std::make_unique<CpuLaunch>();
    launch->kernel = loaded->lookup(kernel.symbol, error);
    if (!launch->kernel)
      return nullptr;
    launch->args = buffers;
    return launch;
  }

  bool launch(PreparedLaunch &prepared, const StepEvents &,
              std::string &) override {
    auto &launch = static_cast<CpuLaunch &>(prepared);
    // Kernels get a copy of the argument array, so one that writes into it
    // cannot change the next run.
    void *args[16];
    std::vector<void *> heapArgs;
    void **argv = args;
    if (launch.args.size() > 16) {
      heapArgs = launch.args;
      argv = heapArgs.data();
    } else {
      std::copy(launch.args.begin(), launch.args.end(), args);
    }
    launch.kernel(argv, launch.sizes.data());
    return true;
  }

  bool copyAndWait(Memory destination, Memory source, size_t bytes,
                   std::string &error) override {
    return copyHostMemory(description, destination, source, bytes, error);
  }

private:
  std::string description;
  /// The arenas (unmapped after the kernels are unloaded: members go
  /// after the destructor's body).
  HostArenas arenas;
  /// The loaded binaries by kernel binary index.
  std::map<uint32_t, std::unique_ptr<LoadedBinary>> binaries;
};

} // namespace

static std::unique_ptr<Device> createCpuDevice(const DeviceDesc &desc,
                                               std::string &) {
  return std::make_unique<CpuDevice>(desc);
}

namespace orx::hal {
void registerCpuDriver();
} // namespace orx::hal

void orx::hal::registerCpuDriver() {
  registerDriver(CpuDevice::name(), createCpuDevice);
}
