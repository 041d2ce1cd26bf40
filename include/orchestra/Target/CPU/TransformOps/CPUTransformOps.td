//===- CPUTransformOps.td - CPU transform ops ----------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The transform ops of the x86-64 strategy script (strategies/x86_64_strategy.mlir)
// that upstream's transform dialect has no equivalent of: the 8-bit
// dot-product (VNNI) register tiles of integer convolutions and matmuls. Registered by
// the CPU backend only (getCPUBackend).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_TRANSFORMOPS_TD
#define ORCHESTRA_TARGET_CPU_TRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def CPUInt8DotOp : TransformDialectOp<"orchestra.cpu_int8_dot", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Computes a register tile of an 8-bit contraction with VNNI";
  let description = [{
    Replaces a register tile of an 8-bit contraction (i8 x i8 -> i32, on
    static tensors) by vector code whose multiply-accumulates are the x86
    8-bit dot-product instruction `vpdpbusd`: each instruction adds, to each
    32-bit lane, the four products of four unsigned bytes with four signed
    bytes. The tile is either

    * a channels-last convolution, `linalg.conv_2d_nhwc_hwcf`, of output
      shape `1 x 1 x OW x F` (one image, one output row; any filter size,
      stride and dilation; any input channel count), or
    * a `linalg.matmul` (row-major, no transposition or broadcast) of
      output shape `OW x F`, which is a 1x1 convolution of its rows,

    with OW <= 8 columns (rows) and F <= 4 vectors of channels, at most 24
    accumulators.

    The op carries `orchestra.int8_dot` (written by `orchestra-cpu-tag-tiling`
    when the kernel module's CPU has VNNI): the vector width, 512 (AVX-512
    VNNI, 16 lanes) or 256 (AVX-VNNI or AVX-512 VNNI with VL, 8 lanes).

    The generated code loops over the filter rows, the filter columns and
    the input channels four at a time (the reduction dimension of a matmul),
    with the `OW x ceil(F / lanes)` accumulators as loop-carried vectors:

    * when the filter is the `linalg.unpack` of a filter packed with four
      input channels innermost (`[KH, KW, C/4, F, 4]` or `[K/4, N, 4]`, what
      `orchestra-cpu-pack-int8-operands` asks for and
      `orchestra-hoist-constant-layouts` makes at compile time), directly or
      through slices (unit strides; an input-channel offset that is a
      multiple of four), each vector's `lanes x 4` bytes are one load from
      the packed filter; otherwise the four filter rows of the step (`4 x F`
      bytes of the HWCF filter or the K x N right-hand side as it is) are
      interleaved into `lanes x 4` bytes per vector with two shuffles (one
      `vpermi2b` each where the CPU has VBMI);
    * each column's four input bytes are broadcast to every lane; since
      `vpdpbusd`'s first operand is unsigned, the signed input is shifted by
      `x ^ 0x80` (`x + 128`), and each vector of channels has a correction,
      `sum 128 w` (dot products `vpdpbusd(corr, 0x80.., w)`), which the
      result subtracts at the end: `sum (x + 128) w - sum 128 w = sum x w`
      exactly, in 32-bit arithmetic that wraps like the contraction's. From
      a packed filter the corrections are loops of their own over the
      filter alone, built before the tile's code and moved out of every
      enclosing `scf.for` whose iteration they do not depend on (the loop
      over a channel tile's columns: they are computed once per channel
      tile); from a filter read as it is, they are accumulators carried
      beside the others. When the kernel reads
      each input byte four times or more and the tile's input is a slice of
      a tensor of the function's body, the shift is made once: the tiles
      read a shifted copy of that tensor (a `linalg.generic` beside it,
      marked `orchestra.int8_unsigned_input`, which the first tile creates
      and the others share).

    Input channels beyond the last multiple of four and output channels
    beyond `F` are read as zeros, so they add nothing; the output's extra
    lanes are not written. Emits a silenceable failure, naming the reason,
    when the op does not have this form: the strategy then leaves it to
    the generic path.
  }];
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def ApplyFoldUnpackSlicesPatternsOp : Op<Transform_Dialect,
    "apply_patterns.orchestra.fold_unpack_slices",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Reads whole tiles of an unpacked tensor from its packed "
                "form";
  let description = [{
    Rewrites a `tensor.extract_slice` (unit strides) of a `linalg.unpack`
    (static tiles, every dimension tiled, in order) that lies in one tile,
    at offsets that are multiples of the tile sizes and with sizes at most
    the tile sizes (a whole tile, or the part of the last tile of a
    dimension that is no multiple of it, whose padding it leaves out), into
    a rank-reducing `tensor.extract_slice` of the packed tensor: the tile as
    it is stored, with no unpacking. The slice may be of slices of the
    unpack (a cache block of a parallel tile's columns), whose offsets then
    add up, each a multiple of the tile size. An offset counts
    as a multiple of a tile size when it is a constant, the induction
    variable of an `scf.for` whose lower bound and step are, or a sum or
    constant multiple of such values (`arith` or `affine.apply`).

    The x86_64 strategy applies it to the cache blocks of a matmul whose B
    `orchestra-cpu-pack-matmul-blocks` packed: each block's register tiles
    then read the packed block in place.

    ```mlir
    %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1]
        inner_tiles = [256, 128] into %e
        : tensor<8x2x256x128xf32> -> tensor<512x1024xf32>
    %s = tensor.extract_slice %u[%k, %n] [256, 128] [1, 1]
    // becomes, with %k and %n multiples of 256 and 128:
    %s = tensor.extract_slice %p[%n floordiv 128, %k floordiv 256, 0, 0]
        [1, 1, 256, 128] [1, 1, 1, 1]
        : tensor<8x2x256x128xf32> to tensor<256x128xf32>
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // ORCHESTRA_TARGET_CPU_TRANSFORMOPS_TD
