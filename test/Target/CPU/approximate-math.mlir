// RUN: orchestra-opt %s --orchestra-cpu-approximate-math | FileCheck %s
// exp, log, tanh and erf on vectors become polynomial approximations (plain
// vector arithmetic); functions without an approximation (atan) stay.

// CHECK-LABEL: func.func @approximated
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.log
// CHECK-NOT:     math.tanh
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK:         return
func.func @approximated(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %0 = math.exp %x : vector<16xf32>
  %1 = math.log %x : vector<16xf32>
  %2 = math.tanh %x : vector<16xf32>
  %3 = math.erf %x : vector<16xf32>
  return %0, %1, %2, %3 : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK:         math.atan
func.func @kept(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.atan %x : vector<16xf32>
  return %0 : vector<16xf32>
}
