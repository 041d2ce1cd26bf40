//===- ArtifactBuilder.h - Compiled module to .orcx artifact ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ARTIFACT_ARTIFACTBUILDER_H
#define ORCHESTRA_ARTIFACT_ARTIFACTBUILDER_H

#include "orchestra_rt/Artifact.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra {

/// Builds the runtime artifact of a fully compiled module: the planned
/// schedule of `entry` (see lookupEntryFunction) with launches of compiled
/// kernel modules, transfers and constants. The steps' dependencies are the
/// SSA edges plus the orderings that buffer reuse needs (a step that writes
/// bytes waits for every earlier step that read or wrote them). Emits an
/// error at the offending op and fails on anything the runtime cannot run.
FailureOr<orx::Artifact> buildArtifact(ModuleOp module, StringRef entry);

} // namespace mlir::orchestra

#endif // ORCHESTRA_ARTIFACT_ARTIFACTBUILDER_H
