// RUN: orchestra-opt %s --split-input-file --verify-diagnostics --orchestra-nvidia-bf16-mma-to-nvvm | FileCheck %s

// bf16 m16n8k16 with an f32 accumulator: A as four and B as two i32
// registers of two bf16 each, C and D as four f32 in row-major order of the
// nvgpu fragment (row 0 of vector<2x2xf32> holds c0, c1).
// CHECK-LABEL: func.func @mma
// CHECK-DAG:     %[[A0:.+]] = vector.extract %arg0[0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK-DAG:     %[[R0:.+]] = llvm.bitcast %[[A0]] : vector<2xbf16> to i32
// CHECK-DAG:     %[[B1:.+]] = vector.extract %arg1[1] : vector<2xbf16> from vector<2x2xbf16>
// CHECK-DAG:     %[[R5:.+]] = llvm.bitcast %[[B1]] : vector<2xbf16> to i32
// CHECK-DAG:     %[[C1:.+]] = vector.extract %arg2[0, 1] : f32 from vector<2x2xf32>
// CHECK:         %[[D:.+]] = nvvm.mma.sync A[%[[R0]], {{.*}}]  B[{{.*}}, %[[R5]]]  C[{{.*}}, %[[C1]], {{.*}}]
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:      shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         %[[D2:.+]] = llvm.extractvalue %[[D]][2]
// CHECK:         vector.insert %[[D2]], %{{.*}} [1, 0] : f32 into vector<2x2xf32>
// CHECK-NOT:     nvgpu.mma.sync
func.func @mma(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// Other bf16 shapes are not lowered here.
func.func @k8(%a: vector<2x2xbf16>, %b: vector<1x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  // expected-error @below {{has bf16 operands but is not m16n8k16 with an f32 accumulator}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xbf16>, vector<1x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// -----

// f16 is left to convert-nvgpu-to-nvvm.
// CHECK-LABEL: func.func @f16
// CHECK:         nvgpu.mma.sync
// CHECK-NOT:     nvvm.mma.sync
func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
