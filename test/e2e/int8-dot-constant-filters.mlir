// 8-bit convolutions and matmuls whose filters are constants of the model
// (the weights of a quantized model): on a CPU with VNNI they are packed at
// compile time with four input channels innermost
// (orchestra-cpu-pack-int8-operands, orchestra-hoist-constant-layouts) and
// the dot products read them as they are. Against the plain loop lowering
// on random bytes over the whole int8 range: a 7x7 stride-2 convolution of
// 3 input channels (padded to 4) like a CNN's stem, a 3x3 one of 6 input
// channels (padded to 8) and 24 output channels (a partial vector) with
// dilation 2, a 1x1 one of 80 output channels (two tiles and a remainder),
// a deep 3x3 one of 7 rows and 128 channels (tiled by channels), the same
// filter on a 16 x 16 input (deep blocks; a root tiled by rows, not
// channels), one whose filter is also read by a second convolution, and two
// matmuls (K = 30, not a multiple of four; 40 columns). On a CPU without
// VNNI the same comparison checks the generic path.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py fill-constants %s > %t/m.mlir
// RUN: %python %S/Inputs/e2e.py gen %t/in x:i8:1x37x37x3 x2:i8:1x13x13x6 x3:i8:1x14x14x16 x4:i8:1x9x9x128 x7:i8:1x16x16x128 a:i8:37x30
// RUN: orchestra-compile %t/m.mlir --topology host -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/x2.npy --input %t/in/x3.npy --input %t/in/x4.npy --input %t/in/x7.npy --input %t/in/a.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %t/m.mlir --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/x2.npy --input %t/in/x3.npy --input %t/in/x4.npy --input %t/in/x7.npy --input %t/in/a.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain | FileCheck %s
// CHECK: 8 output(s) agree

func.func @main(%x: tensor<1x37x37x3xi8>, %x2: tensor<1x13x13x6xi8>,
                %x3: tensor<1x14x14x16xi8>, %x4: tensor<1x9x9x128xi8>,
                %x7: tensor<1x16x16x128xi8>, %a: tensor<37x30xi8>)
    -> (tensor<1x16x16x64xi32>, tensor<1x5x5x24xi32>, tensor<1x14x14x80xi32>,
        tensor<1x7x7x128xi32>, tensor<1x14x14x128xi32>, tensor<1x14x14x80xi32>,
        tensor<37x40xi32>, tensor<37x40xi32>) {
  %zero = arith.constant 0 : i32
  %w = arith.constant dense<"random"> : tensor<7x7x3x64xi8>
  %w2 = arith.constant dense<"random"> : tensor<3x3x6x24xi8>
  %w3 = arith.constant dense<"random"> : tensor<1x1x16x80xi8>
  %w4 = arith.constant dense<"random"> : tensor<3x3x128x128xi8>
  %b = arith.constant dense<"random"> : tensor<30x40xi8>
  %b2 = arith.constant dense<"random"> : tensor<30x40xi8>

  %e = tensor.empty() : tensor<1x16x16x64xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x37x37x3xi8>, tensor<7x7x3x64xi8>) outs(%f : tensor<1x16x16x64xi32>) -> tensor<1x16x16x64xi32>

  %e2 = tensor.empty() : tensor<1x5x5x24xi32>
  %f2 = linalg.fill ins(%zero : i32) outs(%e2 : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x2, %w2 : tensor<1x13x13x6xi8>, tensor<3x3x6x24xi8>) outs(%f2 : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>

  %e3 = tensor.empty() : tensor<1x14x14x80xi32>
  %f3 = linalg.fill ins(%zero : i32) outs(%e3 : tensor<1x14x14x80xi32>) -> tensor<1x14x14x80xi32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x3, %w3 : tensor<1x14x14x16xi8>, tensor<1x1x16x80xi8>) outs(%f3 : tensor<1x14x14x80xi32>) -> tensor<1x14x14x80xi32>

  %e4 = tensor.empty() : tensor<1x7x7x128xi32>
  %f4 = linalg.fill ins(%zero : i32) outs(%e4 : tensor<1x7x7x128xi32>) -> tensor<1x7x7x128xi32>
  %c4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x4, %w4 : tensor<1x9x9x128xi8>, tensor<3x3x128x128xi8>) outs(%f4 : tensor<1x7x7x128xi32>) -> tensor<1x7x7x128xi32>

  %e7 = tensor.empty() : tensor<1x14x14x128xi32>
  %f7 = linalg.fill ins(%zero : i32) outs(%e7 : tensor<1x14x14x128xi32>) -> tensor<1x14x14x128xi32>
  %c7 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x7, %w4 : tensor<1x16x16x128xi8>, tensor<3x3x128x128xi8>) outs(%f7 : tensor<1x14x14x128xi32>) -> tensor<1x14x14x128xi32>

  // The filter of %c3 again, on the first input's channels doubled: the
  // constant is packed once for both.
  %x5 = tensor.concat dim(3) %x3, %x3 : (tensor<1x14x14x16xi8>, tensor<1x14x14x16xi8>) -> tensor<1x14x14x32xi8>
  %x6 = tensor.extract_slice %x5[0, 0, 0, 8] [1, 14, 14, 16] [1, 1, 1, 1] : tensor<1x14x14x32xi8> to tensor<1x14x14x16xi8>
  %c5 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x6, %w3 : tensor<1x14x14x16xi8>, tensor<1x1x16x80xi8>) outs(%f3 : tensor<1x14x14x80xi32>) -> tensor<1x14x14x80xi32>

  %e6 = tensor.empty() : tensor<37x40xi32>
  %f6 = linalg.fill ins(%zero : i32) outs(%e6 : tensor<37x40xi32>) -> tensor<37x40xi32>
  %m = linalg.matmul ins(%a, %b : tensor<37x30xi8>, tensor<30x40xi8>) outs(%f6 : tensor<37x40xi32>) -> tensor<37x40xi32>
  %m2 = linalg.matmul ins(%a, %b2 : tensor<37x30xi8>, tensor<30x40xi8>) outs(%f6 : tensor<37x40xi32>) -> tensor<37x40xi32>
  return %c, %c2, %c3, %c4, %c7, %c5, %m, %m2
      : tensor<1x16x16x64xi32>, tensor<1x5x5x24xi32>, tensor<1x14x14x80xi32>,
        tensor<1x7x7x128xi32>, tensor<1x14x14x128xi32>, tensor<1x14x14x80xi32>,
        tensor<37x40xi32>, tensor<37x40xi32>
}
