// RUN: orchestra-opt %s --pass-pipeline='builtin.module(gpu.module(orchestra-gpu-kernel-argument-alignment))' | FileCheck %s
// RUN: orchestra-opt %s --pass-pipeline='builtin.module(gpu.module(orchestra-gpu-kernel-argument-alignment),gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true}))' | FileCheck %s --check-prefix=NVVM

// Every buffer a kernel takes is a 64-byte aligned slot: its memref
// arguments say so. Pointer arguments (tensor maps), scalars, arguments that
// already have an alignment and functions that are not kernels are left
// alone.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME:    %{{.*}}: memref<256x256xf32> {llvm.align = 64 : i64}
// CHECK-SAME:    %{{.*}}: !llvm.ptr,
// CHECK-SAME:    %{{.*}}: memref<16xf16> {llvm.align = 128 : i64}
// CHECK-SAME:    %{{.*}}: f32,
// CHECK-SAME:    %{{.*}}: memref<256xf32> {llvm.align = 64 : i64}
// CHECK-SAME:    kernel
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT:     llvm.align
// CHECK:         gpu.return

// The bare-pointer lowering carries the alignment to the kernel's pointers.
// NVVM: llvm.func @kernel(%arg0: !llvm.ptr {llvm.align = 64 : i64}, %arg1: !llvm.ptr, %arg2: !llvm.ptr {llvm.align = 128 : i64}, %arg3: f32, %arg4: !llvm.ptr {llvm.align = 64 : i64})
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%out: memref<256x256xf32>, %map: !llvm.ptr, %aligned: memref<16xf16> {llvm.align = 128 : i64}, %scale: f32, %bias: memref<256xf32>) kernel {
      gpu.return
    }
    gpu.func @helper(%buffer: memref<4xf32>) {
      gpu.return
    }
  }
}
