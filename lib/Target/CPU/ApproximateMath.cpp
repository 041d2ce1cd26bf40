//===- ApproximateMath.cpp - Vectorized approximations of math functions --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/StringSwitch.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {

/// The functions whose upstream approximations are accurate to a few ulp in
/// f32 (checked against libm by the ONNX conformance tests and
/// test/e2e/dtypes.mlir).
/// `name` is the operation's full name (`math.exp`).
bool isApproximated(StringRef name) {
  name.consume_front("math.");
  return llvm::StringSwitch<bool>(name)
      .Cases({"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"}, true)
      .Default(false);
}

class CPUApproximateMathPass
    : public orchestra::cpu::impl::CPUApproximateMathBase<
          CPUApproximateMathPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
