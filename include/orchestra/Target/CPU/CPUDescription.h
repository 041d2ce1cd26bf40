//===- CPUDescription.h - The CPU an x86_64 kernel module targets -*- C++
//-*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_CPUDESCRIPTION_H
#define ORCHESTRA_TARGET_CPU_CPUDESCRIPTION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace llvm {
class MCSubtargetInfo;
class Target;
} // namespace llvm

namespace mlir::orchestra::cpu {

/// The CPU that the kernels of an `x86_64` kernel module are compiled for,
/// from the `cpu` and `features` keys of its `orchestra.target`:
///   * neither key (or "native"): the compiling machine's CPU and features;
///   * `cpu` alone: that CPU and its own features (like clang's -march);
///   * `features`: those features on top of the CPU's.
class CPUDescription {
public:
  /// Resolves the description of `target` (which may be null); non-empty
  /// overrides replace the keys. Fails, with `error` set, on a CPU that
  /// LLVM does not know.
  static FailureOr<CPUDescription> get(DictionaryAttr target,
                                       StringRef cpuOverride,
                                       StringRef featuresOverride,
                                       std::string &error);

  CPUDescription(CPUDescription &&);
  ~CPUDescription();

  /// The LLVM CPU name and feature string to generate code with.
  StringRef getCPU() const { return cpu; }
  StringRef getFeatures() const { return features; }
  const llvm::Target &getLLVMTarget() const { return *target; }

  /// Whether the generated code may use the named ISA extension ("avx2").
  bool hasFeature(StringRef name) const;

private:
  CPUDescription() = default;

  std::string cpu;
  std::string features;
  const llvm::Target *target = nullptr;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
};

} // namespace mlir::orchestra::cpu

#endif // ORCHESTRA_TARGET_CPU_CPUDESCRIPTION_H
