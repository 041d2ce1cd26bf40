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

// A concatenation leaves out its operands without elements (one operand
// left is the result; none, an empty tensor); a slice without elements
// inserts nothing.

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME:    (%[[E:.*]]: tensor<0x4xf32>, %[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK:         %[[C:.*]] = tensor.concat dim(0) %[[A]], %[[B]] : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
// CHECK:         %[[NONE:.*]] = tensor.empty() : tensor<0x4xf32>
// CHECK:         return %[[A]], %[[C]], %[[NONE]], %[[A]]
func.func @data_movement(%e: tensor<0x4xf32>, %a: tensor<3x4xf32>, %b: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<5x4xf32>, tensor<0x4xf32>, tensor<3x4xf32>) {
  %one = tensor.concat dim(0) %e, %a : (tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %two = tensor.concat dim(0) %a, %e, %b : (tensor<3x4xf32>, tensor<0x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %none = tensor.concat dim(0) %e, %e : (tensor<0x4xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
  %ins = tensor.insert_slice %e into %a[1, 0] [0, 4] [1, 1] : tensor<0x4xf32> into tensor<3x4xf32>
  return %one, %two, %none, %ins : tensor<3x4xf32>, tensor<5x4xf32>, tensor<0x4xf32>, tensor<3x4xf32>
}
