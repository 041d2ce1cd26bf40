// RUN: orchestra-opt %s --orchestra-cpu-stack-scratch-buffers | FileCheck %s
// RUN: orchestra-opt %s --orchestra-cpu-stack-scratch-buffers="max-buffer-bytes=256" | FileCheck %s --check-prefix=SMALL
// RUN: orchestra-opt %s --orchestra-cpu-stack-scratch-buffers="max-scope-bytes=40000" | FileCheck %s --check-prefix=BUDGET

// A small buffer freed in the same block of an allocation scope (a parallel
// iteration's memref.alloca_scope) goes on the stack; its dealloc goes.
// CHECK-LABEL: func.func @tile
// CHECK:         memref.alloca_scope {
// CHECK-NEXT:      %[[A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<3x3x16xf32>
// CHECK-NEXT:      linalg.fill {{.*}} outs(%[[A]]
// CHECK-NOT:       memref.dealloc
// CHECK:         }
// SMALL-LABEL: func.func @tile
// SMALL:         memref.alloc() {alignment = 64 : i64} : memref<3x3x16xf32>
// SMALL:         memref.dealloc
func.func @tile(%out: memref<3x3x16xf32>) {
  %zero = arith.constant 0.0 : f32
  memref.alloca_scope {
    %a = memref.alloc() {alignment = 64 : i64} : memref<3x3x16xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<3x3x16xf32>)
    memref.copy %a, %out : memref<3x3x16xf32> to memref<3x3x16xf32>
    memref.dealloc %a : memref<3x3x16xf32>
  }
  return
}

// Left alone: a buffer inside a loop that is not an allocation scope (the
// stack would grow with every iteration), a buffer over the limit, one of
// dynamic size, one freed in another block, and one that is not freed.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     memref.alloca(
// CHECK:         return
func.func @kept(%n: index, %c: i1, %out: memref<16xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.alloc() : memref<16xf32>
    memref.copy %a, %out : memref<16xf32> to memref<16xf32>
    memref.dealloc %a : memref<16xf32>
  }
  %big = memref.alloc() : memref<65536xf32>
  memref.dealloc %big : memref<65536xf32>
  %dyn = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %dyn : memref<?xf32>
  %cond = memref.alloc() : memref<16xf32>
  scf.if %c {
    memref.dealloc %cond : memref<16xf32>
  }
  %escapes = memref.alloc() : memref<8xf32>
  return %escapes : memref<8xf32>
}

// The total per scope is bounded: with a budget of 40000 bytes, the second
// buffer of 24 KiB stays on the heap.
// BUDGET-LABEL: func.func @budget
// BUDGET:         memref.alloca() : memref<6144xf32>
// BUDGET:         memref.alloc() : memref<6144xf32>
func.func @budget() {
  %a = memref.alloc() : memref<6144xf32>
  %b = memref.alloc() : memref<6144xf32>
  memref.dealloc %a : memref<6144xf32>
  memref.dealloc %b : memref<6144xf32>
  return
}
