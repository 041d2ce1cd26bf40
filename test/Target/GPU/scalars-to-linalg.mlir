// RUN: orchestra-opt %s --orchestra-gpu-scalars-to-linalg | FileCheck %s

// A loop's counter (extract, add, from_elements) and its condition (two
// extracts and a compare) become 0-d linalg.generics whose bodies are the
// chains; the condition is read back from the generic's result; a constant
// initial value is filled into a buffer of its own; the scalar ops go.

// CHECK-LABEL: func.func @loop(
// CHECK-SAME:      %[[N:.*]]: tensor<i64>, %[[X:.*]]: tensor<4xf32>)
// CHECK-NOT:     arith.constant dense
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<i64>
// CHECK:         %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%[[EMPTY]] : tensor<i64>) -> tensor<i64>
// CHECK:         scf.while (%[[I:.*]] = %[[ZERO]], %{{.*}} = %[[X]])
// CHECK:           %[[C:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = []} ins(%[[I]], %[[N]] : tensor<i64>, tensor<i64>) outs(%{{.*}} : tensor<i1>)
// CHECK:           ^bb0(%[[A:.*]]: i64, %[[B:.*]]: i64, %{{.*}}: i1):
// CHECK:             %[[LT:.*]] = arith.cmpi slt, %[[A]], %[[B]] : i64
// CHECK:             linalg.yield %[[LT]] : i1
// CHECK:           %[[READ:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK:           scf.condition(%[[READ]])
// CHECK:         } do {
// CHECK:         ^bb0(%[[J:.*]]: tensor<i64>, %{{.*}}: tensor<4xf32>):
// CHECK:           %[[NEXT:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = []} ins(%[[J]] : tensor<i64>) outs(%{{.*}} : tensor<i64>)
// CHECK:           ^bb0(%[[K:.*]]: i64, %{{.*}}: i64):
// CHECK:             %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:             %[[ADD:.*]] = arith.addi %[[K]], %[[ONE]] : i64
// CHECK:             linalg.yield %[[ADD]] : i64
// CHECK:           scf.yield %[[NEXT]],
// CHECK-NOT:     tensor.from_elements
func.func @loop(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0> : tensor<i64>
  %r:2 = scf.while (%i = %zero, %v = %x) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
    %ie = tensor.extract %i[] : tensor<i64>
    %ne = tensor.extract %n[] : tensor<i64>
    %more = arith.cmpi slt, %ie, %ne : i64
    scf.condition(%more) %i, %v : tensor<i64>, tensor<4xf32>
  } do {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
    %ie = tensor.extract %i[] : tensor<i64>
    %one = arith.constant 1 : i64
    %next = arith.addi %ie, %one : i64
    %nt = tensor.from_elements %next : tensor<i64>
    scf.yield %nt, %v : tensor<i64>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}

// A condition that is already the element of a 0-d tensor stays as it is.
// CHECK-LABEL: func.func @read(
// CHECK:         scf.while
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK-NEXT:      scf.condition(%[[E]])
func.func @read(%c: tensor<i1>) -> tensor<i1> {
  %r = scf.while (%a = %c) : (tensor<i1>) -> tensor<i1> {
    %e = tensor.extract %a[] : tensor<i1>
    scf.condition(%e) %a : tensor<i1>
  } do {
  ^bb0(%a: tensor<i1>):
    scf.yield %a : tensor<i1>
  }
  return %r : tensor<i1>
}

// A counted loop that reads its induction variable (an ONNX Loop's
// iteration number and scan output): the loop carries a counter from the
// lower bound, advanced by the step by a 0-d kernel; the cast reads the
// counter; the row inserted at the variable becomes a select over the
// destination.
// CHECK-LABEL: func.func @counted(
// CHECK:         %[[START:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<i64>) -> tensor<i64>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SCAN:.*]] = %{{.*}}, %[[COUNT:.*]] = %[[START]])
// CHECK:           %[[V:.*]] = linalg.generic {{.*}} ins(%[[COUNT]] : tensor<i64>) outs(%{{.*}} : tensor<f32>)
// CHECK:             arith.sitofp
// CHECK:           %[[ROW:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[SCAN]], %[[COUNT]] : tensor<5x3xf32>, tensor<i64>)
// CHECK:             linalg.index 0
// CHECK:             tensor.extract %{{.*}}[%{{.*}}] : tensor<3xf32>
// CHECK:             arith.select
// CHECK:           %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[COUNT]] : tensor<i64>) outs(%{{.*}} : tensor<i64>)
// CHECK:             arith.constant 1 : i64
// CHECK:             arith.addi
// CHECK:           scf.yield %{{.*}}, %[[ROW]], %[[NEXT]]
// CHECK-NOT:     tensor.insert_slice
// CHECK-NOT:     arith.index_cast
func.func @counted(%x: tensor<3xf32>) -> tensor<5x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %e = tensor.empty() : tensor<5x3xf32>
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %x, %scan = %e) -> (tensor<3xf32>, tensor<5x3xf32>) {
    %n = arith.index_cast %i : index to i64
    %nt = tensor.from_elements %n : tensor<i64>
    %f0 = tensor.empty() : tensor<f32>
    %f = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%nt : tensor<i64>) outs(%f0 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %c = arith.sitofp %in : i64 to f32
      linalg.yield %c : f32
    } -> tensor<f32>
    %s = tensor.insert_slice %acc into %scan[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
    scf.yield %acc, %s : tensor<3xf32>, tensor<5x3xf32>
  }
  return %r#1 : tensor<5x3xf32>
}
