// RUN: orchestra-opt %s --orchestra-cpu-expand-strided-copies | FileCheck %s

// CHECK-LABEL: func.func @copies
// CHECK:         linalg.copy ins(%{{.*}} : memref<4x5xf32, strided<[9, 1], offset: 19>>) outs(%{{.*}} : memref<4x5xf32>)
// CHECK:         memref.copy %{{.*}}, %{{.*}} : memref<4x5xf32> to memref<4x5xf32>
func.func @copies(%a: memref<33x9xf32>, %b: memref<4x5xf32>, %c: memref<4x5xf32>) {
  %s = memref.subview %a[2, 1] [4, 5] [1, 1] : memref<33x9xf32> to memref<4x5xf32, strided<[9, 1], offset: 19>>
  memref.copy %s, %b : memref<4x5xf32, strided<[9, 1], offset: 19>> to memref<4x5xf32>
  memref.copy %b, %c : memref<4x5xf32> to memref<4x5xf32>
  return
}

// An expand_shape that splits one dimension into two dynamic ones (a
// reshape of [batch * seq, 64] to [batch, seq, 64]) becomes a
// reinterpret_cast with row-major strides; one dynamic size per group stays.
// CHECK-LABEL: func.func @expands
// CHECK-SAME:    (%[[A:.*]]: memref<?x64xf32>, %[[B:.*]]: index, %[[S:.*]]: index
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK:         memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[B]], %[[S]], 64], strides: [%[[ROW]], 64, 1] : memref<?x64xf32> to memref<?x?x64xf32>
// CHECK:         memref.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 64]
func.func @expands(%a: memref<?x64xf32>, %b: index, %s: index, %c: memref<?x64xf32>) -> (memref<?x?x64xf32>, memref<?x4x64xf32>) {
  %e = memref.expand_shape %a [[0, 1], [2]] output_shape [%b, %s, 64] : memref<?x64xf32> into memref<?x?x64xf32>
  %f = memref.expand_shape %c [[0, 1], [2]] output_shape [%b, 4, 64] : memref<?x64xf32> into memref<?x4x64xf32>
  return %e, %f : memref<?x?x64xf32>, memref<?x4x64xf32>
}
