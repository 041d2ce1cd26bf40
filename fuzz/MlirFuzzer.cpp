//===- MlirFuzzer.cpp - Fuzz target: MLIR input through scheduling --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Bytes -> MLIR text as orchestra-compile reads it (nesting within the
// limit of orchestra/Support/Limits.h) -> parsed, verified, then
// the compile's first phase (stage 1 and scheduling, on a two-CPU
// topology, so that the result does not depend on the fuzzing machine). A
// refusal (a diagnostic and failure) is fine; a crash or a sanitizer report
// is a bug.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/InitAll.h"
#include "orchestra/Support/Limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

#ifndef ORCHESTRA_FUZZ_TOPOLOGY
#error "ORCHESTRA_FUZZ_TOPOLOGY names the topology the fuzzer schedules on"
#endif

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    orchestra::registerAllDialectsAndExtensions(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    ctx->getDiagEngine().registerHandler([](Diagnostic &) {});
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // What orchestra-compile refuses before parsing.
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (orchestra::findExcessiveNesting(text) ||
      orchestra::findKnownParserCrash(text))
    return 0;
  MLIRContext &context = getContext();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 0;
  orchestra::CompileOptions options;
  options.topology = ORCHESTRA_FUZZ_TOPOLOGY;
  options.scheduler = "heft";
  options.lastPhase = orchestra::CompilePhase::Schedule;
  (void)orchestra::runCompilePipeline(*module, options);
  return 0;
}
