//===- Backend.h - The plug-in hooks of a target backend --------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Each folder lib/Target/<Name> is one backend, compiled in when <Name> is
// in ORCHESTRA_TARGETS_TO_BUILD. It provides two entry points, and the core
// reaches them only through the list CMake generates from that setting
// (Targets.def), never by name:
//
//   void register<Name>Targets(TargetRegistry &);  // Targets.h
//   TargetBackend get<Name>Backend();              // this header
//
// The first adds the backend's arch entries; it is light (no passes, no
// code generation) because the dialect's verifier links the registry to
// check task targets. The second returns the compiler side: the passes, the
// dialects and transform-dialect extensions its pipelines and strategy
// scripts use, and the ops `orchestra-tune` can tune. InitAll and the tools
// iterate getTargetBackends(); see docs/design/0010-backend-plugins.md.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_BACKEND_H
#define ORCHESTRA_TARGET_BACKEND_H

#include "orchestra/Support/TuningCache.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
namespace orchestra {

/// A kernel op `orchestra-tune` can measure strategy variants of, and the
/// `orchestra.target` of the kernel module it is in.
struct TunableOp {
  ::orchestra::tuning::TuningKey key;
  DictionaryAttr target;
};

/// The compiler-side hooks of one backend. Null hooks: nothing to add.
struct TargetBackend {
  /// The backend's folder under lib/Target, e.g. "CPU".
  StringRef name;
  /// Registers the backend's passes with the global pass registry.
  void (*registerPasses)() = nullptr;
  /// Adds the dialects and dialect extensions (transform ops of its
  /// strategy scripts) that its pipelines and scripts use.
  void (*registerDialects)(DialectRegistry &registry) = nullptr;
  /// Appends to `ops` the ops of `kernels` that `orchestra-tune` measures
  /// strategy variants of. `kernels` is a kernel module (`orchestra.arch`,
  /// `orchestra.target`) after `orchestra-outline-tasks`, of any arch: the
  /// hook takes those of its own archs.
  void (*collectTunableOps)(ModuleOp kernels,
                            std::vector<TunableOp> &ops) = nullptr;
  /// Returns a program (`func.func @main` on tensors) that runs the op of
  /// `key`, one of collectTunableOps', alone; `orchestra-tune` compiles it
  /// with each variant and times it. Set with collectTunableOps.
  std::string (*getTuningBenchmark)(const ::orchestra::tuning::TuningKey &key) =
      nullptr;
};

// The entry point of each backend compiled into this build.
#define ORCHESTRA_TARGET(Name) TargetBackend get##Name##Backend();
#include "orchestra/Target/Targets.def"

/// Returns the backends compiled into this build, in the order of
/// ORCHESTRA_TARGETS_TO_BUILD.
ArrayRef<TargetBackend> getTargetBackends();

} // namespace orchestra
} // namespace mlir

#endif // ORCHESTRA_TARGET_BACKEND_H
