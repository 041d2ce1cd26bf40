// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-lower-branch-probes --orchestra-cpu-kernel-abi --verify-diagnostics | FileCheck %s

// Each probe adds 1 to counter 4*id (true) or 4*id+1 (false) of the
// kernel's counters, whose address the wrapper stores into the kernel's
// global from the pointer after its buffers.

// CHECK:       llvm.func internal @k(
// CHECK:         %[[C0:.*]] = llvm.icmp "eq"
// CHECK:         %[[G:.*]] = llvm.mlir.addressof @__orx_branch_counters_k : !llvm.ptr
// CHECK:         %[[BASE:.*]] = llvm.load %[[G]] : !llvm.ptr -> !llvm.ptr
// CHECK-DAG:     %[[T:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[F:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[I:.*]] = llvm.select %[[C0]], %[[T]], %[[F]] : i1, i64
// CHECK:         %[[P:.*]] = llvm.getelementptr %[[BASE]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK:         llvm.atomicrmw add %[[P]], %{{.*}} monotonic : !llvm.ptr, i64
// CHECK-DAG:     llvm.mlir.constant(12 : i64) : i64
// CHECK-DAG:     llvm.mlir.constant(13 : i64) : i64
// CHECK:         llvm.atomicrmw add
// CHECK:       llvm.func @orx_kernel_k(%[[ARGS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[COUNTERS:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[ADDR:.*]] = llvm.mlir.addressof @__orx_branch_counters_k : !llvm.ptr
// CHECK:         llvm.store %[[COUNTERS]], %[[ADDR]] : !llvm.ptr, !llvm.ptr
// CHECK:         llvm.call @k(
// CHECK:       llvm.mlir.global internal @__orx_branch_counters_k() {{.*}} : !llvm.ptr
// CHECK:         llvm.mlir.zero : !llvm.ptr
llvm.func @k(%p: !llvm.ptr, %q: !llvm.ptr, %o: i64) attributes {orchestra.abi = [tensor<i8>]} {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %c0 = llvm.icmp "eq" %o, %zero : i64
  %c1 = llvm.icmp "ne" %o, %zero : i64
  orchestra.branch_probe 0, %c0
  orchestra.branch_probe 3, %c1
  llvm.return
}

// -----

llvm.func @helper(%c: i1) {
  // expected-error @below {{'orchestra.branch_probe' op is not inside a kernel (an 'llvm.func' with 'orchestra.abi')}}
  orchestra.branch_probe 0, %c
  llvm.return
}
