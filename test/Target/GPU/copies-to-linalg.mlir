// RUN: orchestra-opt %s --orchestra-gpu-copies-to-linalg | FileCheck %s

// Host-side copies become linalg.copy for the strategy to map onto threads;
// a scalar (rank-0) copy has no loop to map, so it copies one-element views.
// Copies already inside a GPU launch stay.
// CHECK-LABEL: func.func @copies
// CHECK-SAME:    (%[[A:.+]]: memref<4x8xf32>, %[[B:.+]]: memref<4x8xf32>, %[[S:.+]]: memref<f32>, %[[T:.+]]: memref<f32, strided<[], offset: ?>>)
// CHECK:         linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[B]] : memref<4x8xf32>)
// CHECK:         %[[S1:.+]] = memref.expand_shape %[[S]] [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK:         %[[T1:.+]] = memref.expand_shape %[[T]] [] output_shape [1] : memref<f32, strided<[], offset: ?>> into memref<1xf32, strided<[1], offset: ?>>
// CHECK:         linalg.copy ins(%[[S1]] : memref<1xf32>) outs(%[[T1]] : memref<1xf32, strided<[1], offset: ?>>)
// CHECK:         gpu.launch
// CHECK:           memref.copy
// CHECK-NOT:     memref.copy
func.func @copies(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %s: memref<f32>, %t: memref<f32, strided<[], offset: ?>>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %s, %t : memref<f32> to memref<f32, strided<[], offset: ?>>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
    gpu.terminator
  }
  return
}
