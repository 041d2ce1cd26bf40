// Every matmul variant of the x86_64 strategy (the tuning mode's search
// space, `@matmul_variant_<name>`) against the plain loop lowering on
// random inputs: a tuning cache naming the variant is applied to matmuls
// whose dimensions are not multiples of any register tile or cache block,
// one with a fused ReLU, and one with 64-row parallel tiles. A build with
// the sanitizers checks one variant in two (%{matmul_variant_sample}).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in a:f32:70x300 b:f32:300x150 d:f32:200x90 e:f32:90x530
// RUN: %python %S/Inputs/matmul_variants.py %{matmul_variant_sample} %orchestra_src_root/strategies/x86_64_strategy.mlir %s %S/Inputs/tuning-topology.json %t 70x150x300 200x530x90 | FileCheck %s
// CHECK: variant b128x128_r8x32: matches
// CHECK: variant b64x128_r4x64: matches
// CHECK: variant b128x128_r6x64: matches
// CHECK: variant b64x128_r4x64_packed: matches
// CHECK: {{[0-9]+}} of {{[0-9]+}} variants match the plain lowering

#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
func.func @main(%a: tensor<70x300xf32>, %b: tensor<300x150xf32>,
                %d: tensor<200x90xf32>,
                %e: tensor<90x530xf32>)
    -> (tensor<70x150xf32>, tensor<200x530xf32>) {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<70x150xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<70x150xf32>) -> tensor<70x150xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<70x300xf32>, tensor<300x150xf32>) outs(%1 : tensor<70x150xf32>) -> tensor<70x150xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2 : tensor<70x150xf32>) outs(%0 : tensor<70x150xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<70x150xf32>
  %4 = tensor.empty() : tensor<200x530xf32>
  %5 = linalg.fill ins(%zero : f32) outs(%4 : tensor<200x530xf32>) -> tensor<200x530xf32>
  %6 = linalg.matmul ins(%d, %e : tensor<200x90xf32>, tensor<90x530xf32>) outs(%5 : tensor<200x530xf32>) -> tensor<200x530xf32>
  return %3, %6 : tensor<70x150xf32>, tensor<200x530xf32>
}
