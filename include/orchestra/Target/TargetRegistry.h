//===- TargetRegistry.h - The registry of target architectures --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The target registry is the single place that knows each `arch`: the schema
// of its arch-specific `target` keys, its memory-space kinds, its strategy
// script, its lowering pipeline and its executable format. Passes query the
// registry instead of switching on arch strings; adding an arch means adding
// one entry from one backend folder under lib/Target.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_TARGETREGISTRY_H
#define ORCHESTRA_TARGET_TARGETREGISTRY_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::orchestra {

/// The value type of a key in a task's `target` dictionary.
enum class TargetKeyType {
  Bool,    ///< BoolAttr: `true` / `false`.
  Integer, ///< IntegerAttr of a signless or signed integer type.
  Float,   ///< FloatAttr.
  String,  ///< StringAttr.
};

/// Returns the spelling used in diagnostics and docs ("bool", "integer", ...).
StringRef stringifyTargetKeyType(TargetKeyType type);

/// One arch-specific key of a `target` dictionary.
struct TargetKeySpec {
  std::string name;
  TargetKeyType type;
  /// Whether a task on this arch must set the key.
  bool required = false;
  /// What the key means and its default when absent.
  std::string description;
  /// Integer keys: the smallest accepted value.
  std::optional<int64_t> minValue;
  /// String keys: the accepted values; empty accepts any string.
  std::vector<std::string> allowedValues;
};

/// Where a memory space can be named.
enum class MemoryScope {
  /// Holds values between tasks; allocated by the host plan (DRAM, HBM).
  Device,
  /// Exists only while a kernel runs (shared memory, LDS, tensor memory); only
  /// transfers inside a task body may name it.
  Kernel,
};

StringRef stringifyMemoryScope(MemoryScope scope);

/// A kind of memory an arch provides.
struct MemorySpaceKind {
  std::string name;
  MemoryScope scope;
  std::string description;
};

/// The executable an arch's kernels are compiled to (stage 8).
enum class ExecutableFormat {
  /// Native object code for the host CPU.
  NativeObject,
  /// NVIDIA cubin (PTX as fallback).
  Cubin,
  /// AMD HSA code object.
  HSACO,
  /// A portable StableHLO artifact handed to the vendor's compiler.
  StableHLO,
};

StringRef stringifyExecutableFormat(ExecutableFormat format);

/// Everything OrchestraOS knows about one architecture.
struct TargetInfo {
  /// The `arch` string, e.g. "nvidia_hopper".
  std::string arch;
  /// A human-readable name, e.g. "NVIDIA Hopper (sm_90a)".
  std::string description;
  /// The arch-specific keys a `target` dictionary may hold (besides `arch`
  /// and `device_id`, which every arch has).
  std::vector<TargetKeySpec> keys;
  /// The memory-space kinds of a device of this arch.
  std::vector<MemorySpaceKind> memorySpaces;
  /// The device-scope kind that holds task operands and results by default.
  std::string defaultMemorySpace;
  /// File name of the stage-5 transform strategy under `strategies/`; empty
  /// until the arch has one.
  std::string strategyScript;
  /// The transform named sequence of the script that `transform-interpreter`
  /// runs on a kernel module of this arch.
  std::string strategyEntryPoint;
  /// Further files under `strategies/` whose named sequences the script uses
  /// (declared there, defined here); they are preloaded with it.
  std::vector<std::string> strategyLibraries;
  /// Passes (textual) that run first on a kernel module of this arch, with
  /// or without its strategy, e.g. to replace the bodies of tasks that carry
  /// assembly kernels; may be empty.
  std::string preparePipeline;
  /// Passes (textual) that run on a kernel module of this arch before the
  /// plan's memory is laid out, when its strategy applies: they may ask for
  /// a kernel argument in another layout (a `linalg.pack` marked
  /// `orchestra.constant_layout`), which orchestra-hoist-constant-layouts
  /// computes at compile time when the plan holds the argument as a
  /// constant; may be empty.
  std::string constantLayoutPipeline;
  /// Passes (textual) that run on a kernel module of this arch before its
  /// strategy, e.g. to record what the script matches on; may be empty.
  std::string preStrategyPipeline;
  /// The stage 6-7 pass pipeline (textual, for `--pass-pipeline`); empty until
  /// the arch has one.
  std::string loweringPipeline;
  /// Whether the lowering pipeline relies on the strategy (it names sequences
  /// of the arch's script or expects its loops): such archs cannot be
  /// compiled with the plain lowering (`--strategy=none`).
  bool loweringNeedsStrategy = false;
  ExecutableFormat executableFormat = ExecutableFormat::NativeObject;
  /// The runtime driver that runs devices of this arch (the artifact's
  /// DeviceDesc::driver; runtime/src/drivers/<name>).
  std::string runtimeDriver;
  /// Whether tasks on this arch may carry `nki_source`.
  bool acceptsNKISource = false;
  /// The assembly language of the kernels tasks on this arch may carry
  /// (`asm_kernel`, the expert escape hatch), e.g. "PTX"; empty: none.
  std::string kernelAssembly;
  /// The ops the arch's compilation path takes: the scheduler's support
  /// mask (a device never gets a task with an op it returns false for).
  /// Null: every op.
  bool (*supportsOp)(Operation *op) = nullptr;
  /// Whether the arch's kernels take dynamic sizes at run time (the CPU
  /// kernel ABI's `sizes`, design/0017); the scheduler keeps ops on
  /// dynamically shaped tensors off the other archs.
  bool supportsDynamicShapes = false;
  /// Whether the arch's lowering pipeline lowers `orchestra.branch_probe`
  /// (orchestra-compile --profile-branches instruments its kernels).
  bool lowersBranchProbes = false;
  /// The lanes of a warp (wave) that run in lockstep on a SIMT device, 0
  /// where branches do not diverge inside a kernel (CPUs vectorize them
  /// into selects): the cost model charges SIMT devices both sides of a
  /// branch for the share of warps whose lanes disagree.
  unsigned simtLanes = 0;

  const TargetKeySpec *lookupKey(StringRef name) const;
  const MemorySpaceKind *lookupMemorySpace(StringRef kind) const;
};

/// Maps arch strings to their TargetInfo.
class TargetRegistry {
public:
  /// The keys every target dictionary has.
  static constexpr StringLiteral kArchKey = "arch";
  static constexpr StringLiteral kDeviceIdKey = "device_id";

  /// Adds `info`. Fails if its arch is already registered or the entry is
  /// malformed (empty arch, a key named `arch`/`device_id`, a default memory
  /// space that is not a device-scope kind of the entry).
  llvm::Error registerTarget(TargetInfo info);

  /// Returns the entry for `arch`, or null.
  const TargetInfo *lookup(StringRef arch) const;

  /// Returns the registered archs, sorted.
  SmallVector<StringRef> getArchs() const;

  /// Checks a task's `target` dictionary: `arch` is a registered string,
  /// `device_id` a non-negative integer, and every other key belongs to the
  /// arch's schema with the right type and range; required keys are present.
  /// Reports the first problem through `emitError` and fails.
  LogicalResult
  verifyTarget(DictionaryAttr target,
               function_ref<InFlightDiagnostic()> emitError) const;

  /// Returns the entry for `arch` or reports an unknown arch (with the list of
  /// known archs and the closest match) through `emitError`.
  FailureOr<const TargetInfo *>
  lookupOrError(StringRef arch,
                function_ref<InFlightDiagnostic()> emitError) const;

private:
  llvm::StringMap<TargetInfo> targets;
};

/// Returns the value of an integer `target` key, read according to its type's
/// signedness (signless as signed), or nothing if `value` is not an integer or
/// does not fit in int64_t. Verified targets always yield a value.
std::optional<int64_t> getTargetInteger(Attribute value);

/// Returns the registry holding every target compiled into this build
/// (ORCHESTRA_TARGETS_TO_BUILD). Built once, on first use; thread-safe.
const TargetRegistry &getTargetRegistry();

/// Whether `op` is expressible in StableHLO (with CHLO), the support mask of
/// the archs whose tasks are handed to a vendor compiler as StableHLO:
/// structured linalg ops whose bodies are arith/math and whose indexing maps
/// are projected permutations (elementwise, broadcasts, transposes,
/// reductions, contractions, convolutions, pooling), static-shape tensor
/// reshapes, slices, pads and concatenations, and scalar arith/math. Not:
/// data-dependent indexing (`tensor.extract`, `linalg.index`), control flow,
/// memrefs.
bool isStableHLOExpressible(Operation *op);

/// The target keys every arch reached through StableHLO and PJRT has
/// (`pjrt_plugin`, `stablehlo_version`), for its registry entry;
/// `pluginHint` says which plugin runs the arch's programs.
std::vector<TargetKeySpec> getPjrtTargetKeys(StringRef pluginHint);

/// The strategy and lowering of the archs reached through StableHLO:
/// stage 5 `strategyScript` with stablehlo_common.mlir, stage 7 the
/// backend's `beforeLowering` passes then StableHLO text, stage 8 the
/// backend's `beforeEmit` passes (its vendor compiler's ahead-of-time
/// binaries) then portable artifacts in a PJRT program bundle. The passes
/// are comma-separated pipeline text; empty: none.
void setStableHLOLowering(TargetInfo &info, StringRef strategyScript,
                          StringRef beforeLowering, StringRef beforeEmit);

} // namespace mlir::orchestra

#endif // ORCHESTRA_TARGET_TARGETREGISTRY_H
