//===- orchestra-opt.cpp - The OrchestraOS optimizer driver ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// An `mlir-opt`-style driver with every upstream dialect, pass and extension
// registered, plus OrchestraOS's own.
//
//===----------------------------------------------------------------------===//

#include "orchestra/InitAll.h"
#include "orchestra/Support/CrashMessage.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-opt");
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  mlir::DialectRegistry registry;
  mlir::orchestra::registerAllDialectsAndExtensions(registry);
  mlir::orchestra::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "OrchestraOS optimizer driver\n", registry));
}
