// RUN: orchestra-opt %s --pass-pipeline='builtin.module(func.func(orchestra-fold-empty-loops))' | FileCheck %s

// A structured op with a loop of no iteration is replaced by its inits;
// the others stay.

// CHECK-LABEL: func.func @empty
// CHECK-SAME:    (%[[X:.*]]: tensor<0x4xf32>, %[[Y:.*]]: tensor<4x0xf32>, %[[I:.*]]: tensor<4xf32>, %[[A:.*]]: tensor<4x3xf32>)
// CHECK-NOT:     linalg.reduce ins(%[[X]]
// CHECK-NOT:     linalg.reduce ins(%[[Y]]
// CHECK:         %[[KEPT:.*]] = linalg.reduce ins(%[[A]]
// CHECK:         return %[[I]], %[[I]], %[[KEPT]]
func.func @empty(%x: tensor<0x4xf32>, %y: tensor<4x0xf32>, %init: tensor<4xf32>, %a: tensor<4x3xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r0 = linalg.reduce ins(%x : tensor<0x4xf32>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%v: f32, %acc: f32) {
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
  %r1 = linalg.reduce ins(%y : tensor<4x0xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
  %r2 = linalg.reduce ins(%a : tensor<4x3xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
  return %r0, %r1, %r2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
