//===- orchestra-translate.cpp - Translations into OrchestraOS IR ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// `orchestra-translate --import-onnx model.onnx` prints the func + linalg
// module that stage 1 builds from an ONNX model (what orchestra-compile
// compiles when given a .onnx file).
//
//===----------------------------------------------------------------------===//

#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra/Support/CrashMessage.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::orchestra;

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-translate");
  TranslateToMLIRRegistration importONNX(
      "import-onnx", "Import an ONNX model as func + linalg",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        FailureOr<onnx_import::ImportResult> result = onnx_import::importModel(
            context, buffer->getBuffer(), buffer->getBufferIdentifier());
        if (failed(result))
          return nullptr;
        return OwningOpRef<Operation *>(result->module.release());
      },
      [](DialectRegistry &registry) {
        orchestra::registerAllDialectsAndExtensions(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "OrchestraOS translations"));
}
