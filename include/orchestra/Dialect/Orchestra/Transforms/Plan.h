//===- Plan.h - Shared helpers of the host plan -----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PLAN_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PLAN_H

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra {

/// Alignment of every buffer of the host plan inside its memory space.
inline constexpr int64_t kBufferAlignment = 64;

/// Bytes of a statically shaped buffer of `type` (sub-byte element types take
/// one byte per element).
int64_t getBufferSize(Type type);

/// The default (device-scope) memory space declared for a device.
FailureOr<MemorySpaceOp>
lookupDeviceMemorySpace(ModuleOp module, StringRef arch, int64_t deviceId);

/// The memory space of the topology's first device, where entry arguments,
/// results and constants live. Emits an error if there is none.
FailureOr<MemorySpaceOp> lookupHostMemorySpace(ModuleOp module);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PLAN_H
