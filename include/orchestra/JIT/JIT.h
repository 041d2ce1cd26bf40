//===- JIT.h - The feedback loop's recompilation ----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What the feedback service (orchestra-jit-server, design/0019) does with a
// branch profile, without the network: the cache of the compiles it may
// redo (written by `orchestra-compile --jit-cache DIR`), and the
// recompilation of one of them with the profile's weights, accepted only
// when the scheduler predicts a gain. Each recompilation is an MLIR action,
// OrchestraJITAction: `--log-actions-to` logs it and
// `--mlir-debug-counter=orchestra-jit-recompile-count=0` disables it.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_JIT_JIT_H
#define ORCHESTRA_JIT_JIT_H

#include "orchestra/Compiler/Pipeline.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/TypeID.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::orchestra::jit {

/// The name of cache entry `hash` (16 lowercase hex digits): its files are
/// `<name>.orcx` (the artifact), `<name>.mlir` (the module the compile
/// started from, with its locations), `<name>.json` (the compile's options)
/// and, where the compile read them, `<name>.topology.json`,
/// `<name>.strategy.mlir` and `<name>.tuning.json`.
std::string getEntryName(uint64_t hash);

/// Writes the cache entry of a compile into `dir` (created if missing):
/// `source` is the module before the pipeline, `artifact` what the compile
/// wrote. Every file is written whole or not at all.
LogicalResult writeCacheEntry(StringRef dir, ModuleOp source,
                              const CompileOptions &options,
                              const std::vector<uint8_t> &artifact,
                              std::string &error);

/// The hashes of the cache's entries: every `<16 hex>.orcx` of `dir` whose
/// header's payload hash is its name and whose `.mlir` and `.json` exist.
/// Entries that do not check out are described in `problems`.
std::vector<uint64_t> scanCache(StringRef dir,
                                std::vector<std::string> &problems);

/// What a recompilation decided.
enum class Decision {
  /// A new plan predicted faster by at least the minimum gain: `artifact`.
  SwapArtifact,
  /// The recompiled plan is not predicted faster enough; keep the old one.
  NoGain,
  /// The recompilation action was disabled (a debug counter).
  Disabled,
};

struct RecompileResult {
  Decision decision = Decision::NoGain;
  /// SwapArtifact: the new artifact's bytes.
  std::vector<uint8_t> artifact;
  /// The predicted makespans of the running plan and of the new one, under
  /// the profile's weights, and the relative gain.
  double oldMakespan = 0;
  double newMakespan = 0;
  double predictedGain = 0;
  std::string reason;
};

/// Recompiles cache entry `hash` of `dir` with the branch weights of the
/// profile file `profile` (whose records must name the entry's kernels and
/// branches): the
/// running plan (the entry's options) and a new plan (the same options,
/// without branch probes, so that the scheduler may speculate) are
/// scheduled with the weights, and the new plan is returned when its
/// predicted makespan is at least `minGain` (a fraction) shorter. Runs in
/// an OrchestraJITAction on `context`. Failure (a missing entry, a profile
/// the entry does not match, a compile error) sets `error`; diagnostics
/// also go to the context's handlers.
FailureOr<RecompileResult>
recompileWithProfile(MLIRContext &context, StringRef dir, uint64_t hash,
                     StringRef profile, double minGain, std::string &error);

/// The recompilation of one cached artifact with a profile, as an MLIR
/// action (tag `orchestra-jit-recompile`), over the module it recompiles.
class OrchestraJITAction : public tracing::ActionImpl<OrchestraJITAction> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OrchestraJITAction)
  using Base = tracing::ActionImpl<OrchestraJITAction>;
  OrchestraJITAction(ArrayRef<IRUnit> units, uint64_t hash, size_t records)
      : Base(units), hash(hash), records(records) {}
  static constexpr StringLiteral tag = "orchestra-jit-recompile";
  static constexpr StringLiteral desc =
      "Recompile a cached artifact with a branch profile (the feedback loop)";
  void print(raw_ostream &os) const override;

private:
  uint64_t hash;
  size_t records;
};

} // namespace mlir::orchestra::jit

#endif // ORCHESTRA_JIT_JIT_H
