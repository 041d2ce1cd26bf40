//===- Reduction.cpp - ONNX Reduction converters
//----------------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

void onnx_import::registerReductionConverters(ConverterRegistry &registry) {}
