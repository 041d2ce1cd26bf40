// The transform sequences every GPU strategy shares, vendor-neutral: the
// SIMT path (every structured op in block and thread tiles of its own) and
// the matchers and actions the vendors' matrix-unit recipes build on. The
// target registry loads this file before each GPU arch's own library
// (nvidia_gpu_common.mlir, amd_instinct_cdna3_strategy.mlir), which
// applies these sequences around its matrix-unit recipes:
//
//   * @gpu_tile_simt (stage 5, on tensors): every op directly in a kernel
//     function gets block tiles of its own, sized by how many of its
//     leading loops are parallel (Nx1x8x32, 1x8x32, 32x64 or 256), and is
//     tiled over the block's 256 threads (`#gpu.thread<linear_dim_*>`; 8
//     warps of 32 lanes, or 4 waves of 64) as scalar loops per thread.
//     Producers are not fused. A thread's reduction over a static tile keeps
//     its accumulators in private memory (registers) rather than device
//     memory; an f32 matmul marked `orchestra.gpu_simt_k_loop` steps
//     through K 8 (4, 2) at a time, one vectorized 4x2xK-step contraction
//     per step. Ops whose block tiles the arch's select-recipes pass chose
//     to divide their shape (`orchestra.gpu_block_rows`/`_cols`,
//     lib/Target/GPU/Recipes.cpp) run one thread per element of a tile's
//     last two loops, so that their thread tiles are static;
//   * @gpu_finish_tiles (stage 5): clean-up, accumulators hoisted out of
//     loops, temporaries of block tiles in shared (workgroup) memory and of
//     threads in private memory;
//   * @gpu_tile_copies and @gpu_launch (stage 7, after bufferization): the
//     copies bufferization left get block and thread tiles, and every
//     block-level forall becomes a `gpu.launch` of 256 threads;
//   * @gpu_lower_simt_vectors (stage 7): the vector contractions of the
//     SIMT matmuls become multiply-adds, transfers become loads and stores.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
module attributes {transform.with_named_sequence} {

  //===--------------------------------------------------------------------===//
  // Matchers: the number of leading parallel loops of a structured op.
  //===--------------------------------------------------------------------===//

  // A structured op whose first four / three / two loops are parallel.
  transform.named_sequence @gpu_match_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1, 2, 3] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @gpu_match_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1, 2] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // A structured op whose first two loops are parallel.
  transform.named_sequence @gpu_match_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0, 1] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // A structured op whose first loop is parallel.
  transform.named_sequence @gpu_match_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[0] {parallel} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }
  // ... at task level: directly in a function, or in a loop of it (not yet
  // mapped).
  transform.named_sequence @gpu_match_func_level(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.orchestra.match.task_level %op : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p4 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p3 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p2 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p1 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  // ... directly in a block-level forall (one at task level).
  transform.named_sequence @gpu_match_block_level(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %forall = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %forall ["scf.forall"] : !transform.any_op
    transform.orchestra.match.task_level %forall : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @gpu_match_block_level_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p4 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @gpu_match_block_level_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p3 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  transform.named_sequence @gpu_match_block_level_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p2 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  // ... whose block tile is static (a full tile, or the only one along a
  // dimension shorter than the tile).
  transform.named_sequence @gpu_match_static_block_level_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level_p4 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    transform.orchestra.match.static_shapes %a : !transform.any_op
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @gpu_match_static_block_level_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level_p3 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    transform.orchestra.match.static_shapes %a : !transform.any_op
    transform.yield %a : !transform.any_op
  }
  // ... a two-loop op with block tiles of the select-recipes pass
  // (at most 8x32, static).
  transform.named_sequence @gpu_match_static_block_level_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level_p2 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %rows = transform.orchestra.param_from_attr %a["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.orchestra.match.static_shapes %a : !transform.any_op
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @gpu_match_block_level_p1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    %b = transform.include @gpu_match_p1 failures(propagate) (%a)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %b : !transform.any_op
  }
  // A `tensor.empty` in a block-level forall: block-shared data.
  transform.named_sequence @gpu_match_block_empty(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.empty"] : !transform.any_op
    %a = transform.include @gpu_match_block_level failures(propagate) (%op)
        : (!transform.any_op) -> !transform.any_op
    transform.yield %a : !transform.any_op
  }
  // A `tensor.empty` deeper than that: per thread (or per warp lane).
  transform.named_sequence @gpu_match_private_empty(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["tensor.empty"] : !transform.any_op
    %forall = transform.get_parent_op %op {op_name = "scf.forall"}
        : (!transform.any_op) -> !transform.any_op
    transform.yield %op : !transform.any_op
  }
  // A structured op in a thread tile of static shape whose last loop is a
  // reduction (orchestra-gpu-parallel-loops-first puts the reductions
  // last).
  transform.named_sequence @gpu_match_thread_reduction(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %parent = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %parent ["scf.forall"] : !transform.any_op
    transform.orchestra.match.static_shapes %op : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      transform.match.structured.dim %s[-1] {reduction} : !transform.any_op
    }
    transform.yield %op : !transform.any_op
  }

  //===--------------------------------------------------------------------===//
  // Actions.
  //===--------------------------------------------------------------------===//

  // The accumulators of a thread's reduction in its private memory (which
  // LLVM keeps in registers) instead of device memory: read once before
  // the reduction loops and written once after them, not at every step.
  transform.named_sequence @gpu_private_accumulators(
      %op: !transform.any_op {transform.readonly}) {
    %init = transform.get_operand %op[-1]
        : (!transform.any_op) -> !transform.any_value
    %private = transform.structured.promote_tensor
        to #gpu.address_space<private> %init : !transform.any_value
    transform.yield
  }

  transform.named_sequence @gpu_fuse_producers(
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
  transform.named_sequence @gpu_blocks_p4(
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
  // Ops whose block tiles the select-recipes pass chose to divide
  // their shape (`orchestra.gpu_block_rows` x `_cols` along the last two of
  // their three or four leading parallel loops, or the two of a reduction
  // with two).
  transform.named_sequence @gpu_match_func_level_static_p4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level_p4 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %rows = transform.orchestra.param_from_attr %a["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_static_p3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level_p3 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %rows = transform.orchestra.param_from_attr %a["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @gpu_match_func_level_static_p2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %a = transform.include @gpu_match_func_level_p2 failures(propagate)
        (%op) : (!transform.any_op) -> !transform.any_op
    %rows = transform.orchestra.param_from_attr %a["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    transform.yield %a : !transform.any_op
  }
  transform.named_sequence @gpu_blocks_static_p2(
      %op: !transform.any_op {transform.consumed}) {
    %rows = transform.orchestra.param_from_attr %op["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    %cols = transform.orchestra.param_from_attr %op["orchestra.gpu_block_cols"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [%rows, %cols]
        (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_blocks_static_p4(
      %op: !transform.any_op {transform.consumed}) {
    %rows = transform.orchestra.param_from_attr %op["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    %cols = transform.orchestra.param_from_attr %op["orchestra.gpu_block_cols"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [0, 1, %rows, %cols]
        (mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>,
                    #gpu.block<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_blocks_static_p3(
      %op: !transform.any_op {transform.consumed}) {
    %rows = transform.orchestra.param_from_attr %op["orchestra.gpu_block_rows"]
        : (!transform.any_op) -> !transform.param<i64>
    %cols = transform.orchestra.param_from_attr %op["orchestra.gpu_block_cols"]
        : (!transform.any_op) -> !transform.param<i64>
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [1, %rows, %cols]
        (mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>,
                    #gpu.block<linear_dim_0>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_blocks_p3(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [1, 8, 32]
        (mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>,
                    #gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_blocks_p2(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [32, 64]
        (mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_blocks_p1(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [256] (mapping = [#gpu.block<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // Thread level: the ops of a block tile over its 256 threads.
  // Ops with three or four leading parallel loops have block tiles of one
  // along the outer ones: their threads split the last two.
  transform.named_sequence @gpu_threads_p4(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [0, 0, 8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_threads_p3(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [0, 8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // A static block tile of such an op: one thread per element of its last
  // two loops (those of a full 8x32 tile, fewer threads for a smaller
  // one), so that every thread's tile is static too (what
  // @gpu_private_accumulators needs); the threads beyond the tile's
  // elements idle.
  transform.named_sequence @gpu_threads_static_p4(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [0, 0, 1, 1]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_threads_static_p3(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [0, 1, 1]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_threads_static_p2(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [1, 1]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_threads_p2(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [8, 32]
        (mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @gpu_threads_p1(
      %op: !transform.any_op {transform.consumed}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        num_threads [256] (mapping = [#gpu.thread<linear_dim_0>])
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // An op whose parent is an scf.forall (a thread tile, not a K loop).
  transform.named_sequence @gpu_match_in_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %parent = transform.get_parent_op %op : (!transform.any_op) -> !transform.any_op
    transform.match.operation_name %parent ["scf.forall"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @gpu_vectorize(
      %op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }
  // Memory spaces of the temporaries the bufferization will allocate.
  transform.named_sequence @gpu_in_memory_space(
      %empty: !transform.any_op {transform.readonly},
      %space: !transform.any_param {transform.readonly}) {
    %e = transform.cast %empty : !transform.any_op to !transform.op<"tensor.empty">
    %alloc = transform.bufferization.empty_tensor_to_alloc_tensor %e
        : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
    transform.annotate %alloc "memory_space" = %space
        : !transform.op<"bufferization.alloc_tensor">, !transform.any_param
    transform.yield
  }
  transform.named_sequence @gpu_in_shared_memory(
      %empty: !transform.any_op {transform.readonly}) {
    %space = transform.param.constant #gpu.address_space<workgroup>
        -> !transform.any_param
    transform.include @gpu_in_memory_space failures(propagate)
        (%empty, %space) : (!transform.any_op, !transform.any_param) -> ()
    transform.yield
  }
  transform.named_sequence @gpu_in_private_memory(
      %empty: !transform.any_op {transform.readonly}) {
    %space = transform.param.constant #gpu.address_space<private>
        -> !transform.any_param
    transform.include @gpu_in_memory_space failures(propagate)
        (%empty, %space) : (!transform.any_op, !transform.any_param) -> ()
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 5 (on tensors): the SIMT tiles.
  //===--------------------------------------------------------------------===//
  // Block and thread tiles of every op directly in a kernel function of
  // %module (those a matrix-unit recipe tiled already are in foralls and
  // left alone). Returns the kernel functions.
  transform.named_sequence @gpu_tile_simt(
      %module: !transform.any_op {transform.readonly}) -> !transform.any_op {
    // 2. Everything else: block tiles of each op (the results between the
    //    kernels of a task stay in device memory).
    %func = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    %f1 = transform.foreach_match in %func
        @gpu_match_func_level_static_p4 -> @gpu_blocks_static_p4,
        @gpu_match_func_level_static_p3 -> @gpu_blocks_static_p3,
        @gpu_match_func_level_static_p2 -> @gpu_blocks_static_p2,
        @gpu_match_func_level_p4 -> @gpu_blocks_p4,
        @gpu_match_func_level_p3 -> @gpu_blocks_p3,
        @gpu_match_func_level_p2 -> @gpu_blocks_p2,
        @gpu_match_func_level_p1 -> @gpu_blocks_p1
        : (!transform.any_op) -> !transform.any_op

    // 3. Threads: every op directly in a block tile.
    %f2 = transform.foreach_match in %f1
        @gpu_match_static_block_level_p4 -> @gpu_threads_static_p4,
        @gpu_match_static_block_level_p3 -> @gpu_threads_static_p3,
        @gpu_match_static_block_level_p2 -> @gpu_threads_static_p2,
        @gpu_match_block_level_p4 -> @gpu_threads_p4,
        @gpu_match_block_level_p3 -> @gpu_threads_p3,
        @gpu_match_block_level_p2 -> @gpu_threads_p2,
        @gpu_match_block_level_p1 -> @gpu_threads_p1
        : (!transform.any_op) -> !transform.any_op

    // SIMT matmuls with static thread tiles (marked with the K step by
    // the select-recipes pass): each thread steps through K a few
    // at a time, its 4x2 accumulators in registers (step 4 hoists their
    // reads and writes out of the K loop), each step one vectorized
    // contraction.
    %simt_mm = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.gpu_simt_k_loop} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %simt_mm : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %k_tile = transform.orchestra.param_from_attr
          %mm["orchestra.gpu_simt_k_tile"]
          : (!transform.any_op) -> !transform.param<i64>
      %mk, %k_loop = transform.structured.tile_using_for %mm
          tile_sizes [0, 0, %k_tile]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %mk : !transform.any_op
    }
    // The other reductions of the threads: accumulators in registers.
    %f2r = transform.foreach_match in %f2
        @gpu_match_thread_reduction -> @gpu_private_accumulators
        : (!transform.any_op) -> !transform.any_op
    transform.yield %f2r : !transform.any_op
  }
  // After the recipes: clean-up, and the memory spaces of the temporaries
  // bufferization will allocate. %funcs are the kernel functions of
  // %module.
  transform.named_sequence @gpu_finish_tiles(
      %module: !transform.any_op {transform.readonly},
      %f2r: !transform.any_op {transform.consumed}) {
    // 4. Clean up (no CSE: it would merge the empty tensors that
    //    the select-recipes pass split, and make kernels share
    //    buffers); keep the matrix-unit accumulators in registers across
    //    the K loop (the read/write pair of each accumulator tile is hoisted
    //    out of it).
    transform.apply_patterns to %f2r {
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
    %f3 = transform.foreach_match in %f2r
        @gpu_match_block_empty -> @gpu_in_shared_memory,
        @gpu_match_private_empty -> @gpu_in_private_memory
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Stage 7 (on memrefs, after bufferization).
  //===--------------------------------------------------------------------===//
  // Copies bufferization left between buffers (as linalg.copy, see
  // orchestra-gpu-copies-to-linalg) get block and thread tiles too.
  // Returns the functions.
  transform.named_sequence @gpu_tile_copies(
      %staged: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %tiled = transform.foreach_match in %staged
        @gpu_match_func_level_p4 -> @gpu_blocks_p4,
        @gpu_match_func_level_p3 -> @gpu_blocks_p3,
        @gpu_match_func_level_p2 -> @gpu_blocks_p2,
        @gpu_match_func_level_p1 -> @gpu_blocks_p1
        : (!transform.any_op) -> !transform.any_op
    %threads = transform.foreach_match in %tiled
        @gpu_match_block_level_p4 -> @gpu_threads_p4,
        @gpu_match_block_level_p3 -> @gpu_threads_p3,
        @gpu_match_block_level_p2 -> @gpu_threads_p2,
        @gpu_match_block_level_p1 -> @gpu_threads_p1
        : (!transform.any_op) -> !transform.any_op
    transform.yield %threads : !transform.any_op
  }
  // A block-level forall (one at task level).
  transform.named_sequence @gpu_match_grid_forall(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["scf.forall"] : !transform.any_op
    transform.orchestra.match.task_level %op : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  // A block-level forall (SIMT) becomes a `gpu.launch` of 256 threads.
  transform.named_sequence @gpu_launch(
      %forall: !transform.any_op {transform.consumed}) {
    %launch = transform.gpu.map_forall_to_blocks %forall generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %mapped = transform.gpu.map_nested_forall_to_threads %launch
        block_dims = [256, 1, 1]
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  // After the matrix-unit rewrites: the vector contractions left (SIMT
  // matmuls' K steps) become multiply-adds, and transfers loads and stores.
  transform.named_sequence @gpu_lower_simt_vectors(
      %func: !transform.any_op {transform.readonly}) {
    transform.apply_patterns to %func {
      transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
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
