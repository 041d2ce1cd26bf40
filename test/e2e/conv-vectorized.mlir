// The vectorized convolution path (convolutions channels-last, tiles of 7
// output columns and 32 (convolutions) or 16 channels, decomposed to 1-D and vectorized op by op),
// against the plain loop lowering on random inputs: a 3x3 convolution with
// padding, relu, a 2x2 max pooling, a 3x3 depthwise convolution and a 2x2 sum
// pooling, at widths (14, 7) that the vector tiles divide and one (3) smaller
// than a tile, with 32 channels (two lane tiles).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:1x16x14x14 w:f32:32x16x3x3 d:f32:32x3x3
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet --mlir-print-ir-after=transform-interpreter 2> %t/ir.txt
// RUN: FileCheck %s --input-file=%t/ir.txt
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/d.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/d.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

// The convolutions and poolings run channels-last
// (orchestra-convert-convolutions-to-nhwc), and the layout flows from one to
// the next: the 3x3 convolution as 7x32 outer products and the depthwise
// convolution as 7x16 fused multiply-adds, 16 lanes of channels. Their tasks
// are parallel over output rows (14 rows), or over rows and 16-channel
// tiles when there are fewer than 14 (7 rows x 2). The last task, rooted at
// the transpose back to NCHW, keeps its 16-channel tiles.
// CHECK-LABEL: func.func @t1_conv_2d_nhwc_hwcf
// CHECK:       scf.forall ({{.*}}) in (14)
// CHECK:       vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// CHECK-LABEL: func.func @t2_pooling_nhwc_max
// CHECK:       scf.forall ({{.*}}) in (7, 2)
// CHECK:       arith.maximumf {{.*}} : vector<1x1x16xf32>
// CHECK-LABEL: func.func @t3_depthwise_conv_2d_nhwc_hwc
// CHECK:       scf.forall ({{.*}}) in (7, 2)
// CHECK:       vector.fma {{.*}} : vector<1x7x16xf32>
// CHECK-LABEL: func.func @t4_pooling_nhwc_sum
// CHECK:       arith.addf {{.*}} : vector<1x1x16xf32>

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @main(%x: tensor<1x16x14x14xf32>, %w: tensor<32x16x3x3xf32>, %d: tensor<32x3x3xf32>) -> tensor<1x32x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.0e38 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x16x14x14xf32> to tensor<1x16x16x16xf32>
  %e = tensor.empty() : tensor<1x32x14x14xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>) outs(%f : tensor<1x32x14x14xf32>) -> tensor<1x32x14x14xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x32x14x14xf32>) outs(%e : tensor<1x32x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x14x14xf32>
  %k2 = tensor.empty() : tensor<2x2xf32>
  %e7 = tensor.empty() : tensor<1x32x7x7xf32>
  %f7 = linalg.fill ins(%ninf : f32) outs(%e7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%r, %k2 : tensor<1x32x14x14xf32>, tensor<2x2xf32>) outs(%f7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %pd = tensor.pad %mp low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  %z7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %dw = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pd, %d : tensor<1x32x9x9xf32>, tensor<32x3x3xf32>) outs(%z7 : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %e3 = tensor.empty() : tensor<1x32x3x3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  %sp = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%dw, %k2 : tensor<1x32x7x7xf32>, tensor<2x2xf32>) outs(%z3 : tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %sp : tensor<1x32x3x3xf32>
}
