// Every algorithm schedules the program; the schedule records which one ran.
// RUN: orchestra-opt %s --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json algorithm=heft" | FileCheck %s --check-prefix=HEFT
// RUN: orchestra-opt %s --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json algorithm=peft" | FileCheck %s --check-prefix=PEFT
// RUN: orchestra-opt %s --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json algorithm=exact" | FileCheck %s --check-prefix=EXACT
// RUN: not orchestra-opt %s --orchestra-schedule="algorithm=fifo" 2>&1 | FileCheck %s --check-prefix=BAD

// HEFT: orchestra.schedule {{.*}} attributes {orchestra.algorithm = "heft"
// PEFT: orchestra.schedule {{.*}} attributes {orchestra.algorithm = "peft"
// EXACT: orchestra.schedule {{.*}} attributes {orchestra.algorithm = "exact"
// Both matmuls run at once, one per device.
// EXACT-DAG: orchestra.task "{{t[01]}}_matmul" {{.*}} target = {arch = "x86_64", device_id = 0, num_threads = 1} attributes {predicted_start = 0.000000e+00
// EXACT-DAG: orchestra.task "{{t[01]}}_matmul" {{.*}} target = {arch = "x86_64", device_id = 1, num_threads = 1}
// BAD: error: unknown scheduling algorithm 'fifo'; expected one of heft, peft, ils, exact

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %w2: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m, %m2 : tensor<4x16xf32>, tensor<4x16xf32>
}
