//===- Npy.h - .npy files as MLIR constants ---------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_COMPILER_NPY_H
#define ORCHESTRA_COMPILER_NPY_H

#include "mlir/IR/BuiltinAttributes.h"

#include <string>

namespace mlir::orchestra {

/// Reads a .npy file as a dense constant (unsigned arrays become signless
/// integers of the same width). On failure `error` says why.
FailureOr<DenseElementsAttr>
readNpyAsAttr(MLIRContext *context, llvm::StringRef path, std::string &error);

} // namespace mlir::orchestra

#endif // ORCHESTRA_COMPILER_NPY_H
