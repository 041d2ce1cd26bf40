// RUN: orchestra-opt %s --split-input-file --orchestra-branch-profiler --verify-diagnostics | FileCheck %s

// The branches of each kernel (functions with orchestra.abi) are numbered
// in pre-order: a probe in front of each scf.if and of each loop's
// scf.condition; the module records where each is. Functions that are not
// kernels are left alone.

// CHECK-DAG:   #[[IF:loc[0-9]*]] = loc("if.mlir":3:4)
// CHECK-DAG:   #[[WHILE:loc[0-9]*]] = loc("while.mlir":6:5)
// CHECK-DAG:   #[[INNER:loc[0-9]*]] = loc("inner.mlir":9:8)
// CHECK-LABEL: module @kernels
// CHECK-SAME:  orchestra.branches = {k = [#[[IF]], #[[WHILE]], #[[INNER]]]}
// CHECK-LABEL: func.func @k(
// CHECK:         orchestra.branch_probe 0, %{{.*}}
// CHECK-NEXT:    scf.if
// CHECK:         scf.while
// CHECK:           %[[GO:.*]] = arith.cmpi slt
// CHECK:           orchestra.branch_probe 1, %[[GO]]
// CHECK-NEXT:      scf.condition(%[[GO]])
// CHECK:           orchestra.branch_probe 2, %{{.*}}
// CHECK-NEXT:      scf.if
// CHECK-LABEL: func.func @not_a_kernel(
// CHECK-NOT:     orchestra.branch_probe
module @kernels {
  func.func @k(%c: i1, %n: i64, %x: f32) -> f32 attributes {orchestra.abi = [tensor<i8>, tensor<i64>, tensor<f32>, tensor<f32>]} {
    %a = scf.if %c -> f32 {
      scf.yield %x : f32
    } else {
      %y = arith.addf %x, %x : f32
      scf.yield %y : f32
    } loc("if.mlir":3:4)
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %r:2 = scf.while (%i = %zero, %v = %a) : (i64, f32) -> (i64, f32) {
      %go = arith.cmpi slt, %i, %n : i64
      scf.condition(%go) %i, %v : i64, f32
    } do {
    ^bb0(%j: i64, %w: f32):
      %next = arith.addi %j, %one : i64
      %odd = arith.trunci %j : i64 to i1
      %u = scf.if %odd -> f32 {
        %m = arith.mulf %w, %w : f32
        scf.yield %m : f32
      } else {
        scf.yield %w : f32
      } loc("inner.mlir":9:8)
      scf.yield %next, %u : i64, f32
    } loc("while.mlir":6:5)
    return %r#1 : f32
  }
  func.func @not_a_kernel(%c: i1, %x: f32) -> f32 {
    %a = scf.if %c -> f32 {
      scf.yield %x : f32
    } else {
      scf.yield %x : f32
    }
    return %a : f32
  }
}

// -----

// expected-error @below {{kernel module is already instrumented ('orchestra.branches' is set)}}
module @twice attributes {orchestra.branches = {}} {
}
