// Matmuls of every element type the MFMA recipe takes, each on the matrix
// cores of an AMD GPU: f16 and bf16 accumulated in f32 (with a bias and
// ReLU epilogue over the accumulator tile in LDS), f32, and i8 accumulated
// in i32 (test/e2e/amd/programs-emulated.test runs it; the reference is
// e2e.py's mfma_types).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @main(%a16: tensor<64x96xf16>, %b16: tensor<96x128xf16>, %bias: tensor<128xf32>,
                %abf: tensor<128x64xbf16>, %bbf: tensor<64x64xbf16>,
                %a32: tensor<64x48xf32>, %b32: tensor<48x64xf32>,
                %a8: tensor<64x128xi8>, %b8: tensor<128x64xi8>)
    -> (tensor<64x128xf32>, tensor<128x64xf32>, tensor<64x64xf32>, tensor<64x64xi32>) {
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %e1 = tensor.empty() : tensor<64x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m1 = linalg.matmul ins(%a16, %b16 : tensor<64x96xf16>, tensor<96x128xf16>) outs(%f1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1b = tensor.empty() : tensor<64x128xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %bias : tensor<64x128xf32>, tensor<128xf32>) outs(%e1b : tensor<64x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<128x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %m2 = linalg.matmul ins(%abf, %bbf : tensor<128x64xbf16>, tensor<64x64xbf16>) outs(%f2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m3 = linalg.matmul ins(%a32, %b32 : tensor<64x48xf32>, tensor<48x64xf32>) outs(%f3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e4 = tensor.empty() : tensor<64x64xi32>
  %f4 = linalg.fill ins(%izero : i32) outs(%e4 : tensor<64x64xi32>) -> tensor<64x64xi32>
  %m4 = linalg.matmul ins(%a8, %b8 : tensor<64x128xi8>, tensor<128x64xi8>) outs(%f4 : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %r1, %m2, %m3, %m4 : tensor<64x128xf32>, tensor<128x64xf32>, tensor<64x64xf32>, tensor<64x64xi32>
}
