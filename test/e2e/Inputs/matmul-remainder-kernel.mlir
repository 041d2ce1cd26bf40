// A kernel module as orchestra-outline-tasks leaves it: a 130x100x200
// matmul (64-row parallel tiles; 130 rows, 100 columns and 200 of K leave
// partial tiles at every level). Used by ../matmul-remainders.mlir.
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @t0_matmul(%x: tensor<130x200xf32>, %w: tensor<200x100xf32>) -> tensor<130x100xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<130x100xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<130x100xf32>) -> tensor<130x100xf32>
    %m = linalg.matmul {orchestra.fusion_root_wide} ins(%x, %w : tensor<130x200xf32>, tensor<200x100xf32>) outs(%f : tensor<130x100xf32>) -> tensor<130x100xf32>
    return %m : tensor<130x100xf32>
  }
}
