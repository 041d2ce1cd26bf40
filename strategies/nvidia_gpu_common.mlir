// The transform sequences the NVIDIA strategies share
// (nvidia_hopper_strategy.mlir, nvidia_blackwell_strategy.mlir; both load
// this file through the target registry). They map the kernels of a GPU
// kernel module onto the CUDA execution model:
//
//   * tensor cores: a kernel whose fusion root
//     `orchestra-nvidia-select-recipes` marked `orchestra.gpu_recipe = "mma"`
//     is tiled into 64x64 block tiles (`#gpu.block<linear_dim_*>`) with its
//     fill, matmul and epilogue fused; the matmul over 8 warps of 16x32
//     outputs (`#gpu.warp<linear_dim_*>`), in 16x8x16 steps vectorized into
//     `vector.contract`s whose accumulators stay in registers across the K
//     loop. After bufferization `orchestra-nvidia-vector-to-mma` turns them
//     into `nvgpu.ldmatrix` + `nvgpu.mma.sync` (m16n8k16, f16 inputs, f16 or
//     f32 accumulators). The matmul tile the epilogue reads lives in shared
//     memory (`#gpu.address_space<workgroup>`); the epilogue is vectorized
//     over the block's 256 threads;
//   * SIMT (everything else, f32 matmuls included): every structured op in
//     block tiles of its own, sized by how many of its leading loops are
//     parallel (Nx1x8x32, 1x8x32, 32x64 or 256), each over 256 threads
//     (`#gpu.thread<linear_dim_*>`), as scalar loops per thread. Producers
//     are not fused here (see docs/Passes/NVIDIA.md);
//   * after bufferization, every block-level forall becomes a `gpu.launch`
//     (`@nvidia_map_to_gpu`), including the copies bufferization left.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
module attributes {transform.with_named_sequence} {

  //===--------------------------------------------------------------------===//
  // Matchers: the number of leading parallel loops of a structured op.
  //===--------------------------------------------------------------------===//

  // A structured op whose first four / three / two loops are parallel.
  transform.named_sequence @nvidia_match_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @nvidia_match_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // A structured op whose first two loops are parallel.
  transform.named_sequence @nvidia_match_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // A structured op whose first loop is parallel.
  transform.named_sequence @nvidia_match_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // ... directly in a function (not yet mapped).
  transform.named_sequence @nvidia_match_func_level(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %parent = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %parent ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @nvidia_match_func_level_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p4 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_func_level_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p3 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_func_level_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p2 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_func_level_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p1 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  // ... directly in a block-level forall (one whose parent is the function).
  transform.named_sequence @nvidia_match_block_level(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %forall ["scf.forall"] : !transform.any_op
    %func = transform.get_parent_op %forall : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %func ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @nvidia_match_block_level_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p4 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_block_level_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p3 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_block_level_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p2 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @nvidia_match_block_level_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @nvidia_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @nvidia_match_p1 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  // A `tensor.empty` in a block-level forall: block-shared data.
  transform.named_sequence @nvidia_match_block_empty(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.empty"] : !transform.any_op
    %a = transform.include @nvidia_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %a : !transform.any_op
  }
  // A `tensor.empty` deeper than that: per thread (or per warp lane).
  transform.named_sequence @nvidia_match_private_empty(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.empty"] : !transform.any_op
    %forall = transform.get_parent_op %op {op_name = "scf.forall"}
        : (!transform.any_op) -> !transform.any_op
    transform.yield %op : !transform.any_op
  }

  //===--------------------------------------------------------------------===//
  // Actions.
  //===--------------------------------------------------------------------===//

  transform.named_sequence @nvidia_fuse_producers(
      %forall: !transform.any_op {transform.readonly}) {
    %func = transform.get_parent_op %forall {op_name = "func.func"}
        : (!transform.any_op) -> !transform.any_op
    %producers = transform.structured.match
        attributes{orchestra.fusion_producer} in %func
        : (!transform.any_op) -> !transform.any_op
    %fused, %loop = transform.structured.fuse_into_containing_op
        %producers into %forall
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // Grid level: every op of a SIMT kernel in block tiles of its own. (The
  // producers are not fused into their consumer's tiles here: a fused
  // producer's tile would need a block-private temporary, which
  // bufferization places in global memory inside the kernel, or in shared
  // memory when it is small enough; see docs/Passes/NVIDIA.md.)
  transform.named_sequence @nvidia_blocks_p4(
      %op: !transform.any_op {transform.consumed}) {
    // Three block dimensions at most: map_forall_to_blocks sizes the grid
    // from three mapping ids (a fourth linear dimension was dropped from
    // the grid while the delinearization still counted it). The first loop
    // (the batch of an NHWC convolution, 1 in inference) stays whole in
    // each block.
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [0, 1, 8, 32]
        (mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>,
                    #gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_blocks_p3(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [1, 8, 32]
        (mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>,
                    #gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_blocks_p2(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [32, 64]
        (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_blocks_p1(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [256] (mapping = [#gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // Thread level: the ops of a block tile over its 256 threads.
  // Ops with three or four leading parallel loops have block tiles of one
  // along the outer ones: their threads split the last two.
  transform.named_sequence @nvidia_threads_p4(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [0, 0, 8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_threads_p3(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [0, 8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_threads_p2(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @nvidia_threads_p1(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [256] (mapping = [#gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // Memory spaces of the temporaries the bufferization will allocate.
  transform.named_sequence @nvidia_in_memory_space(
      %empty: !transform.any_op {transform.readonly},
      %space: !transform.any_param {transform.readonly}) {
    %e = transform.cast %empty : !transform.any_op to !transform.op<"tensor.empty">
    %alloc = transform.bufferization.empty_tensor_to_alloc_tensor %e
        : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
    transform.annotate %alloc "memory_space" = %space
        : !transform.op<"bufferization.alloc_tensor">, !transform.any_param
    transform.yield
  }
  transform.named_sequence @nvidia_in_shared_memory(
      %empty: !transform.any_op {transform.readonly}) {
    %space = transform.param.constant #gpu.address_space<workgroup>
        -> !transform.any_param
    transform.include @nvidia_in_memory_space failures(propagate)
        (%empty, %space) : (!transform.any_op, !transform.any_param) -> ()
    transform.yield
  }
  transform.named_sequence @nvidia_in_private_memory(
      %empty: !transform.any_op {transform.readonly}) {
    %space = transform.param.constant #gpu.address_space<private>
        -> !transform.any_param
    transform.include @nvidia_in_memory_space failures(propagate)
        (%empty, %space) : (!transform.any_op, !transform.any_param) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 5 (on tensors): tiling, fusion, tensor-core tiles.
  //===--------------------------------------------------------------------===//
  transform.named_sequence @nvidia_tile_and_fuse(
      %module: !transform.any_op {transform.readonly}) {
    // 1. Tensor-core matmuls: 64x64 block tiles with the epilogue and the
    //    producers fused; the matmul over 8 warps of 16x32 outputs, each
    //    warp stepping through 16x8x16 tensor-core tiles.
    %mma_roots = transform.structured.match
        attributes{orchestra.gpu_recipe = "mma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mma_roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [64, 64]
          (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.include @nvidia_fuse_producers failures(propagate) (%forall)
          : (!transform.any_op) -> ()
      %matmul = transform.structured.match ops{["linalg.matmul"]}
          attributes{orchestra.gpu_mma} in %forall
          : (!transform.any_op) -> !transform.any_op
      %warp_tile, %warps = transform.structured.tile_using_forall %matmul
          tile_sizes [16, 32]
          (mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>])
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %fill = transform.structured.match ops{["linalg.fill"]} in %forall
          : (!transform.any_op) -> !transform.any_op
      %fused_fill, %w = transform.structured.fuse_into_containing_op
          %fill into %warps
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %mma, %loops:2 = transform.structured.tile_using_for %warp_tile
          tile_sizes [0, 8, 16]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %mma : !transform.any_op
      transform.structured.vectorize %fused_fill : !transform.any_op
    }

    // 2. Everything else: block tiles of each op (the results between the
    //    kernels of a task stay in device memory).
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    %f1 = transform.foreach_match in %func
        @nvidia_match_func_level_p4 -> @nvidia_blocks_p4,
        @nvidia_match_func_level_p3 -> @nvidia_blocks_p3,
        @nvidia_match_func_level_p2 -> @nvidia_blocks_p2,
        @nvidia_match_func_level_p1 -> @nvidia_blocks_p1
        : (!transform.any_op) -> !transform.any_op

    // 3. Threads: every op directly in a block tile.
    %f2 = transform.foreach_match in %f1
        @nvidia_match_block_level_p4 -> @nvidia_threads_p4,
        @nvidia_match_block_level_p3 -> @nvidia_threads_p3,
        @nvidia_match_block_level_p2 -> @nvidia_threads_p2,
        @nvidia_match_block_level_p1 -> @nvidia_threads_p1
        : (!transform.any_op) -> !transform.any_op

    // The epilogues of tensor-core matmuls are vectorized too (their thread
    // tiles are static): `convert-vector-to-gpu` only handles functions
    // whose scalar code does not reach the tensor-core chains.
    %epilogues = transform.structured.match
        attributes{orchestra.gpu_recipe = "mma"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %epilogues : !transform.any_op

    // 4. Clean up (no CSE: it would merge the empty tensors that
    //    orchestra-nvidia-select-recipes split, and make kernels share
    //    buffers); keep the tensor-core accumulators in registers across
    //    the K loop (the read/write pair of each accumulator tile is hoisted
    //    out of it).
    transform.apply_patterns to %f2 {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.sink_ops
      transform.apply_patterns.vector.fold_arith_extension
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
      transform.apply_patterns.tensor.fold_tensor_empty
    } : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%l: !transform.any_op):
      transform.loop.hoist_loop_invariant_subsets %l : !transform.any_op
    }
    transform.foreach %loops : !transform.any_op {
    ^bb0(%l: !transform.any_op):
      transform.loop.hoist_loop_invariant_subsets %l : !transform.any_op
    }

    // 5. Temporaries: block tiles in shared memory, thread tiles private.
    %f3 = transform.foreach_match in %f2
        @nvidia_match_block_empty -> @nvidia_in_shared_memory,
        @nvidia_match_private_empty -> @nvidia_in_private_memory
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 7 (on memrefs, after bufferization).
  //===--------------------------------------------------------------------===//
  transform.named_sequence @nvidia_match_grid_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.forall"] : !transform.any_op
    %parent = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %parent ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @nvidia_launch(
      %forall: !transform.any_op {transform.consumed}) {
    %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch
        block_dims = [256, 1, 1]
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  // Every block-level forall becomes a `gpu.launch` whose nested foralls run
  // on its warps and threads.
  transform.named_sequence @nvidia_map_to_gpu(
      %module: !transform.any_op {transform.readonly}) {
    // Copies bufferization left between buffers (as linalg.copy, see
    // orchestra-nvidia-copies-to-linalg) get block and thread tiles too.
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    %tiled = transform.foreach_match in %func
        @nvidia_match_func_level_p4 -> @nvidia_blocks_p4,
        @nvidia_match_func_level_p3 -> @nvidia_blocks_p3,
        @nvidia_match_func_level_p2 -> @nvidia_blocks_p2,
        @nvidia_match_func_level_p1 -> @nvidia_blocks_p1
        : (!transform.any_op) -> !transform.any_op
    %threads = transform.foreach_match in %tiled
        @nvidia_match_block_level_p4 -> @nvidia_threads_p4,
        @nvidia_match_block_level_p3 -> @nvidia_threads_p3,
        @nvidia_match_block_level_p2 -> @nvidia_threads_p2,
        @nvidia_match_block_level_p1 -> @nvidia_threads_p1
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.foreach_match in %threads
        @nvidia_match_grid_forall -> @nvidia_launch
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %mapped {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %mapped : !transform.any_op
    transform.yield
  }
  // After `convert-vector-to-gpu`: the vector transfers that are not
  // tensor-core operands become loads and stores.
  transform.named_sequence @nvidia_lower_vectors(
      %module: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1
          full_unroll = true
    } : !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
