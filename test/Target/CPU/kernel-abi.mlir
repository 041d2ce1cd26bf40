// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-kernel-abi --verify-diagnostics | FileCheck %s

// The wrapper loads one pointer per buffer and passes the expanded memref
// descriptors (static shape, row-major strides) to the internal kernel.

// CHECK-LABEL: llvm.func internal @k(
// CHECK:       llvm.func @orx_kernel_k(%[[ARGS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK:         %[[P0:.*]] = llvm.getelementptr %[[ARGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[A:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[D0:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         %[[D1:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         %[[S1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[S0:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[ARGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[B:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[Z2:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[N:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK:         %[[U:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         llvm.call @k(%[[A]], %[[A]], %[[Z]], %[[D0]], %[[D1]], %[[S0]], %[[S1]], %[[B]], %[[B]], %[[Z2]], %[[N]], %[[U]])
// CHECK:         llvm.return
llvm.func @k(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64, %a5: i64, %a6: i64,
             %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64) attributes {orchestra.abi = [tensor<4x8xf32>, tensor<32xf32>]} {
  llvm.return
}

// -----

// Dynamic sizes are read from the second argument, in buffer order; the
// strides multiply them.

// CHECK-LABEL: llvm.func internal @dyn(
// CHECK:       llvm.func @orx_kernel_dyn(%[[ARGS:.*]]: !llvm.ptr, %[[SIZES:.*]]: !llvm.ptr)
// CHECK:         %[[A:.*]] = llvm.load
// CHECK:         %[[Z:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK:         %[[G0:.*]] = llvm.getelementptr %[[SIZES]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[N:.*]] = llvm.load %[[G0]] : !llvm.ptr -> i64
// CHECK:         %[[C8:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[S0:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         %[[B:.*]] = llvm.load
// CHECK:         %[[G1:.*]] = llvm.getelementptr %[[SIZES]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[M:.*]] = llvm.load %[[G1]] : !llvm.ptr -> i64
// CHECK:         %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK:         %[[G2:.*]] = llvm.getelementptr %[[SIZES]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[K:.*]] = llvm.load %[[G2]] : !llvm.ptr -> i64
// CHECK:         %[[U:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[SK:.*]] = llvm.mul %{{.*}}, %[[K]] : i64
// CHECK:         %[[SM:.*]] = llvm.mul %[[SK]], %[[C2]] : i64
// CHECK:         llvm.call @dyn(%[[A]], %[[A]], %[[Z]], %[[N]], %[[C8]], %[[S0]], %[[ONE]], %[[B]], %[[B]], %{{.*}}, %[[M]], %[[C2]], %[[K]], %[[SM]], %[[SK]], %[[U]])
llvm.func @dyn(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64, %a5: i64, %a6: i64,
               %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64, %b3: i64, %b4: i64, %b5: i64, %b6: i64, %b7: i64, %b8: i64) attributes {orchestra.abi = [tensor<?x8xf32>, tensor<?x2x?xf32>]} {
  llvm.return
}

// -----

// expected-error @below {{lowered kernel has 1 parameters, expected 5 (expanded memref descriptors of 1 buffers, results as out-parameters)}}
llvm.func @bad(%a0: !llvm.ptr) attributes {orchestra.abi = [tensor<4xf32>]} {
  llvm.return
}

// -----

// Scratch buffers: calls to malloc and free go through internal wrappers
// that call the runtime's hooks (the exported orx_kernel_allocator, null
// until the runtime sets it) or, while a hook is null, the C library.

// CHECK-LABEL: llvm.func internal @scratch(
// CHECK:         %[[P:.*]] = llvm.call @__orx_malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK:         llvm.call @__orx_free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK:       llvm.mlir.global external @orx_kernel_allocator() {{.*}} : !llvm.array<2 x ptr> {
// CHECK:         %[[Z:.*]] = llvm.mlir.zero : !llvm.array<2 x ptr>
// CHECK:         llvm.return %[[Z]]
// CHECK:       llvm.func internal @__orx_malloc(%[[N:.*]]: i64) -> !llvm.ptr {
// CHECK:         %[[G:.*]] = llvm.mlir.addressof @orx_kernel_allocator
// CHECK:         %[[SLOT:.*]] = llvm.getelementptr %[[G]][0, 0]
// CHECK:         %[[HOOK:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[UNSET:.*]] = llvm.icmp "eq" %[[HOOK]], %[[NULL]]
// CHECK:         llvm.cond_br %[[UNSET]], ^[[LIBC:.*]], ^[[VIAHOOK:.*]]
// CHECK:       ^[[LIBC]]:
// CHECK:         %[[R:.*]] = llvm.call @malloc(%[[N]])
// CHECK:         llvm.return %[[R]]
// CHECK:       ^[[VIAHOOK]]:
// CHECK:         %[[R2:.*]] = llvm.call %[[HOOK]](%[[N]]) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK:         llvm.return %[[R2]]
// CHECK:       llvm.func internal @__orx_free(%[[Q:.*]]: !llvm.ptr) {
// CHECK:         llvm.getelementptr %{{.*}}[0, 1]
// CHECK:         llvm.call @free(%[[Q]])
// CHECK:         llvm.call %{{.*}}(%[[Q]]) : !llvm.ptr, (!llvm.ptr) -> ()
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
llvm.func @scratch(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %a3: i64, %a4: i64) attributes {orchestra.abi = [tensor<4xf32>]} {
  %c = llvm.mlir.constant(256 : i64) : i64
  %p = llvm.call @malloc(%c) : (i64) -> !llvm.ptr
  llvm.call @free(%p) : (!llvm.ptr) -> ()
  llvm.return
}
