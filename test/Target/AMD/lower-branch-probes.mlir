// RUN: orchestra-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(orchestra-amd-lower-branch-probes))' --verify-diagnostics | FileCheck %s

// A probe is a vote of the 64-lane wave: the exec mask (the ballot of
// true) and the ballot of the condition; the lowest active lane adds the
// then lanes, the else lanes, one wave and one divergent wave to counters
// 4*id .. 4*id+3 (the common lowering, test/Target/NVIDIA's test).

// CHECK-LABEL: gpu.func @k(
// CHECK-SAME:      %[[P:.*]]: i1, %[[C:.*]]: memref<4xi64>)
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         %[[ACTIVE:.*]] = rocdl.ballot %[[TRUE]] : i64
// CHECK:         %[[BALLOT:.*]] = rocdl.ballot %[[P]] : i64
// CHECK:         %[[LANE:.*]] = gpu.lane_id
// CHECK:         arith.index_castui %[[LANE]] : index to i64
// CHECK:         "llvm.intr.cttz"(%[[ACTIVE]]) <{is_zero_poison = true}> : (i64) -> i64
// CHECK:         scf.if
// CHECK:           %[[THEN:.*]] = llvm.intr.ctpop(%[[BALLOT]]) : (i64) -> i64
// CHECK:           %[[ALL:.*]] = llvm.intr.ctpop(%[[ACTIVE]]) : (i64) -> i64
// CHECK:           arith.subi %[[ALL]], %[[THEN]] : i64
// CHECK-COUNT-4:   memref.atomic_rmw addi
gpu.module @m {
  gpu.func @k(%p: i1, %counters: memref<4xi64>) kernel {
    orchestra.branch_probe 0, %p to %counters : memref<4xi64>
    gpu.return
  }
}
