// Three-layer MLP: matmul + bias + relu, twice, then matmul + bias.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:64x32 w1:f32:32x64 b1:f32:64 w2:f32:64x64 b2:f32:64 w3:f32:64x10 b3:f32:10
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w1.npy --input %t/in/b1.npy --input %t/in/w2.npy --input %t/in/b2.npy --input %t/in/w3.npy --input %t/in/b3.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check mlp %t/in %t/opt
// Differential: the same program with the plain loop lowering.
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w1.npy --input %t/in/b1.npy --input %t/in/w2.npy --input %t/in/b2.npy --input %t/in/w3.npy --input %t/in/b3.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x64xf32>, %b1: tensor<64xf32>,
                %w2: tensor<64x64xf32>, %b2: tensor<64xf32>,
                %w3: tensor<64x10xf32>, %b3: tensor<10xf32>) -> tensor<64x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<64x32xf32>, tensor<32x64xf32>) outs(%f1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %b1 : tensor<64x64xf32>, tensor<64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%h1, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m2, %b2 : tensor<64x64xf32>, tensor<64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x10xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %m3 = linalg.matmul ins(%h2, %w3 : tensor<64x64xf32>, tensor<64x10xf32>) outs(%f3 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m3, %b3 : tensor<64x10xf32>, tensor<10xf32>) outs(%e3 : tensor<64x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  return %y : tensor<64x10xf32>
}
