// RUN: orchestra-opt %s --orchestra-schedule="topology=%orchestra_src_root/topologies/host.json" | FileCheck %s

// A depthwise convolution joins the group of its filter's transpose (its
// first input comes from another task); the broadcast of the bias that
// initializes it, which only the convolution reads, joins too instead of
// writing a whole tensor from a task of its own. A broadcast that another op
// also reads stays a task.

// CHECK-LABEL: func.func @main
// CHECK:         orchestra.task "t0_generic"
// CHECK:           linalg.generic
// CHECK:           orchestra.yield
// CHECK:         orchestra.task "t1_depthwise_conv_2d_nhwc_hwc"
// CHECK:           linalg.transpose
// CHECK:           linalg.generic
// CHECK:           linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:           orchestra.yield
// CHECK:         orchestra.task "t2_depthwise_conv_2d_nhwc_hwc"
// CHECK-NOT:       linalg.generic
// CHECK:           linalg.depthwise_conv_2d_nhwc_hwc
// CHECK:           orchestra.yield
#bias = affine_map<(n, h, w, c) -> (c)>
#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @main(%x: tensor<1x9x9x16xf32>, %f: tensor<16x3x3xf32>, %b: tensor<16xf32>, %f2: tensor<3x3x16xf32>)
    -> (tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>) {
  %e = tensor.empty() : tensor<1x7x7x16xf32>
  %et = tensor.empty() : tensor<3x3x16xf32>
  %ft = linalg.transpose ins(%f : tensor<16x3x3xf32>) outs(%et : tensor<3x3x16xf32>) permutation = [1, 2, 0]
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e : tensor<1x7x7x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x7x7x16xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %ft : tensor<1x9x9x16xf32>, tensor<3x3x16xf32>) outs(%init : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  // A shared bias broadcast: also a result of the function.
  %init2 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<16xf32>) outs(%e : tensor<1x7x7x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<1x7x7x16xf32>
  %dw2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %f2 : tensor<1x9x9x16xf32>, tensor<3x3x16xf32>) outs(%init2 : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  return %dw, %dw2, %init2 : tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>, tensor<1x7x7x16xf32>
}
