//===- GpuBundle.h - The GPU module bundle of an artifact -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The kernels of a GPU device are stored in the artifact as one binary of
// format "gpu-module-bundle": the device modules the compiler produced, each
// as one or more images of a kind its runtime driver knows (e.g. a binary for
// the chip and a portable form the driver can compile at load time), and for
// each task kernel of the plan the launches it runs, in order, on its
// device's queue: the module function, the grid and block sizes, the dynamic
// shared memory and what each kernel parameter is (a buffer of the plan's
// launch step, a scratch buffer of the task, an immediate, or a tensor map
// of one of those buffers). The runtime core does not interpret image kinds
// or tensor-map fields: the device's driver does. docs/Artifact.md documents
// the layout.
//
// Like Artifact.h this depends on the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_GPUBUNDLE_H
#define ORCHESTRA_RT_GPUBUNDLE_H

#include "orchestra_rt/Artifact.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orx {

/// The BinaryDesc::format of a GPU module bundle.
constexpr const char *kGpuBundleFormat = "gpu-module-bundle";
/// Version 3 (artifact format 2) gave modules a list of typed images;
/// version 4 adds each function's resource usage; version 5 the
/// ProfileCounters parameter. Readers accept 4 and 5.
constexpr uint32_t kGpuBundleVersion = 5;
constexpr uint32_t kGpuBundleMinVersion = 4;

/// One form of a device module.
struct GpuImageDesc {
  /// What `data` is, in the words of the driver that loads it (the backend
  /// that wrote the bundle names it; see docs/Artifact.md for the kinds).
  std::string kind;
  std::vector<uint8_t> data;
};

/// What one function of a device module uses, as the backend's toolchain
/// reported it (for tools and diagnostics; the driver does not need it).
struct GpuFunctionDesc {
  std::string name;
  /// Named counts in the backend's words, e.g. ("vgpr_count", 32) and
  /// ("group_segment_fixed_size", 4096) from a code object's metadata.
  std::vector<std::pair<std::string, uint64_t>> resources;
};

/// One device module (one `gpu.module` of the compiler).
struct GpuModuleDesc {
  std::string name;
  /// At least one image, in order of preference: a driver loads the first
  /// one it can and falls back to the next when loading fails.
  std::vector<GpuImageDesc> images;
  /// The resource usage of the module's kernels, where the backend knows it
  /// (may be empty).
  std::vector<GpuFunctionDesc> functions;

  /// Returns the first image of `kind`, or null.
  const GpuImageDesc *lookupImage(const std::string &kind) const;
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
  /// A tensor map (a descriptor of a tiled view of a buffer that the
  /// device's copy engine reads), described by `tensorMap`: the driver
  /// encodes it for the buffer's device address, copies it into device
  /// memory once, and passes that device pointer.
  TensorMap = 3,
  /// The kernel's branch counters on the launch's device (a kernel compiled
  /// with --profile-branches; design/0019), passed as a device pointer to
  /// 4 u64 per branch of the kernel's branch table. Version 5.
  ProfileCounters = 4,
  /// Register `value` of the kernel's program: a buffer that changes as the
  /// program runs (a loop's carried values). Version 5.
  Register = 5,
};

/// A tiled tensor map, in the terms of the driver that encodes it:
/// dimensions innermost first. The enums hold the driver's values.
struct GpuTensorMapDesc {
  /// The buffer the map describes: a Buffer or Scratch index.
  GpuArgKind source = GpuArgKind::Buffer;
  uint32_t sourceIndex = 0;
  /// The driver's element type code.
  uint32_t dataType = 0;
  /// 1 to 5.
  uint32_t rank = 0;
  /// Elements per dimension; entries past `rank` are unused.
  uint64_t globalDim[5] = {1, 1, 1, 1, 1};
  /// Bytes between consecutive elements of dimensions 1 .. rank-1
  /// (dimension 0 is contiguous); multiples of 16.
  uint64_t globalStrides[4] = {0, 0, 0, 0};
  /// Elements of the box one copy moves, per dimension (at most 256 each).
  uint32_t boxDim[5] = {1, 1, 1, 1, 1};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  /// The driver's interleave, swizzle, L2 promotion and out-of-bounds fill
  /// codes.
  uint32_t interleave = 0;
  uint32_t swizzle = 0;
  uint32_t l2Promotion = 0;
  uint32_t oobFill = 0;
};

struct GpuArgDesc {
  GpuArgKind kind = GpuArgKind::Buffer;
  /// Buffer/Scratch: the index; Immediate: the bits; TensorMap and
  /// ProfileCounters: unused.
  uint64_t value = 0;
  /// Bytes of the parameter: 8 for pointers (tensor maps included), 4 or 8
  /// for immediates.
  uint32_t size = 8;
  /// TensorMap: the map.
  GpuTensorMapDesc tensorMap;
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

/// One instruction of a kernel's program (design/0019: loops on GPUs).
enum class GpuOp : uint32_t {
  /// Enqueues launches[a].
  Launch = 0,
  /// Register a = the buffer of the argument (b: a Buffer, Scratch or
  /// Register GpuArgKind, c: its index).
  Set = 1,
  /// Register a = scratch buffer b in the innermost loop's even iterations
  /// (the first is 0), scratch buffer c in its odd ones: the buffers a
  /// loop's values are written to, used in turn so that an iteration never
  /// overwrites what the one before computed.
  SetAlternating = 2,
  /// Starts a loop of a iterations (b = 0), or of iterations until an
  /// ExitUnless leaves it (b = 1). Loops do not nest.
  LoopBegin = 3,
  /// Leaves the loop (past its LoopEnd) unless the byte at the argument (b:
  /// a Buffer, Scratch or Register GpuArgKind, c: its index) is non-zero;
  /// the host waits for the launches before it to read it.
  ExitUnless = 4,
  /// Ends an iteration: back to the instruction after the LoopBegin, or on
  /// after the last iteration.
  LoopEnd = 5,
};

struct GpuInstruction {
  GpuOp op = GpuOp::Launch;
  uint64_t a = 0, b = 0, c = 0;
};

/// A task kernel of the plan (a KernelDesc::symbol): its launches in order,
/// or, with a program, as the program runs them.
struct GpuKernelDesc {
  std::string symbol;
  /// Device buffers the task needs between its launches, in bytes.
  std::vector<uint64_t> scratchBytes;
  std::vector<GpuLaunchDesc> launches;
  /// Empty: every launch once, in order. Else what to run (version 5).
  std::vector<GpuInstruction> program;
  /// The program's registers.
  uint32_t registers = 0;
};

struct GpuBundle {
  /// The chip the images were built for, in the backend's spelling.
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
/// sizes, at most 1024 threads per block, immediate sizes of 4 or 8 bytes,
/// modules with at least one image, each of a named kind, tensor maps (rank
/// 1-5, a Buffer or in-range Scratch source, non-zero dimensions, boxes of
/// 1-256 elements, strides that are multiples of 16 bytes). Returns false with
/// `error` set.
bool parseGpuBundle(const uint8_t *data, size_t size, GpuBundle &out,
                    std::string &error);

/// Is `binary` a GPU module bundle (format kGpuBundleFormat)?
bool isGpuBundle(const BinaryDesc &binary);

/// Parses and validates the GPU module bundle `binary`, kernel binary `index`
/// of its artifact (named so in the error).
bool parseGpuBundleBinary(const BinaryDesc &binary, size_t index,
                          GpuBundle &out, std::string &error);

} // namespace orx

#endif // ORCHESTRA_RT_GPUBUNDLE_H
