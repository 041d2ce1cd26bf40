// RUN: orchestra-opt %s --orchestra-cpu-bool-vector-memory | FileCheck %s

// Vectors of i1 are loaded and stored a byte per element, as scalar i1
// accesses address them; other loads and stores are left alone.
// CHECK-LABEL: llvm.func @bools
// CHECK:         %[[L:.+]] = llvm.load %arg0 {alignment = 1 : i64} : !llvm.ptr -> vector<8xi8>
// CHECK:         %[[B:.+]] = llvm.trunc %[[L]] : vector<8xi8> to vector<8xi1>
// CHECK:         %[[N:.+]] = llvm.xor %[[B]]
// CHECK:         %[[W:.+]] = llvm.zext %[[N]] : vector<8xi1> to vector<8xi8>
// CHECK:         llvm.store %[[W]], %arg1 {alignment = 1 : i64} : vector<8xi8>, !llvm.ptr
// CHECK:         %[[S:.+]] = llvm.load %arg0 : !llvm.ptr -> i1
// CHECK:         llvm.store %[[S]], %arg1 : i1, !llvm.ptr
// CHECK:         %[[F:.+]] = llvm.load %arg2 {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK:         llvm.store %[[F]], %arg2 {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
// CHECK:         %[[PT:.+]] = llvm.zext %{{.*}} : vector<8xi1> to vector<8xi8>
// CHECK:         %[[ML:.+]] = llvm.intr.masked.load %arg0, %{{.*}}, %[[PT]] {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi8>) -> vector<8xi8>
// CHECK:         %[[MB:.+]] = llvm.trunc %[[ML]] : vector<8xi8> to vector<8xi1>
// CHECK:         %[[MW:.+]] = llvm.zext %[[MB]] : vector<8xi1> to vector<8xi8>
// CHECK:         llvm.intr.masked.store %[[MW]], %arg1, %{{.*}} {alignment = 1 : i32} : vector<8xi8>, vector<8xi1> into !llvm.ptr
llvm.func @bools(%src: !llvm.ptr, %dst: !llvm.ptr, %f: !llvm.ptr, %mask: vector<8xi1>) {
  %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<8xi1>
  %ones = llvm.mlir.constant(dense<true> : vector<8xi1>) : vector<8xi1>
  %n = llvm.xor %v, %ones : vector<8xi1>
  llvm.store %n, %dst {alignment = 1 : i64} : vector<8xi1>, !llvm.ptr
  %s = llvm.load %src : !llvm.ptr -> i1
  llvm.store %s, %dst : i1, !llvm.ptr
  %x = llvm.load %f {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
  llvm.store %x, %f {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
  %m = llvm.intr.masked.load %src, %mask, %mask {alignment = 1 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xi1>) -> vector<8xi1>
  llvm.intr.masked.store %m, %dst, %mask {alignment = 1 : i32} : vector<8xi1>, vector<8xi1> into !llvm.ptr
  llvm.return
}
