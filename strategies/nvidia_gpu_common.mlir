// The transform sequences the NVIDIA strategies share
// (nvidia_hopper_strategy.mlir, nvidia_blackwell_strategy.mlir; both load
// this file through the target registry). They map the kernels of a GPU
// kernel module onto the CUDA execution model:
//
//   * tensor cores: a kernel whose fusion root
//     `orchestra-nvidia-select-recipes` marked `orchestra.gpu_recipe = "mma"`
//     is tiled into 64x64 block tiles (`#gpu.block<linear_dim_*>`) with its
//     fill, matmul and epilogue fused. The block's threads zero the
//     accumulator tile (in shared memory when an epilogue reads it); the K
//     loop steps through K 32 at a time, staging each step's 64x32 A and
//     32x64 B tiles in shared memory (`structured.promote_tensor`), and
//     runs the matmul over 8 warps of 32x16 outputs
//     (`#gpu.warp<linear_dim_*>`), vectorized. After bufferization
//     (@nvidia_map_to_gpu): the staged tiles get one buffer per pipeline
//     stage (`memref.multibuffer`), every thread copies one 16-byte row
//     chunk per tile and step, the block synchronizes where the script says
//     (`transform.orchestra.gpu_barrier_before/after`), the warps'
//     contractions are unrolled to m16n8k16, their accumulators are hoisted
//     out of the K loop into registers, and the copies become
//     `nvgpu.device_async_copy` groups. `orchestra-nvidia-vector-to-mma`
//     then turns the contractions into `nvgpu.ldmatrix` + `nvgpu.mma.sync`
//     (f16 inputs with f16 or f32 accumulators, bf16 with f32), and
//     @nvidia_lower_vectors
//     software-pipelines each K loop over its `orchestra.gpu_k_stages`
//     stages (3, fewer for short K loops): the copies of step k+S are issued
//     while step k computes, and each step waits for its group right before
//     its first use. The epilogue reads the accumulator tile, vectorized
//     over the block's 256 threads. Kernels with `orchestra.gpu_tma = 1`
//     (Blackwell, or Hopper with `tma = true`) stage the tiles with TMA
//     loads and one mbarrier per stage instead
//     (`transform.orchestra.nvidia_tma_k_loop`, @nvidia_stage_operands_tma);
//   * warpgroup MMA (Hopper with `wgmma = true`, recipe "wgmma"): 128x128
//     or 128x256 (`wgmma_tile`) block tiles of two warpgroups, the K loop in steps of 64 whose A and
//     B tiles are staged in shared memory; after bufferization
//     (@nvidia_stage_operands_wgmma) TMA copies with the 128-byte swizzle
//     fill them (`nvidia_tma_k_loop {swizzle_128b, refill_lag = 1}`) and
//     each step's matmul becomes `nvgpu.warpgroup.mma` on matrix
//     descriptors, the accumulators carried in registers
//     (`transform.orchestra.nvidia_warpgroup_mma`);
//   * tcgen05 MMA (Blackwell with `tcgen05 = true`, recipe "tcgen05"): the
//     same tiles and staging; each step's matmul becomes `tcgen05.mma`
//     issued by one thread, the accumulator in tensor memory, loaded into
//     registers after the K loop (`transform.orchestra.nvidia_tcgen05_mma`);
//   * SIMT (everything else, f32 matmuls included): the block and thread
//     tiles of gpu_common.mlir (@gpu_tile_simt), which the target registry
//     loads before this file;
//   * after bufferization, every block-level forall becomes a `gpu.launch`
//     (`@nvidia_map_to_gpu`), including the copies bufferization left.
//
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
module attributes {transform.with_named_sequence} {
  // Defined in gpu_common.mlir (the target registry loads it first; the
  // preloaded libraries are linked).
  transform.named_sequence @gpu_finish_tiles(
      %module: !transform.any_op {transform.readonly},
      %f2r: !transform.any_op {transform.consumed})
  transform.named_sequence @gpu_fuse_producers(
      %forall: !transform.any_op {transform.readonly})
  transform.named_sequence @gpu_launch(
      %forall: !transform.any_op {transform.consumed})
  transform.named_sequence @gpu_lower_simt_vectors(
      %func: !transform.any_op {transform.readonly})
  transform.named_sequence @gpu_match_grid_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op
  transform.named_sequence @gpu_match_in_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op
  transform.named_sequence @gpu_tile_copies(
      %staged: !transform.any_op {transform.consumed}) -> !transform.any_op
  transform.named_sequence @gpu_tile_simt(
      %module: !transform.any_op {transform.readonly}) -> !transform.any_op
  transform.named_sequence @gpu_vectorize(
      %op: !transform.any_op {transform.consumed})

  //===--------------------------------------------------------------------===//
  // Stage 5 (on tensors): tiling, fusion, tensor-core tiles.
  //===--------------------------------------------------------------------===//
  // The tiles of a warpgroup-sized tensor-core matmul (recipes "wgmma" and
  // "tcgen05"): the root in blocks of orchestra.gpu_tile_m x _n with the
  // producers fused, the accumulator's fill over the threads, the matmul's
  // K loop in steps of 64 whose A and B tiles are staged in shared memory.
  // Returns the block-level forall.
  transform.named_sequence @nvidia_tile_warpgroup_matmul(
      %root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %stages = transform.orchestra.param_from_attr
        %root["orchestra.gpu_k_stages"]
        : (!transform.any_op) -> !transform.param<i64>
    %tma = transform.orchestra.param_from_attr %root["orchestra.gpu_tma"]
        : (!transform.any_op) -> !transform.param<i64>
    %tile_m = transform.orchestra.param_from_attr
        %root["orchestra.gpu_tile_m"]
        : (!transform.any_op) -> !transform.param<i64>
    %tile_n = transform.orchestra.param_from_attr
        %root["orchestra.gpu_tile_n"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %root
        tile_sizes [%tile_m, %tile_n]
        (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.include @gpu_fuse_producers failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    transform.annotate %forall "orchestra.gpu_k_stages" = %stages
        : !transform.any_op, !transform.param<i64>
    transform.annotate %forall "orchestra.gpu_tma" = %tma
        : !transform.any_op, !transform.param<i64>
    %matmul = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.gpu_mma} in %forall
        : (!transform.any_op) -> !transform.any_op
    %fill = transform.structured.match ops{["linalg.fill"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    %fill_t, %fill_threads = transform.structured.tile_using_forall %fill
        num_threads [8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %fill_threads "orchestra.gpu_barrier_after"
        : !transform.any_op
    %mk, %k_loop = transform.structured.tile_using_for %matmul
        tile_sizes [0, 0, 64]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %k_loop "orchestra.gpu_k_loop" : !transform.any_op
    transform.annotate %mk "orchestra.gpu_wgmma_matmul" : !transform.any_op
    %a = transform.get_operand %mk[0]
        : (!transform.any_op) -> !transform.any_value
    %b = transform.get_operand %mk[1]
        : (!transform.any_op) -> !transform.any_value
    %a_shared = transform.structured.promote_tensor
        to #gpu.address_space<workgroup> %a : !transform.any_value
    %b_shared = transform.structured.promote_tensor
        to #gpu.address_space<workgroup> %b : !transform.any_value
    transform.structured.vectorize %fill_t : !transform.any_op
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_tile_and_fuse(
      %module: !transform.any_op {transform.readonly}) {
    // Concatenations become one slice insertion per operand: after
    // bufferization, copies into views of the result, which get block and
    // thread tiles like every other copy (@nvidia_map_to_gpu).
    %kernels = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %kernels {
      transform.apply_patterns.tensor.decompose_concat
    } : !transform.any_op
    // 0. Warpgroup MMA matmuls (Hopper with `wgmma = true`): 128x128 or
    //    128x256 block tiles (orchestra.gpu_tile_m/_n, from the target key
    //    `wgmma_tile`) with the epilogue and the producers fused, for two
    //    warpgroups; the K loop in steps of 64 whose A and B tiles are
    //    staged in shared memory. The matmul of a K step stays whole:
    //    stage 7 turns it into warpgroup MMA
    //    (`transform.orchestra.nvidia_warpgroup_mma`).
    %wg_roots = transform.structured.match
        attributes{orchestra.gpu_recipe = "wgmma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %wg_roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %forall = transform.include @nvidia_tile_warpgroup_matmul
          failures(propagate) (%root)
          : (!transform.any_op) -> !transform.any_op
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.annotate %forall "orchestra.gpu_wgmma" = %one
          : !transform.any_op, !transform.param<i64>
    }
    // 0'. tcgen05 MMA matmuls (Blackwell with `tcgen05 = true`): the same
    //    tiles; stage 7 turns the K loop's matmul into tcgen05 MMA
    //    (`transform.orchestra.nvidia_tcgen05_mma`).
    %tc_roots = transform.structured.match
        attributes{orchestra.gpu_recipe = "tcgen05"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tc_roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %forall = transform.include @nvidia_tile_warpgroup_matmul
          failures(propagate) (%root)
          : (!transform.any_op) -> !transform.any_op
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      transform.annotate %forall "orchestra.gpu_tcgen05" = %one
          : !transform.any_op, !transform.param<i64>
      // The epilogue in thread tiles of one row and half the columns,
      // thread t of the block at row t mod 128: the rows and columns whose
      // accumulators warp t / 32 loads from tensor memory, so that stage 7
      // hands them over in registers.
      %epilogue = transform.structured.match ops{["linalg.generic"]}
          attributes{orchestra.gpu_recipe = "tcgen05"} in %forall
          : (!transform.any_op) -> !transform.any_op
      transform.foreach %epilogue : !transform.any_op {
      ^bb0(%e: !transform.any_op):
        %et, %rows = transform.structured.tile_using_forall %e
            num_threads [128, 2]
            (mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>])
            : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      }
    }

    // 1. Tensor-core matmuls: 64x64 block tiles with the epilogue and the
    //    producers fused; the matmul over 8 warps of 16x32 outputs, each
    //    warp stepping through 16x8x16 tensor-core tiles.
    %mma_roots = transform.structured.match
        attributes{orchestra.gpu_recipe = "mma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mma_roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      // The tiles orchestra-nvidia-select-recipes chose for this kernel.
      %stages = transform.orchestra.param_from_attr
          %root["orchestra.gpu_k_stages"]
          : (!transform.any_op) -> !transform.param<i64>
      %tile_m = transform.orchestra.param_from_attr
          %root["orchestra.gpu_tile_m"]
          : (!transform.any_op) -> !transform.param<i64>
      %tile_n = transform.orchestra.param_from_attr
          %root["orchestra.gpu_tile_n"]
          : (!transform.any_op) -> !transform.param<i64>
      %warp_m = transform.orchestra.param_from_attr
          %root["orchestra.gpu_warp_m"]
          : (!transform.any_op) -> !transform.param<i64>
      %warp_n = transform.orchestra.param_from_attr
          %root["orchestra.gpu_warp_n"]
          : (!transform.any_op) -> !transform.param<i64>
      %rows_a = transform.orchestra.param_from_attr
          %root["orchestra.gpu_copy_rows_a"]
          : (!transform.any_op) -> !transform.param<i64>
      %rows_b = transform.orchestra.param_from_attr
          %root["orchestra.gpu_copy_rows_b"]
          : (!transform.any_op) -> !transform.param<i64>
      %tma = transform.orchestra.param_from_attr %root["orchestra.gpu_tma"]
          : (!transform.any_op) -> !transform.param<i64>
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [%tile_m, %tile_n]
          (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      transform.include @gpu_fuse_producers failures(propagate) (%forall)
          : (!transform.any_op) -> ()
      // What stage 7 needs to know, on the block-level forall.
      transform.annotate %forall "orchestra.gpu_k_stages" = %stages
          : !transform.any_op, !transform.param<i64>
      transform.annotate %forall "orchestra.gpu_copy_rows_a" = %rows_a
          : !transform.any_op, !transform.param<i64>
      transform.annotate %forall "orchestra.gpu_copy_rows_b" = %rows_b
          : !transform.any_op, !transform.param<i64>
      transform.annotate %forall "orchestra.gpu_tma" = %tma
          : !transform.any_op, !transform.param<i64>
      %matmul = transform.structured.match ops{["linalg.matmul"]}
          attributes{orchestra.gpu_mma} in %forall
          : (!transform.any_op) -> !transform.any_op
      // The accumulator tile is zeroed by the block's threads.
      %fill = transform.structured.match ops{["linalg.fill"]} in %forall
          : (!transform.any_op) -> !transform.any_op
      %fill_t, %fill_threads = transform.structured.tile_using_forall %fill
          num_threads [8, 32]
          (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.annotate %fill_threads "orchestra.gpu_barrier_after"
          : !transform.any_op
      // The K loop, in steps of 32; each step's A and B tiles are staged
      // in shared memory.
      %mk, %k_loop = transform.structured.tile_using_for %matmul
          tile_sizes [0, 0, 32]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.annotate %k_loop "orchestra.gpu_k_loop" : !transform.any_op
      %a = transform.get_operand %mk[0]
          : (!transform.any_op) -> !transform.any_value
      %b = transform.get_operand %mk[1]
          : (!transform.any_op) -> !transform.any_value
      %a_shared = transform.structured.promote_tensor
          to #gpu.address_space<workgroup> %a : !transform.any_value
      %b_shared = transform.structured.promote_tensor
          to #gpu.address_space<workgroup> %b : !transform.any_value
      // 2 x 4 warps (32x16 outputs each in 64x64 blocks, 64x32 in 128x128).
      %mw, %warps = transform.structured.tile_using_forall %mk
          tile_sizes [%warp_m, %warp_n]
          (mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>])
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      transform.annotate %warps "orchestra.gpu_mma_warps" : !transform.any_op
      transform.structured.vectorize %mw : !transform.any_op
      transform.structured.vectorize %fill_t : !transform.any_op
    }

    // 2-3. Everything else: the SIMT tiles (gpu_common.mlir).
    %f2r = transform.include @gpu_tile_simt failures(propagate) (%module)
        : (!transform.any_op) -> !transform.any_op

    // The epilogues of tensor-core matmuls are vectorized too (their thread
    // tiles are static): `convert-vector-to-gpu` only handles functions
    // whose scalar code does not reach the tensor-core chains.
    %epilogues = transform.structured.match
        attributes{orchestra.gpu_recipe = "mma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %epilogues : !transform.any_op
    // (A wgmma root that is the matmul itself stays whole in its K loop.)
    %wg_roots_left = transform.structured.match
        attributes{orchestra.gpu_recipe = "wgmma"} in %module
        : (!transform.any_op) -> !transform.any_op
    %wg_epilogues = transform.foreach_match restrict_root in %wg_roots_left
        @gpu_match_in_forall -> @gpu_vectorize
        : (!transform.any_op) -> !transform.any_op
    %tc_roots_left = transform.structured.match
        attributes{orchestra.gpu_recipe = "tcgen05"} in %module
        : (!transform.any_op) -> !transform.any_op
    %tc_epilogues = transform.foreach_match restrict_root in %tc_roots_left
        @gpu_match_in_forall -> @gpu_vectorize
        : (!transform.any_op) -> !transform.any_op

    // 4-5. Clean-up and the temporaries' memory spaces (gpu_common.mlir).
    transform.include @gpu_finish_tiles failures(propagate) (%module, %f2r)
        : (!transform.any_op, !transform.any_op) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 7 (on memrefs, after bufferization).
  //===--------------------------------------------------------------------===//
  // Tensor-core kernels (block-level foralls that carry the stage count of
  // their K loop's pipeline, `orchestra.gpu_k_stages`): the operand tiles a
  // K loop stages in shared memory get one buffer per pipeline stage, and
  // each thread of the block copies one 16-byte row chunk of them per K
  // step. The blocks synchronize explicitly (they are mapped without a
  // barrier after every loop): after zeroing the accumulator tile, before
  // the warps read the staged operands, after they read them (before the
  // next step is copied over them), and after the K loop (before the
  // epilogue reads the accumulators).
  transform.named_sequence @nvidia_match_mma_block_any(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @gpu_match_grid_forall failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %stages = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_k_stages"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_match_mma_block_3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @gpu_match_grid_forall failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %stages = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_k_stages"]
        : (!transform.any_op) -> !transform.param<i64>
    %three = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %stages, %three : !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_match_mma_block_2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @gpu_match_grid_forall failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %stages = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_k_stages"]
        : (!transform.any_op) -> !transform.param<i64>
    %two = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %stages, %two : !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  // The staged tiles of a K loop, 3 or 2 buffers each. (The copies
  // overwrite whole tiles: no analysis needed.)
  transform.named_sequence @nvidia_multibuffer_3(
      %copy: !transform.any_op {transform.readonly}) {
    %buffer = transform.get_producer_of_operand %copy[1]
        : (!transform.any_op) -> !transform.any_op
    %alloc = transform.cast %buffer
        : !transform.any_op to !transform.op<"memref.alloc">
    %stages = transform.memref.multibuffer %alloc
        {factor = 3 : i64, skip_analysis}
        : (!transform.op<"memref.alloc">) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @nvidia_multibuffer_2(
      %copy: !transform.any_op {transform.readonly}) {
    %buffer = transform.get_producer_of_operand %copy[1]
        : (!transform.any_op) -> !transform.any_op
    %alloc = transform.cast %buffer
        : !transform.any_op to !transform.op<"memref.alloc">
    %stages = transform.memref.multibuffer %alloc
        {factor = 2 : i64, skip_analysis}
        : (!transform.op<"memref.alloc">) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_3(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_3 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.include @nvidia_stage_operands failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_2(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_2 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.include @nvidia_stage_operands failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    transform.yield
  }
  // Each thread copies `rows` x 16 bytes of an operand tile per K step, one
  // 16-byte transfer per row.
  transform.named_sequence @nvidia_copy_chunks(
      %copy: !transform.any_op {transform.consumed},
      %rows: !transform.param<i64> {transform.readonly}) {
    %chunk, %threads = transform.structured.tile_using_forall %copy
        tile_sizes [%rows, 8]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.structured.vectorize %chunk : !transform.any_op
    transform.apply_patterns to %threads {
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1
          full_unroll = true
    } : !transform.any_op
    transform.apply_patterns to %threads {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // The barriers of a tensor-core kernel.
  // (TMA kernels need no barrier before the warps read a stage: every
  // thread waits on the stage's mbarrier itself.)
  transform.named_sequence @nvidia_stage_barriers_tma(
      %forall: !transform.any_op {transform.readonly}) {
    %zeroed = transform.structured.match
        attributes{orchestra.gpu_barrier_after} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %zeroed : !transform.any_op
    %warps = transform.structured.match
        attributes{orchestra.gpu_mma_warps} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %warps : !transform.any_op
    // A K loop of one step has been folded away by now.
    %k_loops = transform.structured.match
        attributes{orchestra.gpu_k_loop} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %k_loops : !transform.any_op
    transform.yield
  }
  // cp.async kernels also need a barrier before the warps read a stage: the
  // copies' data is waited for by each thread for its own copies only.
  transform.named_sequence @nvidia_stage_barriers(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_stage_barriers_tma failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    %warps = transform.structured.match
        attributes{orchestra.gpu_mma_warps} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_before %warps : !transform.any_op
    transform.yield
  }
  // cp.async kernels: the A tile's copy comes first in the K loop, then the
  // B tile's; each thread copies its rows of 16-byte chunks.
  transform.named_sequence @nvidia_stage_operands(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_stage_barriers failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    %copy_a, %copy_b = transform.split_handle %copies
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %rows_a = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_copy_rows_a"]
        : (!transform.any_op) -> !transform.param<i64>
    %rows_b = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_copy_rows_b"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.include @nvidia_copy_chunks failures(propagate)
        (%copy_a, %rows_a) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.include @nvidia_copy_chunks failures(propagate)
        (%copy_b, %rows_b) : (!transform.any_op, !transform.param<i64>) -> ()
    transform.yield
  }
  // TMA kernels: the K loop's copies become TMA loads into the stage
  // buffers, with one mbarrier per stage
  // (`transform.orchestra.nvidia_tma_k_loop`, after the barriers, which it
  // relies on). The loop then needs no software pipelining of cp.async
  // copies: the kernel is marked as having a 1-stage one.
  transform.named_sequence @nvidia_stage_operands_tma(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_stage_barriers_tma failures(propagate) (%forall)
        : (!transform.any_op) -> ()
    %k_loops = transform.structured.match
        attributes{orchestra.gpu_k_loop} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %k_loops : !transform.any_op
    transform.include @nvidia_store_tile_tma failures(suppress) (%forall)
        : (!transform.any_op) -> ()
    %one = transform.param.constant 1 : i64 -> !transform.any_param
    transform.annotate %forall "orchestra.gpu_k_stages" = %one
        : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_tma_3(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_3 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.include @nvidia_stage_operands_tma failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_tma_2(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_2 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.include @nvidia_stage_operands_tma failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  // A tensor-core kernel with 3 or 2 stages whose operand tiles the Tensor
  // Memory Accelerator copies (`orchestra.gpu_tma = 1`).
  transform.named_sequence @nvidia_match_mma_block_tma_3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_3 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %tma = transform.orchestra.param_from_attr %forall["orchestra.gpu_tma"]
        : (!transform.any_op) -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %tma, %one : !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_match_mma_block_tma_2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_2 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %tma = transform.orchestra.param_from_attr %forall["orchestra.gpu_tma"]
        : (!transform.any_op) -> !transform.param<i64>
    %one = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %tma, %one : !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  // Warpgroup MMA kernels (`orchestra.gpu_wgmma`) with 3 or 2 stages.
  transform.named_sequence @nvidia_match_wgmma_block_3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_3 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %wgmma = transform.orchestra.param_from_attr %forall["orchestra.gpu_wgmma"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_match_wgmma_block_2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_2 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %wgmma = transform.orchestra.param_from_attr %forall["orchestra.gpu_wgmma"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  // tcgen05 MMA kernels (`orchestra.gpu_tcgen05`) with 3 or 2 stages.
  transform.named_sequence @nvidia_match_tcgen05_block_3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_3 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %tcgen05 = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_tcgen05"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  transform.named_sequence @nvidia_match_tcgen05_block_2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.include @nvidia_match_mma_block_2 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %tcgen05 = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_tcgen05"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %forall : !transform.any_op
  }
  // The stage buffers of a warpgroup-sized kernel, 3 or 2 per operand.
  transform.named_sequence @nvidia_multibuffer_copies_3(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_3 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.yield
  }
  transform.named_sequence @nvidia_multibuffer_copies_2(
      %forall: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %copies : !transform.any_op {
    ^bb0(%copy: !transform.any_op):
      transform.include @nvidia_multibuffer_2 failures(propagate) (%copy)
          : (!transform.any_op) -> ()
    }
    transform.yield
  }
  // The K loops of warpgroup-sized kernels: the operand tiles are written by
  // TMA copies with the 128-byte swizzle, one mbarrier per stage, a stage
  // refilled one step after the step that read it (its MMAs may still run
  // while the next step begins). The barriers: after zeroing the
  // accumulator tile, after each step's matmul (the MMAs of the step before
  // have completed by then, and that step's stage may be refilled), after
  // the K loop. Returns the K loops.
  transform.named_sequence @nvidia_stage_operands_swizzled(
      %forall: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %zeroed = transform.structured.match
        attributes{orchestra.gpu_barrier_after} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %zeroed : !transform.any_op
    %matmuls = transform.structured.match
        attributes{orchestra.gpu_wgmma_matmul} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %matmuls : !transform.any_op
    %k_loops = transform.structured.match
        attributes{orchestra.gpu_k_loop} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.gpu_barrier_after %k_loops : !transform.any_op
    transform.orchestra.nvidia_tma_k_loop %k_loops {swizzle_128b, refill_lag = 1}
        : !transform.any_op
    %one = transform.param.constant 1 : i64 -> !transform.any_param
    transform.annotate %forall "orchestra.gpu_k_stages" = %one
        : !transform.any_op, !transform.any_param
    transform.yield %k_loops : !transform.any_op
  }
  // The block's output tile goes to global memory through shared memory and
  // one TMA store, where the stages' bytes have room for it and the
  // epilogue's form allows it (`transform.orchestra.nvidia_tma_store_tile`;
  // where it does not, the threads keep storing to global memory, hence
  // `failures(suppress)` where this is included; the K loop is matched
  // again: the MMA ops may have replaced it).
  transform.named_sequence @nvidia_store_tile_tma(
      %forall: !transform.any_op {transform.readonly}) {
    %k_loops = transform.structured.match
        attributes{orchestra.gpu_k_loop} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tma_store_tile %k_loops : !transform.any_op
    transform.yield
  }
  // Each step's matmul becomes warpgroup MMA on the stages (Hopper).
  transform.named_sequence @nvidia_stage_operands_wgmma(
      %forall: !transform.any_op {transform.readonly}) {
    %k_loops = transform.include @nvidia_stage_operands_swizzled
        failures(propagate) (%forall)
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_warpgroup_mma %k_loops {share_accumulator}
        : !transform.any_op
    transform.include @nvidia_store_tile_tma failures(suppress) (%forall)
        : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_wgmma_3(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_multibuffer_copies_3 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.include @nvidia_stage_operands_wgmma failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_wgmma_2(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_multibuffer_copies_2 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.include @nvidia_stage_operands_wgmma failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  // Each step's matmul becomes tcgen05 MMA on the stages, the accumulator
  // in tensor memory (Blackwell).
  transform.named_sequence @nvidia_stage_operands_tcgen05(
      %forall: !transform.any_op {transform.readonly}) {
    %k_loops = transform.include @nvidia_stage_operands_swizzled
        failures(propagate) (%forall)
        : (!transform.any_op) -> !transform.any_op
    transform.orchestra.nvidia_tcgen05_mma %k_loops {share_accumulator}
        : !transform.any_op
    transform.include @nvidia_store_tile_tma failures(suppress) (%forall)
        : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_tcgen05_3(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_multibuffer_copies_3 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.include @nvidia_stage_operands_tcgen05 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_stage_operands_tcgen05_2(
      %forall: !transform.any_op {transform.readonly}) {
    transform.include @nvidia_multibuffer_copies_2 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.include @nvidia_stage_operands_tcgen05 failures(propagate)
        (%forall) : (!transform.any_op) -> ()
    transform.yield
  }
  // Other kernels: a barrier after every loop mapped to threads.
  // The tensor-core kernels synchronize where their strategy placed
  // barriers (see @nvidia_stage_operands), not after every loop; the
  // accumulators are carried through the K loop in registers, and the
  // copies of each K step into shared memory are asynchronous
  // (`nvgpu.device_async_copy`), software-pipelined over 3 stages with the
  // wait for a stage just before its first use.
  transform.named_sequence @nvidia_launch_mma(
      %forall: !transform.any_op {transform.consumed}) {
    %stages = transform.orchestra.param_from_attr
        %forall["orchestra.gpu_k_stages"]
        : (!transform.any_op) -> !transform.any_param
    %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch
        block_dims = [256, 1, 1] sync_after_distribute = false
        : (!transform.any_op) -> !transform.any_op
    transform.annotate %mapped "orchestra.gpu_k_stages" = %stages
        : !transform.any_op, !transform.any_param
    transform.apply_patterns to %mapped {
      transform.apply_patterns.gpu.unroll_vectors_subgroup_mma [16, 8, 16]
    } : !transform.any_op
    transform.yield
  }
  // After mapping: the accumulators of the tensor-core K loops move into
  // registers (their reads and writes of the accumulator tile are hoisted
  // out of the loop), the copies into shared memory become asynchronous
  // (`nvgpu.device_async_copy`, one group per K step, 16 bytes each,
  // bypassing L1), and each K loop is software-pipelined over 3 stages:
  // the copies of step k+2 are issued while step k computes, and the wait
  // for a step comes just before its first use.
  transform.named_sequence @nvidia_pipeline_mma(
      %func: !transform.any_op {transform.consumed}) {
    transform.apply_patterns to %func {
      transform.apply_patterns.memref.fold_memref_alias_ops
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %func : !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %func
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %async = transform.nvgpu.create_async_groups %hoisted {bypass_l1}
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %async {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
  // Every block-level forall becomes a `gpu.launch` whose nested foralls run
  // on its warps and threads.
  transform.named_sequence @nvidia_map_to_gpu(
      %module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.bufferization.buffer_loop_hoisting %func : !transform.any_op
    %staged = transform.foreach_match in %func
        @nvidia_match_wgmma_block_3 -> @nvidia_stage_operands_wgmma_3,
        @nvidia_match_wgmma_block_2 -> @nvidia_stage_operands_wgmma_2,
        @nvidia_match_tcgen05_block_3 -> @nvidia_stage_operands_tcgen05_3,
        @nvidia_match_tcgen05_block_2 -> @nvidia_stage_operands_tcgen05_2,
        @nvidia_match_mma_block_tma_3 -> @nvidia_stage_operands_tma_3,
        @nvidia_match_mma_block_tma_2 -> @nvidia_stage_operands_tma_2,
        @nvidia_match_mma_block_3 -> @nvidia_stage_operands_3,
        @nvidia_match_mma_block_2 -> @nvidia_stage_operands_2,
        @nvidia_match_mma_block_any -> @nvidia_stage_operands
        : (!transform.any_op) -> !transform.any_op
    // Copies bufferization left between buffers get block and thread
    // tiles too (gpu_common.mlir).
    %threads = transform.include @gpu_tile_copies failures(propagate)
        (%staged) : (!transform.any_op) -> !transform.any_op
    %mapped = transform.foreach_match in %threads
        @nvidia_match_mma_block_any -> @nvidia_launch_mma,
        @gpu_match_grid_forall -> @gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %mapped {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %mapped : !transform.any_op
    transform.include @nvidia_pipeline_mma failures(propagate) (%mapped)
        : (!transform.any_op) -> ()
    transform.yield
  }
  // After `convert-vector-to-gpu`: the vector transfers that are not
  // tensor-core operands become loads and stores.
  transform.named_sequence @nvidia_lower_vectors(
      %module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    // The contractions orchestra-nvidia-vector-to-mma left (SIMT matmuls'
    // K steps) become multiply-adds (gpu_common.mlir).
    transform.include @gpu_lower_simt_vectors failures(propagate) (%func)
        : (!transform.any_op) -> ()
    // The K loops of the tensor-core kernels: software pipelining over 3
    // stages (the other loops of these kernels have no copies into shared
    // memory and are left alone). This runs after the vector-to-MMA
    // conversion: the upstream pipeliner cannot look at transfers from
    // shared memory (the MMA operand reads) in a loop.
    %launches_3 = transform.structured.match
        attributes{orchestra.gpu_k_stages = 3 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %launches_3 : !transform.any_op {
    ^bb0(%launch: !transform.any_op):
      %loops = transform.structured.match ops{["scf.for"]} in %launch
          : (!transform.any_op) -> !transform.op<"scf.for">
      %pipelined = transform.nvgpu.pipeline_shared_memory_copies
          failures(suppress) %loops {depth = 3 : i64, peel_epilogue}
          : (!transform.op<"scf.for">) -> !transform.any_op
    }
    %launches_2 = transform.structured.match
        attributes{orchestra.gpu_k_stages = 2 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %launches_2 : !transform.any_op {
    ^bb0(%launch: !transform.any_op):
      %loops = transform.structured.match ops{["scf.for"]} in %launch
          : (!transform.any_op) -> !transform.op<"scf.for">
      %pipelined = transform.nvgpu.pipeline_shared_memory_copies
          failures(suppress) %loops {depth = 2 : i64, peel_epilogue}
          : (!transform.op<"scf.for">) -> !transform.any_op
    }
    transform.yield
  }
}
