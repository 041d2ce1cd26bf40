// batch_matmul, max pooling, a rank-0 f64 reduction, an argument returned
// as is, tensor.pad and tensor.concat.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:2x8x16 y:f32:2x16x4 img:f32:1x8x8x3 v:f64:5
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/y.npy --input %t/in/img.npy --input %t/in/v.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check data_movement %t/in %t/opt
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/y.npy --input %t/in/img.npy --input %t/in/v.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

func.func @main(%x: tensor<2x8x16xf32>, %y: tensor<2x16x4xf32>, %img: tensor<1x8x8x3xf32>, %v: tensor<5xf64>) -> (tensor<2x8x4xf32>, tensor<1x4x4x3xf32>, tensor<f64>, tensor<2x8x16xf32>, tensor<7xf64>, tensor<10xf64>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %bm = linalg.batch_matmul ins(%x, %y : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%f : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %pe = tensor.empty() : tensor<1x4x4x3xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%img, %win : tensor<1x8x8x3xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %z64 = arith.constant 0.0 : f64
  %se = tensor.empty() : tensor<f64>
  %sf = linalg.fill ins(%z64 : f64) outs(%se : tensor<f64>) -> tensor<f64>
  %sum = linalg.reduce ins(%v : tensor<5xf64>) outs(%sf : tensor<f64>) dimensions = [0]
    (%a: f64, %b: f64) { %r = arith.addf %a, %b : f64
      linalg.yield %r : f64 }
  %p = tensor.pad %v low[1] high[1] { ^bb0(%i: index): tensor.yield %z64 : f64 } : tensor<5xf64> to tensor<7xf64>
  %c = tensor.concat dim(0) %v, %v : (tensor<5xf64>, tensor<5xf64>) -> tensor<10xf64>
  return %bm, %pool, %sum, %x, %p, %c : tensor<2x8x4xf32>, tensor<1x4x4x3xf32>, tensor<f64>, tensor<2x8x16xf32>, tensor<7xf64>, tensor<10xf64>
}
