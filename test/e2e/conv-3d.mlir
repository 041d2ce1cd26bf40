// 3-D convolutions and poolings (ResNet3D, video models) on the vectorized
// path: run channels-last, one output depth and one kernel depth at a time,
// each a 2-D convolution or pooling with the register tiles of the 2-D
// route, against the plain loop lowering on random inputs. A (3, 7, 7)
// stem with strides (1, 2, 2) and padding feeds a 3-D max pool (1, 3, 3)
// with strides (1, 2, 2), a 3x3x3 convolution with a bias, a dilated one
// (1, 2, 2), a 1x1x1 convolution with stride 2, a 3-D sum pool (2x2x2, an
// AveragePool's) and a global one, in the forms the ONNX importer writes
// (the poolings are generics: upstream has no NCDHW pooling op).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:1x3x4x28x28 w0:f32:16x3x3x7x7 w1:f32:32x16x3x3x3 b1:f32:32 w2:f32:32x32x3x3x3 w3:f32:32x32x1x1x1
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet --mlir-print-ir-after=transform-interpreter 2> %t/ir.txt
// RUN: FileCheck %s --input-file=%t/ir.txt
// RUN: FileCheck %s --input-file=%t/ir.txt --check-prefix=NOT3D
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w0.npy --input %t/in/w1.npy --input %t/in/b1.npy --input %t/in/w2.npy --input %t/in/w3.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w0.npy --input %t/in/w1.npy --input %t/in/b1.npy --input %t/in/w2.npy --input %t/in/w3.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

// Every 3-D convolution and pooling runs in a parallel loop over the
// output rows of every depth (or, under 14 rows, over channels) as
// vectorized 2-D ones: outer products of 16 and 32 output channels (of 7
// columns at stride 1, of one column at stride 2, as for 2-D convolutions),
// vector maxima and sums of 16 channels. None is left a 3-D op or a scalar
// window loop nest.
// CHECK-LABEL: func.func @t1_conv_3d_ndhwc_dhwcf
// CHECK:       scf.forall ({{.*}}) in (4, 14)
// CHECK:       vector.outerproduct {{.*}} : vector<1xf32>, vector<16xf32>
// CHECK-LABEL: func.func @t2_pooling_ndhwc_max
// CHECK:       scf.forall ({{.*}}) in (4, 7)
// CHECK:       arith.maximumf {{.*}} : vector<1x1x16xf32>
// CHECK-LABEL: func.func @t3_conv_3d_ndhwc_dhwcf
// CHECK:       scf.forall ({{.*}}) in (4, 7)
// CHECK:       vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// CHECK-LABEL: func.func @t4_conv_3d_ndhwc_dhwcf
// CHECK:       scf.forall ({{.*}}) in (4, 7)
// CHECK:       vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// CHECK-LABEL: func.func @t5_conv_3d_ndhwc_dhwcf
// CHECK:       vector.outerproduct {{.*}} : vector<1xf32>, vector<32xf32>
// CHECK-LABEL: func.func @t6_pooling_ndhwc_sum
// CHECK:       scf.forall ({{.*}}) in (3, 2)
// CHECK:       arith.addf {{.*}} : vector<1x3x16xf32>
// CHECK-LABEL: func.func @t7_pooling_ndhwc_sum
// CHECK:       arith.addf {{.*}} : vector<1x1x16xf32>
// NOT3D-NOT:   linalg.conv_3d
// NOT3D-NOT:   linalg.pooling_ndhwc
// NOT3D-NOT:   "reduction", "reduction", "reduction"

#id5 = affine_map<(n, c, d, h, w) -> (n, c, d, h, w)>
#ch5 = affine_map<(n, c, d, h, w) -> (c)>
#maxin = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h * 2 + kh, w * 2 + kw)>
#sumin = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d + kd, h + kh, w + kw)>
#win = affine_map<(n, c, d, h, w, kd, kh, kw) -> (kd, kh, kw)>
#out = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d, h, w)>
func.func @main(%x: tensor<1x3x4x28x28xf32>, %w0: tensor<16x3x3x7x7xf32>, %w1: tensor<32x16x3x3x3xf32>,
                %b1: tensor<32xf32>, %w2: tensor<32x32x3x3x3xf32>, %w3: tensor<32x32x1x1x1xf32>)
    -> tensor<1x32x1x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Stem: (3, 7, 7), strides (1, 2, 2), padding (1, 3, 3): 1x16x4x14x14.
  %xp = tensor.pad %x low[0, 0, 1, 3, 3] high[0, 0, 1, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x3x4x28x28xf32> to tensor<1x3x6x34x34xf32>
  %e0 = tensor.empty() : tensor<1x16x4x14x14xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x16x4x14x14xf32>) -> tensor<1x16x4x14x14xf32>
  %c0 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 2]> : tensor<3xi64>}
      ins(%xp, %w0 : tensor<1x3x6x34x34xf32>, tensor<16x3x3x7x7xf32>) outs(%f0 : tensor<1x16x4x14x14xf32>) -> tensor<1x16x4x14x14xf32>
  %r0 = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%c0 : tensor<1x16x4x14x14xf32>) outs(%e0 : tensor<1x16x4x14x14xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x14x14xf32>
  // Max pool (1, 3, 3), strides (1, 2, 2), padding (0, 1, 1): 1x16x4x7x7.
  %rp = tensor.pad %r0 low[0, 0, 0, 1, 1] high[0, 0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x4x14x14xf32> to tensor<1x16x4x15x15xf32>
  %win0 = tensor.empty() : tensor<1x3x3xf32>
  %e1 = tensor.empty() : tensor<1x16x4x7x7xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x16x4x7x7xf32>) -> tensor<1x16x4x7x7xf32>
  %p0 = linalg.generic {indexing_maps = [#maxin, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%rp, %win0 : tensor<1x16x4x15x15xf32>, tensor<1x3x3xf32>) outs(%f1 : tensor<1x16x4x7x7xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x7x7xf32>
  // 3x3x3, padding 1, with a bias: 1x32x4x7x7.
  %pp = tensor.pad %p0 low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x16x4x7x7xf32> to tensor<1x16x6x9x9xf32>
  %e2 = tensor.empty() : tensor<1x32x4x7x7xf32>
  %bias = linalg.generic {indexing_maps = [#ch5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%b1 : tensor<32xf32>) outs(%e2 : tensor<1x32x4x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x32x4x7x7xf32>
  %c1 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%pp, %w1 : tensor<1x16x6x9x9xf32>, tensor<32x16x3x3x3xf32>) outs(%bias : tensor<1x32x4x7x7xf32>) -> tensor<1x32x4x7x7xf32>
  %r1 = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<1x32x4x7x7xf32>) outs(%e2 : tensor<1x32x4x7x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x4x7x7xf32>
  // Dilated (1, 2, 2), padding (1, 2, 2): 1x32x4x7x7.
  %rp1 = tensor.pad %r1 low[0, 0, 1, 2, 2] high[0, 0, 1, 2, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x32x4x7x7xf32> to tensor<1x32x6x11x11xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x4x7x7xf32>) -> tensor<1x32x4x7x7xf32>
  %c2 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<[1, 2, 2]> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
      ins(%rp1, %w2 : tensor<1x32x6x11x11xf32>, tensor<32x32x3x3x3xf32>) outs(%f2 : tensor<1x32x4x7x7xf32>) -> tensor<1x32x4x7x7xf32>
  // 1x1x1, stride 2: 1x32x2x4x4.
  %e3 = tensor.empty() : tensor<1x32x2x4x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x32x2x4x4xf32>) -> tensor<1x32x2x4x4xf32>
  %c3 = linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<2> : tensor<3xi64>}
      ins(%c2, %w3 : tensor<1x32x4x7x7xf32>, tensor<32x32x1x1x1xf32>) outs(%f3 : tensor<1x32x2x4x4xf32>) -> tensor<1x32x2x4x4xf32>
  // Sum pool 2x2x2, stride 1: 1x32x1x3x3.
  %win1 = tensor.empty() : tensor<2x2x2xf32>
  %e4 = tensor.empty() : tensor<1x32x1x3x3xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x32x1x3x3xf32>) -> tensor<1x32x1x3x3xf32>
  %p1 = linalg.generic {indexing_maps = [#sumin, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%c3, %win1 : tensor<1x32x2x4x4xf32>, tensor<2x2x2xf32>) outs(%f4 : tensor<1x32x1x3x3xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<1x32x1x3x3xf32>
  // Global sum pool: 1x32x1x1x1.
  %win2 = tensor.empty() : tensor<1x3x3xf32>
  %e5 = tensor.empty() : tensor<1x32x1x1x1xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x32x1x1x1xf32>) -> tensor<1x32x1x1x1xf32>
  %p2 = linalg.generic {indexing_maps = [#sumin, #win, #out],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p1, %win2 : tensor<1x32x1x3x3xf32>, tensor<1x3x3xf32>) outs(%f5 : tensor<1x32x1x1x1xf32>) {
  ^bb0(%in: f32, %unused: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<1x32x1x1x1xf32>
  return %p2 : tensor<1x32x1x1x1xf32>
}
