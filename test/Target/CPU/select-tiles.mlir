// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-select-tiles | FileCheck %s

// Tiles of 128 rows balance 1024 rows on 2 threads (4 tiles each); 1040 rows
// would be 9 of them (640 rows for one thread, 400 for the other), so they
// get 10 tiles of 104.
// CHECK-LABEL: func.func @tall_1024
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 128 : i64
// CHECK-LABEL: func.func @tall_1040
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 104 : i64
#id = affine_map<(d0, d1) -> (d0, d1)>
module @kernels_x86_64_0 attributes {orchestra.target = {arch = "x86_64", device_id = 0 : i64, num_threads = 2 : i64}} {
  func.func @tall_1024(%a: tensor<1024x64xf32>, %b: tensor<64x64xf32>, %c: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<1024x64xf32>, tensor<64x64xf32>) outs(%c : tensor<1024x64xf32>) -> tensor<1024x64xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<1024x64xf32>) outs(%c : tensor<1024x64xf32>) attrs = {orchestra.fusion_root_tall} {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<1024x64xf32>
    return %r : tensor<1024x64xf32>
  }
  func.func @tall_1040(%a: tensor<1040x64xf32>, %b: tensor<64x64xf32>, %c: tensor<1040x64xf32>) -> tensor<1040x64xf32> {
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<1040x64xf32>, tensor<64x64xf32>) outs(%c : tensor<1040x64xf32>) -> tensor<1040x64xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<1040x64xf32>) outs(%c : tensor<1040x64xf32>) attrs = {orchestra.fusion_root_tall} {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<1040x64xf32>
    return %r : tensor<1040x64xf32>
  }
}

// -----

// 16 threads: 8 tiles of 128 rows would leave half of them idle.
// CHECK-LABEL: func.func @tall_16_threads
// CHECK:         linalg.matmul {{.*}}orchestra.tile_rows = 64 : i64
module @kernels_x86_64_1 attributes {orchestra.target = {arch = "x86_64", device_id = 1 : i64, num_threads = 16 : i64}} {
  func.func @tall_16_threads(%a: tensor<1024x64xf32>, %b: tensor<64x64xf32>, %c: tensor<1024x64xf32>) -> tensor<1024x64xf32> {
    %m = linalg.matmul {orchestra.fusion_root_tall} ins(%a, %b : tensor<1024x64xf32>, tensor<64x64xf32>) outs(%c : tensor<1024x64xf32>) -> tensor<1024x64xf32>
    return %m : tensor<1024x64xf32>
  }
}

// -----

// 200 rows in tiles of 64 are 128 rows for one thread and 72 for the other;
// tiles of 56 are 112 and 88. Matmul register tiles keep 8-row tiles whole;
// a task without one may take any number of rows: 24 rows become 4 tiles
// of 6 (not 3 of 8), 100 rows 20 tiles of 5. Short roots keep one row, and
// a root that already has `orchestra.tile_rows` keeps it.
// CHECK-LABEL: func.func @wide_200
// CHECK:         linalg.matmul {{.*}}orchestra.tile_rows = 56 : i64
// CHECK-LABEL: func.func @plain_matmul_24
// CHECK:         linalg.matmul {{.*}}orchestra.tile_rows = 8 : i64
// CHECK-LABEL: func.func @plain_24
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 6 : i64
// CHECK-LABEL: func.func @plain_100
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 5 : i64
// CHECK-LABEL: func.func @short_5
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 1 : i64
// CHECK-LABEL: func.func @kept
// CHECK:         linalg.generic {{.*}}orchestra.tile_rows = 3 : i64
#id = affine_map<(d0, d1) -> (d0, d1)>
module @kernels_x86_64_2 attributes {orchestra.target = {arch = "x86_64", device_id = 2 : i64, num_threads = 2 : i64}} {
  func.func @wide_200(%a: tensor<200x64xf32>, %b: tensor<64x64xf32>, %c: tensor<200x64xf32>) -> tensor<200x64xf32> {
    %m = linalg.matmul {orchestra.fusion_root_wide} ins(%a, %b : tensor<200x64xf32>, tensor<64x64xf32>) outs(%c : tensor<200x64xf32>) -> tensor<200x64xf32>
    return %m : tensor<200x64xf32>
  }
  func.func @plain_matmul_24(%a: tensor<24x64xf32>, %b: tensor<64x64xf32>, %c: tensor<24x64xf32>) -> tensor<24x64xf32> {
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<24x64xf32>, tensor<64x64xf32>) outs(%c : tensor<24x64xf32>) -> tensor<24x64xf32>
    return %m : tensor<24x64xf32>
  }
  func.func @plain_24(%a: tensor<24x64xf32>) -> tensor<24x64xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<24x64xf32>) outs(%a : tensor<24x64xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<24x64xf32>
    return %r : tensor<24x64xf32>
  }
  func.func @plain_100(%a: tensor<100x64xf32>) -> tensor<100x64xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<100x64xf32>) outs(%a : tensor<100x64xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } -> tensor<100x64xf32>
    return %r : tensor<100x64xf32>
  }
  func.func @short_5(%a: tensor<5x64xf32>) -> tensor<5x64xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<5x64xf32>) outs(%a : tensor<5x64xf32>) attrs = {orchestra.fusion_root_short} {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<5x64xf32>
    return %r : tensor<5x64xf32>
  }
  func.func @kept(%a: tensor<100x64xf32>) -> tensor<100x64xf32> {
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<100x64xf32>) outs(%a : tensor<100x64xf32>) attrs = {orchestra.fusion_root, orchestra.tile_rows = 3 : i64} {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<100x64xf32>
    return %r : tensor<100x64xf32>
  }
}

// -----

// Without a thread count (one thread), the nominal tiles.
// CHECK-LABEL: func.func @one_thread
// CHECK:         linalg.matmul {{.*}}orchestra.tile_rows = 128 : i64
module @kernels_x86_64_3 attributes {orchestra.arch = "x86_64"} {
  func.func @one_thread(%a: tensor<1040x64xf32>, %b: tensor<64x64xf32>, %c: tensor<1040x64xf32>) -> tensor<1040x64xf32> {
    %m = linalg.matmul {orchestra.fusion_root_tall} ins(%a, %b : tensor<1040x64xf32>, tensor<64x64xf32>) outs(%c : tensor<1040x64xf32>) -> tensor<1040x64xf32>
    return %m : tensor<1040x64xf32>
  }
}

// -----

// A dynamic first loop (not tagged by orchestra-outline-tasks, but the
// script reads the attribute of every tagged root) gets the nominal tile.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         linalg.matmul {{.*}}orchestra.tile_rows = 64 : i64
module @kernels_x86_64_4 attributes {orchestra.target = {arch = "x86_64", device_id = 4 : i64, num_threads = 2 : i64}} {
  func.func @dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x64xf32>, %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %m = linalg.matmul {orchestra.fusion_root_wide} ins(%a, %b : tensor<?x64xf32>, tensor<64x64xf32>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %m : tensor<?x64xf32>
  }
}

// -----

// A matmul of fewer than 128 rows whose B is larger than a core's cache is
// tiled by columns over all its rows (ViT-B/32's 50x768 by 768x3072: 7 row
// tiles would each read all 9 MB of B): the threads' even shares of the
// columns, in 64-column blocks. The root may be the matmul's epilogue. A
// small B, too few columns, or a second matmul keep row tiles.
// CHECK-LABEL: func.func @few_rows_large_b
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.fusion_root_cols
// CHECK-NOT:       orchestra.fusion_root,
// CHECK-SAME:      orchestra.tile_cols = 1536 : i64
// CHECK-LABEL: func.func @uneven_columns
// CHECK:         linalg.matmul {{.*}}orchestra.tile_cols = 576 : i64
// CHECK-LABEL: func.func @small_b
// CHECK:         linalg.matmul {orchestra.fusion_root, orchestra.tile_rows = 8 : i64}
// CHECK-LABEL: func.func @two_matmuls
// CHECK:         linalg.matmul {orchestra.fusion_root, orchestra.tile_rows = 8 : i64}
#id = affine_map<(d0, d1) -> (d0, d1)>
module @kernels_x86_64_4 attributes {orchestra.target = {arch = "x86_64", device_id = 4 : i64, num_threads = 2 : i64}} {
  func.func @few_rows_large_b(%a: tensor<50x768xf32>, %b: tensor<768x3072xf32>, %c: tensor<50x3072xf32>) -> tensor<50x3072xf32> {
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<50x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<50x3072xf32>) -> tensor<50x3072xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%m : tensor<50x3072xf32>) outs(%c : tensor<50x3072xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %o : f32
      linalg.yield %y : f32
    } -> tensor<50x3072xf32>
    return %r : tensor<50x3072xf32>
  }
  func.func @uneven_columns(%a: tensor<20x1030xf32>, %b: tensor<1030x1100xf32>, %c: tensor<20x1100xf32>) -> tensor<20x1100xf32> {
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<20x1030xf32>, tensor<1030x1100xf32>) outs(%c : tensor<20x1100xf32>) -> tensor<20x1100xf32>
    return %m : tensor<20x1100xf32>
  }
  func.func @small_b(%a: tensor<50x64xf32>, %b: tensor<64x512xf32>, %c: tensor<50x512xf32>) -> tensor<50x512xf32> {
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<50x64xf32>, tensor<64x512xf32>) outs(%c : tensor<50x512xf32>) -> tensor<50x512xf32>
    return %m : tensor<50x512xf32>
  }
  func.func @two_matmuls(%a: tensor<50x768xf32>, %b: tensor<768x3072xf32>, %c: tensor<50x3072xf32>, %d: tensor<3072x3072xf32>) -> tensor<50x3072xf32> {
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<50x768xf32>, tensor<768x3072xf32>) outs(%c : tensor<50x3072xf32>) -> tensor<50x3072xf32>
    %n = linalg.matmul {orchestra.fusion_root} ins(%m, %d : tensor<50x3072xf32>, tensor<3072x3072xf32>) outs(%c : tensor<50x3072xf32>) -> tensor<50x3072xf32>
    return %n : tensor<50x3072xf32>
  }
}
