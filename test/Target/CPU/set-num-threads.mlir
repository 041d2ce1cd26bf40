// RUN: orchestra-opt %s --orchestra-cpu-set-num-threads | FileCheck %s

// CHECK-LABEL: module @kernels_x86_64_1
// CHECK:         %[[N:.*]] = arith.constant 3 : i32
// CHECK:         omp.parallel num_threads(%[[N]] : i32)
// CHECK:         %[[K:.*]] = arith.constant 7 : i32
// CHECK:         omp.parallel num_threads(%[[K]] : i32)
module @kernels_x86_64_1 attributes {orchestra.target = {arch = "x86_64", device_id = 1 : i64, num_threads = 3 : i64}} {
  func.func @k() {
    omp.parallel {
      omp.terminator
    }
    // An explicit count is kept.
    %seven = arith.constant 7 : i32
    omp.parallel num_threads(%seven : i32) {
      omp.terminator
    }
    return
  }
}
