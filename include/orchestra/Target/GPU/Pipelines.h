//===- Pipelines.h - Pipeline steps the GPU archs share ---------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_PIPELINES_H
#define ORCHESTRA_TARGET_GPU_PIPELINES_H

#include <string>

namespace mlir::orchestra::gpucommon {

/// Stage 6 of every GPU arch's lowering pipeline, up to its stage-7 script:
/// bufferize (results as out-parameters), and turn the host-side copies
/// bufferization left into `linalg.copy` for the script to map. A loop's
/// values get buffers of their own in each iteration (allocations inside
/// the loop, which the launch table makes scratch buffers used in turn). No
/// CSE
/// before bufferization: it would merge the empty tensors of different
/// kernels' results into one buffer (and copies between them).
inline std::string getBufferizationPipeline() {
  return "canonicalize,"
         "one-shot-bufferize{allow-return-allocs-from-loops "
         "bufferize-function-boundaries "
         "function-boundary-type-conversion=identity-layout-map},"
         "buffer-results-to-out-params{hoist-static-allocs "
         "modify-public-functions},"
         "canonicalize,cse,canonicalize,orchestra-gpu-copies-to-linalg,";
}

} // namespace mlir::orchestra::gpucommon

#endif // ORCHESTRA_TARGET_GPU_PIPELINES_H
