//===- Child.h - One test, in a forked child ------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The child side of orchestra-onnx-conformance: imports, compiles and runs
// one test and reports over the message pipe (the protocol in the comment of
// orchestra-onnx-conformance.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_CHILD_H
#define ORCHESTRA_ONNX_CONFORMANCE_CHILD_H

#include "Outcomes.h"

#include "orchestra/Compiler/Pipeline.h"

#include "llvm/Support/Regex.h"

#include <optional>
#include <string>

namespace mlir::orchestra::conformance {

/// Everything a child needs besides its test.
struct ChildConfig {
  /// How every test is compiled (validated once by the parent).
  CompileOptions compileOptions;
  std::optional<llvm::Regex> injectCrash;
  std::optional<llvm::Regex> injectHang;
  std::optional<llvm::Regex> injectStall;
};

/// The child's entry: sets up reporting (LLVM's fatal errors and escaping
/// exceptions are crashes) and runs `test`, writing to `fd`. Never returns.
[[noreturn]] void childMain(const TestCase &test, const ChildConfig &config,
                            int fd);

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_CHILD_H
