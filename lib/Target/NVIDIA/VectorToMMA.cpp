//===- VectorToMMA.cpp - Tensor-core contractions of GPU launches ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIAVECTORTOMMA
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

namespace {
class NVIDIAVectorToMMAPass
    : public orchestra::nvidia::impl::NVIDIAVectorToMMABase<
          NVIDIAVectorToMMAPass> {
public:
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (launch
              .walk(
                  [](vector::ContractionOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        launches.push_back(launch);
    });
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches) {
      RewritePatternSet patterns(&getContext());
      populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(launch, std::move(patterns))) ||
          failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch)))
        return signalPassFailure();
    }
  }
};
} // namespace
