// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-kernel-abi --verify-diagnostics | FileCheck %s

// The wrapper loads one pointer per buffer and passes the expanded memref
// descriptors (static shape, row-major strides) to the internal kernel.

// CHECK-LABEL: llvm.func internal @k(
// CHECK:       llvm.func @orx_kernel_k(%[[ARGS:.*]]: !llvm.ptr)
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

// expected-error @below {{lowered kernel has 1 parameters, expected 5 (expanded memref descriptors of 1 buffers, results as out-parameters)}}
llvm.func @bad(%a0: !llvm.ptr) attributes {orchestra.abi = [tensor<4xf32>]} {
  llvm.return
}
