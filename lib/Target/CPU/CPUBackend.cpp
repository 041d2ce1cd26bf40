//===- CPUBackend.cpp - The CPU backend's compiler hooks ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/Backend.h"
#include "orchestra/Target/CPU/Passes.h"
#include "orchestra/Target/CPU/TransformOps/CPUTransformOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::orchestra;
namespace tuning = ::orchestra::tuning;

/// The tunable ops of an x86_64 kernel module: its f32 `linalg.matmul`s with
/// static shapes, which the strategy script's `@matmul_variant_<name>`
/// sequences tile (docs/Tuning.md). One-row matmuls (GEMV) have their own
/// path in the strategy (step 1) and no variants.
static void collectTunableMatmuls(ModuleOp kernels,
                                  std::vector<TunableOp> &ops) {
  auto arch = kernels->getAttrOfType<StringAttr>(attr::kArch);
  if (!arch || arch.getValue() != "x86_64")
    return;
  auto target = kernels->getAttrOfType<DictionaryAttr>(attr::kTarget);
  int64_t threads = 0;
  if (target)
    if (auto count = dyn_cast_or_null<IntegerAttr>(target.get("num_threads")))
      threads = count.getInt();
  kernels.walk([&](linalg::MatmulOp matmul) {
    SmallVector<int64_t> ranges = matmul.getStaticLoopRanges();
    if (ranges.size() != 3 || llvm::any_of(ranges, ShapedType::isDynamic) ||
        ranges[0] == 1)
      return;
    TunableOp op;
    op.key.arch = arch.getValue().str();
    op.key.threads = threads;
    op.key.op = matmul->getName().getStringRef().str();
    llvm::raw_string_ostream os(op.key.elementType);
    getElementTypeOrSelf(matmul.getDpsInits()[0].getType()).print(os);
    if (op.key.elementType != "f32")
      return;
    op.key.shape.assign(ranges.begin(), ranges.end());
    op.target = target;
    ops.push_back(std::move(op));
  });
}

/// The program that runs `key`'s matmul alone: C = A * B on a zero fill.
static std::string getMatmulBenchmark(const tuning::TuningKey &key) {
  int64_t m = key.shape[0], n = key.shape[1], k = key.shape[2];
  std::string t = key.elementType;
  return llvm::formatv(
             "func.func @main(%a: tensor<{0}x{2}x{3}>, %b: tensor<{2}x{1}x{3}>)"
             " -> tensor<{0}x{1}x{3}> {{\n"
             "  %zero = arith.constant 0.0 : {3}\n"
             "  %e = tensor.empty() : tensor<{0}x{1}x{3}>\n"
             "  %f = linalg.fill ins(%zero : {3}) outs(%e : "
             "tensor<{0}x{1}x{3}>) -> tensor<{0}x{1}x{3}>\n"
             "  %c = linalg.matmul ins(%a, %b : tensor<{0}x{2}x{3}>, "
             "tensor<{2}x{1}x{3}>) outs(%f : tensor<{0}x{1}x{3}>) -> "
             "tensor<{0}x{1}x{3}>\n"
             "  return %c : tensor<{0}x{1}x{3}>\n}\n",
             m, n, k, t)
      .str();
}

/// The passes of the CPU pipelines, and the matmuls orchestra-tune tunes.
TargetBackend mlir::orchestra::getCPUBackend() {
  TargetBackend backend;
  backend.name = "CPU";
  backend.registerPasses = cpu::registerOrchestraCPUPasses;
  backend.registerDialects = cpu::registerTransformDialectExtension;
  backend.collectTunableOps = collectTunableMatmuls;
  backend.getTuningBenchmark = getMatmulBenchmark;
  return backend;
}
