// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(gpu.module(orchestra-gpu-workgroup-allocations))' | FileCheck %s

// The strategy's shared-memory tile becomes a workgroup attribution (128-byte
// aligned, for ldmatrix and TMA), a per-thread temporary a private one.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME:    workgroup(%[[SHARED:.+]] : memref<64x64xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-SAME:    private(%[[LOCAL:.+]] : memref<4xf32, #gpu.address_space<private>>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
// CHECK:         memref.store %{{.*}}, %[[SHARED]]
// CHECK:         memref.store %{{.*}}, %[[LOCAL]]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %h = arith.constant 1.0 : f16
      %f = arith.constant 1.0 : f32
      %shared = memref.alloc() : memref<64x64xf16, #gpu.address_space<workgroup>>
      %local = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
      memref.store %h, %shared[%c0, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
      memref.store %f, %local[%c0] : memref<4xf32, #gpu.address_space<private>>
      memref.dealloc %shared : memref<64x64xf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Tiles beyond the 48 KB a kernel may declare statically (here 16384 + 36000 bytes)
// live in dynamic shared memory: views of it, each on a 128-byte line, and
// the bytes recorded for the kernel on its module (the launches get them).
// CHECK-LABEL: gpu.module @big
// CHECK-SAME:    attributes {orchestra.dynamic_shared_memory = {kernel = 52384 : i64}}
// CHECK:         gpu.func @kernel
// CHECK-SAME:      private(%[[LOCAL:.+]] : memref<4xf32, #gpu.address_space<private>>)
// CHECK-NOT:       workgroup(
// CHECK:           %[[BASE:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:           %[[C0:.+]] = arith.constant 0 : index
// CHECK:           %[[A:.+]] = memref.view %[[BASE]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x64xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[C16384:.+]] = arith.constant 16384 : index
// CHECK:           %[[B:.+]] = memref.view %[[BASE]][%[[C16384]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x3x1000xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:       memref.alloc
// CHECK:           memref.store %{{.*}}, %[[A]]
// CHECK:           memref.store %{{.*}}, %[[B]]
// CHECK:           memref.store %{{.*}}, %[[LOCAL]]
module attributes {gpu.container_module} {
  gpu.module @big {
    gpu.func @kernel(%out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %h = arith.constant 1.0 : f16
      %f = arith.constant 1.0 : f32
      %a = memref.alloc() : memref<2x64x64xf16, #gpu.address_space<workgroup>>
      %b = memref.alloc() : memref<3x3x1000xf32, #gpu.address_space<workgroup>>
      %local = memref.alloc() : memref<4xf32, #gpu.address_space<private>>
      memref.store %h, %a[%c0, %c0, %c0] : memref<2x64x64xf16, #gpu.address_space<workgroup>>
      memref.store %f, %b[%c0, %c0, %c0] : memref<3x3x1000xf32, #gpu.address_space<workgroup>>
      memref.store %f, %local[%c0] : memref<4xf32, #gpu.address_space<private>>
      memref.dealloc %a : memref<2x64x64xf16, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%n: index) kernel {
      // expected-error @below {{allocates 'memref<16xf32>' in global memory inside GPU kernel @kernel}}
      %global = memref.alloc() : memref<16xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%n: index) kernel {
      // expected-error @below {{only static shapes with the identity layout can become attributions}}
      %dynamic = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// A thread's copy of a tile it writes but its block does not share (the
// accumulator of ArgMax's maximum): allocated without a memory space, sizes
// bounded by the thread's tile. It becomes a private attribution of the
// bounds, reinterpreted to the sizes asked for.
// CHECK-LABEL: gpu.func @bounded
// CHECK-SAME:    private(%[[P:.*]] : memref<1x4xf32, #gpu.address_space<private>>)
// CHECK:         %[[N:.*]] = affine.max
// CHECK:         %[[V:.*]] = memref.reinterpret_cast %[[P]] to offset: [0], sizes: [%[[N]], 4], strides: [4, 1] : memref<1x4xf32, #gpu.address_space<private>> to memref<?x4xf32, strided<[4, 1]>, #gpu.address_space<private>>
// CHECK:         linalg.copy ins(%{{.*}} : {{.*}}) outs(%[[V]] : {{.*}})
// CHECK:         memref.load %[[V]]
// CHECK-NOT:     memref.dealloc
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @bounded(%in: memref<2x4xf32>, %out: memref<2x4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %0 = affine.min affine_map<()[s0] -> (-s0 + 2, 1)>()[%tid]
      %1 = affine.max affine_map<()[s0] -> (0, s0)>()[%0]
      %tile = memref.subview %in[%tid, 0] [%1, 4] [1, 1] : memref<2x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
      %acc = memref.alloc(%1) : memref<?x4xf32>
      linalg.copy ins(%tile : memref<?x4xf32, strided<[4, 1], offset: ?>>) outs(%acc : memref<?x4xf32>)
      %v = memref.load %acc[%c0, %c0] : memref<?x4xf32>
      memref.store %v, %out[%c0, %c0] : memref<2x4xf32>
      memref.dealloc %acc : memref<?x4xf32>
      gpu.return
    }
  }
}

// -----

// Without a bound on its size, or with a user that would not lower in a
// kernel (a memref.copy of dynamic sizes calls the host's copy function),
// such an allocation is still an error.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @unbounded(%n: index) kernel {
      // expected-error @below {{allocates 'memref<?xf32>' in global memory inside GPU kernel @unbounded}}
      %global = memref.alloc(%n) : memref<?xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copied(%in: memref<2x4xf32>) kernel {
      %tid = gpu.thread_id x
      %0 = affine.min affine_map<()[s0] -> (-s0 + 2, 1)>()[%tid]
      %tile = memref.subview %in[%tid, 0] [%0, 4] [1, 1] : memref<2x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
      // expected-error @below {{allocates 'memref<?x4xf32>' in global memory inside GPU kernel @copied}}
      %acc = memref.alloc(%0) : memref<?x4xf32>
      memref.copy %tile, %acc : memref<?x4xf32, strided<[4, 1], offset: ?>> to memref<?x4xf32>
      gpu.return
    }
  }
}
