//===- ONNXImporter.h - ONNX model to func + linalg -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Stage 1 (ingestion) for ONNX: reads an ONNX ModelProto and builds a module
// with one `func.func` whose body is linalg/tensor/arith/math on static-shaped
// tensors. Graph inputs become arguments named by `orchestra.name`; graph
// outputs are returned in graph-output order.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_FRONTEND_ONNX_ONNXIMPORTER_H
#define ORCHESTRA_FRONTEND_ONNX_ONNXIMPORTER_H

#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::orchestra::onnx_import {

/// Options of one import.
struct ImportOptions {
  /// Name of the function built for the main graph.
  std::string entryName = "main";
  /// Values of graph inputs that may be bound when an operand that fixes a
  /// shape (Reshape's shape, Slice's starts, ...) is a graph input. A bound
  /// input becomes a constant and leaves the function's signature; inputs
  /// that are not needed as constants stay arguments. The attributes must
  /// have the input's element type (signless integers).
  llvm::StringMap<DenseElementsAttr> bindableInputs;
  /// Sizes of symbolic dimensions (`orchestra-compile --dim NAME=SIZE`): a
  /// graph input dimension whose `dim_param` is NAME gets the static size
  /// SIZE. Other symbolic dimensions stay dynamic (`?`), named by their
  /// `dim_param` in the argument's `orchestra.dim_names` (design/0017).
  llvm::StringMap<int64_t> pinnedDims;
  /// Declared ranges of the dynamic dimensions (`--dim NAME=MIN..MAX`),
  /// which decide clamps of computed sizes (a Slice end within a dimension).
  /// A dimension without one has orchestra-bind-dims's default range.
  llvm::StringMap<DynamicDim> dimRanges;
  /// Initializers and constants larger than this many bytes become
  /// `dense_resource` blobs instead of inline `dense` attributes.
  size_t resourceThresholdBytes = 1024;
};

/// What an import produced beyond the module.
struct ImportResult {
  OwningOpRef<ModuleOp> module;
  /// The names of `pinnedDims` that some graph input used.
  std::vector<std::string> usedDims;
  /// The symbolic dimensions left dynamic.
  std::vector<std::string> dynamicDims;
  /// Graph inputs that were bound to constants, in graph order.
  std::vector<std::string> boundInputs;
  /// Graph inputs that remain function arguments, in argument order.
  std::vector<std::string> inputNames;
  /// Graph outputs in result order.
  std::vector<std::string> outputNames;
};

/// Imports a serialized ModelProto. `filename` names the model in
/// diagnostics and locates external tensor data. Errors are emitted as MLIR
/// diagnostics in `context`; unsupported constructs are reported as
/// "unsupported ..." and return failure.
FailureOr<ImportResult> importModel(MLIRContext *context, llvm::StringRef bytes,
                                    llvm::StringRef filename,
                                    const ImportOptions &options = {});

/// Reads and imports the model file at `path`.
FailureOr<ImportResult> importModelFile(MLIRContext *context,
                                        llvm::StringRef path,
                                        const ImportOptions &options = {});

/// Whether `path` looks like an ONNX model (by extension).
bool isONNXModelPath(llvm::StringRef path);

/// One converter registered for (domain, op type, since-version).
struct ConverterEntry {
  std::string domain;
  std::string opType;
  int sinceVersion;
};

/// Every registered converter, sorted by domain, op type and version.
std::vector<ConverterEntry> getRegisteredConverters();

} // namespace mlir::orchestra::onnx_import

#endif // ORCHESTRA_FRONTEND_ONNX_ONNXIMPORTER_H
