// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --orchestra-nvidia-emit-binary

// A host-side op the strategy did not map to the GPU.
module @kernels attributes {orchestra.arch = "nvidia_hopper"} {
  // expected-note @below {{the nvidia strategy must place every op of a task inside a `gpu.launch`}}
  func.func @t0(%a: memref<4xf32>, %b: memref<4xf32>) {
    // expected-error @below {{was not mapped to the GPU: it would run on the host side of GPU kernel @t0}}
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    return
  }
}

// -----

// Kernels take buffers: a scalar operand has no slot in the plan.
module @kernels attributes {orchestra.arch = "nvidia_hopper"} {
  // expected-error @below {{GPU kernel @t0 has operand #1 of type 'f32'; kernels take buffers only}}
  func.func @t0(%a: memref<4xf32>, %s: f32) {
    return
  }
}
