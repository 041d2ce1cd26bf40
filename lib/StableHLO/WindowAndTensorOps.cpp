//===- WindowAndTensorOps.cpp - Convolutions, pooling, tensor ops ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The StableHLO writer's convolutions (`convolution`), poolings
// (`reduce_window`), constants and tensor data movement (reshapes, slices,
// inserts, pads, concatenations).
//
//===----------------------------------------------------------------------===//

#include "Writer.h"

#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::stablehlo::detail;

static std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
getWindow(Operation *op, int64_t spatial) {
  // Absent (default-valued) strides and dilations are ones.
  auto values = [&](StringRef name) {
    SmallVector<int64_t> out;
    if (auto attr = op->getAttrOfType<DenseIntElementsAttr>(name))
      for (APInt v : attr.getValues<APInt>())
        out.push_back(v.getSExtValue());
    else
      out.assign(spatial, 1);
    return out;
  };
  return {values("strides"), values("dilations")};
}

LogicalResult Writer::emitConvolution(linalg::LinalgOp op) {
  // Channels-last convolutions (stage 1 makes every convolution one):
  // input [N, spatial..., C], filter [spatial..., C, F] (depthwise:
  // [spatial..., C], one group per channel), output [N, spatial..., F].
  bool depthwise = isa<linalg::DepthwiseConv2DNhwcHwcOp>(op);
  if (!isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv3DNdhwcDhwcfOp>(op) &&
      !depthwise)
    return fail(op, "this convolution's layout is not converted yet");
  auto outType = toTensorType(op.getDpsInitOperand(0)->get().getType());
  if (!outType)
    return fail(op, "its result type has no StableHLO form");
  Type acc = outType.getElementType();
  FailureOr<HValue> input = lookup(op, op.getDpsInputOperand(0)->get());
  FailureOr<HValue> filter = lookup(op, op.getDpsInputOperand(1)->get());
  if (failed(input) || failed(filter))
    return failure();
  HValue x = convert(*input, acc), w = convert(*filter, acc);
  int64_t spatial = outType.getRank() - 2;
  int64_t groups = 1;
  if (depthwise) {
    groups = x.type.getShape().back();
    SmallVector<int64_t> shape(w.type.getShape());
    shape.insert(shape.end() - 1, 1);
    w = reshape(w, shape);
  }
  auto [strides, dilations] = getWindow(op, spatial);
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(dilations.size()) != spatial)
    return fail(op, "a convolution without strides and dilations");
  HValue conv = emitConvolutionOp(x, w, outType, strides, dilations, groups);
  FailureOr<HValue> result = accumulate(op, conv);
  if (failed(result))
    return failure();
  values[op->getResult(0)] = *result;
  return success();
}

HValue Writer::emitConvolutionOp(HValue x, HValue w, RankedTensorType outType,
                                 ArrayRef<int64_t> strides,
                                 ArrayRef<int64_t> dilations, int64_t groups) {
  int64_t spatial = outType.getRank() - 2;
  std::string dims;
  for (int64_t i = 0; i < spatial; ++i)
    dims += std::to_string(i) + ", ";
  std::string attrs =
      "batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, " +
      dims + "f]x[" + dims + "i, o]->[b, " + dims +
      "f]>, feature_group_count = " + std::to_string(groups) +
      " : i64, lhs_dilation = " + i64Array(SmallVector<int64_t>(spatial, 1)) +
      ", padding = dense<0> : tensor<" + std::to_string(spatial) + "x2xi64>" +
      getPrecisionConfig(outType.getElementType()) +
      ", rhs_dilation = " + i64Array(dilations) +
      ", window_strides = " + i64Array(strides);
  return emit("convolution", {x, w}, outType, attrs);
}

LogicalResult Writer::emitGroupedConvolution(linalg::LinalgOp op) {
  // input [N, H, W, G, C/G], filter [G, KH, KW, C/G, M/G], output
  // [N, OH, OW, G, M/G]: StableHLO's convolution in G feature groups on the
  // 4-D views, whose filter's output features are group-major.
  std::optional<GroupedConvolutionNhwc> grouped =
      matchGroupedConvolutionNhwc(op);
  auto outType = toTensorType(op.getDpsInitOperand(0)->get().getType());
  if (!grouped || !outType || !outType.hasStaticShape() || op.hasDynamicShape())
    return fail(op, "a grouped convolution of dynamic shape");
  Type acc = outType.getElementType();
  FailureOr<HValue> input = lookup(op, op.getDpsInputOperand(0)->get());
  FailureOr<HValue> filter = lookup(op, op.getDpsInputOperand(1)->get());
  if (failed(input) || failed(filter))
    return failure();
  ArrayRef<int64_t> in = input->type.getShape();
  ArrayRef<int64_t> fs = filter->type.getShape();
  ArrayRef<int64_t> out = outType.getShape();
  int64_t groups = grouped->groups;
  HValue x =
      reshape(convert(*input, acc), {in[0], in[1], in[2], in[3] * in[4]});
  HValue w = transpose(convert(*filter, acc), {1, 2, 3, 0, 4});
  w = reshape(w, {fs[1], fs[2], fs[3], fs[0] * fs[4]});
  auto flatType =
      RankedTensorType::get({out[0], out[1], out[2], out[3] * out[4]}, acc);
  HValue conv = emitConvolutionOp(x, w, flatType, grouped->strides,
                                  grouped->dilations, groups);
  FailureOr<HValue> result = accumulate(op, reshape(conv, out));
  if (failed(result))
    return failure();
  values[op->getResult(0)] = *result;
  return success();
}

LogicalResult Writer::emitPooling(linalg::LinalgOp op, StringRef combiner) {
  // input [N, spatial..., C], window [spatial...], output like the input.
  auto outType = toTensorType(op.getDpsInitOperand(0)->get().getType());
  auto windowType =
      dyn_cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  if (!outType || !windowType || !windowType.hasStaticShape())
    return fail(op, "a pooling of a type StableHLO has no form for");
  FailureOr<HValue> input = lookup(op, op.getDpsInputOperand(0)->get());
  if (failed(input))
    return failure();
  Type element = outType.getElementType();
  HValue x = convert(*input, element);
  auto [strides, dilations] = getWindow(op, windowType.getRank());
  SmallVector<int64_t> window = {1}, stride = {1}, dilation = {1};
  llvm::append_range(window, windowType.getShape());
  llvm::append_range(stride, strides);
  llvm::append_range(dilation, dilations);
  window.push_back(1);
  stride.push_back(1);
  dilation.push_back(1);
  if (window.size() != static_cast<size_t>(outType.getRank()) ||
      stride.size() != window.size() || dilation.size() != window.size())
    return fail(op, "a pooling without strides and dilations");
  Builder b(op->getContext());
  std::optional<Combiner> identity =
      combiner == "add" ? std::optional<Combiner>(Combiner{
                              "add", cast<TypedAttr>(b.getZeroAttr(element))})
                        : std::nullopt;
  if (!identity && isa<FloatType>(element)) {
    auto ft = cast<FloatType>(element);
    identity = Combiner{
        combiner, FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(),
                                                     combiner == "maximum"))};
  }
  if (!identity) {
    unsigned width = element.getIntOrFloatBitWidth();
    identity = Combiner{
        combiner,
        b.getIntegerAttr(element, combiner == "maximum"
                                      ? APInt::getSignedMinValue(width)
                                      : APInt::getSignedMaxValue(width))};
  }
  HValue init = scalar(identity->identity);
  auto scalarType = RankedTensorType::get({}, element);
  HValue pooled{"%v" + std::to_string(counter++), outType};
  os << "    " << pooled.name << " = \"stablehlo.reduce_window\"(" << x.name
     << ", " << init.name << ") " << combinerRegion(combiner, element)
     << " {window_dimensions = " << i64Array(window)
     << ", window_strides = " << i64Array(stride)
     << ", window_dilations = " << i64Array(dilation) << "} : (" << x.type
     << ", " << scalarType << ") -> " << outType << "\n";
  FailureOr<HValue> out = lookup(op, op.getDpsInitOperand(0)->get());
  if (failed(out))
    return failure();
  values[op->getResult(0)] = emit(combiner, {pooled, *out}, outType);
  return success();
}

LogicalResult Writer::emitConstant(arith::ConstantOp op) {
  RankedTensorType type = toTensorType(op.getType());
  if (!type)
    return fail(op, "a constant of a type StableHLO has no form for");
  if (auto shaped = dyn_cast<ShapedType>(op.getType())) {
    Attribute value = op.getValue();
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      size_t bytes = shaped.getNumElements() *
                     std::max<int64_t>(1, shaped.getElementTypeBitWidth() / 8);
      if (!blob || blob->getData().size() != bytes)
        return fail(op, "a resource constant whose data is not loaded");
      // One byte per i1 element, where a dense attribute packs bits.
      if (shaped.getElementType().isInteger(1)) {
        SmallVector<bool> bits;
        for (char byte : blob->getData())
          bits.push_back(byte != 0);
        value = DenseElementsAttr::get(shaped, ArrayRef<bool>(bits));
      }
    } else if (!isa<DenseElementsAttr>(value)) {
      return fail(op, "a constant that is not dense");
    }
    // `index` elements as StableHLO's i64.
    if (auto elements = dyn_cast<DenseElementsAttr>(value);
        elements && shaped.getElementType().isIndex())
      value = elements.mapValues(type.getElementType(), [](const APInt &v) {
        return v.sextOrTrunc(64);
      });
    values[op] = constant(value, type);
    return success();
  }
  auto typed = dyn_cast<TypedAttr>(op.getValue());
  if (!typed)
    return fail(op, "an untyped constant");
  if (typed.getType().isIndex())
    typed = IntegerAttr::get(type.getElementType(),
                             cast<IntegerAttr>(typed).getInt());
  values[op] = scalar(typed);
  return success();
}

LogicalResult Writer::emitTensorOp(Operation *op) {
  auto operand = [&](unsigned i) { return lookup(op, op->getOperand(i)); };
  RankedTensorType resultType = op->getNumResults() == 1
                                    ? toTensorType(op->getResult(0).getType())
                                    : nullptr;
  if (!resultType)
    return fail(op, "its result type has no StableHLO form");
  auto setResult = [&](HValue h) {
    values[op->getResult(0)] = std::move(h);
    return success();
  };
  if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp>(op)) {
    FailureOr<HValue> source = operand(0);
    if (failed(source))
      return failure();
    return setResult(reshape(*source, resultType.getShape()));
  }
  if (auto reshapeOp = dyn_cast<tensor::ReshapeOp>(op)) {
    FailureOr<HValue> source = operand(0);
    if (failed(source))
      return failure();
    return setResult(reshape(*source, resultType.getShape()));
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (!slice.getOffsets().empty() || !slice.getSizes().empty() ||
        !slice.getStrides().empty())
      return fail(op, "a slice of dynamic offsets, sizes or strides");
    FailureOr<HValue> source = operand(0);
    if (failed(source))
      return failure();
    if (llvm::is_contained(slice.getStaticSizes(), 0))
      return fail(op, "an empty slice");
    SmallVector<int64_t> limits, shape;
    for (auto [offset, size, stride] :
         llvm::zip(slice.getStaticOffsets(), slice.getStaticSizes(),
                   slice.getStaticStrides())) {
      limits.push_back(offset + (size - 1) * stride + 1);
      shape.push_back(size);
    }
    HValue sliced =
        emit("slice", {*source},
             RankedTensorType::get(shape, resultType.getElementType()),
             "start_indices = " + i64Array(slice.getStaticOffsets()) +
                 ", limit_indices = " + i64Array(limits) +
                 ", strides = " + i64Array(slice.getStaticStrides()));
    return setResult(reshape(sliced, resultType.getShape()));
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    if (!insert.getOffsets().empty() || !insert.getSizes().empty() ||
        !insert.getStrides().empty() ||
        llvm::any_of(insert.getStaticStrides(),
                     [](int64_t s) { return s != 1; }))
      return fail(op, "an insert of dynamic or strided placement");
    FailureOr<HValue> source = operand(0), dest = operand(1);
    if (failed(source) || failed(dest))
      return failure();
    HValue update = reshape(*source, insert.getStaticSizes());
    SmallVector<HValue> operands = {*dest, update};
    Builder b(op->getContext());
    for (int64_t offset : insert.getStaticOffsets())
      operands.push_back(scalar(b.getI64IntegerAttr(offset)));
    return setResult(emit("dynamic_update_slice", operands, resultType));
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    SmallVector<HValue> operands;
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      FailureOr<HValue> h = operand(i);
      if (failed(h))
        return failure();
      operands.push_back(*h);
    }
    return setResult(
        emit("concatenate", operands, resultType,
             "dimension = " + std::to_string(concat.getDim()) + " : i64"));
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    Value padValue = pad.getConstantPaddingValue();
    if (!padValue || !pad.getLow().empty() || !pad.getHigh().empty())
      return fail(op, "a pad of a non-constant value or dynamic widths");
    FailureOr<HValue> source = operand(0), value = lookup(op, padValue);
    if (failed(source) || failed(value))
      return failure();
    SmallVector<int64_t> interior(resultType.getRank(), 0);
    return setResult(
        emit("pad", {*source, *value}, resultType,
             "edge_padding_low = " + i64Array(pad.getStaticLow()) +
                 ", edge_padding_high = " + i64Array(pad.getStaticHigh()) +
                 ", interior_padding = " + i64Array(interior)));
  }
  if (isa<tensor::SplatOp>(op)) {
    FailureOr<HValue> value = operand(0);
    if (failed(value))
      return failure();
    return setResult(broadcast(*value, resultType.getShape(), {}));
  }
  if (isa<tensor::FromElementsOp>(op)) {
    SmallVector<HValue> pieces;
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      FailureOr<HValue> h = operand(i);
      if (failed(h))
        return failure();
      pieces.push_back(reshape(*h, {1}));
    }
    auto flat = RankedTensorType::get({resultType.getNumElements()},
                                      resultType.getElementType());
    HValue joined = pieces.size() == 1 ? pieces.front()
                                       : emit("concatenate", pieces, flat,
                                              "dimension = 0 : i64");
    return setResult(reshape(joined, resultType.getShape()));
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    SmallVector<int64_t> start;
    for (Value index : extract.getIndices()) {
      APInt value;
      if (!matchPattern(index, m_ConstantInt(&value)))
        return fail(op, "an extract at a dynamic position");
      start.push_back(value.getSExtValue());
    }
    FailureOr<HValue> source = operand(0);
    if (failed(source))
      return failure();
    SmallVector<int64_t> limit, ones(start.size(), 1);
    for (int64_t s : start)
      limit.push_back(s + 1);
    HValue sliced =
        emit("slice", {*source},
             RankedTensorType::get(ones, resultType.getElementType()),
             "start_indices = " + i64Array(start) + ", limit_indices = " +
                 i64Array(limit) + ", strides = " + i64Array(ones));
    return setResult(reshape(sliced, {}));
  }
  return fail(op, "'" + op->getName().getStringRef() +
                      "' has no StableHLO conversion");
}
