// RUN: orchestra-opt %s --split-input-file --transform-interpreter --verify-diagnostics | FileCheck %s

// Tiled to one output depth and one kernel depth, a channels-last 3-D
// convolution is a 2-D one on rank-reducing slices without the depth
// (input [1, 1, 9, 9, 3], filter [1, 3, 3, 3, 8], output [1, 1, 4, 4, 8])
// with the height and width strides and dilations, written back into the
// depth's slice of the output; the tags are kept, linalg's cache of the
// 3-D maps is not.
// CHECK-LABEL: func.func @conv
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c2 step
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c3 step
// CHECK:             %[[X:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 1, 9, 9, 3] [1, 1, 1, 1, 1] : tensor<1x1x9x9x3xf32> to tensor<1x9x9x3xf32>
// CHECK:             %[[W:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 3, 3, 3, 8] [1, 1, 1, 1, 1] : tensor<1x3x3x3x8xf32> to tensor<3x3x3x8xf32>
// CHECK:             %[[O:.*]] = tensor.extract_slice %[[OG:[a-z_0-9]+]][0, 0, 0, 0, 0] [1, 1, 4, 4, 8] [1, 1, 1, 1, 1] : tensor<1x1x4x4x8xf32> to tensor<1x4x4x8xf32>
// CHECK:             %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, orchestra.conv_channels_32, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%[[O]] : tensor<1x4x4x8xf32>)
// CHECK:             tensor.insert_slice %[[C]] into %[[OG]][0, 0, 0, 0, 0] [1, 1, 4, 4, 8] [1, 1, 1, 1, 1] : tensor<1x4x4x8xf32> into tensor<1x1x4x4x8xf32>
// CHECK-NOT:     linalg.conv_3d_ndhwc_dhwcf {
// CHECK-NOT:     memoized
// CHECK:         transform.named_sequence
module attributes {transform.with_named_sequence} {
  func.func @conv(%x: tensor<1x4x9x9x3xf32>, %w: tensor<3x3x3x3x8xf32>, %o: tensor<1x2x4x4x8xf32>) -> tensor<1x2x4x4x8xf32> {
    %c = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>, orchestra.conv_channels_32}
        ins(%x, %w : tensor<1x4x9x9x3xf32>, tensor<3x3x3x3x8xf32>) outs(%o : tensor<1x2x4x4x8xf32>) -> tensor<1x2x4x4x8xf32>
    return %c : tensor<1x2x4x4x8xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.conv_3d_ndhwc_dhwcf"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %c tile_sizes [0, 1, 0, 0, 0, 1]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %planar = transform.orchestra.conv_3d_to_2d %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Poolings: the window loses its depth too; dilations (1, 2, 2) become
// (2, 2).
// CHECK-LABEL: func.func @pools
// CHECK:         linalg.pooling_nhwc_max {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x9x9x8xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x7x7x8xf32>)
// CHECK:         linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x9x9x8xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<1x7x7x8xf32>)
// CHECK-NOT:     linalg.pooling_ndhwc_{{max|sum}} {
// CHECK:         transform.named_sequence
module attributes {transform.with_named_sequence} {
  func.func @pools(%x: tensor<1x3x9x9x8xf32>, %o: tensor<1x2x7x7x8xf32>, %p: tensor<1x1x7x7x8xf32>)
      -> (tensor<1x2x7x7x8xf32>, tensor<1x1x7x7x8xf32>) {
    %w0 = tensor.empty() : tensor<2x2x2xf32>
    %m = linalg.pooling_ndhwc_max {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
        ins(%x, %w0 : tensor<1x3x9x9x8xf32>, tensor<2x2x2xf32>) outs(%o : tensor<1x2x7x7x8xf32>) -> tensor<1x2x7x7x8xf32>
    %w1 = tensor.empty() : tensor<3x3x3xf32>
    %s = linalg.pooling_ndhwc_sum {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
        ins(%x, %w1 : tensor<1x3x9x9x8xf32>, tensor<3x3x3xf32>) outs(%p : tensor<1x1x7x7x8xf32>) -> tensor<1x1x7x7x8xf32>
    return %m, %s : tensor<1x2x7x7x8xf32>, tensor<1x1x7x7x8xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.pooling_ndhwc_max", "linalg.pooling_ndhwc_sum"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %c : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      %t, %l:2 = transform.structured.tile_using_for %p tile_sizes [0, 1, 0, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      %planar = transform.orchestra.conv_3d_to_2d %t : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}

// -----

// Does not apply: a 3-D convolution whose depth loops were not tiled to
// one.
module attributes {transform.with_named_sequence} {
  func.func @untiled(%x: tensor<1x4x9x9x3xf32>, %w: tensor<3x3x3x3x8xf32>, %o: tensor<1x2x7x7x8xf32>) {
    // expected-note @below {{payload op}}
    %c = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
        ins(%x, %w : tensor<1x4x9x9x3xf32>, tensor<3x3x3x3x8xf32>) outs(%o : tensor<1x2x7x7x8xf32>) -> tensor<1x2x7x7x8xf32>
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.conv_3d_ndhwc_dhwcf"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'linalg.conv_3d_ndhwc_dhwcf' does not have one output depth and one kernel depth}}
    %p = transform.orchestra.conv_3d_to_2d %c : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Does not apply: a 2-D convolution.
module attributes {transform.with_named_sequence} {
  func.func @planar(%x: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x7x7x8xf32>) {
    // expected-note @below {{payload op}}
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
        : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{payload op 'linalg.conv_2d_nhwc_hwcf' is not a channels-last 3-D convolution or pooling on tensors}}
    %p = transform.orchestra.conv_3d_to_2d %c : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
