// RUN: orchestra-opt %s --orchestra-gpu-sink-launch-operands | FileCheck %s

// A constant global and static views (a view of a view included) that a
// launch reads are computed inside it; the launch takes the viewed buffer.
// A view with a dynamic offset stays outside.

// CHECK-LABEL: func.func @views
// CHECK-NOT:     memref.get_global
// CHECK:         %[[D:.*]] = memref.subview %arg1[%arg2] [4] [1]
// CHECK-NOT:     memref.subview
// CHECK:         gpu.launch
// CHECK:           %[[V:.*]] = memref.subview %arg0[1, 0] [2, 6] [1, 1]
// CHECK:           %[[VV:.*]] = memref.subview %[[V]][0, 1] [2, 3] [1, 2]
// CHECK:           %[[G:.*]] = memref.get_global @table
// CHECK:           memref.load %[[VV]]
// CHECK:           memref.load %[[G]]
// CHECK:           memref.load %[[D]][
// CHECK:           gpu.terminator
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @views(%arg0: memref<4x6xf32>, %arg1: memref<8xf32>, %n: index, %out: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %table = memref.get_global @table : memref<4xf32>
  %v = memref.subview %arg0[1, 0] [2, 6] [1, 1] : memref<4x6xf32> to memref<2x6xf32, strided<[6, 1], offset: 6>>
  %vv = memref.subview %v[0, 1] [2, 3] [1, 2] : memref<2x6xf32, strided<[6, 1], offset: 6>> to memref<2x3xf32, strided<[6, 2], offset: 7>>
  %d = memref.subview %arg1[%n] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %vv[%c0, %c0] : memref<2x3xf32, strided<[6, 2], offset: 7>>
    %b = memref.load %table[%c0] : memref<4xf32>
    %c = memref.load %d[%c0] : memref<4xf32, strided<[1], offset: ?>>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    memref.store %t, %out[%c0] : memref<3xf32>
    gpu.terminator
  }
  return
}
