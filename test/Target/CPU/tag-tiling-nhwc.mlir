// RUN: orchestra-opt %s --split-input-file --pass-pipeline='builtin.module(orchestra-outline-tasks,builtin.module(orchestra-cpu-tag-tiling))' | FileCheck %s

// A channels-last convolution task (batch 1) is tiled by output rows
// (orchestra.fusion_root_nhwc_rows). The task ends by padding its result for
// the next convolution: the root is the padded value (the activation), and
// the padding is a copy after the parallel loop.

// CHECK-LABEL: func.func @t0_conv
// CHECK:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.fusion_producer
// CHECK:         linalg.generic {{.*}}orchestra.fusion_root_nhwc_rows}
// CHECK:         tensor.pad
// CHECK-NOT:     orchestra.fusion_root

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x16x16x8xf32>, %w: tensor<3x3x8x32xf32>) -> tensor<1x16x16x32xf32> {
    %r = orchestra.schedule -> (tensor<1x16x16x32xf32>) {
      %a = orchestra.task "t0_conv" args(%xa = %x : tensor<1x16x16x8xf32>, %wa = %w : tensor<3x3x8x32xf32>) -> tensor<1x16x16x32xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e1 = tensor.empty() : tensor<1x14x14x32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xa, %wa : tensor<1x16x16x8xf32>, tensor<3x3x8x32xf32>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %relu = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                                iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%c : tensor<1x14x14x32xf32>) outs(%e1 : tensor<1x14x14x32xf32>) {
        ^bb0(%v: f32, %o: f32):
          %m = arith.maximumf %v, %zero : f32
          linalg.yield %m : f32
        } -> tensor<1x14x14x32xf32>
        %p = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
        ^bb0(%i: index, %j: index, %k: index, %l: index):
          tensor.yield %zero : f32
        } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
        orchestra.yield %p : tensor<1x16x16x32xf32>
      }
      orchestra.yield %a : tensor<1x16x16x32xf32>
    }
    return %r : tensor<1x16x16x32xf32>
  }
}

// -----

// With fewer than 14 output rows, the tiles also split the channels
// (orchestra.fusion_root_nhwc_rows_channels); the convolution is the root.

// CHECK-LABEL: func.func @t0_depthwise
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {{{.*}}orchestra.fusion_root_nhwc_rows_channels

module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x9x9x64xf32>, %w: tensor<3x3x64xf32>) -> tensor<1x7x7x64xf32> {
    %r = orchestra.schedule -> (tensor<1x7x7x64xf32>) {
      %a = orchestra.task "t0_depthwise" args(%xa = %x : tensor<1x9x9x64xf32>, %wa = %w : tensor<3x3x64xf32>) -> tensor<1x7x7x64xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1x7x7x64xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
        %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xa, %wa : tensor<1x9x9x64xf32>, tensor<3x3x64xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
        orchestra.yield %c : tensor<1x7x7x64xf32>
      }
      orchestra.yield %a : tensor<1x7x7x64xf32>
    }
    return %r : tensor<1x7x7x64xf32>
  }
}

// -----

// A ResNeXt block: the task of the dense 1x1 convolution ends by padding
// its activation and splitting its channels into groups (a view) for the
// grouped convolution; its root is the activation, tiled by rows. The
// grouped convolution's task ([1, OH, OW, G, M/G], at least 14 rows) is
// tiled by rows too, its bias and the convolution fused in; the convolution
// is tagged with the register-tile width of one group's output channels (4
// here: conv_channels_32, whose tiles a group of 4 channels fills).

// CHECK-LABEL: func.func @t0_dense
// CHECK:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.fusion_producer
// CHECK:         linalg.generic {{.*}}orchestra.fusion_root_nhwc_rows}
// CHECK:         tensor.pad
// CHECK:         tensor.expand_shape
// CHECK-LABEL: func.func @t1_grouped
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x14x14x8x4xf32>) attrs = {orchestra.fusion_producer}
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x16x16x8x4xf32>, tensor<8x3x3x4x4xf32>) {{.*}} attrs = {orchestra.conv_channels_32, orchestra.fusion_producer}
// CHECK:         linalg.generic {{.*}}orchestra.fusion_root_nhwc_rows}
// CHECK:         tensor.collapse_shape

#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#id5 = affine_map<(n, h, w, g, f) -> (n, h, w, g, f)>
#bias5 = affine_map<(n, h, w, g, f) -> (g, f)>
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x14x14x16xf32>, %w: tensor<1x1x16x32xf32>, %gw: tensor<8x3x3x4x4xf32>, %gb: tensor<8x4xf32>) -> tensor<1x14x14x32xf32> {
    %r = orchestra.schedule -> (tensor<1x14x14x32xf32>) {
      %a = orchestra.task "t0_dense" args(%xa = %x : tensor<1x14x14x16xf32>, %wa = %w : tensor<1x1x16x32xf32>) -> tensor<1x16x16x8x4xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1x14x14x32xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
            ins(%xa, %wa : tensor<1x14x14x16xf32>, tensor<1x1x16x32xf32>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
        %relu = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
            ins(%c : tensor<1x14x14x32xf32>) outs(%e : tensor<1x14x14x32xf32>) {
        ^bb0(%v: f32, %o: f32):
          %m = arith.maximumf %v, %zero : f32
          linalg.yield %m : f32
        } -> tensor<1x14x14x32xf32>
        %p = tensor.pad %relu low[0, 1, 1, 0] high[0, 1, 1, 0] {
        ^bb0(%i: index, %j: index, %k: index, %l: index):
          tensor.yield %zero : f32
        } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
        %g = tensor.expand_shape %p [[0], [1], [2], [3, 4]] output_shape [1, 16, 16, 8, 4] : tensor<1x16x16x32xf32> into tensor<1x16x16x8x4xf32>
        orchestra.yield %g : tensor<1x16x16x8x4xf32>
      }
      %b = orchestra.task "t1_grouped" args(%xa = %a : tensor<1x16x16x8x4xf32>, %wa = %gw : tensor<8x3x3x4x4xf32>, %ba = %gb : tensor<8x4xf32>) -> tensor<1x14x14x32xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1x14x14x8x4xf32>
        %bias = linalg.generic {indexing_maps = [#bias5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
            ins(%ba : tensor<8x4xf32>) outs(%e : tensor<1x14x14x8x4xf32>) {
        ^bb0(%v: f32, %o: f32):
          linalg.yield %v : f32
        } -> tensor<1x14x14x8x4xf32>
        %c = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
            ins(%xa, %wa : tensor<1x16x16x8x4xf32>, tensor<8x3x3x4x4xf32>) outs(%bias : tensor<1x14x14x8x4xf32>) {
        ^bb0(%u: f32, %v: f32, %o: f32):
          %m = arith.mulf %u, %v : f32
          %s = arith.addf %o, %m : f32
          linalg.yield %s : f32
        } -> tensor<1x14x14x8x4xf32>
        %relu = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
            ins(%c : tensor<1x14x14x8x4xf32>) outs(%e : tensor<1x14x14x8x4xf32>) {
        ^bb0(%v: f32, %o: f32):
          %m = arith.maximumf %v, %zero : f32
          linalg.yield %m : f32
        } -> tensor<1x14x14x8x4xf32>
        %y = tensor.collapse_shape %relu [[0], [1], [2], [3, 4]] : tensor<1x14x14x8x4xf32> into tensor<1x14x14x32xf32>
        orchestra.yield %y : tensor<1x14x14x32xf32>
      }
      orchestra.yield %b : tensor<1x14x14x32xf32>
    }
    return %r : tensor<1x14x14x32xf32>
  }
}

// -----

// With fewer than 14 rows, a grouped convolution task is tiled by groups
// over all rows (orchestra.fusion_root_nhwc_groups), so that each group's
// slice of the filter stays in cache across the rows; 24 output channels
// per group take 16-channel register tiles (orchestra.conv_channels_16).

// CHECK-LABEL: func.func @t0_grouped_7x7
// CHECK:         linalg.generic {{.*}}orchestra.conv_channels_16, orchestra.fusion_root_nhwc_groups}

#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<1x9x9x4x16xf32>, %w: tensor<4x3x3x16x24xf32>) -> tensor<1x7x7x4x24xf32> {
    %r = orchestra.schedule -> (tensor<1x7x7x4x24xf32>) {
      %a = orchestra.task "t0_grouped_7x7" args(%xa = %x : tensor<1x9x9x4x16xf32>, %wa = %w : tensor<4x3x3x16x24xf32>) -> tensor<1x7x7x4x24xf32>
          target = {arch = "x86_64", device_id = 0} {
        %zero = arith.constant 0.0 : f32
        %e = tensor.empty() : tensor<1x7x7x4x24xf32>
        %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x4x24xf32>) -> tensor<1x7x7x4x24xf32>
        %c = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
            ins(%xa, %wa : tensor<1x9x9x4x16xf32>, tensor<4x3x3x16x24xf32>) outs(%f : tensor<1x7x7x4x24xf32>) {
        ^bb0(%u: f32, %v: f32, %o: f32):
          %m = arith.mulf %u, %v : f32
          %s = arith.addf %o, %m : f32
          linalg.yield %s : f32
        } -> tensor<1x7x7x4x24xf32>
        orchestra.yield %c : tensor<1x7x7x4x24xf32>
      }
      orchestra.yield %a : tensor<1x7x7x4x24xf32>
    }
    return %r : tensor<1x7x7x4x24xf32>
  }
}
