//===- OnnxFuzzer.cpp - Fuzz target: the ONNX importer --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Bytes -> a serialized ModelProto -> importModel (stage 1 of an ONNX
// compile) -> the module verified. A refusal (a diagnostic and failure) is
// fine; a crash, a sanitizer report or an imported module that does not
// verify is a bug. The model's folder is an empty temporary one, so
// external data never resolves to a file.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    orchestra::registerAllDialectsAndExtensions(registry);
    auto *ctx = new MLIRContext(registry);
    ctx->loadAllAvailableDialects();
    // Refusals are expected: keep them quiet.
    ctx->getDiagEngine().registerHandler([](Diagnostic &) {});
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  FailureOr<orchestra::onnx_import::ImportResult> imported =
      orchestra::onnx_import::importModel(
          &context, bytes, "/nonexistent/orchestra-fuzz/model.onnx");
  if (failed(imported))
    return 0;
  if (failed(verify(*imported->module)))
    std::abort();
  return 0;
}
