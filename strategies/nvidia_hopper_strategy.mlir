// Strategy for `nvidia_hopper` kernel modules: NVIDIA Hopper (H100/H200), sm_90a.
// The target registry loads it with nvidia_gpu_common.mlir, whose sequences
// it applies (see that file for what they do):
//
//   * @__orchestra_nvidia_hopper_strategy: stage 5, on tensors (applied by
//     orchestra-lower-kernels through the upstream transform interpreter);
//   * @__orchestra_nvidia_hopper_map_to_gpu and
//     @__orchestra_nvidia_hopper_lower_vectors: stage 7, named in the
//     arch's lowering pipeline (lib/Target/NVIDIA/NVIDIATarget.cpp), after
//     bufferization and after `convert-vector-to-gpu`.
//
// Tensor cores: `nvgpu.mma.sync` m16n8k16 (the warp-level MMA that both
// Hopper and Blackwell execute), operand tiles staged in shared memory by
// cp.async, software-pipelined (`tma = true` selects TMA loads and
// mbarriers); with `wgmma = true`, warpgroup MMA (`nvgpu.warpgroup.mma`)
// on TMA-staged, swizzled tiles where the matmul allows it; see
// docs/Passes/NVIDIA.md for what is not used yet on this arch.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%S/nvidia_gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_nvidia_hopper_strategy -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%S/nvidia_gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_nvidia_hopper_map_to_gpu -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%S/nvidia_gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_nvidia_hopper_lower_vectors -o /dev/null
module attributes {transform.with_named_sequence} {
  // Defined in nvidia_gpu_common.mlir; the preloaded libraries are linked.
  transform.named_sequence @nvidia_tile_and_fuse(
      %module: !transform.any_op {transform.readonly})
  transform.named_sequence @nvidia_map_to_gpu(
      %module: !transform.any_op {transform.readonly})
  transform.named_sequence @nvidia_lower_vectors(
      %module: !transform.any_op {transform.readonly})

  transform.named_sequence @__orchestra_nvidia_hopper_strategy(
      %module: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_tile_and_fuse failures(propagate) (%module)
        : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @__orchestra_nvidia_hopper_map_to_gpu(
      %module: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_map_to_gpu failures(propagate) (%module)
        : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @__orchestra_nvidia_hopper_lower_vectors(
      %module: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_lower_vectors failures(propagate) (%module)
        : (!transform.any_op) -> ()
    transform.yield
  }
}
