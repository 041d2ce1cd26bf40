// NCHW convolution (stride 2, padded input, 3 input channels), relu and a
// global sum pooling: the strategy's kernels against the plain loop
// lowering on random inputs. The shapes leave partial tiles (3 channels, a
// 1x1 pooling output) and are those of a ResNet stem and head.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:2x3x16x16 w:f32:8x3x3x3
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @main(%x: tensor<2x3x16x16xf32>, %w: tensor<8x3x3x3xf32>) -> (tensor<2x8x8x8xf32>, tensor<2x8x1x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x3x16x16xf32> to tensor<2x3x18x18xf32>
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<2x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x8x8x8xf32>) outs(%e : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x8x8xf32>
  %k = tensor.empty() : tensor<8x8xf32>
  %pe = tensor.empty() : tensor<2x8x1x1xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  %s = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r, %k : tensor<2x8x8x8xf32>, tensor<8x8xf32>) outs(%pf : tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  return %r, %s : tensor<2x8x8x8xf32>, tensor<2x8x1x1xf32>
}
