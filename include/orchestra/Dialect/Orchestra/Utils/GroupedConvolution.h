//===- GroupedConvolution.h - Channels-last grouped convs ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The channels-last form of a grouped 2-D convolution that
// orchestra-convert-convolutions-to-nhwc produces (upstream has no named op
// with this layout), and how the later stages recognise it: the outlining
// pass tags it, orchestra-cpu-select-tiles sizes it, and the strategy's
// transform.orchestra.grouped_conv_to_dense turns one group of it into a
// dense linalg.conv_2d_nhwc_hwcf.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_UTILS_GROUPEDCONVOLUTION_H
#define ORCHESTRA_DIALECT_ORCHESTRA_UTILS_GROUPEDCONVOLUTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::orchestra {

/// A grouped 2-D convolution in channels-last form: a `linalg.generic` over
/// the loops (n, oh, ow, g, f, kh, kw, c) reading
///
///   input  [N, H, W, G, C/G]      at (n, oh * sh + kh * dh, ow * sw + kw * dw,
///                                     g, c)
///   filter [G, KH, KW, C/G, M/G]  at (g, kh, kw, c, f)
///
/// and accumulating `input * filter` into output [N, OH, OW, G, M/G] at
/// (n, oh, ow, g, f), with one element type throughout. A slice of it with
/// one group is a `linalg.conv_2d_nhwc_hwcf` on the group's slices (the
/// filter of each group is contiguous), and its 4-D views [N, H, W, C] and
/// [N, OH, OW, M] are the channels-last tensors of dense convolutions.
struct GroupedConvolutionNhwc {
  int64_t groups;
  /// Input channels per group (C/G) and output channels per group (M/G).
  int64_t inputChannels;
  int64_t outputChannels;
  SmallVector<int64_t, 2> strides;
  SmallVector<int64_t, 2> dilations;
};

/// The indexing maps (input, filter, output) of the channels-last grouped
/// convolution with these strides and dilations.
SmallVector<AffineMap>
getGroupedConvolutionNhwcMaps(MLIRContext *context, ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> dilations);

/// `op` as a channels-last grouped convolution, or nothing when it is not
/// one (other maps, iterators, operands, or a payload other than a
/// multiply-accumulate of one element type). Extents that are dynamic are
/// ShapedType::kDynamic.
std::optional<GroupedConvolutionNhwc>
matchGroupedConvolutionNhwc(linalg::LinalgOp op);

/// Whether `value` is computed by a channels-last grouped convolution,
/// directly or through elementwise ops (its activation) that run in its
/// 5-D shape.
bool isGroupedConvolutionResult(Value value);

/// Whether `op` is a convolution: a named convolution op
/// (ConvolutionOpInterface) or a channels-last grouped convolution.
bool isConvolutionOp(Operation *op);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_UTILS_GROUPEDCONVOLUTION_H
