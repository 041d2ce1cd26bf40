// Two independent branches on the two-cpu topology: the placement spreads
// them over both devices, the trace shows them overlapping, and values
// cross between the devices' memory spaces.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:192x192 wa:f32:192x192 wa2:f32:192x192 wb:f32:192x192 wb2:f32:192x192
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json --emit=schedule -o - | FileCheck %s --check-prefix=SCHED
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/wa.npy --input %t/in/wa2.npy --input %t/in/wb.npy --input %t/in/wb2.npy --output-dir %t/opt --trace %t/trace.json --quiet
// RUN: %python %S/Inputs/e2e.py check two_branch %t/in %t/opt
// RUN: %python %S/Inputs/e2e.py trace-overlap %t/trace.json
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/wa.npy --input %t/in/wa2.npy --input %t/in/wb.npy --input %t/in/wb2.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

// SCHED-DAG: orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
// SCHED-DAG: orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
// SCHED: orchestra.schedule
// SCHED-DAG: target = {arch = "x86_64", device_id = 0,
// SCHED-DAG: target = {arch = "x86_64", device_id = 1,
// SCHED-DAG: orchestra.transfer %{{.*}} from @cpu0_dram to @cpu1_dram
// SCHED-DAG: orchestra.transfer %{{.*}} from @cpu1_dram to @cpu0_dram

#id = affine_map<(i, j) -> (i, j)>
func.func @main(%x: tensor<192x192xf32>, %wa: tensor<192x192xf32>, %wa2: tensor<192x192xf32>,
                %wb: tensor<192x192xf32>, %wb2: tensor<192x192xf32>) -> (tensor<192x192xf32>, tensor<192x192xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<192x192xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<192x192xf32>) -> tensor<192x192xf32>
  %a1 = linalg.matmul ins(%x, %wa : tensor<192x192xf32>, tensor<192x192xf32>) outs(%f : tensor<192x192xf32>) -> tensor<192x192xf32>
  %a2 = math.tanh %a1 : tensor<192x192xf32>
  %a3 = linalg.matmul ins(%a2, %wa2 : tensor<192x192xf32>, tensor<192x192xf32>) outs(%f : tensor<192x192xf32>) -> tensor<192x192xf32>
  %b1 = linalg.matmul ins(%x, %wb : tensor<192x192xf32>, tensor<192x192xf32>) outs(%f : tensor<192x192xf32>) -> tensor<192x192xf32>
  %b2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b1 : tensor<192x192xf32>) outs(%e : tensor<192x192xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<192x192xf32>
  %b3 = linalg.matmul ins(%b2, %wb2 : tensor<192x192xf32>, tensor<192x192xf32>) outs(%f : tensor<192x192xf32>) -> tensor<192x192xf32>
  return %a3, %b3 : tensor<192x192xf32>, tensor<192x192xf32>
}
