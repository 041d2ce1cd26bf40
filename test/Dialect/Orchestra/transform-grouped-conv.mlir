// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// transform.orchestra.match.grouped_conv selects the channels-last grouped
// convolutions (here: with stride 2 and dilation 2): not a dense
// convolution, not a generic with other maps or another payload.
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh * 2, ow * 2 + kw * 2, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
#swapped = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, f, c)>
module attributes {transform.with_named_sequence} {
  func.func @f(%x: tensor<1x9x9x2x3xf32>, %w: tensor<2x3x3x3x4xf32>, %ws: tensor<2x3x3x4x3xf32>, %o: tensor<1x3x3x2x4xf32>,
               %dx: tensor<1x9x9x6xf32>, %dw: tensor<3x3x6x8xf32>, %do: tensor<1x7x7x8xf32>) {
    // expected-remark @below {{grouped}}
    %g = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x9x9x2x3xf32>, tensor<2x3x3x3x4xf32>) outs(%o : tensor<1x3x3x2x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x3x3x2x4xf32>
    %other_maps = linalg.generic {indexing_maps = [#in, #swapped, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %ws : tensor<1x9x9x2x3xf32>, tensor<2x3x3x4x3xf32>) outs(%o : tensor<1x3x3x2x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x3x3x2x4xf32>
    %max = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x9x9x2x3xf32>, tensor<2x3x3x3x4xf32>) outs(%o : tensor<1x3x3x2x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.maximumf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x3x3x2x4xf32>
    %dense = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%dx, %dw : tensor<1x9x9x6xf32>, tensor<3x3x6x8xf32>) outs(%do : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
    return
  }
  transform.named_sequence @match_grouped(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.orchestra.match.grouped_conv %op : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @remark(%op: !transform.any_op {transform.readonly}) {
    transform.debug.emit_remark_at %op, "grouped" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %r = transform.foreach_match in %func @match_grouped -> @remark
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Tiled to one group, the grouped convolution is a dense channels-last
// convolution on rank-reducing slices of the group (input [1, 9, 9, 3],
// filter [3, 3, 3, 4], output [1, 3, 3, 4]) with the strides and dilations
// of its input map, written back into the group's slice of the output; the
// payload op's discardable attributes are kept.
// CHECK-LABEL: func.func @to_dense
// CHECK:         scf.for %[[G:.*]] = %c0 to %c2 step %c1 iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK:           %[[XG:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, %[[G]], 0] [1, 9, 9, 1, 3] [1, 1, 1, 1, 1]
// CHECK:           %[[WG:.*]] = tensor.extract_slice %{{.*}}[%[[G]], 0, 0, 0, 0] [1, 3, 3, 3, 4] [1, 1, 1, 1, 1]
// CHECK:           %[[OG:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, %[[G]], 0] [1, 3, 3, 1, 4] [1, 1, 1, 1, 1]
// CHECK:           %[[X:.*]] = tensor.extract_slice %[[XG]][0, 0, 0, 0, 0] [1, 9, 9, 1, 3] [1, 1, 1, 1, 1] : tensor<1x9x9x1x3xf32> to tensor<1x9x9x3xf32>
// CHECK:           %[[W:.*]] = tensor.extract_slice %[[WG]][0, 0, 0, 0, 0] [1, 3, 3, 3, 4] [1, 1, 1, 1, 1] : tensor<1x3x3x3x4xf32> to tensor<3x3x3x4xf32>
// CHECK:           %[[O:.*]] = tensor.extract_slice %[[OG]][0, 0, 0, 0, 0] [1, 3, 3, 1, 4] [1, 1, 1, 1, 1] : tensor<1x3x3x1x4xf32> to tensor<1x3x3x4xf32>
// CHECK:           %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, orchestra.conv_channels_32, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x9x9x3xf32>, tensor<3x3x3x4xf32>) outs(%[[O]] : tensor<1x3x3x4xf32>)
// CHECK:           %[[I:.*]] = tensor.insert_slice %[[C]] into %[[OG]][0, 0, 0, 0, 0] [1, 3, 3, 1, 4] [1, 1, 1, 1, 1] : tensor<1x3x3x4xf32> into tensor<1x3x3x1x4xf32>
// CHECK:           tensor.insert_slice %[[I]] into %[[ACC]][0, 0, 0, %[[G]], 0] [1, 3, 3, 1, 4]
// CHECK-NOT:     linalg.generic
// CHECK:         return
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh * 2 + kh * 2, ow * 2 + kw * 2, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
module attributes {transform.with_named_sequence} {
  func.func @to_dense(%x: tensor<1x9x9x2x3xf32>, %w: tensor<2x3x3x3x4xf32>, %o: tensor<1x3x3x2x4xf32>) -> tensor<1x3x3x2x4xf32> {
    %g = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x9x9x2x3xf32>, tensor<2x3x3x3x4xf32>) outs(%o : tensor<1x3x3x2x4xf32>) attrs = {orchestra.conv_channels_32} {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x3x3x2x4xf32>
    return %g : tensor<1x3x3x2x4xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %g tile_sizes [0, 0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %d = transform.orchestra.grouped_conv_to_dense %t
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A grouped convolution of more than one group is refused, naming it.
#in = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c)>
#filter = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f)>
#out = affine_map<(n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)>
module attributes {transform.with_named_sequence} {
  func.func @two_groups(%x: tensor<1x5x5x2x3xf32>, %w: tensor<2x3x3x3x4xf32>, %o: tensor<1x3x3x2x4xf32>) -> tensor<1x3x3x2x4xf32> {
    // expected-note @below {{payload op}}
    %g = linalg.generic {indexing_maps = [#in, #filter, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
        ins(%x, %w : tensor<1x5x5x2x3xf32>, tensor<2x3x3x3x4xf32>) outs(%o : tensor<1x3x3x2x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x3x3x2x4xf32>
    return %g : tensor<1x3x3x2x4xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'linalg.generic' is not a channels-last grouped convolution of one group}}
    %d = transform.orchestra.grouped_conv_to_dense %g
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Outside a matcher, an op that is not a grouped convolution is a
// (silenceable) failure that names it.
module attributes {transform.with_named_sequence} {
  func.func @dense(%x: tensor<1x9x9x6xf32>, %w: tensor<3x3x6x8xf32>, %o: tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32> {
    // expected-note @below {{payload op}}
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x6xf32>, tensor<3x3x6x8xf32>) outs(%o : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
    return %c : tensor<1x7x7x8xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'linalg.conv_2d_nhwc_hwcf' is not a channels-last grouped convolution}}
    transform.orchestra.match.grouped_conv %c : !transform.any_op
    transform.yield
  }
}
