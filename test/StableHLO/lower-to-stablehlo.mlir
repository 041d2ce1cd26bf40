// RUN: orchestra-opt %s --split-input-file --orchestra-lower-to-stablehlo --verify-diagnostics | FileCheck %s

// Each kernel function becomes a StableHLO module (generic op form) recorded
// as `orchestra.stablehlo`; test/StableHLO/bridge.test parses what is written
// here with the real StableHLO parser.

#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: orchestra.stablehlo = "module {
// CHECK-SAME: func.func @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<64xf32>) -> (tensor<8x64xf32>)
// The zero fill of the accumulator needs no add; f32 products at full
// precision (a TPU's XLA otherwise multiplies f32 in one bf16 pass).
// CHECK-SAME: \22stablehlo.dot_general\22(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
// CHECK-SAME: \22stablehlo.broadcast_in_dim\22(%arg2) {broadcast_dimensions = array<i64: 1>} : (tensor<64xf32>) -> tensor<8x64xf32>
// CHECK-SAME: \22stablehlo.add\22
// CHECK-SAME: \22stablehlo.maximum\22
// CHECK-SAME: \22func.return\22
func.func @matmul_bias_relu(%a: tensor<8x32xf32>, %b: tensor<32x64xf32>, %bias: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x64xf32>) outs(%fill : tensor<8x64xf32>) -> tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A batch matmul that accumulates into its init, and f16 operands converted
// to the f32 accumulator.
// CHECK-LABEL: func.func @batch_matmul_accumulate
// CHECK-SAME: \22stablehlo.convert\22(%arg0) : (tensor<2x4x8xf16>) -> tensor<2x4x8xf32>
// CHECK-SAME: lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]
// CHECK-SAME: \22stablehlo.add\22({{%v[0-9]+}}, %arg2)
func.func @batch_matmul_accumulate(%a: tensor<2x4x8xf16>, %b: tensor<2x8x16xf16>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf16>, tensor<2x8x16xf16>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// A row sum: reduce over d1 with the identity, then combined with the init;
// an output in another order than the domain is transposed.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
#t = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @row_sum_and_transpose
// CHECK-SAME: \22stablehlo.reduce\22
// CHECK-SAME: \22stablehlo.add\22(%a, %b)
// CHECK-SAME: \22stablehlo.return\22
// CHECK-SAME: {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-SAME: \22stablehlo.exponential\22
// CHECK-SAME: \22stablehlo.transpose\22({{%v[0-9]+}}) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
func.func @row_sum_and_transpose(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.generic {indexing_maps = [#in, #t], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x2 = math.exp %v : f32
    linalg.yield %x2 : f32
  } -> tensor<8x4xf32>
  return %s, %t : tensor<4xf32>, tensor<8x4xf32>
}

// -----

// Data movement, comparisons, select and iota.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: \22stablehlo.reshape\22(%arg0) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-SAME: \22stablehlo.slice\22({{%v[0-9]+}}) {start_indices = array<i64: 1>, limit_indices = array<i64: 5>, strides = array<i64: 1>}
// CHECK-SAME: \22stablehlo.concatenate\22({{%v[0-9]+}}, {{%v[0-9]+}}) {dimension = 0 : i64}
// CHECK-SAME: \22stablehlo.pad\22
// CHECK-SAME: edge_padding_low = array<i64: 2>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>
// CHECK-SAME: \22stablehlo.iota\22() {iota_dimension = 0 : i64} : () -> tensor<13xi64>
// CHECK-SAME: \22stablehlo.compare\22
// CHECK-SAME: comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>
// CHECK-SAME: \22stablehlo.select\22
func.func @data_movement(%x: tensor<2x3xf32>) -> tensor<13xf32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %part = tensor.extract_slice %flat[1] [4] [1] : tensor<6xf32> to tensor<4xf32>
  %joined = tensor.concat dim(0) %flat, %part : (tensor<6xf32>, tensor<4xf32>) -> tensor<10xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %joined low[2] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<10xf32> to tensor<13xf32>
  %e = tensor.empty() : tensor<13xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%padded : tensor<13xf32>) outs(%e : tensor<13xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    %gt = arith.cmpf ogt, %v, %f : f32
    %s = arith.select %gt, %v, %f : f32
    linalg.yield %s : f32
  } -> tensor<13xf32>
  return %r : tensor<13xf32>
}

// -----

// Channels-last convolutions (dense and depthwise) and pooling.
// CHECK-LABEL: func.func @convolutions
// CHECK-SAME: \22stablehlo.convolution\22(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>], rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 2, 2>} : (tensor<1x9x9x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>
// The depthwise filter [KH, KW, C] as [KH, KW, 1, C], one group per channel.
// CHECK-SAME: \22stablehlo.reshape\22(%arg2) : (tensor<3x3x4xf32>) -> tensor<3x3x1x4xf32>
// CHECK-SAME: feature_group_count = 4 : i64
// CHECK-SAME: \22stablehlo.reduce_window\22
// CHECK-SAME: \22stablehlo.maximum\22(%a, %b)
// CHECK-SAME: {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>, window_dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x9x9x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
func.func @convolutions(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x8xf32>, %dw: tensor<3x3x4xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x7x7x4xf32>, tensor<1x4x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x4xf32>, tensor<3x3x4x8xf32>) outs(%f : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e2 = tensor.empty() : tensor<1x7x7x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : tensor<1x9x9x4xf32>, tensor<3x3x4xf32>) outs(%f2 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<1x4x4x4xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %win : tensor<1x9x9x4xf32>, tensor<2x2xf32>) outs(%f3 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c, %d, %p : tensor<1x4x4x8xf32>, tensor<1x7x7x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// A channels-last grouped convolution (orchestra-convert-convolutions-to-nhwc's
// form of ONNX's grouped Conv): `convolution` in feature groups on the 4-D
// views, its filter [G, KH, KW, C/G, M/G] transposed to
// [KH, KW, C/G, G, M/G] so that the output features are group-major.
// CHECK-LABEL: func.func @grouped_convolution
// CHECK-SAME: \22stablehlo.reshape\22(%arg0) : (tensor<1x5x5x2x3xf32>) -> tensor<1x5x5x6xf32>
// CHECK-SAME: \22stablehlo.transpose\22(%arg1) {permutation = array<i64: 1, 2, 3, 0, 4>} : (tensor<2x3x3x3x4xf32>) -> tensor<3x3x3x2x4xf32>
// CHECK-SAME: (tensor<3x3x3x2x4xf32>) -> tensor<3x3x3x8xf32>
// CHECK-SAME: \22stablehlo.convolution\22({{%v[0-9]+}}, {{%v[0-9]+}}) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, {{.*}} : (tensor<1x5x5x6xf32>, tensor<3x3x3x8xf32>) -> tensor<1x3x3x8xf32>
// CHECK-SAME: (tensor<1x3x3x8xf32>) -> tensor<1x3x3x2x4xf32>
func.func @grouped_convolution(%x: tensor<1x5x5x2x3xf32>, %w: tensor<2x3x3x3x4xf32>) -> tensor<1x3x3x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x2x4xf32>) -> tensor<1x3x3x2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>, affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>, affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x5x5x2x3xf32>, tensor<2x3x3x3x4xf32>) outs(%f : tensor<1x3x3x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x2x4xf32>
  return %r : tensor<1x3x3x2x4xf32>
}

// -----

// What is not converted is an error at the op (and the scheduler's support
// mask, the same code, keeps such ops off StableHLO devices): here a
// convolution written as a generic (a window read through `oh + kh`).
#win_in = affine_map<(n, oh, ow, kh, kw) -> (n, oh + kh, ow + kw)>
#win_k = affine_map<(n, oh, ow, kh, kw) -> (kh, kw)>
#win_out = affine_map<(n, oh, ow, kh, kw) -> (n, oh, ow)>
func.func @window_generic(%x: tensor<1x8x8xf32>, %k: tensor<3x3xf32>, %o: tensor<1x6x6xf32>) -> tensor<1x6x6xf32> {
  // expected-error @below {{cannot be lowered to StableHLO: an operand's indexing map is not a projected permutation}}
  %r = linalg.generic {indexing_maps = [#win_in, #win_k, #win_out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %k : tensor<1x8x8xf32>, tensor<3x3xf32>) outs(%o : tensor<1x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x6x6xf32>
  return %r : tensor<1x6x6xf32>
}

// -----

// maxnumf returns the operand that is not NaN: maximum (which propagates
// NaN) and a select of the other operand where one is NaN (x != x).
#id4 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_maxnumf
// CHECK-SAME: \22stablehlo.maximum\22(%arg0, [[ZERO:%v[0-9]+]])
// CHECK-SAME: \22stablehlo.compare\22([[ZERO]], [[ZERO]]) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>}
// CHECK-SAME: \22stablehlo.select\22
// CHECK-SAME: \22stablehlo.compare\22(%arg0, %arg0) {comparison_direction = #stablehlo<comparison_direction NE>
// CHECK-SAME: \22stablehlo.select\22
func.func @relu_maxnumf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maxnumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Unsigned integer ops run on uiN: StableHLO's signless integers are signed,
// so their operands are reinterpreted (bitcast_convert) and the result
// reinterpreted back; unsigned comparisons compare uiN; zero extensions and
// unsigned conversions convert from uiN.
#id2 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: \22stablehlo.bitcast_convert\22(%arg0) : (tensor<4xi32>) -> tensor<4xui32>
// CHECK-SAME: \22stablehlo.bitcast_convert\22(%arg1) : (tensor<4xi32>) -> tensor<4xui32>
// CHECK-SAME: \22stablehlo.divide\22({{%v[0-9]+}}, {{%v[0-9]+}}) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
// CHECK-SAME: \22stablehlo.bitcast_convert\22({{%v[0-9]+}}) : (tensor<4xui32>) -> tensor<4xi32>
// CHECK-SAME: \22stablehlo.compare\22({{%v[0-9]+}}, {{%v[0-9]+}}) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
// CHECK-SAME: \22stablehlo.bitcast_convert\22(%arg2) : (tensor<4xi8>) -> tensor<4xui8>
// CHECK-SAME: \22stablehlo.convert\22({{%v[0-9]+}}) : (tensor<4xui8>) -> tensor<4xui32>
// CHECK-SAME: \22stablehlo.bitcast_convert\22({{%v[0-9]+}}) : (tensor<4xui32>) -> tensor<4xi32>
// CHECK-SAME: \22stablehlo.convert\22({{%v[0-9]+}}) : (tensor<4xui8>) -> tensor<4xf32>
func.func @unsigned(%x: tensor<4xi32>, %y: tensor<4xi32>, %z: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xi32>
  %eb = tensor.empty() : tensor<4xi1>
  %ef = tensor.empty() : tensor<4xf32>
  %r:4 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel"]}
      ins(%x, %y, %z : tensor<4xi32>, tensor<4xi32>, tensor<4xi8>) outs(%e, %eb, %e, %ef : tensor<4xi32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>) {
  ^bb0(%a: i32, %b: i32, %c: i8, %o: i32, %ob: i1, %oz: i32, %of: f32):
    %d = arith.divui %a, %b : i32
    %l = arith.cmpi ult, %a, %b : i32
    %w = arith.extui %c : i8 to i32
    %f = arith.uitofp %c : i8 to f32
    linalg.yield %d, %l, %w, %f : i32, i1, i32, f32
  } -> (tensor<4xi32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xi32>, tensor<4xi1>, tensor<4xi32>, tensor<4xf32>
}

// -----

#id3 = affine_map<(d0) -> (d0)>
func.func @ceildiv_unsigned(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xi32>, tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    // expected-error @below {{cannot be lowered to StableHLO: this unsigned integer op is not converted}}
    %d = arith.ceildivui %a, %b : i32
    linalg.yield %d : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Truncation to i1 keeps the low bit (`convert` alone would test for
// non-zero); a signed i1 is 0 or -1.
#id3 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @bits
// CHECK-SAME: \22stablehlo.and\22
// CHECK-SAME: \22stablehlo.convert\22({{%v[0-9]+}}) : (tensor<4xi64>) -> tensor<4xi1>
// CHECK-SAME: \22stablehlo.convert\22({{%v[0-9]+}}) : (tensor<4xi1>) -> tensor<4xi32>
// CHECK-SAME: \22stablehlo.negate\22
func.func @bits(%x: tensor<4xi64>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%e : tensor<4xi32>) {
  ^bb0(%v: i64, %o: i32):
    %b = arith.trunci %v : i64 to i1
    %s = arith.extsi %b : i1 to i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Default strides and dilations are ones.
// CHECK-LABEL: func.func @default_window
// CHECK-SAME: rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>
func.func @default_window(%x: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// A contraction whose output has a dim no operand reads is not a
// dot_general.
#ka = affine_map<(m, n, k) -> (k)>
#kb = affine_map<(m, n, k) -> (k, n)>
#kc = affine_map<(m, n, k) -> (m, n)>
func.func @output_only_dim(%a: tensor<8xf32>, %b: tensor<8x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{cannot be lowered to StableHLO: a contraction that dot_general does not express}}
  %r = linalg.generic {indexing_maps = [#ka, #kb, #kc], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8xf32>, tensor<8x4xf32>) outs(%c : tensor<3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// StableHLO's i1 is a boolean: integer arithmetic on i1 (whose add is xor in
// arith, or in StableHLO) is refused.
#b = affine_map<(d0) -> (d0)>
func.func @bool_add(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4xi1>
  %r = linalg.generic {indexing_maps = [#b, #b, #b], iterator_types = ["parallel"]} ins(%x, %y : tensor<4xi1>, tensor<4xi1>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: i1, %c: i1, %o: i1):
    // expected-error @below {{cannot be lowered to StableHLO: integer arithmetic on i1 is not converted}}
    %s = arith.addi %a, %c : i1
    linalg.yield %s : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}
