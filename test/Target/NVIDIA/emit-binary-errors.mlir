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

// -----

// A launch that needs more dynamic shared memory than a block has (the
// target's shared_memory_bytes here) is an error at compile time, not a
// failed launch.
module @kernels attributes {gpu.container_module, orchestra.arch = "nvidia_hopper", orchestra.target = {sm = "sm_90a", shared_memory_bytes = 100000 : i64}} {
  gpu.module @m attributes {orchestra.dynamic_shared_memory = {k = 150000 : i64}} {
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @t0(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{needs 150000 bytes of dynamic shared memory, more than the 100000 a thread block has on this target}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

// The module's static shared memory counts too: 90000 dynamic bytes fit in
// 100000, but not with a 16 KB static tile.
module @kernels attributes {gpu.container_module, orchestra.arch = "nvidia_hopper", orchestra.target = {sm = "sm_90a", shared_memory_bytes = 100000 : i64}} {
  gpu.module @m attributes {orchestra.dynamic_shared_memory = {k = 90000 : i64}} {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16384 x i8>
    llvm.mlir.global external @dynamic() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.func @k(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @t0(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{needs 90000 bytes of dynamic shared memory and 16384 of static, more than the 100000 a thread block has on this target}}
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}
