// Stage-5 strategy for `x86_64` kernel modules (applied by the upstream
// `transform-interpreter` with entry point @__orchestra_x86_64_strategy, see
// lib/Target/CPU/CPUTarget.cpp; test/strategies/x86_64-strategy.mlir
// applies it). It relies on the tags that
// `orchestra-outline-tasks` puts on each kernel:
//
//   * `orchestra.fusion_root` / `orchestra.fusion_root_d1`: the op producing
//     the kernel's first result, whose first (second) loop is parallel
//     (`_wide` / `_tall`: around a matmul of at least 128 / 1024 rows, tiled
//     to 64 / 128 rows; `_short`: a first loop of 2 to 15 iterations and
//     no matmul, tiled to one; roots tiled by rows carry the rows of a
//     tile as `orchestra.tile_rows`, which orchestra-cpu-select-tiles
//     chooses before this script runs, fewer when that balances the
//     device's threads; `_d1_conv`: around an NCHW convolution;
//     `_nhwc_rows` / `_nhwc_rows_channels`: around a channels-last
//     convolution or pooling, tiled by output rows, and by 16 channels
//     when there are fewer than 14 rows; `_nhwc_channels`: a channels-last
//     convolution of fewer than 14 rows and a multiple of 32 channels,
//     tiled by 32 channels over all rows; `_nhwc_groups`: a grouped
//     convolution of fewer than 14 rows, tiled by one group over all
//     rows (a dynamic batch is tiled by one image too, so that each tile
//     has the static shapes of a batch of one); `_ndhwc_rows` / `_ndhwc_channels` / `_ndhwc_rows_channels`:
//     the same around a channels-last 3-D convolution or pooling, whose
//     rows are those of every output depth);
//   * `orchestra.fusion_root_cols`: put by orchestra-cpu-select-tiles in place
//     of `orchestra.fusion_root` around a matmul of few rows and a large B,
//     tiled by `orchestra.tile_cols` columns over all rows;
//   * `orchestra.fusion_producer`: every structured op the root depends on.
//
// Size: about 1,650 lines (50 sequences), over the project's 1,000: every
// tag above has its tiling sequence here, next to the matchers that route to
// it, and the tuner's matmul variants (`matmul_variant_*`) must be in the
// script the registry names for the arch. Vendor-neutral pieces that another
// CPU arch would share go into a library file, as the NVIDIA scripts do.
//
// Steps:
//   1. tile the root's parallel loop into an `scf.forall` (one iteration per
//      `orchestra.tile_rows` rows, 8 by default; the forall becomes an
//      OpenMP loop over the device's cores) and
//      fuse its producers into the tile (matmul + bias + activation,
//      reduction + normalisation, ... become one loop nest per row block).
//      One-row roots (`orchestra.fusion_root_d1`) get 512-column tiles, and
//      their matmuls (GEMV) stream the rows of B: steps of 8 rows of K by
//      64 columns, vectorized at once (the columns' remainder goes on to
//      step 2);
//   2. tile matmuls to cache blocks of B (64 columns x 128 of K), then
//      contractions to register-sized blocks (8x32 outputs: sixteen
//      512-bit accumulators; K by 1), peeling the row and column loops
//      so that whole register tiles are static; matmuls with at least 1024
//      columns and 1024 of K get 128x512 blocks and 4x64 register tiles
//      instead, and a tuning cache (orchestra-tune) can name any variant;
//      a B packed at compile time in the blocks of b128x256_r6x64
//      (orchestra-cpu-pack-matmul-blocks, design note 0020) gets that
//      variant, whose register tiles read the packed blocks in place;
//   3. tile every other structured op (elementwise, data movement,
//      reductions) to one element of each outer loop and 8 of the
//      innermost, so that no vector is larger than a register or two
//      (vectors of whole tiles make LLVM's compile time explode: a
//      ResNet-18 took minutes, now seconds);
//   4. vectorize every structured op with static shapes and lower the
//      vector ops towards what the LLVM backend turns into FMAs;
//   5. tile convolutions (channels-last after
//      orchestra-convert-convolutions-to-nhwc, or NCHW) and NCHW poolings to
//      one output row, decompose them into 1-D ops and vectorize those one
//      by one, with only the patterns that are correct on them
//      (test/e2e/conv-vectorized.mlir); grouped convolutions first become
//      one dense convolution per group (test/e2e/conv-grouped.mlir), 3-D
//      ones and 3-D poolings one 2-D op per output and kernel depth
//      (test/e2e/conv-3d.mlir);
//   6. hoist the accumulators out of the reduction loops, so that they stay
//      in registers instead of being read and written at every step;
//   7. rewrite paddings as a fill and an insert_slice, so that a task
//      writes its padded result in place.
// Remainders (a dimension that is not a multiple of the tile size): the
// register loops of matmuls are peeled, so that their whole tiles are static
// and vectorized, and the partial tiles become 8-column masked vectors
// (step 4b, test/e2e/matmul-remainders.mlir). Partial tiles of other ops stay
// scalar loops, and so do NCHW depthwise convolutions (upstream decomposes
// only the NHWC form).
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%s --transform-interpreter=entry-point=__orchestra_x86_64_strategy -o /dev/null
module attributes {transform.with_named_sequence} {
  // Step 3's matchers: a structured op other than a contraction,
  // convolution or pooling, of rank
  // N, whose indexing maps can be tiled (no negated loop dimension).
  transform.named_sequence @match_elementwise_like(
      %op: !transform.any_op {transform.readonly}) -> !transform.param<i64> {
    transform.match.operation_name %op ["linalg.generic", "linalg.fill",
        "linalg.copy", "linalg.transpose", "linalg.broadcast",
        "linalg.reduce", "linalg.map"] : !transform.any_op
    %rank = transform.match.structured failures(propagate) %op
        : (!transform.any_op) -> !transform.param<i64> {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s
          : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.yield %r : !transform.param<i64>
    }
    transform.yield %rank : !transform.param<i64>
  }
  transform.named_sequence @match_rank1(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 1 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank1(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op
        tile_sizes [8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank2(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank2(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:2 = transform.structured.tile_using_for %op
        tile_sizes [1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank3(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 3 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank3(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:3 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank4(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank4(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:4 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank5(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 5 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank5(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:5 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank6(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 6 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank6(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:6 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 1, 1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank7(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 7 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank7(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:7 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 1, 1, 1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @match_rank8(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %rank = transform.include @match_elementwise_like failures(propagate)
        (%op) : (!transform.any_op) -> !transform.param<i64>
    %c = transform.param.constant 8 : i64 -> !transform.param<i64>
    transform.match.param.cmpi eq %rank, %c : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tile_rank8(
      %op: !transform.any_op {transform.consumed}) {
    %t, %l:8 = transform.structured.tile_using_for %op
        tile_sizes [1, 1, 1, 1, 1, 1, 1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
  // Channels-last grouped convolutions, which step 5 computes one group at
  // a time; step 3 leaves them alone.
  transform.named_sequence @match_grouped_conv(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.orchestra.match.grouped_conv %op : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @leave_for_step5(
      %op: !transform.any_op {transform.readonly}) {
    transform.yield
  }
  // Splits a loop whose trip count may not divide its step into a main
  // loop of whole steps (whose tiles become static) and a last, partial
  // iteration. Fails (suppressed by the callers) when the loop divides.
  transform.named_sequence @peel_if_needed(
      %loop: !transform.op<"scf.for"> {transform.consumed}) {
    %main, %rest = transform.loop.peel %loop
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  // Register tiles of a channels-last convolution: one output row, 7
  // columns, `%lanes` output channels and one input channel per step. The
  // column and channel loops are peeled, so that a remainder (16 of 48
  // channels, 3 of 10 columns) is a static tile of its own.
  // Channels-last 3x3 (or larger) convolutions with at least 256 input
  // channels (ResNet's layer3 and layer4, filters of 2.4-9.4 MB): every
  // output row of a register-tile loop reads its whole slice of the filter,
  // which does not stay in L1. Tiling the filter rows (kh) and the input
  // channels by 64 outside the output rows keeps a kw x 64 x channels block
  // of the filter in L1 while all the rows use it; the accumulators go to
  // memory and back once per block (1 thread, layer3 2.0 -> 1.3 ms, layer4
  // 2.0 -> 1.7 ms; docs/PERFORMANCE.md).
  transform.named_sequence @match_deep_conv_nhwc(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"]
        : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      // (n, oh, ow, f, kh, kw, c)
      %c = transform.match.structured.dim %s[6]
          : (!transform.any_op) -> !transform.param<i64>
      %deep = transform.param.constant 256 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %c, %deep : !transform.param<i64>
      %kh = transform.match.structured.dim %s[4]
          : (!transform.any_op) -> !transform.param<i64>
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %kh, %two : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @conv_nhwc_register_tiles(
      %c: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    // (n, oh, ow, f, kh, kw, c)
    %t, %l:6 = transform.structured.tile_using_for %c
        tile_sizes [1, 1, 7, %lanes, 1, 0, 1]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op)
    %lf = transform.cast %l#3 : !transform.any_op to !transform.op<"scf.for">
    %lw = transform.cast %l#2 : !transform.any_op to !transform.op<"scf.for">
    transform.include @peel_if_needed failures(suppress) (%lf)
        : (!transform.op<"scf.for">) -> ()
    transform.include @peel_if_needed failures(suppress) (%lw)
        : (!transform.op<"scf.for">) -> ()
    transform.yield
  }
  // Register tiles of an 8-bit matmul for transform.orchestra.cpu_int8_dot:
  // 7 rows x `%columns` columns over the whole of K, the column loop
  // outside the row loop, both peeled; then the canonicalization that makes
  // the sizes of single partial tiles static, and the op on every tile
  // (one it refuses stays a matmul for the generic path).
  transform.named_sequence @matmul_int8_dot_tiles(
      %mm: !transform.any_op {transform.consumed},
      %columns: !transform.param<i64> {transform.readonly}) {
    %func = transform.get_parent_op %mm {op_name = "func.func"}
        : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm
        tile_sizes [7, %columns, 0] interchange = [1, 0, 2]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %outer = transform.cast %l#0 : !transform.any_op to !transform.op<"scf.for">
    %inner = transform.cast %l#1 : !transform.any_op to !transform.op<"scf.for">
    transform.include @peel_if_needed failures(suppress) (%inner)
        : (!transform.op<"scf.for">) -> ()
    transform.include @peel_if_needed failures(suppress) (%outer)
        : (!transform.op<"scf.for">) -> ()
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles_512 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.int8_dot = 512 : i64} in %func
        : (!transform.any_op) -> !transform.any_op
    %tiles_256 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.int8_dot = 256 : i64} in %func
        : (!transform.any_op) -> !transform.any_op
    %tiles = transform.merge_handles %tiles_512, %tiles_256 : !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.sequence %tile : !transform.any_op failures(suppress) {
      ^bb1(%x: !transform.any_op):
        transform.orchestra.cpu_int8_dot %x : !transform.any_op
      }
    }
    transform.yield
  }
  // An 8-bit convolution whose register tiles' filter bytes (kh x kw x C x
  // 32) would not stay in L1: 128 or more input channels and taps in more
  // than one row.
  transform.named_sequence @match_deep_int8_conv(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.conv_2d_nhwc_hwcf"]
        : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      // (n, oh, ow, f, kh, kw, c)
      %c = transform.match.structured.dim %s[6]
          : (!transform.any_op) -> !transform.param<i64>
      %deep = transform.param.constant 128 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %c, %deep : !transform.param<i64>
      %kh = transform.match.structured.dim %s[4]
          : (!transform.any_op) -> !transform.param<i64>
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %kh, %two : !transform.param<i64>
      %in = transform.match.structured.input %s[0]
          : (!transform.any_op) -> !transform.any_value
      %bits = transform.match.structured.elemental_bitwidth %in
          : (!transform.any_value) -> !transform.param<i64>
      %eight = transform.param.constant 8 : i64 -> !transform.param<i64>
      transform.match.param.cmpi eq %bits, %eight : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  // Register tiles of an 8-bit convolution for
  // transform.orchestra.cpu_int8_dot: one output row, 7 columns and
  // `%channels` output channels, with all the filter taps and input
  // channels; the column and channel loops peeled like
  // @conv_nhwc_register_tiles'; then, as for the matmuls, the
  // canonicalization that makes the sizes of single partial tiles static
  // and the op on every tile (one it refuses stays a convolution for the
  // generic path).
  transform.named_sequence @conv_int8_dot_tiles(
      %c: !transform.any_op {transform.consumed},
      %channels: !transform.param<i64> {transform.readonly}) {
    %func = transform.get_parent_op %c {op_name = "func.func"}
        : (!transform.any_op) -> !transform.any_op
    // (n, oh, ow, f, kh, kw, c); the channels outside the columns, so that
    // a channel tile's filter bytes stay in L1 across its columns and the
    // op computes the tile's corrections once for all of them.
    %t, %l:4 = transform.structured.tile_using_for %c
        tile_sizes [1, 1, 7, %channels, 0, 0, 0]
        interchange = [0, 1, 3, 2, 4, 5, 6]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op, !transform.any_op)
    %lf = transform.cast %l#2 : !transform.any_op to !transform.op<"scf.for">
    %lw = transform.cast %l#3 : !transform.any_op to !transform.op<"scf.for">
    transform.include @peel_if_needed failures(suppress) (%lw)
        : (!transform.op<"scf.for">) -> ()
    transform.include @peel_if_needed failures(suppress) (%lf)
        : (!transform.op<"scf.for">) -> ()
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles_512 = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.int8_dot = 512 : i64} in %func
        : (!transform.any_op) -> !transform.any_op
    %tiles_256 = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.int8_dot = 256 : i64} in %func
        : (!transform.any_op) -> !transform.any_op
    %tiles = transform.merge_handles %tiles_512, %tiles_256 : !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.sequence %tile : !transform.any_op failures(suppress) {
      ^bb1(%x: !transform.any_op):
        transform.orchestra.cpu_int8_dot %x : !transform.any_op
      }
    }
    transform.yield
  }
  // Tuned matmuls (orchestra-tune, docs/Tuning.md): the tuning cache names
  // one of the variants below for a matmul shape, and
  // orchestra-apply-tuning-cache puts its name on the op as
  // `orchestra.tile_variant`. A variant is cache blocks of B (NC columns x
  // KC of K) and register tiles (MR x NR outputs, K by 1); its whole
  // register tiles are vectorized here, and partial ones go on to step 2.
  // The variants' names, `@matmul_variant_<name>`, are what orchestra-tune
  // searches: add one here and it is tried, without rebuilding anything.
  transform.named_sequence @matmul_blocks(
      %mm: !transform.any_op {transform.consumed},
      %nc: !transform.param<i64> {transform.readonly},
      %kc: !transform.param<i64> {transform.readonly},
      %mr: !transform.param<i64> {transform.readonly},
      %nr: !transform.param<i64> {transform.readonly}) {
    %b, %bl:2 = transform.structured.tile_using_for %mm
        tile_sizes [0, %nc, %kc]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @matmul_register_tiles failures(propagate)
        (%b, %bl#1, %mr, %nr)
        : (!transform.any_op, !transform.any_op, !transform.param<i64>,
           !transform.param<i64>) -> ()
    transform.yield
  }
  // The same with B packed: each cache block of B is copied into a
  // contiguous buffer of NC x KC (a `tensor.pad` that is kept, not folded),
  // and a partial block is padded with zeros to a whole one, so that the
  // register tiles read B with a stride of NC, not of the matrix's width
  // (which, when it is a power of two, maps the block onto few cache sets).
  // The copy is made by every parallel tile that uses the block. On the
  // development machine it pays with small blocks (b64x128_r4x64: 1024^3
  // 8.4 -> 7.3 ms, 2048^3 68 -> 62 ms) but not with the default's large
  // ones (b128x256_r6x64: 5.8 -> 6.2 ms, 49 -> 51 ms; docs/PERFORMANCE.md),
  // so the packed variants are left to the tuner.
  transform.named_sequence @matmul_packed_blocks(
      %mm: !transform.any_op {transform.consumed},
      %nc: !transform.param<i64> {transform.readonly},
      %kc: !transform.param<i64> {transform.readonly},
      %mr: !transform.param<i64> {transform.readonly},
      %nr: !transform.param<i64> {transform.readonly}) {
    %b, %bl:2 = transform.structured.tile_using_for %mm
        tile_sizes [0, %nc, %kc]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %packed, %pad, %copy = transform.structured.pad %b {
        padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32],
        padding_dimensions = [1, 2],
        nofold_flags = [0, 1, 0],
        copy_back_op = "none"
    } : (!transform.any_op)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @matmul_register_tiles failures(propagate)
        (%packed, %bl#1, %mr, %nr)
        : (!transform.any_op, !transform.any_op, !transform.param<i64>,
           !transform.param<i64>) -> ()
    transform.yield
  }
  // Register tiles (MR x NR outputs, K by 1) of a cache block `%b` inside
  // the loop `%scope`; the row and column loops are peeled, and the whole
  // tiles vectorized.
  transform.named_sequence @matmul_register_tiles(
      %b: !transform.any_op {transform.consumed},
      %scope: !transform.any_op {transform.readonly},
      %mr: !transform.param<i64> {transform.readonly},
      %nr: !transform.param<i64> {transform.readonly}) {
    %t, %l:3 = transform.structured.tile_using_for %b
        tile_sizes [%mr, %nr, 1]
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op)
    %ln = transform.cast %l#1 : !transform.any_op to !transform.op<"scf.for">
    %lm = transform.cast %l#0 : !transform.any_op to !transform.op<"scf.for">
    transform.include @peel_if_needed failures(suppress) (%ln)
        : (!transform.op<"scf.for">) -> ()
    transform.include @peel_if_needed failures(suppress) (%lm)
        : (!transform.op<"scf.for">) -> ()
    // A B packed in these blocks at compile time
    // (orchestra-cpu-pack-matmul-blocks) is read in place.
    transform.apply_patterns to %scope {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.orchestra.fold_unpack_slices
    } : !transform.any_op
    %parts = transform.structured.match ops{["linalg.matmul"]} in %scope
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %parts : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      transform.sequence %p : !transform.any_op failures(suppress) {
      ^bb1(%q: !transform.any_op):
        transform.structured.vectorize %q : !transform.any_op
      }
    }
    // What vectorize_children_and_apply_patterns (step 4) would do: the
    // vectorized tiles become vector.contract (and later FMAs).
    transform.apply_patterns to %scope {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x128_r8x32(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 8 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b64x256_r8x32(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 64 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 8 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x256_r8x32(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 8 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b256x128_r8x32(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 8 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b32x512_r8x32(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 32 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 512 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 8 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x128_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b64x128_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 64 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b256x128_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x256_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b256x256_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x128_r6x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b256x128_r6x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x256_r6x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b512x128_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 512 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x512_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 512 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b256x512_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 512 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b512x256_r4x64(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 512 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  // Register tiles for 256-bit vectors (AVX2 targets, 16 vector
  // registers): 6 x 16 outputs are twelve accumulators. The default tiles
  // (for 32 registers of 512 bits) spill on such a target, but on the
  // development machine (`cpu = "haswell"`) not by enough to make these the
  // default: 1024^3 15.3 vs 16.0 ms, 128x512x2048 1.63 vs 1.92 ms, but
  // 384x3072x768 14.5 vs 14.1 ms (docs/PERFORMANCE.md). Left to the tuner.
  transform.named_sequence @matmul_variant_b64x256_r6x16(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 64 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x256_r6x16(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 16 : i64 -> !transform.param<i64>
    transform.include @matmul_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b128x256_r6x64_packed(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 256 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 6 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_packed_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  transform.named_sequence @matmul_variant_b64x128_r4x64_packed(
      %mm: !transform.any_op {transform.consumed}) {
    %nc = transform.param.constant 64 : i64 -> !transform.param<i64>
    %kc = transform.param.constant 128 : i64 -> !transform.param<i64>
    %mr = transform.param.constant 4 : i64 -> !transform.param<i64>
    %nr = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @matmul_packed_blocks failures(propagate)
        (%mm, %nc, %kc, %mr, %nr)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> ()
    transform.yield
  }
  // Untuned matmuls with at least 1024 columns and 768 of K get
  // @matmul_variant_b128x256_r6x64 (24 accumulators, enough to keep two
  // full-width 512-bit FMA pipes busy, and 256 of K per cache block of B):
  // on a Zen 5 machine 0.72 -> 0.90-0.93 of oneDNN on 1024^3 and 0.69 ->
  // 0.85-0.89 on 2048^3 (docs/PERFORMANCE.md). Narrower ones with at
  // least 512 columns and 2048 of K (a transformer's second feed-forward
  // matmul) get @matmul_variant_b512x256_r4x64, the tuner's choice for
  // 128x512x2048 on both machines it ran on.
  transform.named_sequence @match_large_matmul(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.dim %s[1]
          : (!transform.any_op) -> !transform.param<i64>
      %k = transform.match.structured.dim %s[2]
          : (!transform.any_op) -> !transform.param<i64>
      %large = transform.param.constant 1024 : i64 -> !transform.param<i64>
      %deep = transform.param.constant 768 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %large : !transform.param<i64>
      transform.match.param.cmpi ge %k, %deep : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_deep_matmul(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.matmul"] : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.dim %s[1]
          : (!transform.any_op) -> !transform.param<i64>
      %k = transform.match.structured.dim %s[2]
          : (!transform.any_op) -> !transform.param<i64>
      %wide = transform.param.constant 512 : i64 -> !transform.param<i64>
      %deep = transform.param.constant 2048 : i64 -> !transform.param<i64>
      transform.match.param.cmpi ge %n, %wide : !transform.param<i64>
      transform.match.param.cmpi ge %k, %deep : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__orchestra_x86_64_strategy(
      %module: !transform.any_op {transform.consumed}) {
    // 1. Parallel tiles of each fusion root, producers fused in. Roots
    // tiled by rows (`orchestra.fusion_root`, `_short`, `_wide`, `_tall`)
    // take the rows of a tile from `orchestra.tile_rows`, which
    // orchestra-cpu-select-tiles chose for the tag and the device's threads:
    // 8 rows (a matmul's register tile), 1 (the heads of an attention
    // softmax, too few rows for two 8-row tiles), 64 around a matmul of at
    // least 128 rows and 128 around one of at least 1024, so that the rows
    // reuse each block of B (step 2) from the cache (2048^3: 0.82 -> 0.90
    // of oneDNN); fewer when that balances the threads.
    %roots_plain = transform.structured.match
        attributes{orchestra.fusion_root} in %module
        : (!transform.any_op) -> !transform.any_op
    %roots_short = transform.structured.match
        attributes{orchestra.fusion_root_short} in %module
        : (!transform.any_op) -> !transform.any_op
    %roots_wide = transform.structured.match
        attributes{orchestra.fusion_root_wide} in %module
        : (!transform.any_op) -> !transform.any_op
    %roots_tall = transform.structured.match
        attributes{orchestra.fusion_root_tall} in %module
        : (!transform.any_op) -> !transform.any_op
    %roots = transform.merge_handles %roots_plain, %roots_short, %roots_wide,
        %roots_tall : !transform.any_op
    transform.foreach %roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %rows = transform.orchestra.param_from_attr %root["orchestra.tile_rows"]
          : (!transform.any_op) -> !transform.param<i64>
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [%rows]
          : (!transform.any_op, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    %roots_d1 = transform.structured.match
        attributes{orchestra.fusion_root_d1} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_d1 : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 512] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      // One-row 8-bit matmuls on a CPU with VNNI: the dot-product tiles of
      // step 2 now (one row, two vectors of columns over all of K), which
      // read a packed B as it is. Both kinds are matched in the parallel
      // loop before either is tiled: the tiles' canonicalization may fold a
      // loop of one iteration away (and erase a matmul outside it that the
      // fusion left dead).
      %gemvs_int8_512 = transform.structured.match ops{["linalg.matmul"]}
          attributes{orchestra.int8_dot = 512 : i64} in %loop
          : (!transform.any_op) -> !transform.any_op
      %gemvs_int8_256 = transform.structured.match ops{["linalg.matmul"]}
          attributes{orchestra.int8_dot = 256 : i64} in %loop
          : (!transform.any_op) -> !transform.any_op
      transform.foreach %gemvs_int8_512 : !transform.any_op {
      ^bb1(%mv: !transform.any_op):
        %columns = transform.param.constant 32 : i64 -> !transform.param<i64>
        transform.include @matmul_int8_dot_tiles failures(propagate)
            (%mv, %columns) : (!transform.any_op, !transform.param<i64>) -> ()
      }
      transform.foreach %gemvs_int8_256 : !transform.any_op {
      ^bb1(%mv: !transform.any_op):
        %columns = transform.param.constant 16 : i64 -> !transform.param<i64>
        transform.include @matmul_int8_dot_tiles failures(propagate)
            (%mv, %columns) : (!transform.any_op, !transform.param<i64>) -> ()
      }
      // Other one-row matmuls: B is read once, so the loop over K is outside
      // the loop over columns and every step reads 8 rows of 64 contiguous
      // columns (the accumulators stay in L1, not in registers). (A loop
      // folded away above leaves %loop empty: no iteration.)
      transform.foreach %loop : !transform.any_op {
      ^bb0(%parallel: !transform.any_op):
        %gemvs = transform.structured.match ops{["linalg.matmul"]} in %parallel
            : (!transform.any_op) -> !transform.any_op
        transform.foreach %gemvs : !transform.any_op {
        ^bb1(%mv: !transform.any_op):
          transform.sequence %mv : !transform.any_op failures(suppress) {
          ^bb2(%x: !transform.any_op):
            %t, %l:3 = transform.structured.tile_using_for %x
                tile_sizes [1, 64, 8] interchange = [0, 2, 1]
                : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                          !transform.any_op, !transform.any_op)
            %ln = transform.cast %l#2 : !transform.any_op
                to !transform.op<"scf.for">
            transform.include @peel_if_needed failures(suppress) (%ln)
                : (!transform.op<"scf.for">) -> ()
            transform.apply_patterns to %l#1 {
              transform.apply_patterns.canonicalization
            } : !transform.any_op
            %parts = transform.structured.match ops{["linalg.matmul"]} in %l#1
                : (!transform.any_op) -> !transform.any_op
            transform.foreach %parts : !transform.any_op {
            ^bb3(%p: !transform.any_op):
              transform.sequence %p : !transform.any_op failures(suppress) {
              ^bb4(%q: !transform.any_op):
                transform.structured.vectorize %q : !transform.any_op
              }
            }
          }
        }
      }
    }

    // Roots around a matmul of few rows and a large B
    // (`orchestra.fusion_root_cols`, chosen by orchestra-cpu-select-tiles):
    // all rows, `orchestra.tile_cols` columns per parallel tile, so that each
    // thread reads its share of B once instead of all of B once per 8-row
    // tile. Step 2 makes the register tiles.
    %roots_cols = transform.structured.match
        attributes{orchestra.fusion_root_cols} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_cols : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %cols = transform.orchestra.param_from_attr %root["orchestra.tile_cols"]
          : (!transform.any_op) -> !transform.param<i64>
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [%zero, %cols]
          : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
          -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // Roots of tasks around a convolution (batch 1): 16 output channels per
    // parallel tile, the vector lanes of step 5.
    %roots_conv = transform.structured.match
        attributes{orchestra.fusion_root_d1_conv} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_conv : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // Roots of tasks around a channels-last convolution (batch 1, output
    // N x H x W x C): one output row per parallel tile, and 16 channels too
    // when the rows are fewer than 14 (7x7 maps would leave a core idle).
    // The convolutions' inputs are computed once, outside the loop.
    %roots_nhwc = transform.structured.match
        attributes{orchestra.fusion_root_nhwc_rows} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_nhwc : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    // Roots of channels-last convolutions with fewer than 14 rows and a
    // multiple of 32 channels (ResNet's layer4): 32 channels over all rows
    // per parallel tile, so that each tile's slice of the filter stays in
    // the core's cache across the rows instead of being read once per row.
    %roots_nhwc_f = transform.structured.match
        attributes{orchestra.fusion_root_nhwc_channels} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_nhwc_f : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [1, 0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %roots_nhwc_c = transform.structured.match
        attributes{orchestra.fusion_root_nhwc_rows_channels} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_nhwc_c : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [1, 1, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // Roots of grouped convolutions ([1, OH, OW, G, M/G]) with fewer than
    // 14 rows: one group over all rows per parallel tile, so that the
    // group's slice of the filter stays in the core's cache across the rows.
    %roots_nhwc_g = transform.structured.match
        attributes{orchestra.fusion_root_nhwc_groups} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_nhwc_g : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [1, 0, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // Roots of tasks around a channels-last 3-D convolution or pooling
    // (batch 1, output N x D x H x W x C): one output row of one depth per
    // parallel tile; with fewer than 14 such rows, 32 channels over all of
    // them (dense convolutions with a multiple of 32 channels) or one row
    // and 16 channels, as for 2-D ones.
    %roots_ndhwc = transform.structured.match
        attributes{orchestra.fusion_root_ndhwc_rows} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_ndhwc : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %roots_ndhwc_f = transform.structured.match
        attributes{orchestra.fusion_root_ndhwc_channels} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_ndhwc_f : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 0, 0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %roots_ndhwc_c = transform.structured.match
        attributes{orchestra.fusion_root_ndhwc_rows_channels} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_ndhwc_c : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 1, 1, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // Fold the tile-size computations of the loops above (a root whose
    // parallel dimension is smaller than the tile leaves a single-iteration
    // loop and `affine.min` sizes) so that the tiles below are static.
    transform.apply_patterns to %module {
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // 2. Register tiles of the contractions: first the 8-bit matmuls and
    //    convolutions on a CPU with VNNI, then the matmuls a tuning cache chose a variant
    //    for, then all the others. An 8-bit matmul (tagged
    //    `orchestra.int8_dot` with the vector width by
    //    orchestra-cpu-tag-tiling) gets register tiles of 7 rows and two
    //    vectors of columns (32 at 512 bits, 16 at 256) over the whole of
    //    K, column tiles outside row tiles so that a tile's K x 32 bytes of
    //    B stay in L1 while every row tile reads them, remainders peeled;
    //    transform.orchestra.cpu_int8_dot computes each with dot-product
    //    instructions. A tile the op refuses stays a matmul for the
    //    generic path below.
    %mm_int8_512 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.int8_dot = 512 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm_int8_512 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %columns = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.include @matmul_int8_dot_tiles failures(propagate)
          (%mm, %columns) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %mm_int8_256 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.int8_dot = 256 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm_int8_256 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %columns = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.include @matmul_int8_dot_tiles failures(propagate)
          (%mm, %columns) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    // The 8-bit convolutions the same way (before step 4, which would
    // vectorize the unpack of a packed filter they read; and before the
    // deep convolutions' reduction tiles of step 5): register tiles of one
    // output row, 7 columns and two vectors of output channels (32 at 512
    // bits, 16 at 256), remainders peeled, each computed with dot-product
    // instructions over all its filter taps and input channels.
    // A deep one (@match_deep_int8_conv) first by filter rows and 64 input
    // channels, so that the filter bytes of a register tile (3 x 64 x 32)
    // stay in L1 while every tile of the parallel tile's rows and columns
    // reads them; the accumulators are read and written once per block.
    %convs_int8_deep = transform.collect_matching @match_deep_int8_conv
        in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_int8_deep : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %t, %l:2 = transform.structured.tile_using_for %c
          tile_sizes [0, 0, 0, 0, 1, 0, 64]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op)
    }
    %convs_int8_512 = transform.structured.match
        ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.int8_dot = 512 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_int8_512 : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %lanes = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.include @conv_int8_dot_tiles failures(propagate)
          (%c, %lanes) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %convs_int8_256 = transform.structured.match
        ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.int8_dot = 256 : i64} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_int8_256 : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %lanes = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.include @conv_int8_dot_tiles failures(propagate)
          (%c, %lanes) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %tuned_b128x128_r8x32 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x128_r8x32"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x128_r8x32 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x128_r8x32 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b64x256_r8x32 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b64x256_r8x32"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b64x256_r8x32 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b64x256_r8x32 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x256_r8x32 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x256_r8x32"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x256_r8x32 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x256_r8x32 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b256x128_r8x32 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b256x128_r8x32"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b256x128_r8x32 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b256x128_r8x32 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b32x512_r8x32 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b32x512_r8x32"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b32x512_r8x32 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b32x512_r8x32 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x128_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x128_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x128_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x128_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b64x128_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b64x128_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b64x128_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b64x128_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b256x128_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b256x128_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b256x128_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b256x128_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x256_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x256_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x256_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x256_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b256x256_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b256x256_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b256x256_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b256x256_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x128_r6x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x128_r6x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x128_r6x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x128_r6x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b256x128_r6x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b256x128_r6x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b256x128_r6x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b256x128_r6x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x256_r6x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x256_r6x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x256_r6x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x256_r6x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b512x128_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b512x128_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b512x128_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b512x128_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x512_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x512_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x512_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x512_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b256x512_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b256x512_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b256x512_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b256x512_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b512x256_r4x64 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b512x256_r4x64"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b512x256_r4x64 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b512x256_r4x64 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b64x256_r6x16 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b64x256_r6x16"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b64x256_r6x16 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b64x256_r6x16 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x256_r6x16 = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x256_r6x16"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x256_r6x16 : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x256_r6x16 failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b128x256_r6x64_packed = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b128x256_r6x64_packed"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b128x256_r6x64_packed : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b128x256_r6x64_packed failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %tuned_b64x128_r4x64_packed = transform.structured.match ops{["linalg.matmul"]}
        attributes{orchestra.tile_variant = "b64x128_r4x64_packed"} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tuned_b64x128_r4x64_packed : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.include @matmul_variant_b64x128_r4x64_packed failures(propagate) (%mm)
          : (!transform.any_op) -> ()
    }
    %module_large = transform.foreach_match in %module
        @match_large_matmul -> @matmul_variant_b128x256_r6x64,
        @match_deep_matmul -> @matmul_variant_b512x256_r4x64
        : (!transform.any_op) -> !transform.any_op
    %matmuls = transform.structured.match ops{["linalg.matmul"]} in %module_large
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %matmuls : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      // Cache blocks of B (64 columns x 128 of K, 32 KiB), then the
      // register tiles.
      %b, %bl:2 = transform.structured.tile_using_for %mm
          tile_sizes [0, 64, 128]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op)
      %t, %l:3 = transform.structured.tile_using_for %b tile_sizes [8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op)
      %ln = transform.cast %l#1 : !transform.any_op to !transform.op<"scf.for">
      %lm = transform.cast %l#0 : !transform.any_op to !transform.op<"scf.for">
      transform.include @peel_if_needed failures(suppress) (%ln)
          : (!transform.op<"scf.for">) -> ()
      transform.include @peel_if_needed failures(suppress) (%lm)
          : (!transform.op<"scf.for">) -> ()
    }
    %bmms = transform.structured.match ops{["linalg.batch_matmul"]} in %module_large
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmms : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %t, %l:4 = transform.structured.tile_using_for %mm
          tile_sizes [1, 8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op,
                                    !transform.any_op)
    }

    // A packed filter (orchestra-cpu-pack-int8-operands) that a tile the op
    // refused, or a packed B (orchestra-cpu-pack-matmul-blocks) that a
    // cache block does not read whole, still reads as it was: its unpack
    // becomes a transpose and a copy, which bufferize. (After the matmuls'
    // cache blocks, which read the packed blocks in place.)
    %unpacks = transform.structured.match ops{["linalg.unpack"]} in %module_large
        : (!transform.any_op) -> !transform.op<"linalg.unpack">
    transform.foreach %unpacks : !transform.op<"linalg.unpack"> {
    ^bb0(%u: !transform.op<"linalg.unpack">):
      %e, %t, %c, %x = transform.structured.lower_unpack %u
          : (!transform.op<"linalg.unpack">)
          -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">,
              !transform.op<"tensor.collapse_shape">,
              !transform.op<"tensor.extract_slice">)
    }
    // 3. Register tiles of everything else. (Grouped convolutions are
    //    generics of rank 8 too: they are left for step 5.)
    %elementwise = transform.foreach_match in %module_large
        @match_grouped_conv -> @leave_for_step5,
        @match_rank1 -> @tile_rank1, @match_rank2 -> @tile_rank2,
        @match_rank3 -> @tile_rank3, @match_rank4 -> @tile_rank4,
        @match_rank5 -> @tile_rank5, @match_rank6 -> @tile_rank6,
        @match_rank7 -> @tile_rank7, @match_rank8 -> @tile_rank8
        : (!transform.any_op) -> !transform.any_op

    transform.apply_patterns to %elementwise {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // 4. Vectorization.
    %funcs = transform.structured.match ops{["func.func"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%f: !transform.any_op):
      %v = transform.structured.vectorize_children_and_apply_patterns %f
          : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %v {
        transform.apply_patterns.vector.lower_contraction
            lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_multi_reduction
            lowering_strategy = "innerreduction"
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.vector.lower_transpose
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }

    // 4b. Remainder tiles of (batch) matmuls: a dimension that is not a
    //     multiple of the register tile leaves tiles of dynamic size, the
    //     only contractions step 4 did not vectorize. They become rows of
    //     8-column masked vectors (AVX-512 masked loads and stores).
    %rest = transform.structured.match ops{["linalg.matmul"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rest : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.sequence %mm : !transform.any_op failures(suppress) {
      ^bb1(%x: !transform.any_op):
        %t, %l:2 = transform.structured.tile_using_for %x tile_sizes [1, 8, 0]
            : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                      !transform.any_op)
        transform.structured.vectorize %t vector_sizes [1, 8, 1]
            : !transform.any_op
      }
    }
    %rest_bmm = transform.structured.match ops{["linalg.batch_matmul"]}
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %rest_bmm : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      transform.sequence %mm : !transform.any_op failures(suppress) {
      ^bb1(%x: !transform.any_op):
        %t, %l:3 = transform.structured.tile_using_for %x
            tile_sizes [1, 1, 8, 0]
            : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                      !transform.any_op, !transform.any_op)
        transform.structured.vectorize %t vector_sizes [1, 1, 8, 1]
            : !transform.any_op
      }
    }
    transform.apply_patterns to %elementwise {
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // 5. Convolutions and poolings, op by op: register tiles of one output
    //    row, 7 output columns (ResNet and MobileNet widths are multiples
    //    of 7), 16 output channels (the vector lanes; 32 for channels-last
    //    convolutions) and 4 input channels (1 channels-last), decomposed
    //    into 1-D ops and vectorized. Only the curated patterns
    //    below run afterwards: the subset-folding patterns of step 4
    //    miscompile the rank-reducing slices of decomposed convolutions
    //    (docs/Pipeline.md). Tiles left dynamic by a remainder stay scalar
    //    loops. Channels-last convolutions load whole vectors of channels;
    //    NCHW ones gather them.
    %convs = transform.structured.match
        ops{["linalg.conv_2d_nchw_fchw"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      // (n, f, oh, ow, c, kh, kw)
      %t, %l:6 = transform.structured.tile_using_for %c
          tile_sizes [1, 16, 1, 7, 4, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
             !transform.any_op, !transform.any_op, !transform.any_op,
             !transform.any_op, !transform.any_op)
    }
    // Channels-last convolutions: 7 columns x 32 channels (fourteen 512-bit
    // accumulators, each filter vector used 7 times and each input
    // broadcast twice), one input channel per step
    // (@conv_nhwc_register_tiles, remainders peeled).
    // (orchestra-outline-tasks tags each with its width: channel counts
    // whose remainder of 32 would not be a power of two, such as 24, get
    // `orchestra.conv_channels_16` and 16-channel tiles.)
    // Grouped convolutions (a linalg.generic over (n, oh, ow, g, f, kh, kw,
    // c), see @match_grouped_conv): one group at a time, each a dense
    // channels-last convolution on the group's slices, which the steps
    // below register-tile, decompose and vectorize like any other, by the
    // group's output channels (orchestra-outline-tasks tags the generic
    // with the width for those, and the dense convolution keeps the tag).
    // This comes after step 4, whose patterns would vectorize the
    // rank-reducing insert_slice of each group's result into the wrong
    // dimensions (see docs/Pipeline.md).
    // 3-D convolutions and poolings (channels-last after
    // orchestra-convert-convolutions-to-nhwc): one output depth and one
    // kernel depth at a time, each a 2-D convolution or pooling on the
    // depth slices (input [N, 1, H, W, C]), which the steps below treat
    // like any other 2-D one (a dense convolution keeps its register-tile
    // width tag). Like the grouped rewrite, this comes after step 4.
    %volumetric = transform.structured.match
        ops{["linalg.conv_3d_ndhwc_dhwcf",
             "linalg.depthwise_conv_3d_ndhwc_dhwc", "linalg.pooling_ndhwc_max",
             "linalg.pooling_ndhwc_sum"]}
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %volumetric : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      // (n, od, oh, ow, f, kd, ...)
      %t, %l:2 = transform.structured.tile_using_for %c
          tile_sizes [0, 1, 0, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op)
      %planar = transform.orchestra.conv_3d_to_2d %t
          : (!transform.any_op) -> !transform.any_op
    }
    %grouped = transform.collect_matching @match_grouped_conv
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %grouped : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      // (n, oh, ow, g, f, kh, kw, c)
      %t, %l = transform.structured.tile_using_for %g tile_sizes [0, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %dense = transform.orchestra.grouped_conv_to_dense %t
          : (!transform.any_op) -> !transform.any_op
    }
    %convs_deep = transform.collect_matching @match_deep_conv_nhwc
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_deep : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %t, %l:2 = transform.structured.tile_using_for %c
          tile_sizes [0, 0, 0, 0, 1, 0, 64]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op)
    }
    %convs_nhwc_16 = transform.structured.match
        ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.conv_channels_16} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_nhwc_16 : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %lanes = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.include @conv_nhwc_register_tiles failures(propagate)
          (%c, %lanes) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %convs_nhwc = transform.structured.match
        ops{["linalg.conv_2d_nhwc_hwcf"]}
        attributes{orchestra.conv_channels_32} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %convs_nhwc : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      %lanes = transform.param.constant 32 : i64 -> !transform.param<i64>
      transform.include @conv_nhwc_register_tiles failures(propagate)
          (%c, %lanes) : (!transform.any_op, !transform.param<i64>) -> ()
    }
    %depthwise_nhwc = transform.structured.match
        ops{["linalg.depthwise_conv_2d_nhwc_hwc"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %depthwise_nhwc : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      // (n, oh, ow, c, kh, kw)
      %t, %l:5 = transform.structured.tile_using_for %c
          tile_sizes [1, 1, 7, 16, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
             !transform.any_op, !transform.any_op, !transform.any_op,
             !transform.any_op)
    }
    %pools_nhwc = transform.structured.match
        ops{["linalg.pooling_nhwc_max", "linalg.pooling_nhwc_sum"]}
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %pools_nhwc : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      // (n, oh, ow, c, kh, kw)
      %t, %l:5 = transform.structured.tile_using_for %c
          tile_sizes [1, 1, 7, 16, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
             !transform.any_op, !transform.any_op, !transform.any_op,
             !transform.any_op)
    }
    %pools = transform.structured.match
        ops{["linalg.pooling_nchw_max", "linalg.pooling_nchw_sum"]}
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %pools : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      // (n, c, oh, ow, kh, kw)
      %t, %l:5 = transform.structured.tile_using_for %c
          tile_sizes [1, 16, 1, 7, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
             !transform.any_op, !transform.any_op, !transform.any_op,
             !transform.any_op)
    }
    transform.apply_patterns to %elementwise {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %windowed = transform.structured.match
        ops{["linalg.conv_2d_nchw_fchw", "linalg.conv_2d_nhwc_hwcf",
             "linalg.depthwise_conv_2d_nhwc_hwc", "linalg.pooling_nchw_max",
             "linalg.pooling_nchw_sum", "linalg.pooling_nhwc_max",
             "linalg.pooling_nhwc_sum"]}
        in %elementwise : (!transform.any_op) -> !transform.any_op
    transform.foreach %windowed : !transform.any_op {
    ^bb0(%c: !transform.any_op):
      transform.sequence %c : !transform.any_op failures(suppress) {
      ^bb1(%x: !transform.any_op):
        %d = transform.structured.decompose %x
            : (!transform.any_op) -> !transform.any_op
        transform.structured.vectorize %d : !transform.any_op
      }
    }
    transform.apply_patterns to %elementwise {
      transform.apply_patterns.vector.lower_contraction
          lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // 6. Accumulators out of the reduction loops: a read/write pair of the
    //    same subset of a loop-carried tensor becomes a loop-carried vector.
    //    Loops are visited outer first; the second visit hoists what the
    //    first exposed in the enclosing loop.
    %loops = transform.structured.match ops{["scf.for"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %loops : !transform.any_op {
    ^bb0(%l: !transform.any_op):
      transform.loop.hoist_loop_invariant_subsets %l : !transform.any_op
    }
    transform.foreach %loops : !transform.any_op {
    ^bb0(%l: !transform.any_op):
      transform.loop.hoist_loop_invariant_subsets %l : !transform.any_op
    }
    // 7. Paddings in destination-passing style: a `tensor.pad` becomes a
    //    fill of the padded tensor and an insert_slice of its source. A
    //    task that pads its result for the next task's convolution or
    //    pooling then computes its parallel loop straight into the interior
    //    of the padded buffer (`eliminate-empty-tensors` in the lowering
    //    pipeline makes the loop's destination a slice of it), instead of
    //    into a buffer of its own that one thread then copies over
    //    (MobileNetV2: 5.2 -> 3.9 ms, docs/PERFORMANCE.md);
    //    `orchestra-cpu-fill-pad-borders` then fills only the border.
    %pads = transform.structured.match ops{["tensor.pad"]} in %elementwise
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %pads : !transform.any_op {
    ^bb0(%p: !transform.any_op):
      %dps = transform.structured.rewrite_in_destination_passing_style %p
          : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
