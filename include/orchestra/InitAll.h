//===- InitAll.h - Register every dialect and pass --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_INITALL_H
#define ORCHESTRA_INITALL_H

namespace mlir {
class DialectRegistry;
namespace orchestra {

/// Adds every upstream dialect and extension and OrchestraOS's dialects to
/// `registry`.
void registerAllDialectsAndExtensions(DialectRegistry &registry);

/// Registers every upstream pass and OrchestraOS's passes and pipelines with
/// the global pass registry.
void registerAllPasses();

} // namespace orchestra
} // namespace mlir

#endif // ORCHESTRA_INITALL_H
