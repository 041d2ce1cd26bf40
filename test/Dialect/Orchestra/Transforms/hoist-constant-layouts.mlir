// RUN: orchestra-opt %s --split-input-file --orchestra-hoist-constant-layouts | FileCheck %s

// On a CPU with VNNI, the x86_64 constant-layout pass
// (orchestra-cpu-pack-int8-operands) asks for the filter of an 8-bit
// convolution and the B of an 8-bit matmul with four input channels
// innermost. Where every launch passes a constant, the constants are packed
// here (6 channels padded to 8 with zeros; 5 rows of B to 8), the kernel
// takes the packed type (and its ABI says so), and reads it through an
// unpack. Two launches of one constant get one packed constant, the
// original constant goes when nothing else uses it.
// CHECK-LABEL: module @kernels_x86_64_0
// CHECK:         func.func @conv(%{{.*}}: tensor<1x3x3x6xi8>, %[[P:.*]]: tensor<1x1x2x2x4xi8>)
// CHECK-SAME:        orchestra.abi = [tensor<1x3x3x6xi8>, tensor<1x1x2x2x4xi8>, tensor<1x3x3x2xi32>]
// CHECK-NOT:       linalg.pack
// CHECK:           %[[W:.*]] = linalg.unpack %[[P]] inner_dims_pos = [2] inner_tiles = [4]
// CHECK:           linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK:         func.func @matmul(%{{.*}}: tensor<3x5xi8>, %[[B:.*]]: tensor<2x6x4xi8>)
// CHECK:           linalg.unpack %[[B]] inner_dims_pos = [0] inner_tiles = [4]
// A filter that is an input of the model: the request is withdrawn.
// CHECK:         func.func @input_filter(%{{.*}}: tensor<1x3x3x6xi8>, %[[I:.*]]: tensor<1x1x6x2xi8>)
// CHECK-NOT:       linalg.pack
// CHECK-NOT:       linalg.unpack
// CHECK-NOT:       tensor<1x1x2x2x4xi8>
// CHECK:           linalg.conv_2d_nhwc_hwcf {{.*}} ins(%{{.*}}, %[[I]] :
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[WP:.*]] = arith.constant {orchestra.keep} dense<{{\[\[\[\[\[}}1, 3, 5, 7], [2, 4, 6, 8]], {{\[\[}}9, 11, 0, 0], [10, 12, 0, 0]]]]]> : tensor<1x1x2x2x4xi8>
// CHECK-DAG:     %[[BP:.*]] = arith.constant dense<{{\[\[\[}}1, 7, 13, 19], [2, 8, 14, 20], [3, 9, 15, 21], [4, 10, 16, 22], [5, 11, 17, 23], [6, 12, 18, 24]], {{\[\[}}25, 0, 0, 0], [26, 0, 0, 0], [27, 0, 0, 0], [28, 0, 0, 0], [29, 0, 0, 0], [30, 0, 0, 0]]]> : tensor<2x6x4xi8>
// CHECK-DAG:     %[[WI:.*]] = arith.constant dense<{{\[\[\[\[}}1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]]> : tensor<1x1x6x2xi8>
// CHECK:         orchestra.launch "conv" @kernels_x86_64_0::@conv(%{{.*}}, %[[WP]])
// CHECK:         orchestra.launch "conv2" @kernels_x86_64_0::@conv(%{{.*}}, %[[WP]])
// CHECK:         orchestra.launch "matmul" @kernels_x86_64_0::@matmul(%{{.*}}, %[[BP]])
// CHECK:         orchestra.launch "input_filter" @kernels_x86_64_0::@input_filter(%{{.*}}, %{{.*}})
// CHECK:         orchestra.launch "input_filter2" @kernels_x86_64_0::@input_filter(%{{.*}}, %[[WI]])
module {
  module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "icelake-server", device_id = 0 : i64, num_threads = 1 : i64}} {
    func.func @conv(%x: tensor<1x3x3x6xi8>, %w: tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32> attributes {orchestra.abi = [tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>, tensor<1x3x3x2xi32>]} {
      %zero = arith.constant 0 : i32
      %e = tensor.empty() : tensor<1x3x3x2xi32>
      %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) outs(%f : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      return %c : tensor<1x3x3x2xi32>
    }
    func.func @matmul(%a: tensor<3x5xi8>, %b: tensor<5x6xi8>) -> tensor<3x6xi32> {
      %zero = arith.constant 0 : i32
      %e = tensor.empty() : tensor<3x6xi32>
      %f = linalg.fill ins(%zero : i32) outs(%e : tensor<3x6xi32>) -> tensor<3x6xi32>
      %m = linalg.matmul ins(%a, %b : tensor<3x5xi8>, tensor<5x6xi8>) outs(%f : tensor<3x6xi32>) -> tensor<3x6xi32>
      return %m : tensor<3x6xi32>
    }
    func.func @input_filter(%x: tensor<1x3x3x6xi8>, %w: tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32> {
      %zero = arith.constant 0 : i32
      %e = tensor.empty() : tensor<1x3x3x2xi32>
      %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) outs(%f : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      return %c : tensor<1x3x3x2xi32>
    }
  }
  func.func @main(%x: tensor<1x3x3x6xi8>, %a: tensor<3x5xi8>, %win: tensor<1x1x6x2xi8>) -> (tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>, tensor<3x6xi32>, tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>) {
    %w = arith.constant {orchestra.keep} dense<"0x0102030405060708090A0B0C"> : tensor<1x1x6x2xi8>
    %w2 = arith.constant dense<"0x0102030405060708090A0B0C"> : tensor<1x1x6x2xi8>
    %b = arith.constant dense<"0x0102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E"> : tensor<5x6xi8>
    %0 = orchestra.launch "conv" @kernels_x86_64_0::@conv(%x, %w) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    %1 = orchestra.launch "conv2" @kernels_x86_64_0::@conv(%x, %w) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    %2 = orchestra.launch "matmul" @kernels_x86_64_0::@matmul(%a, %b) target = {arch = "x86_64", device_id = 0} : (tensor<3x5xi8>, tensor<5x6xi8>) -> tensor<3x6xi32>
    %3 = orchestra.launch "input_filter" @kernels_x86_64_0::@input_filter(%x, %win) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    %4 = orchestra.launch "input_filter2" @kernels_x86_64_0::@input_filter(%x, %w2) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    return %0, %1, %2, %3, %4 : tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>, tensor<3x6xi32>, tensor<1x3x3x2xi32>, tensor<1x3x3x2xi32>
  }
}

// -----

// Without VNNI (Skylake-X), nothing is asked for.
// CHECK-LABEL: module @kernels_x86_64_0
// CHECK:         func.func @conv(%{{.*}}: tensor<1x3x3x6xi8>, %{{.*}}: tensor<1x1x6x2xi8>)
// CHECK-NOT:     linalg.unpack
// CHECK-LABEL: func.func @main
// CHECK:         arith.constant dense<{{\[\[\[\[}}1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12]]]]> : tensor<1x1x6x2xi8>
module {
  module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "skylake-avx512", device_id = 0 : i64, num_threads = 1 : i64}} {
    func.func @conv(%x: tensor<1x3x3x6xi8>, %w: tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32> {
      %zero = arith.constant 0 : i32
      %e = tensor.empty() : tensor<1x3x3x2xi32>
      %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) outs(%f : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      return %c : tensor<1x3x3x2xi32>
    }
  }
  func.func @main(%x: tensor<1x3x3x6xi8>) -> tensor<1x3x3x2xi32> {
    %w = arith.constant dense<"0x0102030405060708090A0B0C"> : tensor<1x1x6x2xi8>
    %0 = orchestra.launch "conv" @kernels_x86_64_0::@conv(%x, %w) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    return %0 : tensor<1x3x3x2xi32>
  }
}

// -----

// A weight held as a resource blob (how the ONNX importer keeps
// initializers over 1 KiB) is packed the same way.
// CHECK-LABEL: module @kernels_x86_64_0
// CHECK:         func.func @conv(%{{.*}}: tensor<1x3x3x6xi8>, %{{.*}}: tensor<1x1x2x2x4xi8>)
// CHECK-LABEL: func.func @main
// CHECK:         arith.constant dense<{{\[\[\[\[\[}}1, 3, 5, 7], [2, 4, 6, 8]], {{\[\[}}9, 11, 0, 0], [10, 12, 0, 0]]]]]> : tensor<1x1x2x2x4xi8>
module {
  module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", cpu = "icelake-server", device_id = 0 : i64, num_threads = 1 : i64}} {
    func.func @conv(%x: tensor<1x3x3x6xi8>, %w: tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32> {
      %zero = arith.constant 0 : i32
      %e = tensor.empty() : tensor<1x3x3x2xi32>
      %f = linalg.fill ins(%zero : i32) outs(%e : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
          ins(%x, %w : tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) outs(%f : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
      return %c : tensor<1x3x3x2xi32>
    }
  }
  func.func @main(%x: tensor<1x3x3x6xi8>) -> tensor<1x3x3x2xi32> {
    %w = arith.constant dense_resource<weights> : tensor<1x1x6x2xi8>
    %0 = orchestra.launch "conv" @kernels_x86_64_0::@conv(%x, %w) target = {arch = "x86_64", device_id = 0} : (tensor<1x3x3x6xi8>, tensor<1x1x6x2xi8>) -> tensor<1x3x3x2xi32>
    return %0 : tensor<1x3x3x2xi32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000102030405060708090A0B0C"
    }
  }
#-}
