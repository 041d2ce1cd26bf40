// The x86_64 strategy's matmul path (8x32 register tiles, accumulators
// hoisted out of the K loop, bias and relu fused) and its batch_matmul path
// against the plain loop lowering on random inputs, at shapes the tiles
// divide (vectorized) and one they do not (N = 40: a remainder tile), and a
// 128-row matmul that takes the wide parallel tiles and two cache blocks of
// K.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in a:f32:16x64 b:f32:64x64 bias:f32:64 c:f32:64x40 x:f32:2x16x32 y:f32:2x32x64 p:f32:128x256 q:f32:256x64
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/bias.npy --input %t/in/c.npy --input %t/in/x.npy --input %t/in/y.npy --input %t/in/p.npy --input %t/in/q.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/a.npy --input %t/in/b.npy --input %t/in/bias.npy --input %t/in/c.npy --input %t/in/x.npy --input %t/in/y.npy --input %t/in/p.npy --input %t/in/q.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @main(%a: tensor<16x64xf32>, %b: tensor<64x64xf32>, %bias: tensor<64xf32>,
                %c: tensor<64x40xf32>, %x: tensor<2x16x32xf32>, %y: tensor<2x32x64xf32>,
                %p: tensor<128x256xf32>, %q: tensor<256x64xf32>)
    -> (tensor<16x64xf32>, tensor<16x40xf32>, tensor<2x16x64xf32>, tensor<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %t = arith.addf %v, %s : f32
    %z = arith.maximumf %t, %zero : f32
    linalg.yield %z : f32
  } -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x40xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %m2 = linalg.matmul ins(%r, %c : tensor<16x64xf32>, tensor<64x40xf32>) outs(%f2 : tensor<16x40xf32>) -> tensor<16x40xf32>
  %e3 = tensor.empty() : tensor<2x16x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %bm = linalg.batch_matmul ins(%x, %y : tensor<2x16x32xf32>, tensor<2x32x64xf32>) outs(%f3 : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %e4 = tensor.empty() : tensor<128x64xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %w = linalg.matmul ins(%p, %q : tensor<128x256xf32>, tensor<256x64xf32>) outs(%f4 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %r, %m2, %bm, %w : tensor<16x64xf32>, tensor<16x40xf32>, tensor<2x16x64xf32>, tensor<128x64xf32>
}
