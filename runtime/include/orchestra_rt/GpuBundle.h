//===- GpuBundle.h - The GPU module bundle of an artifact -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The kernels of a GPU device are stored in the artifact as one binary of
// format "gpu-module-bundle": the device modules the compiler produced (cubin
// and PTX for NVIDIA), and for each task kernel of the plan the launches it
// runs, in order, on its device's stream: the module function, the grid and
// block sizes, the dynamic shared memory and what each kernel parameter is (a
// buffer of the plan's launch step, a scratch buffer of the task, or an
// immediate). docs/Artifact.md documents the layout.
//
// Like Artifact.h this depends on the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_GPUBUNDLE_H
#define ORCHESTRA_RT_GPUBUNDLE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace orx {

/// The BinaryDesc::format of a GPU module bundle.
constexpr const char *kGpuBundleFormat = "gpu-module-bundle";
constexpr uint32_t kGpuBundleVersion = 1;

/// One device module (one `gpu.module` of the compiler).
struct GpuModuleDesc {
  std::string name;
  /// The device binary: a cubin for NVIDIA; may be empty when only `ptx` was
  /// produced.
  std::vector<uint8_t> image;
  /// The PTX the cubin was assembled from; the driver JIT-compiles it when
  /// the cubin does not match the device. May be empty.
  std::string ptx;
};

/// What one kernel parameter is.
enum class GpuArgKind : uint32_t {
  /// The slot of the launch step's value `index` (inputs first, then
  /// outputs), passed as a device pointer.
  Buffer = 0,
  /// The task's scratch buffer `index`, passed as a device pointer.
  Scratch = 1,
  /// `size` (4 or 8) little-endian bytes of `value`.
  Immediate = 2,
};

struct GpuArgDesc {
  GpuArgKind kind = GpuArgKind::Buffer;
  /// Buffer/Scratch: the index; Immediate: the bits.
  uint64_t value = 0;
  /// Bytes of the parameter: 8 for pointers, 4 or 8 for immediates.
  uint32_t size = 8;
};

/// One kernel launch.
struct GpuLaunchDesc {
  /// Index into GpuBundle::modules.
  uint32_t module = 0;
  /// The kernel's name in the module.
  std::string function;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t dynamicSharedBytes = 0;
  std::vector<GpuArgDesc> args;
};

/// A task kernel of the plan (a KernelDesc::symbol): its launches in order.
struct GpuKernelDesc {
  std::string symbol;
  /// Device buffers the task needs between its launches, in bytes.
  std::vector<uint64_t> scratchBytes;
  std::vector<GpuLaunchDesc> launches;
};

struct GpuBundle {
  /// The chip the images were built for, e.g. "sm_90a".
  std::string chip;
  std::vector<GpuModuleDesc> modules;
  std::vector<GpuKernelDesc> kernels;

  /// Returns the kernel named `symbol`, or null.
  const GpuKernelDesc *lookupKernel(const std::string &symbol) const;
};

/// Returns the bytes of `bundle`.
std::vector<uint8_t> serializeGpuBundle(const GpuBundle &bundle);

/// Reads and validates a bundle: magic and version, every count against the
/// bytes left, module indices, scratch indices, non-zero grid and block
/// sizes, at most 1024 threads per block, immediate sizes of 4 or 8 bytes, a
/// module with neither an image nor PTX. Returns false with `error` set.
bool parseGpuBundle(const uint8_t *data, size_t size, GpuBundle &out,
                    std::string &error);

} // namespace orx

#endif // ORCHESTRA_RT_GPUBUNDLE_H
