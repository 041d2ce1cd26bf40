// The StableHLO archs' strategy (stablehlo_common.mlir's
// @stablehlo_clean_up, through each arch's entry point) on kernels: the
// same result for both archs.
// RUN: orchestra-opt %s --split-input-file --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/stablehlo_common.mlir,%orchestra_src_root/strategies/google_tpu_strategy.mlir --transform-interpreter=entry-point=__orchestra_google_tpu_v5e_strategy | FileCheck %s
// RUN: orchestra-opt %s --split-input-file --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/stablehlo_common.mlir,%orchestra_src_root/strategies/aws_trainium_strategy.mlir --transform-interpreter=entry-point=__orchestra_aws_trainium2_strategy | FileCheck %s

// A chain of elementwise ops (the first one reads its operand transposed)
// becomes one generic op.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      ins(%arg0, %arg1 : tensor<8x4xf32>, tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.negf
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]]
func.func @chain(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A contraction written as a generic op becomes linalg.matmul before the
// fusion, so its elementwise producer stays outside (one dot_general).
// CHECK-LABEL: func.func @contraction_generic
// CHECK:         %[[NEG:.+]] = linalg.generic
// CHECK:           arith.negf
// CHECK:         linalg.matmul ins(%[[NEG]], %arg1 : tensor<4x8xf32>, tensor<8x3xf32>) outs(%arg2 : tensor<4x3xf32>)
func.func @contraction_generic(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%n, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%c : tensor<4x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// Named ops in disguise become them; an input the body does not read is
// dropped.
// CHECK-LABEL: func.func @disguised
// CHECK:         linalg.transpose ins(%arg0 : tensor<4x8xf32>) outs(%{{.*}} : tensor<8x4xf32>) permutation = [1, 0]
// CHECK-LABEL: func.func @unused_input
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<8xf32>)
// CHECK:           math.tanh
func.func @disguised(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func @unused_input(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// An expand_shape undone by a collapse_shape folds away; a batch matmul
// next to a reshape stays a valid batch matmul (upstream's
// linalg-fuse-elementwise-ops would propagate the reshape into it and make
// it invalid).
// CHECK-LABEL: func.func @reshapes
// CHECK-NEXT:    return %arg0 : tensor<4x8xf32>
// CHECK-LABEL: func.func @batch_matmul_after_reshape
// CHECK:         tensor.collapse_shape %arg0
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %arg1 : tensor<2x3x4xf32>, tensor<2x4x3xf32>)
// CHECK:         tensor.expand_shape
func.func @reshapes(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.expand_shape %a [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<4x2x4xf32> into tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
func.func @batch_matmul_after_reshape(%a: tensor<1x2x3x4xf32>, %b: tensor<2x4x3xf32>) -> tensor<1x2x3x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3x3xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %c = tensor.collapse_shape %a [[0, 1], [2], [3]] : tensor<1x2x3x4xf32> into tensor<2x3x4xf32>
  %2 = linalg.batch_matmul ins(%c, %b : tensor<2x3x4xf32>, tensor<2x4x3xf32>) outs(%1 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %e = tensor.expand_shape %2 [[0, 1], [2], [3]] output_shape [1, 2, 3, 3] : tensor<2x3x3xf32> into tensor<1x2x3x3xf32>
  return %e : tensor<1x2x3x3xf32>
}
