// RUN: orchestra-opt %s --orchestra-bind-dims="dims=batch=1..1024@1" --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json" | FileCheck %s --check-prefix=SMALL
// RUN: orchestra-opt %s --orchestra-bind-dims="dims=batch=1..1024@1024" --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json" | FileCheck %s --check-prefix=LARGE

// Dynamic sizes are costed at the dims' opt (design/0017, decision 5): two
// products of a batch with 512x512 weights. At one row each, copying a
// weight to the second CPU (1 MB over 10 GB/s) costs more than computing
// there, so both stay on cpu0; at 1024 rows each takes a CPU.

// SMALL: orchestra.task "t0_matmul" {{.*}} target = {arch = "x86_64", device_id = 0
// SMALL: orchestra.task "t1_matmul" {{.*}} target = {arch = "x86_64", device_id = 0
// LARGE-DAG: orchestra.task "t0_matmul" {{.*}} target = {arch = "x86_64", device_id = 0
// LARGE-DAG: orchestra.task "t1_matmul" {{.*}} target = {arch = "x86_64", device_id = 1
func.func @main(%x: tensor<?x512xf32> {orchestra.dim_names = ["batch", ""]}, %w: tensor<512x512xf32>, %v: tensor<512x512xf32>) -> (tensor<?x512xf32>, tensor<?x512xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x512xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x512xf32>) -> tensor<?x512xf32>
  %a = linalg.matmul ins(%x, %w : tensor<?x512xf32>, tensor<512x512xf32>) outs(%f : tensor<?x512xf32>) -> tensor<?x512xf32>
  %b = linalg.matmul ins(%x, %v : tensor<?x512xf32>, tensor<512x512xf32>) outs(%f : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %a, %b : tensor<?x512xf32>, tensor<?x512xf32>
}
