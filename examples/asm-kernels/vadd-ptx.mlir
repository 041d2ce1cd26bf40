// An assembly kernel (the expert escape hatch) on the GPU of a CPU + H100
// machine: the task's body (linalg.add) is its reference, and `asm_kernel`
// the PTX that runs instead: c[i] = a[i] + b[i] over 1024 floats, 4 blocks
// of 256 threads, one element per thread. The kernel takes one 64-bit
// pointer per tensor (a, b, then the result c). A schedule written by hand
// moves its data itself: the inputs to the GPU's memory, the result back.
// See docs/UserGuide.md#assembly-kernels.
//
//   orchestra-compile vadd-ptx.mlir --topology topologies/cpu+hopper.json -o vadd.orcx
orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0

func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = orchestra.schedule -> (tensor<1024xf32>) {
    %ga = orchestra.transfer %a from @cpu0_dram to @gpu0_hbm : tensor<1024xf32>
    %gb = orchestra.transfer %b from @cpu0_dram to @gpu0_hbm : tensor<1024xf32>
    %c = orchestra.task "vadd" args(%x = %ga : tensor<1024xf32>, %y = %gb : tensor<1024xf32>) -> (tensor<1024xf32>)
        target = {arch = "nvidia_hopper", device_id = 0}
        attributes {asm_kernel = {entry = "vadd", grid = [4], block = [256], source = "// c[i] = a[i] + b[i] for f32 vectors; one element per thread.\n.version 8.3\n.target sm_90a\n.address_size 64\n\n.visible .entry vadd(\n    .param .u64 a,\n    .param .u64 b,\n    .param .u64 c)\n{\n    .reg .b32 %r<5>;\n    .reg .f32 %f<4>;\n    .reg .b64 %rd<10>;\n\n    ld.param.u64 %rd1, [a];\n    ld.param.u64 %rd2, [b];\n    ld.param.u64 %rd3, [c];\n    cvta.to.global.u64 %rd4, %rd1;\n    cvta.to.global.u64 %rd5, %rd2;\n    cvta.to.global.u64 %rd6, %rd3;\n    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mov.u32 %r3, %tid.x;\n    mad.lo.s32 %r4, %r1, %r2, %r3;\n    mul.wide.u32 %rd7, %r4, 4;\n    add.s64 %rd8, %rd4, %rd7;\n    ld.global.f32 %f1, [%rd8];\n    add.s64 %rd9, %rd5, %rd7;\n    ld.global.f32 %f2, [%rd9];\n    add.f32 %f3, %f1, %f2;\n    add.s64 %rd8, %rd6, %rd7;\n    st.global.f32 [%rd8], %f3;\n    ret;\n}"}} {
      %e = tensor.empty() : tensor<1024xf32>
      %s = linalg.add ins(%x, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
      orchestra.yield %s : tensor<1024xf32>
    }
    %hc = orchestra.transfer %c from @gpu0_hbm to @cpu0_dram : tensor<1024xf32>
    orchestra.yield %hc : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}
