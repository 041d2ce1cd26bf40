// Grouped convolutions (ResNeXt, RegNet) on the vectorized path: run
// channels-last one group at a time, each group a dense convolution with
// register tiles of 7 output columns and the group's output channels,
// against the plain loop lowering on random inputs. A dense        vector.outerproduct {{.*}} : vector<1xf32>, vector<32xf32>
// CHECK-LABEL: func.func @t5_generic
// CHECK:       scf.forall ({{.*}}) in (8)
// CHECK:       vector.outerproduct {{.*}} : vector<1xf32>, vector<16xf32>
// CHECK-NOT:   linalg.generic {{.*}}"reduction", "reduction", "reduction"
// CHECK-LABEL: func.func @t6_conv_2d_nhwc_hwcf

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
func.func @main(%x: tensor<1x16x28x28xf32>, %w: tensor<64x16x1x1xf32>, %g1: tensor<64x4x3x3xf32>, %b1: tensor<64xf32>,
                %g2: tensor<64x8x3x3xf32>, %g3: tensor<128x16x3x3xf32>, %g4: tensor<128x16x3x3xf32>,
                %w5: tensor<32x128x1x1xf32>) -> tensor<1x32x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  // Dense 1x1, relu, padding.
  %e28 = tensor.empty() : tensor<1x64x28x28xf32>
  %f28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32>
  %c0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x28x28xf32>, tensor<64x16x1x1xf32>) outs(%f28 : tensor<1x64x28x28xf32>) -> tensor<1x64x28x28xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c0 : tensor<1x64x28x28xf32>) outs(%e28 : tensor<1x64x28x28xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x28x28xf32>
  %p0 = tensor.pad %r0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x28x28xf32> to tensor<1x64x30x30xf32>
  // Grouped 1: 16 groups of 4 -> 4, stride 2, with a bias: 14x14x64.
  %e14 = tensor.empty() : tensor<1x64x14x14xf32>
  %bias = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b1 : tensor<64xf32>) outs(%e14 : tensor<1x64x14x14xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x64x14x14xf32>
  %x1 = tensor.expand_shape %p0 [[0], [1, 2], [3], [4]] output_shape [1, 16, 4, 30, 30] : tensor<1x64x30x30xf32> into tensor<1x16x4x30x30xf32>
  %w1 = tensor.expand_shape %g1 [[0, 1], [2], [3], [4]] output_shape [16, 4, 4, 3, 3] : tensor<64x4x3x3xf32> into tensor<16x4x4x3x3xf32>
  %i1 = tensor.expand_shape %bias [[0], [1, 2], [3], [4]] output_shape [1, 16, 4, 14, 14] : tensor<1x64x14x14xf32> into tensor<1x16x4x14x14xf32>
  %c1 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x1, %w1 : tensor<1x16x4x30x30xf32>, tensor<16x4x4x3x3xf32>) outs(%i1 : tensor<1x16x4x14x14xf32>) -> tensor<1x16x4x14x14xf32>
  %y1 = tensor.collapse_shape %c1 [[0], [1, 2], [3], [4]] : tensor<1x16x4x14x14xf32> into tensor<1x64x14x14xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y1 : tensor<1x64x14x14xf32>) outs(%e14 : tensor<1x64x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x14x14xf32>
  %p1 = tensor.pad %r1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x14x14xf32> to tensor<1x64x16x16xf32>
  // Grouped 2: 8 groups of 8 -> 8, stride 1: 14x14x64.
  %f14 = linalg.fill ins(%zero : f32) outs(%e14 : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  %x2 = tensor.expand_shape %p1 [[0], [1, 2], [3], [4]] output_shape [1, 8, 8, 16, 16] : tensor<1x64x16x16xf32> into tensor<1x8x8x16x16xf32>
  %w2 = tensor.expand_shape %g2 [[0, 1], [2], [3], [4]] output_shape [8, 8, 8, 3, 3] : tensor<64x8x3x3xf32> into tensor<8x8x8x3x3xf32>
  %i2 = tensor.expand_shape %f14 [[0], [1, 2], [3], [4]] output_shape [1, 8, 8, 14, 14] : tensor<1x64x14x14xf32> into tensor<1x8x8x14x14xf32>
  %c2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<1x8x8x16x16xf32>, tensor<8x8x8x3x3xf32>) outs(%i2 : tensor<1x8x8x14x14xf32>) -> tensor<1x8x8x14x14xf32>
  %y2 = tensor.collapse_shape %c2 [[0], [1, 2], [3], [4]] : tensor<1x8x8x14x14xf32> into tensor<1x64x14x14xf32>
  %p2 = tensor.pad %y2 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x64x14x14xf32> to tensor<1x64x16x16xf32>
  // Grouped 3: 4 groups of 16 -> 32, stride 2: 7x7x128.
  %e7 = tensor.empty() : tensor<1x128x7x7xf32>
  %f7 = linalg.fill<1> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<1x8x8x16x16xf32>, tensor<8x8x8x3x3xf32>) outs(%i2 : tensor<1x8x8x14x14xf32>) -> tensor<1x8x8x14x14xf32>
  %y2 = tensor.collapse_shape %c2 [[0], [1, 2], [3], [4]] : tensor<1x8x8x14x14xf32> innd_shape %g3 [[0, 1], [2], [3], [4]] output_shape [4, 32, 16, 3, 3] : tensor<128x16x3x3xf32> into tensor<4x32x16x3x3xf32>
  %i3 = tensor.expand_shape %f7 [[0], [1, 2], [3], [4]] output_shape [1, 4, 32, 7, 7] : tensor<1x128x7x7xf32> into tensor<1x4x32x7x7xf32>
  %c3 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x3, %w3 : tensor<1x4x16x16x16xf32>, tensor<4x32x16x3x3xf32>) outs(%i3 : tensor<1x4x32x7x7xf32>) -> tensor<1x4x32x7x7xf32>
  %y3 = tensor.collapse_shape %c3 [[0], [1, 2], [3], [4]] : tensor<1x4x32x7x7xf32> into tensor<1x128x7x7xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y3 : tensor<1x128x7x7xf32>) outs(%e7 : tensor<1x128x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x128x7x7xf32>
  // Grouped 4: 8 groups of 16 -> 16, stride 2, no padding: 3x3x128.
  %e3 = tensor.empty() : tensor<1x128x3x3xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x128x3x3xf32>) -> tensor<1x128x3x3xf32>
  %x4 = tensor.expand_shape %r3 [[0], [1, 2], [3], [4]] output_shape [1, 8, 16, 7, 7] : tensor<1x128x7x7xf32> into tensor<1x8x16x7x7xf32>
  %w4 = tensor.expand_shape %g4 [[0, 1], [2], [3], [4]] output_shape [8, 16, 16, 3, 3] : tensor<128x16x3x3xf32> into tensor<8x16x16x3x3xf32>
  %i4 = tensor.expand_shape %f3 [[0], [1, 2], [3], [4]] output_shape [1, 8, 16, 3, 3] : tensor<1x128x3x3xf32> into tensor<1x8x16x3x3xf32>
  %c4 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x4, %w4 : tensor<1x8x16x7x7xf32>, tensor<8x16x16x3x3xf32>) outs(%i4 : tensor<1x8x16x3x3xf32>) -> tensor<1x8x16x3x3xf32>
  %y4 = tensor.collapse_shape %c4 [[0], [1, 2], [3], [4]] : tensor<1x8x16x3x3xf32> into tensor<1x128x3x3xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y4 : tensor<1x128x3x3xf32>) outs(%e3 : tensor<1x128x3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x128x3x3xf32>
  // Dense 1x1: 3x3x32.
  %e5 = tensor.empty() : tensor<1x32x3x3xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  %c5 = linalg.conv_2d_nchw_fchw {dilatiojjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjns = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r4, %w5 : tensor<1x128x3x3xf32>, tensor<32x128x1x1xf32>) outs(%f5 : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %c5 : tensor<1x32x3x3xf32>
}
