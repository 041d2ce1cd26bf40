// RUN: rm -rf %t && split-file %s %t
// RUN: orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache="cache=%t/cache.json verbose=true" --verify-diagnostics | FileCheck %s
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/not-json.json 2>&1 | FileCheck %s --check-prefix=NOT-JSON
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/format.json 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/version.json 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/fields.json 2>&1 | FileCheck %s --check-prefix=FIELDS
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache=cache=%t/variant.json 2>&1 | FileCheck %s --check-prefix=VARIANT
// RUN: not orchestra-opt %t/kernels.mlir --orchestra-apply-tuning-cache 2>&1 | FileCheck %s --check-prefix=NO-CACHE

// The cache's entries match on arch, thread count, op, element type and
// loop ranges; 'default' leaves the op alone.
// CHECK:      module attributes {orchestra.tuned_ops = 2 : i64}
// CHECK-LABEL: func.func @tuned
// CHECK:        linalg.matmul {orchestra.tile_variant = "b128x128_r8x32"}
// CHECK-LABEL: func.func @other_shape
// CHECK-NOT:    orchestra.tile_variant
// CHECK-LABEL: func.func @kept_default
// CHECK-NOT:    orchestra.tile_variant
// CHECK-LABEL: func.func @other_threads
// CHECK-NOT:    orchestra.tile_variant
// CHECK-LABEL: func.func @f16
// CHECK:        linalg.matmul {orchestra.tile_variant = "b64x128_r4x64"}

// MISSING: error: cannot read tuning cache '{{.*}}missing.json'
// NOT-JSON: error: tuning cache '{{.*}}not-json.json' is not valid JSON
// FORMAT: error: tuning cache '{{.*}}format.json': "format" must be "orchestra-tuning-cache"
// VERSION: error: tuning cache '{{.*}}version.json': unsupported "version" (1 expected)
// FIELDS: error: tuning cache '{{.*}}fields.json': entry 0: needs "arch", "threads", "op", "element_type", "shape" and "variant"
// VARIANT: error: tuning cache '{{.*}}variant.json': entry 1: "variant" must be a non-empty name of letters, digits and '_'
// NO-CACHE: error: orchestra-apply-tuning-cache needs 'cache=FILE'

//--- kernels.mlir
module {
  module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", device_id = 0 : i64, num_threads = 2 : i64}} {
    func.func @tuned(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
      // expected-remark @below {{tuned variant 'b128x128_r8x32' (x86_64/2 threads: linalg.matmul 64x48x32 f32)}}
      %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
      return %m : tensor<64x48xf32>
    }
    func.func @other_shape(%a: tensor<64x32xf32>, %b: tensor<32x40xf32>, %c: tensor<64x40xf32>) -> tensor<64x40xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x40xf32>) outs(%c : tensor<64x40xf32>) -> tensor<64x40xf32>
      return %m : tensor<64x40xf32>
    }
    func.func @kept_default(%a: tensor<16x32xf32>, %b: tensor<32x48xf32>, %c: tensor<16x48xf32>) -> tensor<16x48xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x48xf32>) outs(%c : tensor<16x48xf32>) -> tensor<16x48xf32>
      return %m : tensor<16x48xf32>
    }
  }
  module @kernels_x86_64_1 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", device_id = 1 : i64, num_threads = 1 : i64}} {
    func.func @other_threads(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
      return %m : tensor<64x48xf32>
    }
    func.func @f16(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %c: tensor<64x48xf16>) -> tensor<64x48xf16> {
      // expected-remark @below {{tuned variant 'b64x128_r4x64' (x86_64/1 threads: linalg.matmul 64x48x32 f16)}}
      %m = linalg.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
      return %m : tensor<64x48xf16>
    }
  }
}

//--- cache.json
{"format": "orchestra-tuning-cache", "version": 1, "machine": "test",
 "entries": [
  {"arch": "x86_64", "threads": 2, "op": "linalg.matmul", "element_type": "f32",
   "shape": [64, 48, 32], "variant": "b128x128_r8x32", "time_ms": 1.0, "default_time_ms": 2.0},
  {"arch": "x86_64", "threads": 2, "op": "linalg.matmul", "element_type": "f32",
   "shape": [16, 48, 32], "variant": "default"},
  {"arch": "x86_64", "threads": 1, "op": "linalg.matmul", "element_type": "f16",
   "shape": [64, 48, 32], "variant": "b64x128_r4x64"}]}

//--- not-json.json
{"format": "orchestra-tuning-cache",

//--- format.json
{"format": "something-else", "version": 1, "entries": []}

//--- version.json
{"format": "orchestra-tuning-cache", "version": 7, "entries": []}

//--- fields.json
{"format": "orchestra-tuning-cache", "version": 1, "entries": [{"arch": "x86_64"}]}

//--- variant.json
{"format": "orchestra-tuning-cache", "version": 1, "entries": [
  {"arch": "x86_64", "threads": 2, "op": "linalg.matmul", "element_type": "f32", "shape": [1, 2, 3], "variant": "ok"},
  {"arch": "x86_64", "threads": 2, "op": "linalg.matmul", "element_type": "f32", "shape": [1, 2, 3], "variant": "x y"}]}
