// RUN: orchestra-opt %s --split-input-file --orchestra-gpu-pads-to-linalg | FileCheck %s

// A constant pad becomes a linalg.generic over the padded shape: each
// element reads the source at its indices minus the low padding (clamped
// into the source) and takes the padding value where those fall outside.
// CHECK-LABEL: func.func @pad
// CHECK-SAME:    (%[[X:.+]]: tensor<2x5xf32>)
// CHECK-DAG:     %[[V:.+]] = arith.constant 1.500000e+00 : f32
// CHECK-DAG:     %[[E:.+]] = tensor.empty() : tensor<4x10xf32>
// CHECK:         %[[G:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<4x10xf32>)
// CHECK:           %[[I:.+]] = linalg.index 0 : index
// CHECK:           %[[SI:.+]] = arith.subi %[[I]], %c1
// CHECK:           %[[INI:.+]] = arith.cmpi ult, %[[SI]], %c2
// CHECK:           %[[CI:.+]] = arith.select %[[INI]], %[[SI]], %c0
// CHECK:           %[[J:.+]] = linalg.index 1 : index
// CHECK:           %[[SJ:.+]] = arith.subi %[[J]], %c3
// CHECK:           %[[INJ:.+]] = arith.cmpi ult, %[[SJ]], %c5
// CHECK:           %[[IN:.+]] = arith.andi %[[INI]], %[[INJ]]
// CHECK:           %[[CJ:.+]] = arith.select %[[INJ]], %[[SJ]], %c0
// CHECK:           %[[X0:.+]] = tensor.extract %[[X]][%[[CI]], %[[CJ]]]
// CHECK:           %[[R:.+]] = arith.select %[[IN]], %[[X0]], %[[V]]
// CHECK:           linalg.yield %[[R]]
// CHECK-NOT:     tensor.pad
// CHECK:         return %[[G]]
func.func @pad(%x: tensor<2x5xf32>) -> tensor<4x10xf32> {
  %v = arith.constant 1.5 : f32
  %p = tensor.pad %x low[1, 3] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<2x5xf32> to tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}

// -----

// Dynamic padding, or a padding value computed from the indices, stays (the
// scheduler does not give such pads to the GPU).
// CHECK-LABEL: func.func @kept
// CHECK:         tensor.pad %{{.*}} low[%{{.*}}, 0]
// CHECK:         tensor.pad %{{.*}} low[1, 0]
func.func @kept(%x: tensor<2x5xf32>, %n: index) -> (tensor<?x5xf32>, tensor<4x5xf32>) {
  %v = arith.constant 0.0 : f32
  %p = tensor.pad %x low[%n, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<2x5xf32> to tensor<?x5xf32>
  %q = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    tensor.yield %f : f32
  } : tensor<2x5xf32> to tensor<4x5xf32>
  return %p, %q : tensor<?x5xf32>, tensor<4x5xf32>
}
