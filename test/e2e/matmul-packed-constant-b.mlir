// f32 matmuls whose B is a constant of the model (a layer's weights): B is
// packed at compile time into the strategy's cache blocks
// (orchestra-cpu-pack-matmul-blocks, orchestra-hoist-constant-layouts) and
// the register tiles read the blocks in place (design note 0020). Against
// the plain loop lowering: parallel tiles by rows with a bias and ReLU
// fused (128 x 512 x 384), by columns (24 rows and a 1 MiB B; 50 rows,
// K = 768 and 640 columns, so that the second thread's tile is a partial
// one of two blocks), one constant read by two matmuls of different tasks,
// partial blocks at the end of K and N (K = 640, N = 1000: B zero-padded
// to 768 x 1024), and one B that is not packed (K = 300: too much padding).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py fill-constants %s > %t/m.mlir
// RUN: %python %S/Inputs/e2e.py gen %t/in a:f32:128x512 a2:f32:24x256 a3:f32:50x768 a4:f32:128x300 a6:f32:64x640
// RUN: orchestra-compile %t/m.mlir --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/a.npy --input %t/in/a2.npy --input %t/in/a3.npy --input %t/in/a4.npy --input %t/in/a6.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %t/m.mlir --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/a.npy --input %t/in/a2.npy --input %t/in/a3.npy --input %t/in/a4.npy --input %t/in/a6.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain | FileCheck %s
// CHECK: 7 output(s) agree
// The launches pass the packed constants: the blocks of each packed B, and
// the B of K = 300 as it is.
// RUN: orchestra-compile %t/m.mlir --topology host --emit=mlir -o %t/final.mlir --quiet
// RUN: grep -o 'orchestra.launch .*' %t/final.mlir | FileCheck %s --check-prefix=PACKED
// PACKED-DAG: tensor<3x2x256x128xf32>
// PACKED-DAG: tensor<8x1x256x128xf32>
// PACKED-DAG: tensor<5x3x256x128xf32>
// PACKED-DAG: tensor<8x3x256x128xf32>
// PACKED-DAG: tensor<300x256xf32>

func.func @main(%a: tensor<128x512xf32>, %a2: tensor<24x256xf32>,
                %a3: tensor<50x768xf32>, %a4: tensor<128x300xf32>,
                %a6: tensor<64x640xf32>)
    -> (tensor<128x384xf32>, tensor<24x1024xf32>, tensor<50x640xf32>,
        tensor<128x384xf32>, tensor<128x256xf32>, tensor<128x384xf32>,
        tensor<64x1000xf32>) {
  %zero = arith.constant 0.0 : f32
  %b = arith.constant dense<"random"> : tensor<512x384xf32>
  %bias = arith.constant dense<"random"> : tensor<384xf32>
  %b2 = arith.constant dense<"random"> : tensor<256x1024xf32>
  %b3 = arith.constant dense<"random"> : tensor<768x640xf32>
  %b4 = arith.constant dense<"random"> : tensor<300x256xf32>
  %b6 = arith.constant dense<"random"> : tensor<640x1000xf32>

  %e = tensor.empty() : tensor<128x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x384xf32>) -> tensor<128x384xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x384xf32>) outs(%f : tensor<128x384xf32>) -> tensor<128x384xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : tensor<128x384xf32>, tensor<384xf32>) outs(%e : tensor<128x384xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<128x384xf32>

  %e2 = tensor.empty() : tensor<24x1024xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x1024xf32>) -> tensor<24x1024xf32>
  %c2 = linalg.matmul ins(%a2, %b2 : tensor<24x256xf32>, tensor<256x1024xf32>) outs(%f2 : tensor<24x1024xf32>) -> tensor<24x1024xf32>

  %e3 = tensor.empty() : tensor<50x640xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<50x640xf32>) -> tensor<50x640xf32>
  %c3 = linalg.matmul ins(%a3, %b3 : tensor<50x768xf32>, tensor<768x640xf32>) outs(%f3 : tensor<50x640xf32>) -> tensor<50x640xf32>

  // The same constant again, in a task of its own (after %r).
  %c5 = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x384xf32>) outs(%f : tensor<128x384xf32>) -> tensor<128x384xf32>
  %s5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c5, %r : tensor<128x384xf32>, tensor<128x384xf32>) outs(%e : tensor<128x384xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<128x384xf32>

  %e4 = tensor.empty() : tensor<128x256xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %c4 = linalg.matmul ins(%a4, %b4 : tensor<128x300xf32>, tensor<300x256xf32>) outs(%f4 : tensor<128x256xf32>) -> tensor<128x256xf32>

  %e6 = tensor.empty() : tensor<64x1000xf32>
  %f6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<64x1000xf32>) -> tensor<64x1000xf32>
  %c6 = linalg.matmul ins(%a6, %b6 : tensor<64x640xf32>, tensor<640x1000xf32>) outs(%f6 : tensor<64x1000xf32>) -> tensor<64x1000xf32>

  return %r, %c2, %c3, %s5, %c4, %c, %c6 : tensor<128x384xf32>, tensor<24x1024xf32>, tensor<50x640xf32>, tensor<128x384xf32>, tensor<128x256xf32>, tensor<128x384xf32>, tensor<64x1000xf32>
}
