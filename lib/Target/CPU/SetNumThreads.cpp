//===- SetNumThreads.cpp - Thread count of a CPU kernel module ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUSETNUMTHREADS
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {
class CPUSetNumThreadsPass
    : public orchestra::cpu::impl::CPUSetNumThreadsBase<CPUSetNumThreadsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto target =
        module->getAttrOfType<DictionaryAttr>(mlir::orchestra::attr::kTarget);
    auto threads =
        target ? dyn_cast_or_null<IntegerAttr>(target.get("num_threads"))
               : IntegerAttr();
    if (!threads)
      return;
    int64_t count = threads.getInt();
    if (count < 1 || count > std::numeric_limits<int32_t>::max()) {
      module.emitError() << "num_threads " << count << " is out of range";
      return signalPassFailure();
    }
    module.walk([&](omp::ParallelOp parallel) {
      if (parallel.getNumThreads())
        return;
      OpBuilder builder(parallel);
      Value value = arith::ConstantIntOp::create(builder, parallel.getLoc(),
                                                 count, /*width=*/32);
      parallel.getNumThreadsMutable().assign(value);
    });
  }
};
} // namespace
