// An assembly kernel (the expert escape hatch) on an AMD Instinct MI300X:
// the task's body (linalg.add) is its reference, and `asm_kernel` the GCN
// assembly that runs instead: c[i] = a[i] + b[i] over 1024 floats, 4
// workgroups of 256 threads, one element per thread. The kernel takes one
// 64-bit pointer per tensor (a, b, then the result c), at kernarg offsets 0,
// 8 and 16. See docs/UserGuide.md#assembly-kernels.
//
//   orchestra-compile vadd-gcn.mlir --topology topologies/mi300x.json -o vadd.orcx
orchestra.memory_space @amd0_hbm kind = "hbm" arch = "amd_cdna3" device_id = 0

func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = orchestra.schedule -> (tensor<1024xf32>) {
    %c = orchestra.task "vadd" args(%x = %a : tensor<1024xf32>, %y = %b : tensor<1024xf32>) -> (tensor<1024xf32>)
        target = {arch = "amd_cdna3", device_id = 0}
        attributes {asm_kernel = {entry = "vadd", grid = [4], block = [256], source = "// c[i] = a[i] + b[i] for f32 vectors; 256 threads per workgroup, one element each.\n  .amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n  .text\n  .globl vadd\n  .p2align 8\n  .type vadd,@function\nvadd:\n  s_load_dwordx4 s[4:7], s[0:1], 0x0      // a, b\n  s_load_dwordx2 s[8:9], s[0:1], 0x10     // c\n  s_lshl_b32 s2, s2, 8                    // workgroup id * 256\n  v_add_u32_e32 v0, s2, v0                // i\n  v_lshlrev_b32_e32 v0, 2, v0             // i * 4 bytes\n  s_waitcnt lgkmcnt(0)\n  global_load_dword v1, v0, s[4:5]\n  global_load_dword v2, v0, s[6:7]\n  s_waitcnt vmcnt(0)\n  v_add_f32_e32 v1, v1, v2\n  global_store_dword v0, v1, s[8:9]\n  s_endpgm\n.Lvadd_end:\n  .size vadd, .Lvadd_end-vadd\n\n  .rodata\n  .p2align 6\n  .amdhsa_kernel vadd\n    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n    .amdhsa_kernarg_size 24\n    .amdhsa_next_free_vgpr 3\n    .amdhsa_next_free_sgpr 10\n    .amdhsa_accum_offset 4\n  .end_amdhsa_kernel\n\n  .amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: vadd\n    .symbol: vadd.kd\n    .kernarg_segment_size: 24\n    .kernarg_segment_align: 8\n    .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n    .wavefront_size: 64\n    .sgpr_count: 10\n    .vgpr_count: 3\n    .max_flat_workgroup_size: 256\n    .args:\n      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n      - { .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }\n      - { .size: 8, .offset: 16, .value_kind: global_buffer, .address_space: global }\n...\n  .end_amdgpu_metadata"}} {
      %e = tensor.empty() : tensor<1024xf32>
      %s = linalg.add ins(%x, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
      orchestra.yield %s : tensor<1024xf32>
    }
    orchestra.yield %c : tensor<1024xf32>
  }
  return %r : tensor<1024xf32>
}
