// A kernel module in the LLVM dialect becomes a shared object exporting the
// runtime entry points; the module keeps only attributes.
// RUN: orchestra-opt %s --orchestra-cpu-emit-binary="cpu=x86-64-v2 features=+sse4.2,+popcnt" | FileCheck %s
// A CPU without features means that CPU's own features (with what they
// imply), not the compiling machine's: code for a Haswell uses no AVX-512.
// RUN: orchestra-opt %s --orchestra-cpu-emit-binary="cpu=haswell" | FileCheck %s --check-prefix=HASWELL
// HASWELL: orchestra.cpu = "haswell"
// HASWELL-SAME: orchestra.required_features = ["sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe"]

// CHECK: module @kernels_x86_64_0 attributes {
// CHECK-SAME: orchestra.binary = "\7FELF
// CHECK-SAME: orchestra.binary_format = "elf-shared-object"
// CHECK-SAME: orchestra.cpu = "x86-64-v2"
// CHECK-SAME: orchestra.kernels = ["k"]
// CHECK-SAME: orchestra.required_features = ["sse3", "ssse3", "sse4.1", "sse4.2", "popcnt"]
// CHECK-NOT: llvm.func
module @kernels_x86_64_0 attributes {orchestra.target = {arch = "x86_64", device_id = 0 : i64}} {
  llvm.func internal @k() {
    llvm.return
  }
  llvm.func @orx_kernel_k(%args: !llvm.ptr) {
    llvm.call @k() : () -> ()
    llvm.return
  }
}
