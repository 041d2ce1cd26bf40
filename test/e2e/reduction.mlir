// Two reductions with two results: row sums (linalg.reduce) and column
// maxima (linalg.generic).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:64x128
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check reduction %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%x: tensor<64x128xf32>) -> (tensor<64xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%z : tensor<64xf32>) dimensions = [1]
    (%a: f32, %s: f32) {
      %r = arith.addf %a, %s : f32
      linalg.yield %r : f32
    }
  %e2 = tensor.empty() : tensor<128xf32>
  %m = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<128xf32>) -> tensor<128xf32>
  %max = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x128xf32>) outs(%m : tensor<128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<128xf32>
  return %sum, %max : tensor<64xf32>, tensor<128xf32>
}
