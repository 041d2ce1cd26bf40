// Buffers of i1 hold a byte per element, whether vectorized code or scalar
// code reads and writes them (orchestra-cpu-bool-vector-memory): the input
// converted from the ABI's bytes by a vectorized op and read element by
// element by tensor.extract in another op's body; a vectorized select on
// it; a vectorized negation whose i1 result a reversing gather reads. (Each
// used to be right for every 8th element only.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in b:i1:3x3000 x:f32:3x3000
// RUN: orchestra-compile %s --topology host -o %t/host.orcx --quiet
// RUN: orchestra-run %t/host.orcx --input %t/in/b.npy --input %t/in/x.npy --output-dir %t/out --quiet
// RUN: %python %S/Inputs/e2e.py check bool_memory %t/in %t/out
func.func @main(%b: tensor<3x3000xi1>, %x: tensor<3x3000xf32>) -> (tensor<3x171xi1>, tensor<3x171xf32>, tensor<3x3000xi1>) {
  %e = tensor.empty() : tensor<3x171xi1>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x171xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %b[%i, %j] : tensor<3x3000xi1>
    linalg.yield %v : i1
  } -> tensor<3x171xi1>
  %ef = tensor.empty() : tensor<3x171xf32>
  %xs = tensor.extract_slice %x[0, 0] [3, 171] [1, 1] : tensor<3x3000xf32> to tensor<3x171xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g, %xs : tensor<3x171xi1>, tensor<3x171xf32>) outs(%ef : tensor<3x171xf32>) {
  ^bb0(%c: i1, %v: f32, %out: f32):
    %n = arith.negf %v : f32
    %r = arith.select %c, %v, %n : f32
    linalg.yield %r : f32
  } -> tensor<3x171xf32>
  %true = arith.constant true
  %en = tensor.empty() : tensor<3x3000xi1>
  %not = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<3x3000xi1>) outs(%en : tensor<3x3000xi1>) {
  ^bb0(%v: i1, %out: i1):
    %r = arith.xori %v, %true : i1
    linalg.yield %r : i1
  } -> tensor<3x3000xi1>
  %rev = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%en : tensor<3x3000xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2999 = arith.constant 2999 : index
    %k = arith.subi %c2999, %j : index
    %v = tensor.extract %not[%i, %k] : tensor<3x3000xi1>
    linalg.yield %v : i1
  } -> tensor<3x3000xi1>
  return %g, %s, %rev : tensor<3x171xi1>, tensor<3x171xf32>, tensor<3x3000xi1>
}
