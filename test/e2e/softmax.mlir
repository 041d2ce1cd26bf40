// Softmax over the last axis, written with linalg.generic reductions.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:32x100
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check softmax %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(i, j) -> (i, j)>
#red = affine_map<(i, j) -> (i)>
func.func @main(%x: tensor<32x100xf32>) -> tensor<32x100xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32xf32>
  %init_max = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %max = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x100xf32>) outs(%init_max : tensor<32xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %e2 = tensor.empty() : tensor<32x100xf32>
  %exp = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<32x100xf32>, tensor<32xf32>) outs(%e2 : tensor<32x100xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<32x100xf32>
  %init_sum = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32xf32>) -> tensor<32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<32x100xf32>) outs(%init_sum : tensor<32xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<32x100xf32>, tensor<32xf32>) outs(%e2 : tensor<32x100xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<32x100xf32>
  return %y : tensor<32x100xf32>
}
