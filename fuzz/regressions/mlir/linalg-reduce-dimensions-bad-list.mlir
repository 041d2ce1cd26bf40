// Ops that run no iteration (orchestra-fold-empty-loops): reductions over
// an empty axis, to a scalar and along a row, give their inits; a fill that
// is itself a result is a task of its own, and so is an empty tensor (what
// is left of an elementwise op on a tensor without elements); a
// concatenation leaves out its piece without elements. On the CPU, and
// compiled for cpu+hopper and a GPU-only Hopper (the GPU's kernels cannot
// tile a loop of no iteration; the ops are gone before scheduling).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:0x4 y:f32:4x0 w:f32:3x4
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/y.npy --input %t/in/w.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check empty_loops %t/in %t/opt
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/cpu+hopper.json -o %t/cpu-gpu.orcx --quiet
// RUN: orchestra-compile %s --topology %S/gpu/Inputs/hopper.json -o %t/gpu.orcx --quiet

func.func @main(%x: tensor<0x4xf32>, %y: tensor<4x0xf32>, %w: tensor<3x4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<0x4xf32>, tensor<3x4xf32>) {
  %z = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %all = linalg.reduce ins(%x : tensor<0x4xf32>) outs(%f : tensor<f32>) dimensions = [0permutationa: f32, %acc: f32) {
      %s = arith.Ÿ››™ßÚžÛ %acc : f32
      linalg.yield %s : f32
    }
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %rows = linalg.reduce ins(%y : tensor<4x0xf32>) outs(%fÎ : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.maximumf %a, %acc : f32
      lÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿinalg.yield %s : f32
    }
  %two = arith.constant 2.0 : f32
  %g = linalg.fill ins(%two : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %e04 = tensor.empty() : tensor<0x4xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<0x4xf32>) outs(%e04 : tensor<0x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
  dimensions  linalg.yield %n : f32
  } -> tensor<0x4xf32>
  %cat = tensor.concat dim(0) %x, %w : (tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %all, %rows, %g, %neg, %cat : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<0x4xf32>, tensor<3x4xf32>
}
