// Layer normalisation over the last axis with scale and shift.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:16x64 gamma:f32:64 beta:f32:64
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/gamma.npy --input %t/in/beta.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check layernorm %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/gamma.npy --input %t/in/beta.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%x: tensor<16x64xf32>, %gamma: tensor<64xf32>, %beta: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%z1 : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %centered = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x64xf32>, tensor<16xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %r = arith.subf %a, %mean : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<16x64xf32>) outs(%z1 : tensor<16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %m = arith.mulf %a, %a : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #red, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %sq, %gamma, %beta : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%c: f32, %v: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %v, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %nrm = arith.mulf %c, %inv : f32
    %sc = arith.mulf %nrm, %g : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
