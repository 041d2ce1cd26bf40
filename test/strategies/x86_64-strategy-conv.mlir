// The x86_64 strategy on a convolution task (batch 1): the root (the relu)
// is tiled by 16 output channels into an scf.forall, the convolution is
// fused in, tiled to one output row of 7 columns and 4 input channels,
// decomposed into a 1-D convolution and vectorized: 7x16 outer products
// (16 lanes of output channels) accumulated over input channels and the
// filter's columns.
// RUN: orchestra-opt %s --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy | FileCheck %s

// CHECK-LABEL: func.func @t0_conv
// CHECK:         scf.forall (%{{.*}}) in (2)
// CHECK-COUNT-4:   scf.for
// CHECK:             vector.outerproduct {{.*}} : vector<7xf32>, vector<16xf32>
// CHECK-NOT:         linalg.conv_2d_nchw_fchw
// CHECK:           scf.forall.in_parallel
// A channels-last 3x3 convolution with 256 input channels (ResNet's
// layer3): the filter's rows and blocks of 64 input channels are loops
// outside the output rows, so that a block of the filter stays in L1 while
// every row uses it; inside, the 7x32 register tiles as usual.
// CHECK-LABEL: func.func @deep_nhwc
// CHECK:         scf.forall
// CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK:             scf.for %{{.*}} = %c0 to %c256 step %c64
// CHECK:               scf.for %{{.*}} = %c0 to %c7 step %c1
// CHECK:                 vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// A grouped convolution (4 groups of 16 channels, 14 rows) with its bias
// and activation in its 5-D shape: one output row per parallel tile, one
// group at a time inside, each a dense channels-last convolution with
// 7x16 register tiles (the group's 16 output channels), vectorized; no
// generic of rank 8 is left.
// CHECK-LABEL: func.func @grouped_rows
// CHECK:         scf.forall (%{{.*}}) in (14)
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1
// CHECK:             vector.outerproduct {{.*}} : vector<7xf32>, vector<16xf32>
// CHECK-NOT:         linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:         linalg.generic
// CHECK:           scf.forall.in_parallel
// With fewer rows: one group over all rows per parallel tile.
// CHECK-LABEL: func.func @grouped_groups
// CHECK:         scf.forall (%{{.*}}) in (4)
// CHECK:           vector.outerproduct {{.*}} : vector<7xf32>, vector<8xf32>
// CHECK-NOT:       linalg.generic {{.*}}"reduction"
// CHECK:           scf.forall.in_parallel
#gin = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#gfilter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#gout = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#id5 = affine_map<(n, h, w, g, f) -> (n, h, w, g, f)>
#gbias = affine_map<(n, h, w, g, f) -> (g, f)>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_conv(%x: tensor<1x8x16x16xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x14x14xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x32x14x14xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, orchestra.fusion_producer, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x8x16x16xf32>, tensor<32x8x3x3xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"], orchestra.fusion_root_d1_conv}
        ins(%c : tensor<1x32x14x14xf32>) outs(%e : tensor<1x32x14x14xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1x32x14x14xf32>
    return %r : tensor<1x32x14x14xf32>
  }
  func.func @deep_nhwc(%x: tensor<1x9x9x256xf32>, %w: tensor<3x3x256x64xf32>) -> tensor<1x7x7x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x7x7x64xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, orchestra.fusion_root_nhwc_channels, orchestra.conv_channels_32, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x256xf32>, tensor<3x3x256x64xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
    return %c : tensor<1x7x7x64xf32>
  }
  func.func @grouped_rows(%x: tensor<1x16x16x4x8xf32>, %w: tensor<4x3x3x8x16xf32>, %b: tensor<4x16xf32>) -> tensor<1x14x14x4x16xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x14x14x4x16xf32>
    %bias = linalg.generic {indexing_maps = [#gbias, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
        ins(%b : tensor<4x16xf32>) outs(%e : tensor<1x14x14x4x16xf32>) attrs = {orchestra.fusion_producer} {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    } -> tensor<1x14x14x4x16xf32>
    %c = linalg.generic {indexing_maps = [#gin, #gfilter, #gout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x16x16x4x8xf32>, tensor<4x3x3x8x16xf32>) outs(%bias : tensor<1x14x14x4x16xf32>) attrs = {orchestra.conv_channels_32, orchestra.fusion_producer} {
    ^bb0(%u: f32, %v: f32, %o: f32):
      %m = arith.mulf %u, %v : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x14x14x4x16xf32>
    %r = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
        ins(%c : tensor<1x14x14x4x16xf32>) outs(%e : tensor<1x14x14x4x16xf32>) attrs = {orchestra.fusion_root_nhwc_rows} {
    ^bb0(%v: f32, %o: f32):
      %m = arith.maximumf %v, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1x14x14x4x16xf32>
    return %r : tensor<1x14x14x4x16xf32>
  }
  func.func @grouped_groups(%x: tensor<1x9x9x4x8xf32>, %w: tensor<4x3x3x8x8xf32>) -> tensor<1x7x7x4x8xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x7x7x4x8xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<1x7x7x4x8xf32>) -> tensor<1x7x7x4x8xf32>
    %c = linalg.generic {indexing_maps = [#gin, #gfilter, #gout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x9x9x4x8xf32>, tensor<4x3x3x8x8xf32>) outs(%f : tensor<1x7x7x4x8xf32>) attrs = {orchestra.conv_channels_32, orchestra.fusion_root_nhwc_groups} {
    ^bb0(%u: f32, %v: f32, %o: f32):
      %m = arith.mulf %u, %v : f32
      %s = arith.addf %o, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x7x7x4x8xf32>
    return %c : tensor<1x7x7x4x8xf32>
  }
}
