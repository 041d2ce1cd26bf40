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
