// orchestra-amd-vector-to-mfma: a wave's 32x32 contraction (f16 A and B
// tiles in LDS, an f32 accumulator in memory) becomes, per lane, loads of
// its operand elements in the CDNA3 32x32x8 layouts and a chain of MFMAs;
// the accumulator is read once before the K loop, carried in registers, and
// written once after it, followed by a barrier (the threads that read them
// next, an epilogue's, wait for every wave's stores).
// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --orchestra-amd-vector-to-mfma | FileCheck %s

// CHECK-LABEL: func.func @f16_k_loop
// The lane ids: l = tid % 64, l / 32 and l % 32.
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %c64
// CHECK:         %[[HALF:.+]] = arith.divui %[[LANE]], %c32
// CHECK:         %[[ROW:.+]] = arith.remui %[[LANE]], %c32
// Register r of the accumulator: row 8 (r / 4) + 4 (l / 32) + r % 4,
// column l % 32.
// CHECK:         %[[H4:.+]] = arith.muli %[[HALF]], %{{.+}}
// CHECK:         %[[R0:.+]] = arith.addi %{{.+}}, %[[H4]]
// CHECK:         %[[C0:.+]] = arith.addi %{{.+}}, %[[ROW]]
// CHECK:         memref.load %{{.+}}[%[[R0]], %[[C0]]] : memref<64x64xf32>
// CHECK-COUNT-15: memref.load %{{.+}} : memref<64x64xf32>
// CHECK:         %[[INIT:.+]] = vector.from_elements {{.*}} : vector<16xf32>
// CHECK:         %[[LOOP:.+]] = scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<16xf32>)
// A: 4 consecutive halves of row l % 32, at column (l / 32) 4 + 8 kc.
// CHECK:           %[[A0:.+]] = vector.load %{{.+}} : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-COUNT-4:   memref.load %{{.+}} : memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK:           %[[B0:.+]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK:           %[[D0:.+]] = amdgpu.mfma 32x32x8 %[[A0]] * %[[B0]] + %[[ACC]]
// CHECK-COUNT-3:   amdgpu.mfma 32x32x8
// CHECK:           scf.yield %{{.+}} : vector<16xf32>
// CHECK-NOT:     vector.contract
// CHECK-COUNT-16: memref.store %{{.+}} : memref<64x64xf32>
// CHECK-NEXT:    gpu.barrier
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f16_k_loop(%out: memref<64x64xf32>,
                      %a: memref<64x32xf16, #gpu.address_space<workgroup>>,
                      %b: memref<32x64xf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %va = vector.transfer_read %a[%c0, %c0], %h {in_bounds = [true, true]}
          : memref<64x32xf16, #gpu.address_space<workgroup>>, vector<32x32xf16>
      %vb = vector.transfer_read %b[%c0, %c0], %h {in_bounds = [true, true]}
          : memref<32x64xf16, #gpu.address_space<workgroup>>, vector<32x32xf16>
      %acc = vector.transfer_read %out[%c0, %c0], %f {in_bounds = [true, true]}
          : memref<64x64xf32>, vector<32x32xf32>
      %d = vector.contract {indexing_maps = [#a, #b, #c],
                            iterator_types = ["parallel", "parallel", "reduction"],
                            kind = #vector.kind<add>}
          %va, %vb, %acc : vector<32x32xf16>, vector<32x32xf16> into vector<32x32xf32>
      vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]}
          : vector<32x32xf32>, memref<64x64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// f32 (32x32x2: one element per lane and operand) and no K loop: the
// accumulator is read and written around the MFMA chain in place.
// CHECK-LABEL: func.func @f32_in_place
// CHECK-NOT:     scf.for
// CHECK:         memref.load %{{.+}} : memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.load %{{.+}} : memref<16x64xf32, #gpu.address_space<workgroup>>
// CHECK:         amdgpu.mfma 32x32x2 %{{.+}} * %{{.+}} + %{{.+}} {{.*}} : f32, f32, vector<16xf32>
// CHECK-COUNT-7: amdgpu.mfma 32x32x2
// CHECK-COUNT-16: memref.store
// CHECK-NEXT:    gpu.barrier
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f32_in_place(%out: memref<64x64xf32>,
                        %a: memref<64x16xf32, #gpu.address_space<workgroup>>,
                        %b: memref<16x64xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %f = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %va = vector.transfer_read %a[%c0, %c0], %f {in_bounds = [true, true]}
        : memref<64x16xf32, #gpu.address_space<workgroup>>, vector<32x16xf32>
    %vb = vector.transfer_read %b[%c0, %c0], %f {in_bounds = [true, true]}
        : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<16x32xf32>
    %acc = vector.transfer_read %out[%c0, %c0], %f {in_bounds = [true, true]}
        : memref<64x64xf32>, vector<32x32xf32>
    %d = vector.contract {indexing_maps = [#a, #b, #c],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>}
        %va, %vb, %acc : vector<32x16xf32>, vector<16x32xf32> into vector<32x32xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]}
        : vector<32x32xf32>, memref<64x64xf32>
    gpu.terminator
  }
  return
}

// -----

// gfx942 has no f64 32x32 MFMA in the recipe's layouts.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @f64(%out: memref<32x32xf64>, %a: memref<32x4xf64>, %b: memref<4x32xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f64
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %va = vector.transfer_read %a[%c0, %c0], %f {in_bounds = [true, true]} : memref<32x4xf64>, vector<32x4xf64>
    %vb = vector.transfer_read %b[%c0, %c0], %f {in_bounds = [true, true]} : memref<4x32xf64>, vector<4x32xf64>
    %acc = vector.transfer_read %out[%c0, %c0], %f {in_bounds = [true, true]} : memref<32x32xf64>, vector<32x32xf64>
    // expected-error @+1 {{multiplies 'f64' accumulating in 'f64', which has no 32x32 MFMA on gfx942 (f32, f16 and bf16 accumulate in f32, i8 in i32)}}
    %d = vector.contract {indexing_maps = [#a, #b, #c],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>}
        %va, %vb, %acc : vector<32x4xf64>, vector<4x32xf64> into vector<32x32xf64>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf64>, memref<32x32xf64>
    gpu.terminator
  }
  return
}

// -----

// The OCP fp8 types: gfx942's MFMAs take the FNUZ ones.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @ocp_fp8(%out: memref<32x32xf32>, %a: memref<32x16xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 0.0 : f32
  %p = arith.constant 0.0 : f8E4M3FN
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %va = vector.transfer_read %a[%c0, %c0], %p {in_bounds = [true, true]} : memref<32x16xf8E4M3FN>, vector<32x16xf8E4M3FN>
    %vb = vector.transfer_read %b[%c0, %c0], %p {in_bounds = [true, true]} : memref<16x32xf8E4M3FN>, vector<16x32xf8E4M3FN>
    %acc = vector.transfer_read %out[%c0, %c0], %f {in_bounds = [true, true]} : memref<32x32xf32>, vector<32x32xf32>
    // expected-error @+1 {{gfx942 multiplies the FNUZ fp8 types, not the OCP ones}}
    %d = vector.contract {indexing_maps = [#a, #b, #c],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>}
        %va, %vb, %acc : vector<32x16xf8E4M3FN>, vector<16x32xf8E4M3FN> into vector<32x32xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x32xf32>
    gpu.terminator
  }
  return
}

// -----

// A wave-sized contraction outside whole waves.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @partial_wave(%out: memref<32x32xf32>, %a: memref<32x2xf32>, %b: memref<2x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %va = vector.transfer_read %a[%c0, %c0], %f {in_bounds = [true, true]} : memref<32x2xf32>, vector<32x2xf32>
    %vb = vector.transfer_read %b[%c0, %c0], %f {in_bounds = [true, true]} : memref<2x32xf32>, vector<2x32xf32>
    %acc = vector.transfer_read %out[%c0, %c0], %f {in_bounds = [true, true]} : memref<32x32xf32>, vector<32x32xf32>
    // expected-error @+1 {{is not in a `gpu.launch` of one-dimensional blocks of whole 64-lane waves}}
    %d = vector.contract {indexing_maps = [#a, #b, #c],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>}
        %va, %vb, %acc : vector<32x2xf32>, vector<2x32xf32> into vector<32x32xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<32x32xf32>, memref<32x32xf32>
    gpu.terminator
  }
  return
}
