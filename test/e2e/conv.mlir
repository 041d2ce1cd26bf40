// conv2d (NHWC, HWCF) + bias + relu.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:2x12x12x8 w:f32:3x3x8x16 b:f32:16
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/b.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check conv %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/b.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>
func.func @main(%x: tensor<2x12x12x8xf32>, %w: tensor<3x3x8x16xf32>, %b: tensor<16xf32>) -> tensor<2x10x10x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x10x10x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x10x10x16xf32>) -> tensor<2x10x10x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x12x12x8xf32>, tensor<3x3x8x16xf32>) outs(%f : tensor<2x10x10x16xf32>) -> tensor<2x10x10x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<2x10x10x16xf32>, tensor<16xf32>) outs(%e : tensor<2x10x10x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x10x10x16xf32>
  return %y : tensor<2x10x10x16xf32>
}
