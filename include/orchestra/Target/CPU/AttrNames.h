//===- AttrNames.h - Attributes of the CPU backend --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The discardable attributes the CPU backend hands between its passes and
// its strategy script (strategies/x86_64_strategy.mlir matches the tiling
// tags by these names). Each is spelled here once.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_ATTRNAMES_H
#define ORCHESTRA_TARGET_CPU_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::cpu::attr {

// The tiling tags orchestra-cpu-tag-tiling puts on a kernel's fusion root in
// place of `orchestra.fusion_root` (docs/Passes/OrchestraCPUPasses.md).
/// Matmul-led roots of many rows (>= 1024, >= 128) and short first loops.
inline constexpr llvm::StringLiteral kRootTall = "orchestra.fusion_root_tall";
inline constexpr llvm::StringLiteral kRootWide = "orchestra.fusion_root_wide";
inline constexpr llvm::StringLiteral kRootShort = "orchestra.fusion_root_short";
/// Channels-last 2-D convolutions and poolings: by output rows, groups,
/// channels, or rows and channels.
inline constexpr llvm::StringLiteral kRootNhwcRows =
    "orchestra.fusion_root_nhwc_rows";
inline constexpr llvm::StringLiteral kRootNhwcGroups =
    "orchestra.fusion_root_nhwc_groups";
inline constexpr llvm::StringLiteral kRootNhwcChannels =
    "orchestra.fusion_root_nhwc_channels";
inline constexpr llvm::StringLiteral kRootNhwcRowsChannels =
    "orchestra.fusion_root_nhwc_rows_channels";
/// The same for 3-D ones.
inline constexpr llvm::StringLiteral kRootNdhwcRows =
    "orchestra.fusion_root_ndhwc_rows";
inline constexpr llvm::StringLiteral kRootNdhwcChannels =
    "orchestra.fusion_root_ndhwc_channels";
inline constexpr llvm::StringLiteral kRootNdhwcRowsChannels =
    "orchestra.fusion_root_ndhwc_rows_channels";
/// A unit first loop: tiled along the second (with a convolution or not).
inline constexpr llvm::StringLiteral kRootD1 = "orchestra.fusion_root_d1";
inline constexpr llvm::StringLiteral kRootD1Conv =
    "orchestra.fusion_root_d1_conv";
/// The step of a loop over time, tiled by the state's columns.
inline constexpr llvm::StringLiteral kRootCols = "orchestra.fusion_root_cols";

/// The width of a convolution's channel tiles (16 when its channels leave a
/// remainder of 32 that is not a power of two, else 32).
inline constexpr llvm::StringLiteral kConvChannels16 =
    "orchestra.conv_channels_16";
inline constexpr llvm::StringLiteral kConvChannels32 =
    "orchestra.conv_channels_32";
/// An 8-bit convolution or matmul (i8 x i8 -> i32) whose register tiles the
/// strategy computes with the VNNI dot-product instruction
/// (`transform.orchestra.cpu_int8_dot`): the vector width in bits, 512
/// or 256.
inline constexpr llvm::StringLiteral kInt8Dot = "orchestra.int8_dot";
/// transform.orchestra.cpu_int8_dot: the copy of a kernel's 8-bit input
/// with its bytes shifted to unsigned (x ^ 0x80), which its tiles share.
inline constexpr llvm::StringLiteral kInt8UnsignedInput =
    "orchestra.int8_unsigned_input";

// orchestra-cpu-select-tiles: the tile a tagged root gets.
inline constexpr llvm::StringLiteral kTileRows = "orchestra.tile_rows";
inline constexpr llvm::StringLiteral kTileCols = "orchestra.tile_cols";

// orchestra-cpu-emit-binary: the LLVM CPU the kernel module was compiled for.
inline constexpr llvm::StringLiteral kCpu = "orchestra.cpu";

} // namespace mlir::orchestra::cpu::attr

#endif // ORCHESTRA_TARGET_CPU_ATTRNAMES_H
