// A small scheduled program: y = relu(x @ w + b) computed on an NVIDIA Hopper
// GPU while the host CPU computes a second, independent branch; the results
// meet on the host.
//
//   orchestra-opt examples/schedule.mlir
//   orchestra-opt examples/schedule.mlir --canonicalize

orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0

func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>,
                %b: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x128xf32>) {
  %y, %z = orchestra.schedule -> (tensor<64x32xf32>, tensor<64x128xf32>) {
    %x_gpu = orchestra.transfer %x from @host_dram to @gpu0_hbm : tensor<64x128xf32>
    %w_gpu = orchestra.transfer %w from @host_dram to @gpu0_hbm : tensor<128x32xf32>
    %b_gpu = orchestra.transfer %b from @host_dram to @gpu0_hbm : tensor<64x32xf32>
    %dense = orchestra.task "dense_relu"
        args(%a = %x_gpu : tensor<64x128xf32>, %m = %w_gpu : tensor<128x32xf32>,
             %c = %b_gpu : tensor<64x32xf32>)
        -> (tensor<64x32xf32>)
        target = {arch = "nvidia_hopper", device_id = 0, sm = "sm_90a", tma = true}
        attributes {predicted_start = 4.0, predicted_finish = 9.5} {
      %zero = arith.constant 0.0 : f32
      %mm = linalg.matmul ins(%a, %m : tensor<64x128xf32>, tensor<128x32xf32>)
                          outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
      %init = tensor.empty() : tensor<64x32xf32>
      %relu = linalg.generic {
          indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
          iterator_types = ["parallel", "parallel"]}
          ins(%mm : tensor<64x32xf32>) outs(%init : tensor<64x32xf32>) {
      ^bb0(%in: f32, %out: f32):
        %r = arith.maximumf %in, %zero : f32
        linalg.yield %r : f32
      } -> tensor<64x32xf32>
      orchestra.yield %relu : tensor<64x32xf32>
    }
    %squared = orchestra.task "square" args(%v = %x : tensor<64x128xf32>)
        -> (tensor<64x128xf32>) target = {arch = "x86_64", device_id = 0} {
      %sq = arith.mulf %v, %v : tensor<64x128xf32>
      orchestra.yield %sq : tensor<64x128xf32>
    }
    %y_host = orchestra.transfer %dense from @gpu0_hbm to @host_dram : tensor<64x32xf32>
    orchestra.yield %y_host, %squared : tensor<64x32xf32>, tensor<64x128xf32>
  }
  return %y, %z : tensor<64x32xf32>, tensor<64x128xf32>
}
