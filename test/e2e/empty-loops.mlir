// Ops that run no iteration (orchestra-fold-empty-loops): reductions over
// an empty axis, to a scalar and along a row, give their inits; a fill that
// is itself a result is a task of its own. On the CPU, and compiled for
// cpu+hopper (the GPU's kernels cannot tile a loop of no iteration; the
// ops are gone before scheduling).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:0x4 y:f32:4x0
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/y.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check empty_loops %t/in %t/opt
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/cpu+hopper.json -o %t/gpu.orcx --quiet

func.func @main(%x: tensor<0x4xf32>, %y: tensor<4x0xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %z = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %all = linalg.reduce ins(%x : tensor<0x4xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %rows = linalg.reduce ins(%y : tensor<4x0xf32>) outs(%f4 : tensor<4xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.maximumf %a, %acc : f32
      linalg.yield %s : f32
    }
  %two = arith.constant 2.0 : f32
  %g = linalg.fill ins(%two : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  return %all, %rows, %g : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}
