// A kernel module as orchestra-cpu-tag-tiling leaves it: a 130x100x200
// matmul (64-row parallel tiles; 130 rows, 100 columns and 200 of K leave
// partial tiles at every level), and a one-row matmul (GEMV) whose 1100
// columns leave a partial parallel tile and a partial column tile. Used by
// ../matmul-remainders.mlir.
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_matmul(%x: tensor<130x200xf32>, %w: tensor<200x100xf32>) -> tensor<130x100xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<130x100xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<130x100xf32>) -> tensor<130x100xf32>
    %m = linalg.matmul {orchestra.fusion_root_wide} ins(%x, %w : tensor<130x200xf32>, tensor<200x100xf32>) outs(%f : tensor<130x100xf32>) -> tensor<130x100xf32>
    return %m : tensor<130x100xf32>
  }
  func.func @t1_gemv(%x: tensor<1x96xf32>, %w: tensor<96x1100xf32>) -> tensor<1x1100xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x1100xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<1x1100xf32>) -> tensor<1x1100xf32>
    %m = linalg.matmul {orchestra.fusion_root_d1} ins(%x, %w : tensor<1x96xf32>, tensor<96x1100xf32>) outs(%f : tensor<1x1100xf32>) -> tensor<1x1100xf32>
    return %m : tensor<1x1100xf32>
  }
}
