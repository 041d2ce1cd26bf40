// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// A barrier before and after the payload ops, inside a block-level forall
// (a kernel to be).
// CHECK-LABEL: func.func @in_block_forall
// CHECK:         scf.forall
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    } {mapping = [#gpu.block<x>]}
module attributes {transform.with_named_sequence} {
  func.func @in_block_forall(%m: memref<64xf32>, %v: f32) {
    scf.forall (%i) in (64) {
      memref.store %v, %m[%i] : memref<64xf32>
      %x = memref.load %m[%i] {tagged} : memref<64xf32>
      memref.store %x, %m[%i] : memref<64xf32>
    } {mapping = [#gpu.block<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %load = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_before %load : !transform.any_op
    // The handle stays valid: it is only read.
    transform.orchestra.gpu_barrier_after %load : !transform.any_op
    transform.yield
  }
}

// -----

// Inside a kernel.
// CHECK-LABEL: func.func @in_launch
// CHECK:         gpu.launch
// CHECK:           memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      gpu.terminator
module attributes {transform.with_named_sequence} {
  func.func @in_launch(%m: memref<64xf32>, %v: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      memref.store %v, %m[%tx] {tagged} : memref<64xf32>
      gpu.terminator
    }
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %store = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %store : !transform.any_op
    transform.yield
  }
}

// -----

// Outside a GPU block (host code, or a thread-level loop alone) a barrier
// is refused: not every thread of a block would reach it.
module attributes {transform.with_named_sequence} {
  func.func @on_host(%m: memref<64xf32>, %v: f32) {
    scf.forall (%i) in (64) {
      // expected-note @below {{payload op}}
      memref.store %v, %m[%i] {tagged} : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %store = transform.structured.match attributes{tagged} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'memref.store' is not inside a GPU block (a block-mapped scf.forall, a gpu.launch or a gpu.func)}}
    transform.orchestra.gpu_barrier_after %store : !transform.any_op
    transform.yield
  }
}
