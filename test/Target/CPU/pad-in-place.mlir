// A task that pads its result for the next task's convolution computes its
// parallel loop straight into the interior of the padded buffer: the
// strategy writes the padding as a fill and an insert_slice (its step 7),
// `orchestra-cpu-fill-pad-borders` fills only the border, and
// `eliminate-empty-tensors` (both in the x86_64 lowering pipeline, before
// bufferization) turns the loop's destination into a slice of the padded
// tensor. Nothing is copied after the loop, and the interior is written
// once.
// RUN: orchestra-opt %s --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy --orchestra-cpu-fill-pad-borders --canonicalize --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --cse --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @relu_then_pad
// CHECK:         %[[PADDED:.*]] = memref.alloc() {{.*}} : memref<1x18x18x32xf32>
// CHECK-NOT:     linalg.fill ins(%{{.*}} : f32) outs(%[[PADDED]]
// CHECK:         %[[TOP:.*]] = memref.subview %[[PADDED]][0, 0, 0, 0] [1, 1, 18, 32]
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[TOP]]
// CHECK-COUNT-3: linalg.fill
// CHECK:         %[[INTERIOR:.*]] = memref.subview %[[PADDED]][0, 1, 1, 0] [1, 16, 16, 32]
// CHECK:         scf.forall
// CHECK:           memref.subview %[[INTERIOR]]
// CHECK:           vector.transfer_write
// CHECK-NOT:     memref.copy
// CHECK:         return %[[PADDED]]
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64", orchestra.target = {arch = "x86_64", device_id = 0 : i64, num_threads = 2 : i64}} {
  func.func @relu_then_pad(%x: tensor<1x16x16x32xf32>) -> tensor<1x18x18x32xf32> {
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<1x16x16x32xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x16x16x32xf32>) outs(%e : tensor<1x16x16x32xf32>) attrs = {orchestra.fusion_root_nhwc_rows} {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1x16x16x32xf32>
    %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %ninf : f32
    } : tensor<1x16x16x32xf32> to tensor<1x18x18x32xf32>
    return %p : tensor<1x18x18x32xf32>
  }
}
