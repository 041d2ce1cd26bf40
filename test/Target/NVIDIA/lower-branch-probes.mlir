// RUN: orchestra-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(orchestra-nvidia-lower-branch-probes))' --verify-diagnostics | FileCheck %s

// A probe is a vote of the warp: the active lanes (activemask), the ballot
// of the condition among them; the lowest active lane adds the then lanes,
// the else lanes, one warp and one divergent warp (the ballot neither empty
// nor all) to counters 4*id .. 4*id+3.

// CHECK-LABEL: gpu.func @k(
// CHECK-SAME:      %[[P:.*]]: i1, %[[C:.*]]: memref<8xi64>)
// CHECK:         %[[ACTIVE:.*]] = llvm.inline_asm has_side_effects "activemask.b32 $0;", "=r" {{ *}}: () -> i32
// CHECK:         %[[BALLOT:.*]] = nvvm.vote.sync {{ *}}ballot %[[ACTIVE]], %[[P]] -> i32
// CHECK:         %[[LANE:.*]] = gpu.lane_id
// CHECK:         %[[LANE32:.*]] = arith.index_castui %[[LANE]] : index to i32
// CHECK:         %[[LEADER:.*]] = "llvm.intr.cttz"(%[[ACTIVE]]) <{is_zero_poison = true}> : (i32) -> i32
// CHECK:         %[[IS:.*]] = arith.cmpi eq, %[[LANE32]], %[[LEADER]] : i32
// CHECK:         scf.if %[[IS]] {
// CHECK:           %[[THEN32:.*]] = llvm.intr.ctpop(%[[BALLOT]]) : (i32) -> i32
// CHECK:           %[[THEN:.*]] = arith.extui %[[THEN32]] : i32 to i64
// CHECK:           %[[ALL32:.*]] = llvm.intr.ctpop(%[[ACTIVE]]) : (i32) -> i32
// CHECK:           %[[ALL:.*]] = arith.extui %[[ALL32]] : i32 to i64
// CHECK:           %[[ELSE:.*]] = arith.subi %[[ALL]], %[[THEN]] : i64
// CHECK:           %[[SOME:.*]] = arith.cmpi ne, %[[BALLOT]], %{{.*}} : i32
// CHECK:           %[[NOTALL:.*]] = arith.cmpi ne, %[[BALLOT]], %[[ACTIVE]] : i32
// CHECK:           %[[DIV1:.*]] = arith.andi %[[SOME]], %[[NOTALL]] : i1
// CHECK:           %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:           %[[DIV:.*]] = arith.extui %[[DIV1]] : i1 to i64
// CHECK:           %[[I4:.*]] = arith.constant 4 : index
// CHECK:           memref.atomic_rmw addi %[[THEN]], %[[C]][%[[I4]]] : (i64, memref<8xi64>) -> i64
// CHECK:           %[[I5:.*]] = arith.constant 5 : index
// CHECK:           memref.atomic_rmw addi %[[ELSE]], %[[C]][%[[I5]]]
// CHECK:           %[[I6:.*]] = arith.constant 6 : index
// CHECK:           memref.atomic_rmw addi %[[ONE]], %[[C]][%[[I6]]]
// CHECK:           %[[I7:.*]] = arith.constant 7 : index
// CHECK:           memref.atomic_rmw addi %[[DIV]], %[[C]][%[[I7]]]
// CHECK-NOT:     orchestra.branch_probe
gpu.module @m {
  gpu.func @k(%p: i1, %counters: memref<8xi64>) kernel {
    orchestra.branch_probe 1, %p to %counters : memref<8xi64>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: i1) kernel {
    // expected-error @below {{'orchestra.branch_probe' op has no counters buffer in GPU device code (orchestra-gpu-branch-counters gives probes one before kernel outlining)}}
    orchestra.branch_probe 0, %p
    gpu.return
  }
}
