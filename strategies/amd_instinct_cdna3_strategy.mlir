// Strategy for `amd_cdna3` kernel modules: AMD Instinct CDNA3 (MI300X),
// gfx942. The target registry loads it after gpu_common.mlir, whose
// vendor-neutral sequences it applies (see that file for what they do):
//
//   * @__orchestra_amd_cdna3_strategy: stage 5, on tensors (applied by
//     orchestra-lower-kernels through the upstream transform interpreter):
//     MFMA kernels (64x64 workgroup tiles over 2 x 2 waves, the K loop's
//     operand tiles staged in LDS), then the block and thread tiles of
//     every other op (the SIMT recipe), 256 threads per workgroup, four
//     waves of 64 lanes;
//   * @__orchestra_amd_cdna3_map_to_gpu and
//     @__orchestra_amd_cdna3_lower_vectors: stage 7, named in the arch's
//     lowering pipeline (lib/Target/AMD/AMDTarget.cpp), after
//     bufferization: the LDS tiles double-buffered and copied 16 bytes per
//     thread, workgroup-level foralls become `gpu.launch`es (then
//     orchestra-amd-vector-to-mfma), SIMT contractions multiply-adds.
//
// See docs/Passes/AMD.md for the pipeline and what is verified without an
// MI300.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_amd_cdna3_strategy -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_amd_cdna3_map_to_gpu -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/gpu_common.mlir,%s --transform-interpreter=entry-point=__orchestra_amd_cdna3_lower_vectors -o /dev/null
module attributes {transform.with_named_sequence} {
  // Defined in gpu_common.mlir (the preloaded libraries are linked).
  transform.named_sequence @gpu_tile_simt(
      %module: !transform.any_op {transform.readonly}) -> !transform.any_op
  transform.named_sequence @gpu_finish_tiles(
      %module: !transform.any_op {transform.readonly},
      %f2r: !transform.any_op {transform.consumed})
  transform.named_sequence @gpu_tile_copies(
      %staged: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @gpu_match_grid_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op
  transform.named_sequence @gpu_launch(
      %forall: !transform.any_op {transform.consumed})
  transform.named_sequence @gpu_lower_simt_vectors(
      %func: !transform.any_op {transform.readonly})
  transform.named_sequence @gpu_fuse_producers(
      %forall: !transform.any_op {transform.readonly})

  //===--------------------------------------------------------------------===//
  // Stage 5 (on tensors): the MFMA recipe.
  //===--------------------------------------------------------------------===//
  // A matmul orchestra-amd-select-recipes marked "mfma", with its epilogue
  // and producers: 64x64 workgroup tiles (`#gpu.block<linear_dim_*>`) over
  // four waves of 32x32 outputs (`#gpu.warp<linear_dim_*>`, 64 lanes each).
  // The workgroup's threads zero the accumulator tile; the K loop steps
  // through K 64 bytes of A's row at a time, staging each step's A and B
  // tiles in LDS (`structured.promote_tensor` to workgroup memory), and
  // each wave's K step is one vectorized 32x32xK contraction, which
  // orchestra-amd-vector-to-mfma distributes onto its lanes as MFMA.
  transform.named_sequence @amd_tile_mfma(
      %root: !transform.any_op {transform.consumed}) {
    %tile_m = transform.orchestra.param_from_attr %root["orchestra.gpu_tile_m"]
        : (!transform.any_op) -> !transform.param<i64>
    %tile_n = transform.orchestra.param_from_attr %root["orchestra.gpu_tile_n"]
        : (!transform.any_op) -> !transform.param<i64>
    %wave_m = transform.orchestra.param_from_attr %root["orchestra.gpu_warp_m"]
        : (!transform.any_op) -> !transform.param<i64>
    %wave_n = transform.orchestra.param_from_attr %root["orchestra.gpu_warp_n"]
        : (!transform.any_op) -> !transform.param<i64>
    %k_tile = transform.orchestra.param_from_attr %root["orchestra.gpu_k_tile"]
        : (!transform.any_op) -> !transform.param<i64>
    %copy = transform.orchestra.param_from_attr
        %root["orchestra.gpu_copy_elems"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %root
        tile_sizes [%tile_m, %tile_n]
        (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.include @gpu_fuse_producers failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    // What stage 7 needs to know, on the workgroup-level forall.
    transform.annotate %forall "orchestra.gpu_copy_elems" = %copy
        : !transform.any_op, !transform.param<i64>
    %matmul = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.gpu_mma} in %forall
        : (!transform.any_op) -> !transform.any_op
    // The accumulator tile is zeroed by the workgroup's threads.
    %fill = transform.structured.match ops{["linalg.fill"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    %fill_t, %fill_threads = transform.structured.tile_using_forall %fill
        num_threads [8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %fill_threads "orchestra.gpu_barrier_after"
        : !transform.any_op
    // The K loop; each step's A and B tiles are staged in LDS.
    %mk, %k_loop = transform.structured.tile_using_for %matmul
        tile_sizes [0, 0, %k_tile]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    %a = transform.get_operand %mk[0]
        : (!transform.any_op) -> !transform.any_value
    %b = transform.get_operand %mk[1]
        : (!transform.any_op) -> !transform.any_value
    %a_lds = transform.structured.promote_tensor
        to #gpu.address_space<workgroup> %a : !transform.any_value
    %b_lds = transform.structured.promote_tensor
        to #gpu.address_space<workgroup> %b : !transform.any_value
    // 2 x 2 waves of 32x32 outputs.
    %mw, %waves = transform.structured.tile_using_forall %mk
        tile_sizes [%wave_m, %wave_n]
        (mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.annotate %waves "orchestra.gpu_mma_warps" : !transform.any_op
    transform.structured.vectorize %mw : !transform.any_op
    transform.structured.vectorize %fill_t : !transform.any_op
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 7 (on memrefs): the MFMA workgroups.
  //===--------------------------------------------------------------------===//
  // A workgroup-level forall of the MFMA recipe.
  transform.named_sequence @amd_match_mfma_block(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @gpu_match_grid_forall failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    // (Fails, so does not match, where the attribute is missing.)
    %copy = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_copy_elems"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }

  // The operand tiles of each K step are double-buffered in LDS (two
  // buffers each, `memref.multibuffer`: step k + 1 is copied into the
  // buffer step k does not read) and copied by all 256 threads, 16 bytes
  // each (one row chunk of orchestra.gpu_copy_elems elements), vectorized.
  // The workgroup synchronizes where the script says (it is mapped without
  // a barrier after every loop): after zeroing the accumulator tile, and
  // before the waves read a step's tiles. No barrier is needed after they
  // read them: the next step writes the other buffer, and the step after
  // it comes after the next step's barrier, which every wave passes only
  // once done with this step. orchestra-amd-vector-to-mfma places the
  // barrier between the accumulators' stores and the epilogue.
  transform.named_sequence @amd_stage_operands(
      %forall: !transform.any_op {transform.readonly}) {
    %elems = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_copy_elems"]
        : (!transform.any_op) -> !transform.param<i64>
    %zeroed = transform.structured.match
        attributes{orchestra.gpu_barrier_after} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %zeroed : !transform.any_op
    %waves = transform.structured.match
        attributes{orchestra.gpu_mma_warps} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_before %waves : !transform.any_op
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      %buffer = transform.get_producer_of_operand %copy[1]
          : (!transform.any_op) -> !transform.any_op
      %alloc = transform.cast %buffer
          : !transform.any_op to !transform.op<"memref.alloc">
      %stages = transform.memref.multibuffer %alloc
          {factor = 2 : i64, skip_analysis}
          : (!transform.op<"memref.alloc">) -> !transform.any_op
    }
    %staged = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %staged : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      %chunk, %threads = transform.structured.tile_using_forall %copy
          tile_sizes [1, %elems]
          (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %chunk : !transform.any_op
    }
    transform.yield
  }
  // An MFMA workgroup becomes a `gpu.launch` of 256 threads: its thread
  // foralls (the zeroing, the copies, the epilogue) over the threads, its
  // wave forall over four 64-lane waves, with the barriers
  // @amd_stage_operands placed (none after each loop).
  transform.named_sequence @amd_launch_mfma(
      %forall: !transform.any_op {transform.consumed}) {
    %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch
        block_dims = [256, 1, 1] sync_after_distribute = false warp_size = 64
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  transform.named_sequence @__orchestra_amd_cdna3_strategy(
      %module: !transform.any_op {transform.readonly}) {
    // Concatenations become one slice insertion per operand: after
    // bufferization, copies into views of the result, which get block and
    // thread tiles like every other copy.
    %kernels = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %kernels {
      transform.apply_patterns.tensor.decompose_concat
    } : !transform.any_op
    // The MFMA kernels first; the SIMT tiles then take the ops left directly
    // in the functions and the workgroup tiles (epilogues).
    %mfma_roots = transform.structured.match
        attributes{orchestra.gpu_recipe = "mfma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mfma_roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      transform.include @amd_tile_mfma failures(propagate) (%root)
          : (!transform.any_op) -> ()
    }
    %funcs = transform.include @gpu_tile_simt failures(propagate) (%module)
        : (!transform.any_op) -> !transform.any_op
    transform.include @gpu_finish_tiles failures(propagate) (%module, %funcs)
        : (!transform.any_op, !transform.any_op) -> ()
    transform.yield
  }

  // Every workgroup-level forall becomes a `gpu.launch` whose nested
  // foralls run on its threads.
  transform.named_sequence @__orchestra_amd_cdna3_map_to_gpu(
      %module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.bufferization.buffer_loop_hoisting %func : !transform.any_op
    %staged = transform.foreach_match in %func
        @amd_match_mfma_block -> @amd_stage_operands
        : (!transform.any_op) -> !transform.any_op
    %threads = transform.include @gpu_tile_copies failures(propagate)
        (%staged) : (!transform.any_op) -> !transform.any_op
    %mapped = transform.foreach_match in %threads
        @amd_match_mfma_block -> @amd_launch_mfma,
        @gpu_match_grid_forall -> @gpu_launch
        : (!transform.any_op) -> !transform.any_op
    // The MFMA accumulators' reads and writes address their memory
    // directly, and what the K loops compute once moves out of them, so
    // that orchestra-amd-vector-to-mfma carries the accumulators in
    // registers.
    transform.apply_patterns to %mapped {
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %mapped : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %loops : !transform.any_op
    transform.yield
  }

  // The vector contractions of the SIMT matmuls become multiply-adds, the
  // transfers loads and stores.
  transform.named_sequence @__orchestra_amd_cdna3_lower_vectors(
      %module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.include @gpu_lower_simt_vectors failures(propagate) (%func)
        : (!transform.any_op) -> ()
    // The ROCDL lowering converts 1-D vector.from_elements only (the NVVM
    // one unrolls n-D ones itself): the 2-D accumulators of the SIMT
    // matmuls are built row by row.
    transform.apply_patterns to %func {
      transform.apply_patterns.vector.unroll_from_elements
    } : !transform.any_op
    transform.yield
  }
}
