// 8-bit convolutions and matmuls (i8 x i8 -> i32) on a CPU with VNNI:
// orchestra-cpu-tag-tiling tags them `orchestra.int8_dot` with the
// vector width of the module's CPU, and the strategy computes their
// register tiles (7 columns or rows x two vectors of channels) with
// transform.orchestra.cpu_int8_dot: loops over the filter rows, the
// filter columns and the input channels by four, the accumulators and the
// per-vector corrections carried in registers (the corrections of a packed
// filter in loops of their own, outside the tiles), the input bytes shifted
// to unsigned and broadcast, one vpdpbusd per accumulator and step.
// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-tag-tiling | FileCheck %s --check-prefix=TAG
// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-tag-tiling --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy --canonicalize | FileCheck %s

// TAG-LABEL: module @avx512
// TAG:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.int8_dot = 512 : i64
// TAG:         linalg.matmul {orchestra.int8_dot = 512 : i64}
// A float convolution keeps its channel tiles.
// TAG:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.conv_channels_32
// TAG-LABEL: module @avxvnni
// TAG:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.int8_dot = 256 : i64
// Without VNNI, the generic path's tiles.
// TAG-LABEL: module @novnni
// TAG:         linalg.conv_2d_nhwc_hwcf {{{.*}}orchestra.conv_channels_32
// TAG-NOT:     orchestra.int8_dot

// 14 columns of 7 and 64 channels of 32: whole tiles, 16 input channels in
// four steps of four per filter tap. The input's bytes are shifted to
// unsigned once, before the tiles (a vectorized copy), not at every step.
// CHECK-LABEL: func.func @whole_tiles
// CHECK:         arith.xori {{.*}} : vector<1x1x1x8xi8>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for %{{.*}} = %c0 to %c3
// CHECK:               scf.for %{{.*}} = %c0 to %c3
// CHECK:                 scf.for %{{.*}} = %c0 to %c4 {{.*}} -> (vector<16xi32>
// CHECK:                   vector.transfer_read {{.*}} : tensor<3x3x16x64xi8>, vector<4x32xi8>
// CHECK:                   vector.shuffle {{.*}} : vector<32xi8>, vector<32xi8>
// CHECK-NOT:               arith.xori
// CHECK-COUNT-14:          llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-COUNT-2:           llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK:         arith.subi {{.*}} : vector<16xi32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf

// 6 input channels (a partial step, read as zeros past the sixth), 24
// output channels (one whole vector and a masked one), stride 2 and
// dilation 2.
// CHECK-LABEL: func.func @remainders
// CHECK:         vector.transfer_read %{{.*}}, %{{.*}} : tensor<3x3x6x24xi8>, vector<4x32xi8>
// CHECK:         vector.transfer_read %{{.*}}, %{{.*}} : tensor<1x5x13x6xi8>, vector<4xi8>
// CHECK:         vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xi32>, tensor<1x1x5x24xi32>
// CHECK:         vector.transfer_write %{{.*}}[%c0, %c0, %c0, %c16] : vector<16xi32>, tensor<1x1x5x24xi32>
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf

// 37 rows (5 tiles of 7 and 2) and 40 columns (32 and 8), K = 30: no
// convolution loops, the channel loop of 8 steps (the last partial).
// CHECK-LABEL: func.func @matmul
// CHECK-COUNT-2: scf.for
// CHECK:           scf.for %{{.*}} = %c0 to %c8 {{.*}} -> (vector<16xi32>
// CHECK:             vector.transfer_read {{.*}} {in_bounds = [false, true]} : tensor<30x32xi8>, vector<4x32xi8>
// CHECK-COUNT-16:    llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     linalg.matmul
// A filter packed with four input channels innermost
// (orchestra-cpu-pack-int8-operands; 6 channels padded to 8): each
// vector's 16 channels x 4 bytes are one load, no shuffles, and the
// unpack is gone. The corrections (128 x the sums of each channel's
// filter) are loops of their own over the filter alone, outside the loop
// over the output rows; each step of the tiles is then 10 dot products (5
// columns x 2 vectors) and none for the corrections.
// CHECK-LABEL: func.func @packed
// CHECK-NOT:     linalg.unpack
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] : tensor<3x3x2x24x4xi8> into tensor<3x3x2x96xi8>
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<3x3x2x96xi8>, vector<64xi8>
// CHECK:         vector.transfer_read %{{.*}} : tensor<3x3x2x96xi8>, vector<64xi8>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[OFFSET:cst[_0-9]*]], %{{.*}})
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[OFFSET]], %{{.*}})
// CHECK:         scf.for %{{.*}} = %c0 to %c5
// CHECK-NOT:       %[[OFFSET]]
// CHECK-COUNT-10:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:       llvm.call_intrinsic
// CHECK:           arith.subi
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @packed_matmul
// CHECK-NOT:     linalg.unpack
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<8x40x4xi8> into tensor<8x160xi8>
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.transfer_read {{.*}} : tensor<8x160xi8>, vector<64xi8>
// CHECK-NOT:     linalg.matmul
// CHECK-LABEL: func.func @avx_vnni
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// Without VNNI, a packed filter is unpacked by a transpose (tiled and
// vectorized like any other) that bufferizes.
// CHECK-LABEL: func.func @no_vnni_packed
// CHECK-NOT:     linalg.unpack
// CHECK:         vector.transfer_write {{.*}} : vector<1x1x1x1x8xi8>, tensor<3x3x2x4x32xi8>
// CHECK-NOT:     linalg.unpack

module @avx512 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "icelake-server", device_id = 0 : i64, num_threads = 1 : i64}} {
  func.func @whole_tiles(%x: tensor<1x16x16x16xi8>, %w2: tensor<3x3x16x64xi8>) -> tensor<1x14x14x64xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<1x14x14x64xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x14x14x64xi32>) -> tensor<1x14x14x64xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w2 : tensor<1x16x16x16xi8>, tensor<3x3x16x64xi8>) outs(%f : tensor<1x14x14x64xi32>) -> tensor<1x14x14x64xi32>
    return %c : tensor<1x14x14x64xi32>
  }
  func.func @remainders(%x: tensor<1x13x13x6xi8>, %w: tensor<3x3x6x24xi8>) -> tensor<1x5x5x24xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<1x5x5x24xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
        ins(%x, %w : tensor<1x13x13x6xi8>, tensor<3x3x6x24xi8>) outs(%f : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
    return %c : tensor<1x5x5x24xi32>
  }
  func.func @matmul(%a: tensor<37x30xi8>, %b: tensor<30x40xi8>) -> tensor<37x40xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<37x40xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<37x40xi32>) -> tensor<37x40xi32>
    %m = linalg.matmul ins(%a, %b : tensor<37x30xi8>, tensor<30x40xi8>) outs(%f : tensor<37x40xi32>) -> tensor<37x40xi32>
    return %m : tensor<37x40xi32>
  }
  func.func @packed(%x: tensor<1x13x13x6xi8>, %p: tensor<3x3x2x24x4xi8>) -> tensor<1x5x5x24xi32> {
    %zero = arith.constant 0 : i32
    %u = tensor.empty() : tensor<3x3x6x24xi8>
    %w = linalg.unpack %p inner_dims_pos = [2] inner_tiles = [4] into %u : tensor<3x3x2x24x4xi8> -> tensor<3x3x6x24xi8>
    %e = tensor.empty() : tensor<1x5x5x24xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
        ins(%x, %w : tensor<1x13x13x6xi8>, tensor<3x3x6x24xi8>) outs(%f : tensor<1x5x5x24xi32>) -> tensor<1x5x5x24xi32>
    return %c : tensor<1x5x5x24xi32>
  }
  func.func @packed_matmul(%a: tensor<37x30xi8>, %p: tensor<8x40x4xi8>) -> tensor<37x40xi32> {
    %zero = arith.constant 0 : i32
    %u = tensor.empty() : tensor<30x40xi8>
    %b = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [4] into %u : tensor<8x40x4xi8> -> tensor<30x40xi8>
    %e = tensor.empty() : tensor<37x40xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<37x40xi32>) -> tensor<37x40xi32>
    %m = linalg.matmul ins(%a, %b : tensor<37x30xi8>, tensor<30x40xi8>) outs(%f : tensor<37x40xi32>) -> tensor<37x40xi32>
    return %m : tensor<37x40xi32>
  }
  func.func @float(%x: tensor<1x16x16x16xf32>, %w: tensor<3x3x16x32xf32>) -> tensor<1x14x14x32xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x14x14x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x16x16x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
    return %c : tensor<1x14x14x32xf32>
  }
}

// -----

module @avxvnni attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "alderlake", device_id = 0 : i64, num_threads = 1 : i64}} {
  func.func @avx_vnni(%x: tensor<1x9x9x8xi8>, %w: tensor<3x3x8x16xi8>) -> tensor<1x7x7x16xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<1x7x7x16xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x7x7x16xi32>) -> tensor<1x7x7x16xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x8xi8>, tensor<3x3x8x16xi8>) outs(%f : tensor<1x7x7x16xi32>) -> tensor<1x7x7x16xi32>
    return %c : tensor<1x7x7x16xi32>
  }
}

// -----

module @novnni attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "skylake-avx512", device_id = 0 : i64, num_threads = 1 : i64}} {
  func.func @no_vnni(%x: tensor<1x9x9x8xi8>, %w: tensor<3x3x8x32xi8>) -> tensor<1x7x7x32xi32> {
    %zero = arith.constant 0 : i32
    %e = tensor.empty() : tensor<1x7x7x32xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x7x7x32xi32>) -> tensor<1x7x7x32xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x8xi8>, tensor<3x3x8x32xi8>) outs(%f : tensor<1x7x7x32xi32>) -> tensor<1x7x7x32xi32>
    return %c : tensor<1x7x7x32xi32>
  }
  func.func @no_vnni_packed(%x: tensor<1x9x9x8xi8>, %p: tensor<3x3x2x32x4xi8>) -> tensor<1x7x7x32xi32> {
    %zero = arith.constant 0 : i32
    %u = tensor.empty() : tensor<3x3x8x32xi8>
    %w = linalg.unpack %p inner_dims_pos = [2] inner_tiles = [4] into %u : tensor<3x3x2x32x4xi8> -> tensor<3x3x8x32xi8>
    %e = tensor.empty() : tensor<1x7x7x32xi32>
    %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x7x7x32xi32>) -> tensor<1x7x7x32xi32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
        ins(%x, %w : tensor<1x9x9x8xi8>, tensor<3x3x8x32xi8>) outs(%f : tensor<1x7x7x32xi32>) -> tensor<1x7x7x32xi32>
    return %c : tensor<1x7x7x32xi32>
  }
}
