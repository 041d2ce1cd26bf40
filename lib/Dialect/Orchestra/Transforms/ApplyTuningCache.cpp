//===- ApplyTuningCache.cpp - Tuned variants onto kernel ops --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Reads the tuning cache orchestra-tune writes and names the measured
// fastest strategy variant on each kernel op it has an entry for
// (`orchestra.tile_variant`), for the arch's strategy script to apply.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Support/TuningCache.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_APPLYTUNINGCACHE
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {

class ApplyTuningCachePass
    : public mlir::orchestra::impl::ApplyTuningCacheBase<ApplyTuningCachePass> {
public:
  using ApplyTuningCacheBase::ApplyTuningCacheBase;
  void runOnOperation() override;
};

} // namespace

/// The cache key of a kernel matmul, or nothing for one with dynamic shapes.
static std::optional<::orchestra::tuning::TuningKey>
getTuningKey(linalg::MatmulOp matmul, StringRef arch, int64_t threads) {
  SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
  if (ranges.size() != 3 || llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  Type elementType = getElementTypeOrSelf(matmul.getDpsInits()[0].getType());
  ::orchestra::tuning::TuningKey key;
  key.arch = arch.str();
  key.threads = threads;
  key.op = matmul->getName().getStringRef().str();
  llvm::raw_string_ostream os(key.elementType);
  elementType.print(os);
  key.shape.assign(ranges.begin(), ranges.end());
  return key;
}

void ApplyTuningCachePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (cachePath.empty()) {
    module.emitError() << "orchestra-apply-tuning-cache needs 'cache=FILE'";
    return signalPassFailure();
  }
  llvm::Expected<::orchestra::tuning::TuningCache> cache =
      ::orchestra::tuning::TuningCache::readFile(cachePath);
  if (!cache) {
    module.emitError() << llvm::toString(cache.takeError());
    return signalPassFailure();
  }
  int64_t tuned = 0;
  module.walk([&](ModuleOp kernels) {
    auto arch =
        kernels->getAttrOfType<StringAttr>(mlir::orchestra::attr::kArch);
    if (!arch)
      return;
    int64_t threads = 0;
    if (auto target = kernels->getAttrOfType<DictionaryAttr>(
            mlir::orchestra::attr::kTarget))
      if (auto count = dyn_cast_or_null<IntegerAttr>(target.get("num_threads")))
        threads = count.getInt();
    kernels.walk([&](linalg::MatmulOp matmul) {
      std::optional<::orchestra::tuning::TuningKey> key =
          getTuningKey(matmul, arch.getValue(), threads);
      if (!key)
        return;
      const ::orchestra::tuning::TuningEntry *entry = cache->lookup(*key);
      if (!entry || entry->variant == "default")
        return;
      matmul->setAttr(mlir::orchestra::attr::kTileVariant,
                      StringAttr::get(&getContext(), entry->variant));
      ++tuned;
      if (verbose)
        matmul.emitRemark() << "tuned variant '" << entry->variant << "' ("
                            << key->str() << ")";
    });
  });
  module->setAttr(mlir::orchestra::attr::kTunedOps,
                  IntegerAttr::get(IntegerType::get(&getContext(), 64), tuned));
}
