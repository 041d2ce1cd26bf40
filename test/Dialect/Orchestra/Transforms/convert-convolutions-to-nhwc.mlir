// RUN: orchestra-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(orchestra-convert-convolutions-to-nhwc))" | FileCheck %s

// An NCHW convolution runs channels-last: input and output transposed
// around it, the filter transposed to HWCF, strides and dilations kept; the
// zero fill of the output is a fill of the NHWC shape.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x9x9xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>)
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x3x9x9xf32>) outs(%{{.*}} : tensor<1x9x9x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<3x3x3x8xf32>) permutation = [2, 3, 1, 0]
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XT]], %[[WT]] : {{.*}}) outs(%[[F]] : tensor<1x4x4x8xf32>)
// CHECK:         %[[R:.*]] = linalg.transpose ins(%[[C]] : tensor<1x4x4x8xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK:         return %[[R]]
func.func @conv(%x: tensor<1x3x9x9xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// -----

// Depthwise: the filter goes from CHW to HWC; an output initialised with a
// bias (not a fill) is transposed like the input.
// CHECK-LABEL: func.func @depthwise
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x4x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x4xf32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<4x3x3xf32>) outs(%{{.*}} : tensor<3x3x4xf32>) permutation = [1, 2, 0]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x4xf32>) permutation = [0, 2, 3, 1]
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
func.func @depthwise(%x: tensor<1x4x6x6xf32>, %w: tensor<4x3x3xf32>, %b: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x4x6x6xf32>, tensor<4x3x3xf32>) outs(%b : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// -----

// A dynamic batch (design/0017) goes through the transposes, whose sizes
// are read from the tensors.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3x9x9xf32>
// CHECK:         tensor.empty(%[[N]]) : tensor<?x9x9x3xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<?x7x7x8xf32>
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
func.func @dynamic(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %o: tensor<?x8x7x7xf32>) -> tensor<?x8x7x7xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>) outs(%o : tensor<?x8x7x7xf32>) -> tensor<?x8x7x7xf32>
  return %c : tensor<?x8x7x7xf32>
}

// -----

// The channels-last layout flows from one convolution to the next: the
// bias broadcast that initialises each convolution is computed in NHWC, the
// transpose after the first convolution sinks through the activation and
// the padding and cancels against the transpose before the second; the
// residual addition of two transposed values runs in NHWC and one transpose
// is left, before the result.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8x6x6xf32>, %[[W:.*]]: tensor<8x8x3x3xf32>, %[[D:.*]]: tensor<8x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[XP:.*]] = tensor.pad %[[X]]
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[XP]] : {{.*}}) outs({{.*}}) permutation = [0, 2, 3, 1]
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[XT]], %{{.*}}) outs(%[[BIAS]] : tensor<1x6x6x8xf32>)
// CHECK-NOT:     linalg.transpose {{.*}} tensor<1x6x6x8xf32>
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         arith.maximumf
// CHECK:         %[[PAD:.*]] = tensor.pad %[[RELU]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
// CHECK:         %[[C2:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x8x8x8xf32>, tensor<3x3x8xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[C2]], %[[RELU]] : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[SUM]] : tensor<1x6x6x8xf32>) outs({{.*}}) permutation = [0, 3, 1, 2]
// CHECK:         return %[[Y]]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @chain(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %d: tensor<8x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x8x6x6xf32>
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%px, %w : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) outs(%bias : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x6x6xf32>
  %pr = tensor.pad %relu low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %c2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pr, %d : tensor<1x8x8x8xf32>, tensor<8x3x3xf32>) outs(%f : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c2, %relu : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %sum : tensor<1x8x6x6xf32>
}

// -----

// An elementwise op whose full-rank inputs are not all transposes (here a
// function argument) stays where it is, and so does the transpose.
// CHECK-LABEL: func.func @mixed
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[T:.*]] = linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%{{.*}} : tensor<1x8x4x4xf32>)
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @mixed(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>, %r: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %r : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %sum : tensor<1x8x4x4xf32>
}

// -----

// An elementwise op whose payload reads its loop indices (here it adds
// channel + column to each value) runs channels-last with its
// `linalg.index` ops following their loops: the channel is loop 3 of the
// NHWC loop nest, the column loop 2.
// CHECK-LABEL: func.func @index_after_conv
// CHECK:         %[[C:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<1x4x4x8xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:           %[[CH:.*]] = linalg.index 3 : index
// CHECK:           %[[COL:.*]] = linalg.index 2 : index
// CHECK:           arith.addi %[[CH]], %[[COL]]
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @index_after_conv(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %ch = linalg.index 1 : index
    %col = linalg.index 3 : index
    %i = arith.addi %ch, %col : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %s = arith.addf %u, %fi : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A gather computed from the loop indices (the importer's linear Resize
// along H: rows `%rows` of the input, channel and column from the loops)
// that feeds a convolution is computed in NHWC order: its row table is read
// through the H loop (1), the channel index is loop 3, the column loop 2.
// It still reads the NCHW input: only its loops moved.
// CHECK:       #[[ROWMAP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @gather_before_conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x4x8xf32>,
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[ROWMAP]], #{{.*}}], {{.*}} outs(%{{.*}} : tensor<1x8x8x4xf32>)
// CHECK:           %[[CH:.*]] = linalg.index 3 : index
// CHECK:           %[[COL:.*]] = linalg.index 2 : index
// CHECK:           tensor.extract %[[X]][%{{.*}}, %[[CH]], %{{.*}}, %[[COL]]] : tensor<1x4x4x8xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[G]], %{{.*}} : tensor<1x8x8x4xf32>,
#row = affine_map<(n, c, h, w) -> (h)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @gather_before_conv(%x: tensor<1x4x4x8xf32>, %rows: tensor<8xindex>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %g = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%rows : tensor<8xindex>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%row: index, %o: f32):
    %ch = linalg.index 1 : index
    %col = linalg.index 3 : index
    %v = tensor.extract %x[%c0, %ch, %row, %col] : tensor<1x4x4x8xf32>
    linalg.yield %v : f32
  } -> tensor<1x4x8x8xf32>
  %ce = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%ce : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%g, %w : tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// Poolings run channels-last too; their window is only a shape.
// CHECK-LABEL: func.func @pools
// CHECK:         linalg.transpose {{.*}} permutation = [0, 2, 3, 1]
// CHECK:         %[[M:.*]] = linalg.pooling_nhwc_max {{.*}} outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK:         %[[S:.*]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[M]], %{{.*}} : tensor<1x4x4x8xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<1x1x1x8xf32>)
// CHECK:         linalg.transpose ins(%[[S]] {{.*}} permutation = [0, 3, 1, 2]
func.func @pools(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.0e38 : f32
  %k2 = tensor.empty() : tensor<2x2xf32>
  %k4 = tensor.empty() : tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<1x8x4x4xf32>
  %f4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k2 : tensor<1x8x8x8xf32>, tensor<2x2xf32>) outs(%f4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e1 = tensor.empty() : tensor<1x8x1x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%m, %k4 : tensor<1x8x4x4xf32>, tensor<4x4xf32>) outs(%f1 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  return %s : tensor<1x8x1x1xf32>
}

// -----

// A grouped convolution between two dense ones (a ResNeXt block: 8 channels
// in 2 groups, stride 2) runs channels-last too: a linalg.generic over
// (n, oh, ow, g, f, kh, kw, c) on [N, H, W, G, C/G] views of the NHWC
// tensors, its filter [G, M/G, C/G, KH, KW] transposed to
// [G, KH, KW, C/G, M/G]. The transposes around it cancel against those of
// the dense convolutions, so that none is left between the three; its bias
// and activation run in its 5-D shape, and one collapse_shape (a view)
// feeds the next convolution.
// CHECK-DAG:     #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3, d7)>
// CHECK-DAG:     #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
// CHECK-DAG:     #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG:     #[[GB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>
// CHECK-LABEL: func.func @grouped_chain
// CHECK-SAME:    %[[GW:[a-z0-9]*]]: tensor<8x4x3x3xf32>, %[[GBIAS:[a-z0-9]*]]: tensor<8xf32>
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[RELU1:.*]] = linalg.generic {{.*}} ins(%[[C1]] : tensor<1x8x8x8xf32>)
// CHECK:         %[[PAD:.*]] = tensor.pad %[[RELU1]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-DAG:     %[[X5:.*]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 10, 10, 2, 4] : tensor<1x10x10x8xf32> into tensor<1x10x10x2x4xf32>
// CHECK-DAG:     %[[B5:.*]] = tensor.expand_shape %[[GBIAS]] {{\[}}[0, 1]] output_shape [2, 4]
// CHECK-DAG:     %[[GW5:.*]] = tensor.expand_shape %[[GW]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 4, 4, 3, 3]
// CHECK:         %[[BIAS:.*]] = linalg.generic {indexing_maps = [#[[GB]], #{{.*}}]{{.*}} ins(%[[B5]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<1x4x4x2x4xf32>)
// CHECK:         %[[GWT:.*]] = linalg.transpose ins(%[[GW5]] : tensor<2x4x4x3x3xf32>) outs(%{{.*}} : tensor<2x3x3x4x4xf32>) permutation = [0, 3, 4, 2, 1]
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X5]], %[[GWT]] : tensor<1x10x10x2x4xf32>, tensor<2x3x3x4x4xf32>) outs(%[[BIAS]] : tensor<1x4x4x2x4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[RELU2:.*]] = linalg.generic {{.*}} ins(%[[G]] : tensor<1x4x4x2x4xf32>) outs(%{{.*}} : tensor<1x4x4x2x4xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[RELU2]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x4x4x2x4xf32> into tensor<1x4x4x8xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[FLAT]], %{{.*}} : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>)
// CHECK-COUNT-1: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT:     linalg.transpose
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @grouped_chain(%x: tensor<1x8x8x8xf32>, %w1: tensor<8x8x1x1xf32>, %gw: tensor<8x4x3x3xf32>, %gb: tensor<8xf32>, %w3: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<1x8x8x8xf32>
  %f8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w1 : tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) outs(%f8 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %relu1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x8x8x8xf32>) outs(%e8 : tensor<1x8x8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %p = tensor.pad %relu1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %e4 = tensor.empty() : tensor<1x8x4x4xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%gb : tensor<8xf32>) outs(%e4 : tensor<1x8x4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x8x4x4xf32>
  %gx = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 10, 10] : tensor<1x8x10x10xf32> into tensor<1x2x4x10x10xf32>
  %gw5 = tensor.expand_shape %gw [[0, 1], [2], [3], [4]] output_shape [2, 4, 4, 3, 3] : tensor<8x4x3x3xf32> into tensor<2x4x4x3x3xf32>
  %gi = tensor.expand_shape %bias [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 4, 4] : tensor<1x8x4x4xf32> into tensor<1x2x4x4x4xf32>
  %g = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%gx, %gw5 : tensor<1x2x4x10x10xf32>, tensor<2x4x4x3x3xf32>) outs(%gi : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  %gc = tensor.collapse_shape %g [[0], [1, 2], [3], [4]] : tensor<1x2x4x4x4xf32> into tensor<1x8x4x4xf32>
  %relu2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%gc : tensor<1x8x4x4xf32>) outs(%e4 : tensor<1x8x4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%relu2, %w3 : tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) outs(%f4 : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c3 : tensor<1x8x4x4xf32>
}

// -----

// A grouped convolution on its own (the network's boundary is NCHW), of
// i32 (ConvInteger): transposes into and out of channels-last, and the
// named op's integer payload is kept. The transpose back to NCHW runs in
// the convolution's 5-D shape, so that the convolution fuses into its
// parallel tiles.
// CHECK-LABEL: func.func @grouped_i32
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x4x5x5xi32>) outs(%{{.*}} : tensor<1x5x5x4xi32>) permutation = [0, 2, 3, 1]
// CHECK:         %[[X5:.*]] = tensor.expand_shape %[[XT]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 5, 5, 2, 2]
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x3x3x2x3xi32>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} ins(%[[X5]], %{{.*}} : tensor<1x5x5x2x2xi32>, tensor<2x3x3x2x3xi32>) outs(%[[F]] : tensor<1x3x3x2x3xi32>)
// CHECK:           arith.muli
// CHECK:           arith.addi
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[G]] : tensor<1x3x3x2x3xi32>) outs(%{{.*}} : tensor<1x2x3x3x3xi32>) permutation = [0, 3, 4, 1, 2]
// CHECK:         %[[Y:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xi32> into tensor<1x6x3x3xi32>
// CHECK:         return %[[Y]]
func.func @grouped_i32(%x: tensor<1x4x5x5xi32>, %w: tensor<6x2x3x3xi32>) -> tensor<1x6x3x3xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x6x3x3xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x6x3x3xi32>) -> tensor<1x6x3x3xi32>
  %gx = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 5, 5] : tensor<1x4x5x5xi32> into tensor<1x2x2x5x5xi32>
  %gw = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xi32> into tensor<2x3x2x3x3xi32>
  %gi = tensor.expand_shape %f [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 3, 3] : tensor<1x6x3x3xi32> into tensor<1x2x3x3x3xi32>
  %g = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%gx, %gw : tensor<1x2x2x5x5xi32>, tensor<2x3x2x3x3xi32>) outs(%gi : tensor<1x2x3x3x3xi32>) -> tensor<1x2x3x3x3xi32>
  %y = tensor.collapse_shape %g [[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xi32> into tensor<1x6x3x3xi32>
  return %y : tensor<1x6x3x3xi32>
}

// -----

// Dynamic grouped convolutions are left alone.
// CHECK-LABEL: func.func @grouped_dynamic
// CHECK:         linalg.conv_2d_ngchw_gfchw
func.func @grouped_dynamic(%x: tensor<?x2x2x5x5xf32>, %w: tensor<2x3x2x3x3xf32>, %o: tensor<?x2x3x3x3xf32>) -> tensor<?x2x3x3x3xf32> {
  %g = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x2x2x5x5xf32>, tensor<2x3x2x3x3xf32>) outs(%o : tensor<?x2x3x3x3xf32>) -> tensor<?x2x3x3x3xf32>
  return %g : tensor<?x2x3x3x3xf32>
}

// -----

// A convolution whose windows do not overlap (stride = kernel, here 2x2
// patches of a 5x4 input whose last row belongs to no patch) is a matmul of
// the patches: the input cut to whole windows, its window rows and columns
// brought together by one transpose, the filter and the output seen as
// matrices.
// CHECK-LABEL: func.func @patches
// CHECK:         %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x3x5x4xf32>) outs(%{{.*}} : tensor<1x5x4x3xf32>) permutation = [0, 2, 3, 1]
// CHECK:         %[[CUT:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 4, 4, 3] [1, 1, 1, 1]
// CHECK:         %[[W:.*]] = tensor.expand_shape %[[CUT]] {{\[}}[0], [1, 2], [3, 4], [5]] {{.*}} into tensor<1x2x2x2x2x3xf32>
// CHECK:         %[[P:.*]] = linalg.transpose ins(%[[W]] : {{.*}}) outs(%{{.*}} : tensor<1x2x2x2x2x3xf32>) permutation = [0, 1, 3, 2, 4, 5]
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3, 4, 5]] {{.*}} into tensor<4x12xf32>
// CHECK:         %[[M:.*]] = linalg.matmul ins(%[[ROWS]], %{{.*}} : tensor<4x12xf32>, tensor<12x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:         tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3]] {{.*}} into tensor<1x2x2x8xf32>
// CHECK-NOT:     linalg.conv_2d
func.func @patches(%x: tensor<1x3x5x4xf32>, %w: tensor<8x3x2x2xf32>) -> tensor<1x8x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x5x4xf32>, tensor<8x3x2x2xf32>) outs(%f : tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return %c : tensor<1x8x2x2xf32>
}

// -----

// The requantization between two 8-bit convolutions of a quantized model
// reads its per-channel scale [C, 1, 1] through (n, c, h, w) -> (c, 0, 0):
// a broadcast like a bias, so the channels-last layout flows through it
// (and through the shift to int8 and the padding with the zero point) to
// the next convolution: no transpose between the two.
// CHECK-LABEL: func.func @quantized_chain
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[C1]], %{{.*}} : tensor<1x6x6x8xi32>, tensor<8x1x1xf32>)
// CHECK:         %[[P:.*]] = tensor.pad %[[Q]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[P]], %{{.*}} : tensor<1x8x8x8xi8>, tensor<3x3x8x8xi8>)
// CHECK:         linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
#qid = affine_map<(n, c, h, w) -> (n, c, h, w)>
#qscale = affine_map<(n, c, h, w) -> (c, 0, 0)>
func.func @quantized_chain(%x: tensor<1x8x6x6xi8>, %w: tensor<8x8x1x1xi8>, %w2: tensor<8x8x3x3xi8>, %s: tensor<8x1x1xf32>) -> tensor<1x8x6x6xi32> {
  %zero = arith.constant 0 : i32
  %z8 = arith.constant 0 : i8
  %e = tensor.empty() : tensor<1x8x6x6xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x8x6x6xi32>) -> tensor<1x8x6x6xi32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x6x6xi8>, tensor<8x8x1x1xi8>) outs(%f : tensor<1x8x6x6xi32>) -> tensor<1x8x6x6xi32>
  %e8 = tensor.empty() : tensor<1x8x6x6xi8>
  %q = linalg.generic {indexing_maps = [#qid, #qscale, #qid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %s : tensor<1x8x6x6xi32>, tensor<8x1x1xf32>) outs(%e8 : tensor<1x8x6x6xi8>) {
  ^bb0(%a: i32, %scale: f32, %o: i8):
    %af = arith.sitofp %a : i32 to f32
    %m = arith.mulf %af, %scale : f32
    %r = math.roundeven %m : f32
    %i = arith.fptosi %r : f32 to i8
    linalg.yield %i : i8
  } -> tensor<1x8x6x6xi8>
  %p = tensor.pad %q low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z8 : i8
  } : tensor<1x8x6x6xi8> to tensor<1x8x8x8xi8>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w2 : tensor<1x8x8x8xi8>, tensor<8x8x3x3xi8>) outs(%f : tensor<1x8x6x6xi32>) -> tensor<1x8x6x6xi32>
  return %c2 : tensor<1x8x6x6xi32>
}
