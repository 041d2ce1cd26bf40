// orchestra-gpu-workgroup-allocations with a limit: the AMD pipeline's LDS
// limit comes from the target key `lds_size` of the kernel module's target
// description (else the `limit` option); a kernel whose tiles need more is an
// error that names the key. With a static limit as large as the limit, every
// tile stays a static workgroup attribution.
// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(orchestra-gpu-workgroup-allocations{static-limit=65536 limit=65536 limit-key=lds_size}))' | FileCheck %s

// 16 KB of tiles within the 64 KB default: static attributions.
// CHECK-LABEL: gpu.func @fits
// CHECK-SAME:    workgroup(%{{.+}} : memref<64x64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-NOT:     gpu.dynamic_shared_memory
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @fits(%out: memref<64x64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %tile = memref.alloc() : memref<64x64xf32, #gpu.address_space<workgroup>>
      %v = memref.load %tile[%c0, %c0] : memref<64x64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%c0, %c0] : memref<64x64xf32>
      memref.dealloc %tile : memref<64x64xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// The same tiles on a target whose lds_size is 8 KB.
module attributes {gpu.container_module, orchestra.target = {arch = "amd_cdna3", lds_size = 8192 : i64}} {
  gpu.module @m {
    // expected-error @+1 {{GPU kernel @small needs 16384 bytes of shared memory for its tiles, more than the 8192 a workgroup has on this target (target key `lds_size`)}}
    gpu.func @small(%out: memref<64x64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %tile = memref.alloc() : memref<64x64xf32, #gpu.address_space<workgroup>>
      %v = memref.load %tile[%c0, %c0] : memref<64x64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%c0, %c0] : memref<64x64xf32>
      memref.dealloc %tile : memref<64x64xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
