// 8-bit convolutions and matmuls (i8 x i8 -> i32), which a CPU with VNNI
// computes with dot-product instructions (transform.orchestra.cpu_int8_dot), against
// the plain loop lowering on random bytes over the whole int8 range: a
// padded 3x3 convolution of two images with a bias (whole tiles of 7
// columns and 32 channels), a 3x3 one with stride 2 and dilation 2 on 6
// input channels and 24 output channels (a partial step of four channels,
// a partial vector), a 1x1 one with 80 output channels (two tiles and a
// remainder of 16), one 3 columns wide (less than a tile), and two
// matmuls: 37 x 100 by 100 x 80 (remainders of rows and columns) and
// 9 x 30 by 30 x 40 (K not a multiple of four). On a CPU
// without VNNI the same comparison checks the generic path.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:i8:2x14x14x16 w:i8:3x3x16x32 b:i32:32 x2:i8:1x13x13x6 w2:i8:3x3x6x24 w3:i8:1x1x16x80 x4:i8:1x5x5x8 w4:i8:3x3x8x16 a:i8:37x100 bm:i8:100x80 a2:i8:9x30 b2:i8:30x40
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/b.npy --input %t/in/x2.npy --input %t/in/w2.npy --input %t/in/w3.npy --input %t/in/x4.npy --input %t/in/w4.npy --input %t/in/a.npy --input %t/in/bm.npy --input %t/in/a2.npy --input %t/in/b2.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/b.npy --input %t/in/x2.npy --input %t/in/w2.npy --input %t/in/w3.npy --input %t/in/x4.npy --input %t/in/w4.npy --input %t/in/a.npy --input %t/in/bm.npy --input %t/in/a2.npy --input %t/in/b2.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>
func.func @main(%x: tensor<2x14x14x16xi8>, %w: tensor<3x3x16x32xi8>, %b: tensor<32xi32>,
                %x2: tensor<1x13x13x6xi8>, %w2: tensor<3x3x6x24xi8>, %w3: tensor<1x1x16x80xi8>,
                %x4: tensor<1x5x5x8xi8>, %w4: tensor<3x3x8x16xi8>,
                %a: tensor<37x100xi8>, %bm: tensor<100x80xi8>, %a2: tensor<9x30xi8>, %b2: tensor<30x40xi8>)
    -> (tensor<2x14x14x32xi32>, tensor<1x5x5x24xi32>, tensor<2x14x14x80xi32>, tensor<1x3x3x16xi32>,
        tensor<37x80xi32>, tensor<9x40xi32>) {
  %zero = arith.constant 0 : i32
  %pad = arith.constant 0 : i8
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pad : i8
  } : tensor<2x14x14x16xi8> to tensor<2x16x16x16xi8>
  %e = tensor.empty() : tensor<2x14x14x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2x14x14x32xi32>) -> tensor<2x14x14x32xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x16x16x16xi8>, tensor<3x3x16x32xi8>) outs(%f : tensor<2x14x14x32xi32>) -> tensor<2x14x14x32xi32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %b : tensor<2x14x14x32xi32>, tensor<32xi32>) outs(%e : tensor<2x14x14x32xi32>) {
  ^bb0(%in: i32, %bias: i32, %o: i32):
    %s = arith.addi %in, %bias : i32
    linalg.yield %s : i32
  } -> tensor<2x14x14x32xi32>

  %e2 = tensor.empty() : tensor<1x5x5x24xi32>
  %f2 = linalg.fill ins(%zero : i32) outs(%e2 : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<1x13x13x6xi8>, tensor<3x3x6x24xi8>) outs(%f2 : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>

  %e3 = tensor.empty() : tensor<2x14x14x80xi32>
  %f3 = linalg.fill ins(%zero : i32) outs(%e3 : tensor<2x14x14x80xi32>) -> tensor<2x14x14x80xi32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w3 : tensor<2x14x14x16xi8>, tensor<1x1x16x80xi8>) outs(%f3 : tensor<2x14x14x80xi32>) -> tensor<2x14x14x80xi32>

  %e4 = tensor.empty() : tensor<1x3x3x16xi32>
  %f4 = linalg.fill ins(%zero : i32) outs(%e4 : tensor<1x3x3x16xi32>) -> tensor<1x3x3x16xi32>
  %c4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x4, %w4 : tensor<1x5x5x8xi8>, tensor<3x3x8x16xi8>) outs(%f4 : tensor<1x3x3x16xi32>) -> tensor<1x3x3x16xi32>

  %e5 = tensor.empty() : tensor<37x80xi32>
  %f5 = linalg.fill ins(%zero : i32) outs(%e5 : tensor<37x80xi32>) -> tensor<37x80xi32>
  %m5 = linalg.matmul ins(%a, %bm : tensor<37x100xi8>, tensor<100x80xi8>) outs(%f5 : tensor<37x80xi32>) -> tensor<37x80xi32>
  %e6 = tensor.empty() : tensor<9x40xi32>
  %f6 = linalg.fill ins(%zero : i32) outs(%e6 : tensor<9x40xi32>) -> tensor<9x40xi32>
  %m6 = linalg.matmul ins(%a2, %b2 : tensor<9x30xi8>, tensor<30x40xi8>) outs(%f6 : tensor<9x40xi32>) -> tensor<9x40xi32>
  return %y, %c2, %c3, %c4, %m5, %m6 : tensor<2x14x14x32xi32>, tensor<1x5x5x24xi32>, tensor<2x14x14x80xi32>, tensor<1x3x3x16xi32>, tensor<37x80xi32>, tensor<9x40xi32>
}
