//===- LaunchTable.h - The launches of a GPU kernel module ------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What every GPU backend's emit-binary pass records for the runtime: the
// launches of each host function of a kernel module (after
// `gpu-kernel-outlining`), as the GPU bundle's kernel table
// (orchestra_rt/GpuBundle.h, docs/Artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_LAUNCHTABLE_H
#define ORCHESTRA_TARGET_GPU_LAUNCHTABLE_H

#include "orchestra_rt/GpuBundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::orchestra::gpucommon {

/// The values of a host function that stand for something the runtime
/// passes to a kernel (a buffer, a scratch buffer, a descriptor).
using LaunchValues = DenseMap<Value, orx::GpuArgDesc>;

/// What a backend adds to the launch table.
struct LaunchTableOptions {
  /// The backend's name, for diagnostics ("the <name> strategy must ...").
  StringRef backend;
  /// Most shared memory (workgroup memory) of one block, and the target key
  /// that sets it.
  int64_t sharedLimit = 0;
  StringRef sharedLimitKey;
  /// Records a host-side op only this backend knows (TMA descriptors): adds
  /// what its results stand for to the values and returns true, returns
  /// false when it does not know the op, or fails with a diagnostic.
  std::function<FailureOr<bool>(Operation &, LaunchValues &)> recordOther;
};

/// Records the launches of the host function `func` of a GPU kernel module
/// into `kernel`: the buffers it takes (its arguments, then its scratch
/// allocations), views that keep a buffer's base address, and each
/// `gpu.launch_func` with constant grid, block and shared-memory sizes and
/// its arguments (buffers, values of `recordOther`, 32- and 64-bit
/// constants). A loop on the host side (an `scf.while` whose condition is
/// the element of a one-element buffer, or an `scf.for` with a constant trip
/// count whose body does not read its induction variable; not nested)
/// makes the kernel a program (design/0019): its carried values are
/// registers, the buffers allocated inside it two scratch buffers used in
/// turn by even and odd iterations. `moduleIndex` numbers the device
/// modules. Any other op on the host side is an error.
LogicalResult recordLaunches(func::FuncOp func,
                             const llvm::StringMap<uint32_t> &moduleIndex,
                             const LaunchTableOptions &options,
                             orx::GpuKernelDesc &kernel);

/// Writes `bytes` as `<dir>/<kernelModule>.<deviceModule><extension>`
/// (`--dump-device-code`); an error on `op` when it cannot.
LogicalResult dumpDeviceFile(Operation *op, StringRef dir,
                             StringRef kernelModule, StringRef deviceModule,
                             StringRef extension, StringRef bytes);

/// Replaces the body of the kernel module `module` by `bundle`: the module
/// gets the bundle as its binary (format "gpu-module-bundle"), the names of
/// its task kernels `kernels`, and the bundle's chip as the feature the
/// device must have. With `orchestra.device_code_dir`, every image of every
/// device module is dumped there first (one file per image, named by its
/// kind).
LogicalResult storeGpuBundle(ModuleOp module, const orx::GpuBundle &bundle,
                             ArrayRef<Attribute> kernels);

} // namespace mlir::orchestra::gpucommon

#endif // ORCHESTRA_TARGET_GPU_LAUNCHTABLE_H
