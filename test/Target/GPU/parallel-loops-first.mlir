// RUN: orchestra-opt %s --split-input-file --orchestra-gpu-parallel-loops-first | FileCheck %s

// A reduction over the leading dimension: the kept dimension's loop comes
// first (the threads take it), the body's linalg.index is renumbered.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[IN2:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @leading_reduction
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK:           %[[R:.*]] = affine.apply #[[IN2]](%[[I0]], %[[I1]])
// CHECK:           arith.index_cast %[[R]]
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>
func.func @leading_reduction(%x: tensor<8x16xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %a, %f : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A reduction to a scalar (a named op, generalized) gets a leading parallel
// loop of one iteration: its init is expanded to tensor<1xf64> and its
// result collapsed back.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @to_scalar
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f64> into tensor<1xf64>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<5xf64>) outs(%[[E]] : tensor<1xf64>)
// CHECK:           arith.addf
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[G]] [] : tensor<1xf64> into tensor<f64>
// CHECK:         return %[[C]]
func.func @to_scalar(%v: tensor<5xf64>, %init: tensor<f64>) -> tensor<f64> {
  %r = linalg.reduce ins(%v : tensor<5xf64>) outs(%init : tensor<f64>) dimensions = [0]
    (%a: f64, %acc: f64) {
      %s = arith.addf %a, %acc : f64
      linalg.yield %s : f64
    }
  return %r : tensor<f64>
}

// -----

// Two reduction loops and an index of each: both are shifted by the new
// loop; the result keeps its rank-2 unit shape behind a leading unit
// dimension.

// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
// CHECK-LABEL: func.func @keepdims
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 1, 1] : tensor<1x1xi64> into tensor<1x1x1xi64>
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:           linalg.index 1 : index
// CHECK:           linalg.index 2 : index
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x1x1xi64> into tensor<1x1xi64>
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#out2 = affine_map<(d0, d1) -> (0, 0)>
func.func @keepdims(%x: tensor<3x4xi64>, %init: tensor<1x1xi64>) -> tensor<1x1xi64> {
  %r = linalg.generic {indexing_maps = [#in2, #out2], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<3x4xi64>) outs(%init : tensor<1x1xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %kk = arith.index_cast %k : index to i64
    %m = arith.muli %a, %kk : i64
    %s = arith.addi %m, %acc : i64
    linalg.yield %s : i64
  } -> tensor<1x1xi64>
  return %r : tensor<1x1xi64>
}

// -----

// Ops whose parallel loops already come first are left alone (a matmul
// stays a named op for orchestra-nvidia-select-recipes).

// CHECK-LABEL: func.func @untouched
// CHECK:         linalg.matmul
// CHECK-NOT:     linalg.generic
func.func @untouched(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A reduction to a scalar over more than 1024 elements is split across
// threads: 100000 elements into 3328 partials (13 blocks of 256 threads),
// each reducing the elements p, p + 3328, ... (31 steps, the last ones past
// the end left out) from the combiner's neutral element, reading the input
// with tensor.extract; those 3328 into 256 (13 steps), and those on one
// thread, with the combiner, into the original init.

// CHECK-LABEL: func.func @split
// CHECK:         %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3328xf32>)
// CHECK:         %[[S1:.*]] = tensor.empty() : tensor<31xi8>
// CHECK:         %[[P1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[S1]] : tensor<31xi8>) outs(%[[Z1]] : tensor<3328xf32>)
// CHECK:           %[[F:.*]] = arith.addi
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[F]], %c100000
// CHECK:           %[[SAFE:.*]] = arith.select %[[IN]], %[[F]]
// CHECK:           tensor.extract %arg0
// CHECK:           %[[SUM:.*]] = arith.addf
// CHECK:           %[[KEEP:.*]] = arith.select %[[IN]], %[[SUM]], %{{.*}}
// CHECK:           linalg.yield %[[KEEP]]
// CHECK:         %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<256xf32>)
// CHECK:         %[[S2:.*]] = tensor.empty() : tensor<13xi8>
// CHECK:         %[[P2:.*]] = linalg.generic {{.*}} ins(%[[S2]] : tensor<13xi8>) outs(%[[Z2]] : tensor<256xf32>)
// CHECK:           tensor.extract %[[P1]]
// CHECK:         %[[E:.*]] = tensor.expand_shape %arg1
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P2]] : tensor<256xf32>) outs(%[[E]] : tensor<1xf32>)
// CHECK:           arith.addf
// CHECK:         tensor.collapse_shape %[[R]]
func.func @split(%x: tensor<100000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<100000xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// A body that is not one combiner (here the accumulator is scaled) is not
// split: one thread reduces it.

// CHECK-LABEL: func.func @not_split
// CHECK-NOT:     tensor<{{[0-9]+}}xi8>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<5000xf32>) outs(%{{.*}} : tensor<1xf32>)
func.func @not_split(%x: tensor<5000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %half = arith.constant 0.5 : f32
  %r = linalg.reduce ins(%x : tensor<5000xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %h = arith.mulf %acc, %half : f32
      %s = arith.addf %a, %h : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// -----

// A scalar operand of a split reduction is read as it is (not extracted).

// CHECK-LABEL: func.func @scalar_operand
// CHECK-SAME:    (%[[X:.*]]: tensor<2000xf32>, %[[S:.*]]: f32
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<8xi8>) outs(%{{.*}} : tensor<256xf32>)
// CHECK:           %[[E:.*]] = tensor.extract %[[X]]
// CHECK:           arith.mulf %[[E]], %[[S]]
func.func @scalar_operand(%x: tensor<2000xf32>, %s: f32, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x, %s : tensor<2000xf32>, f32) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %sum = arith.addf %m, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A result indexed by a reduction loop (of one iteration) is not split: one
// thread reduces it.

// CHECK-LABEL: func.func @result_names_a_loop
// CHECK-NOT:     tensor<{{[0-9]+}}xi8>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<1x2000xf32>)
func.func @result_names_a_loop(%x: tensor<1x2000xf32>, %init: tensor<1xf32>) -> tensor<1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1x2000xf32>) outs(%init : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %a, %acc : f32
    linalg.yield %sum : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

// Few outputs with many iterations each: the iterations of each of the 4
// dot products are split into 128 partials (2 blocks of 256 threads in
// all), the named op generalized; the partials reduced per output.

// CHECK-LABEL: func.func @per_output
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x128xf32>)
// CHECK:         %[[S:.*]] = tensor.empty() : tensor<24xi8>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[S]] : tensor<24xi8>) outs(%[[Z]] : tensor<4x128xf32>)
// CHECK:           %[[ROW:.*]] = linalg.index 0 : index
// CHECK:           %[[I:.*]] = affine.apply #{{.*}}(%[[ROW]], %{{.*}})
// CHECK:           %[[J:.*]] = affine.apply #{{.*}}(%[[ROW]], %{{.*}})
// CHECK:           tensor.extract %arg0[%[[I]], %[[J]]]
// CHECK:           tensor.extract %arg1[%{{.*}}]
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<4x128xf32>) outs(%arg2 : tensor<4xf32>)
// CHECK-NOT:     linalg.matvec
func.func @per_output(%a: tensor<4x3000xf32>, %v: tensor<3000xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.matvec ins(%a, %v : tensor<4x3000xf32>, tensor<3000xf32>) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Enough outputs keep the threads busy: not split.

// CHECK-LABEL: func.func @many_outputs
// CHECK:         linalg.matvec
func.func @many_outputs(%a: tensor<4096x2000xf32>, %v: tensor<2000xf32>, %init: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.matvec ins(%a, %v : tensor<4096x2000xf32>, tensor<2000xf32>) outs(%init : tensor<4096xf32>) -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}
