//===- ApplyBranchProfile.cpp - Branch weights from a profile -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Profile/Profile.h"
#include "orchestra_rt/Artifact.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_APPLYBRANCHPROFILE
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {
struct Weights {
  int64_t taken = 0;
  int64_t notTaken = 0;
  /// Divergent warps, estimated from each record's rate and evaluations
  /// (records do not carry warps), and the evaluations on SIMT devices.
  double divergentEvaluations = 0;
  double simtEvaluations = 0;
  /// Counted by a select step: the profiled plan speculated the branch.
  bool speculated = false;
  bool used = false;
};

/// Adds `value` to `sum`, saturating at INT64_MAX.
void addSaturating(int64_t &sum, uint64_t value) {
  uint64_t room = static_cast<uint64_t>(INT64_MAX - sum);
  sum += static_cast<int64_t>(std::min(value, room));
}

class ApplyBranchProfilePass
    : public mlir::orchestra::impl::ApplyBranchProfileBase<
          ApplyBranchProfilePass> {
public:
  using ApplyBranchProfileBase::ApplyBranchProfileBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &message) {
      module.emitError() << message;
      signalPassFailure();
    };
    if (profilePath.empty() || artifactPath.empty())
      return fail("orchestra-apply-branch-profile needs both a profile and "
                  "the artifact it was measured with");
    std::vector<::orchestra::fdo::DivergenceProfile> records;
    std::string error;
    if (!::orchestra::profile::readProfileFile(profilePath, records, error))
      return fail("cannot read the branch profile: " + error);
    orx::Artifact artifact;
    if (!orx::readArtifactFile(artifactPath, artifact, error))
      return fail("cannot read the profiled artifact: " + error);
    // Kernels and select steps (speculated branches) by record name.
    llvm::StringMap<std::vector<std::string>> tables;
    for (auto &[name, locations] : orx::getBranchTables(artifact))
      tables.try_emplace(name, std::move(locations));

    // The counts per source location.
    llvm::MapVector<StringRef, Weights> byLocation;
    for (auto [index, record] : llvm::enumerate(records)) {
      std::string what = "'" + profilePath + "', record " +
                         std::to_string(index) + " (kernel '" +
                         record.kernel_name() + "', branch " +
                         std::to_string(record.branch_id()) + ")";
      auto table = tables.find(record.kernel_name());
      if (table == tables.end())
        return fail(what + ": '" + artifactPath +
                    "' has no such kernel or select step with branches");
      const std::vector<std::string> &branches = table->second;
      if (record.branch_id() >= branches.size())
        return fail(what + ": the kernel has " +
                    std::to_string(branches.size()) +
                    " profiled branch(es) in '" + artifactPath + "'");
      if (record.path_outcome_counts_size() != 2)
        return fail(what + ": " +
                    std::to_string(record.path_outcome_counts_size()) +
                    " path outcome counts, expected 2 (true, false)");
      Weights &weights = byLocation[branches[record.branch_id()]];
      weights.speculated |=
          StringRef(record.kernel_name()).starts_with("orx_select_");
      addSaturating(weights.taken, record.path_outcome_counts(0));
      addSaturating(weights.notTaken, record.path_outcome_counts(1));
      // A divergence rate is a GPU's (0 on CPUs, which vectorize branches).
      double rate = record.divergence_rate();
      if (!(rate >= 0 && rate <= 1))
        return fail(what + ": divergence rate " + std::to_string(rate) +
                    " is not in [0, 1]");
      if (rate > 0) {
        double evaluations = double(record.path_outcome_counts(0)) +
                             double(record.path_outcome_counts(1));
        weights.divergentEvaluations += rate * evaluations;
        weights.simtEvaluations += evaluations;
      }
    }

    Builder builder(&getContext());
    module.walk([&](Operation *op) {
      if (!isa<scf::IfOp, scf::WhileOp>(op))
        return;
      std::string location;
      llvm::raw_string_ostream os(location);
      op->getLoc().print(os);
      auto it = byLocation.find(location);
      if (it == byLocation.end())
        return;
      it->second.used = true;
      op->setAttr(attr::kBranchWeights,
                  builder.getDenseI64ArrayAttr(
                      {it->second.taken, it->second.notTaken}));
      if (it->second.speculated)
        op->setAttr(attr::kSpeculatedWhenProfiled, builder.getUnitAttr());
      if (it->second.simtEvaluations > 0 && isa<scf::IfOp>(op))
        op->setAttr(attr::kBranchDivergence,
                    builder.getF64FloatAttr(it->second.divergentEvaluations /
                                            it->second.simtEvaluations));
    });
    SmallVector<StringRef> unused;
    for (auto &[location, weights] : byLocation)
      if (!weights.used)
        unused.push_back(location);
    if (!unused.empty()) {
      InFlightDiagnostic warning = module.emitWarning()
                                   << unused.size()
                                   << " profiled branch(es) match no branch "
                                      "of this program (measured on another "
                                      "version of it?), left out:";
      for (StringRef location : unused)
        warning << " " << location;
    }
  }
};
} // namespace
