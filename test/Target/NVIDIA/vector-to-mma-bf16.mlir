// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --orchestra-nvidia-vector-to-mma | FileCheck %s
// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --orchestra-nvidia-vector-to-mma | FileCheck %s --check-prefix=NOVIEW

// bf16 operands: the upstream conversion runs on f16 views of the shared
// tiles, then the ldmatrix reads go back to the bf16 tiles and the
// mma.sync takes bf16 operands; no view is left.
// CHECK-LABEL: func.func @bf16
// CHECK:         gpu.launch
// CHECK-DAG:       %[[A:.+]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-DAG:       %[[B:.+]] = nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = true} : memref<16x8xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK:           nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// NOVIEW-NOT:    unrealized_conversion_cast
// NOVIEW-NOT:    xf16>
func.func @bf16(%out: memref<16x8xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : bf16
    %fpad = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<16x8xbf16, #gpu.address_space<workgroup>>
    %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
    %vc = vector.transfer_read %out[%c0, %c0], %fpad {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}

// -----

// One launch cannot mix bf16 and f16 contractions.
func.func @mixed(%out: memref<16x8xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : bf16
    %hpad = arith.constant 0.0 : f16
    %fpad = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<16x8xbf16, #gpu.address_space<workgroup>>
    %h = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
    %g = memref.alloc() : memref<16x8xf16, #gpu.address_space<workgroup>>
    %va = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xbf16, #gpu.address_space<workgroup>>, vector<16x16xbf16>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
    %vh = vector.transfer_read %h[%c0, %c0], %hpad {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
    %vg = vector.transfer_read %g[%c0, %c0], %hpad {in_bounds = [true, true]} : memref<16x8xf16, #gpu.address_space<workgroup>>, vector<16x8xf16>
    %vc = vector.transfer_read %out[%c0, %c0], %fpad {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
    // expected-error @below {{mixes bf16 and other tensor-core operands in one kernel}}
    %e = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %vh, %vg, %d : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
    vector.transfer_write %e, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}

// -----

// A bf16 operand must be read from memory (here it is computed).
func.func @computed(%out: memref<16x8xf32>, %x: vector<16x16xbf16>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : bf16
    %fpad = arith.constant 0.0 : f32
    %b = memref.alloc() : memref<16x8xbf16, #gpu.address_space<workgroup>>
    %va = arith.negf %x : vector<16x16xbf16>
    %vb = vector.transfer_read %b[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x8xbf16, #gpu.address_space<workgroup>>, vector<16x8xbf16>
    %vc = vector.transfer_read %out[%c0, %c0], %fpad {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    // expected-error @below {{has a bf16 operand that is not an unmasked vector.transfer_read of a bf16 memref}}
    %d = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xbf16>, vector<16x8xbf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    gpu.terminator
  }
  return
}
