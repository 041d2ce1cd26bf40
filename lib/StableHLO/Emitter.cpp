//===- Emitter.cpp - linalg on tensors as StableHLO text ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// How ops map (docs/Passes/StableHLO.md has the table):
//  - contractions (matmul, batch matmul, any generic that is a contraction)
//    -> dot_general (+ add of the init unless it is a zero fill), with the
//    result transposed into the output's order;
//  - channels-last convolutions (dense, depthwise) -> convolution, poolings
//    -> reduce_window (WindowAndTensorOps.cpp);
//  - other structured ops: each operand is brought to the iteration domain
//    (reshape away unit constant dims, transpose into domain order,
//    broadcast_in_dim), the body's scalar ops become elementwise ops on the
//    domain, `linalg.index` an iota; a reduction's combiner becomes a
//    `reduce` over the reduction dims, then combined with the init;
//  - tensor reshapes, slices, inserts, pads and concatenations map to their
//    StableHLO ops (WindowAndTensorOps.cpp); scalars are 0-d tensors.
// Unsigned integer arithmetic (other than of i1) and grouped convolutions
// are not converted yet: canConvert says no, so the scheduler keeps them off
// StableHLO devices.
//===----------------------------------------------------------------------===//

#include "orchestra/StableHLO/Emitter.h"
#include "Writer.h"

#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace mlir::orchestra;

using namespace mlir::orchestra::stablehlo::detail;

static std::optional<Combiner> getCombiner(Operation *op, Type type) {
  Builder b(op->getContext());
  auto intAttr = [&](APInt value) -> TypedAttr {
    return b.getIntegerAttr(type, value);
  };
  unsigned width = type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
  return TypeSwitch<Operation *, std::optional<Combiner>>(op)
      .Case([&](arith::AddFOp) {
        return Combiner{"add", b.getFloatAttr(type, 0.0)};
      })
      .Case([&](arith::MulFOp) {
        return Combiner{"multiply", b.getFloatAttr(type, 1.0)};
      })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](Operation *) {
        auto ft = cast<FloatType>(type);
        return Combiner{
            "maximum",
            FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), true))};
      })
      .Case<arith::MinimumFOp, arith::MinNumFOp>([&](Operation *) {
        auto ft = cast<FloatType>(type);
        return Combiner{
            "minimum",
            FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(), false))};
      })
      .Case([&](arith::AddIOp) {
        return Combiner{"add", intAttr(APInt(width, 0))};
      })
      .Case([&](arith::MulIOp) {
        return Combiner{"multiply", intAttr(APInt(width, 1))};
      })
      .Case([&](arith::MaxSIOp) {
        return Combiner{"maximum", intAttr(APInt::getSignedMinValue(width))};
      })
      .Case([&](arith::MinSIOp) {
        return Combiner{"minimum", intAttr(APInt::getSignedMaxValue(width))};
      })
      .Case([&](arith::OrIOp) {
        return Combiner{"or", intAttr(APInt(width, 0))};
      })
      .Case([&](arith::AndIOp) {
        return Combiner{"and", intAttr(APInt::getAllOnes(width))};
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The StableHLO op of a scalar arith/math op that maps one to one.
static StringRef getElementwiseName(Operation *op) {
  return TypeSwitch<Operation *, StringRef>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return "add"; })
      .Case<arith::SubFOp, arith::SubIOp>([](auto) { return "subtract"; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return "multiply"; })
      .Case<arith::DivFOp, arith::DivSIOp>([](auto) { return "divide"; })
      .Case<arith::RemFOp, arith::RemSIOp>([](auto) { return "remainder"; })
      .Case<arith::MaximumFOp, arith::MaxSIOp>([](auto) { return "maximum"; })
      .Case<arith::MinimumFOp, arith::MinSIOp>([](auto) { return "minimum"; })
      .Case<arith::NegFOp>([](auto) { return "negate"; })
      .Case<arith::AndIOp>([](auto) { return "and"; })
      .Case<arith::OrIOp>([](auto) { return "or"; })
      .Case<arith::XOrIOp>([](auto) { return "xor"; })
      .Case<arith::ShLIOp>([](auto) { return "shift_left"; })
      .Case<arith::ShRSIOp>([](auto) { return "shift_right_arithmetic"; })
      .Case<arith::ShRUIOp>([](auto) { return "shift_right_logical"; })
      .Case<math::ExpOp>([](auto) { return "exponential"; })
      .Case<math::ExpM1Op>([](auto) { return "exponential_minus_one"; })
      .Case<math::LogOp>([](auto) { return "log"; })
      .Case<math::Log1pOp>([](auto) { return "log_plus_one"; })
      .Case<math::TanhOp>([](auto) { return "tanh"; })
      .Case<math::SqrtOp>([](auto) { return "sqrt"; })
      .Case<math::RsqrtOp>([](auto) { return "rsqrt"; })
      .Case<math::AbsFOp, math::AbsIOp>([](auto) { return "abs"; })
      .Case<math::CeilOp>([](auto) { return "ceil"; })
      .Case<math::FloorOp>([](auto) { return "floor"; })
      .Case<math::SinOp>([](auto) { return "sine"; })
      .Case<math::CosOp>([](auto) { return "cosine"; })
      .Case<math::PowFOp>([](auto) { return "power"; })
      .Case<math::Atan2Op>([](auto) { return "atan2"; })
      .Case<math::RoundEvenOp>([](auto) { return "round_nearest_even"; })
      .Case<math::RoundOp>([](auto) { return "round_nearest_afz"; })
      .Default([](Operation *) { return StringRef(); });
}

/// The comparison direction and type of a cmpf/cmpi, or none for
/// predicates StableHLO has no single compare for.
static std::optional<std::pair<StringRef, StringRef>>
getComparison(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OEQ:
      return std::make_pair("EQ", "FLOAT");
    case arith::CmpFPredicate::UNE:
      return std::make_pair("NE", "FLOAT");
    case arith::CmpFPredicate::OGT:
      return std::make_pair("GT", "FLOAT");
    case arith::CmpFPredicate::OGE:
      return std::make_pair("GE", "FLOAT");
    case arith::CmpFPredicate::OLT:
      return std::make_pair("LT", "FLOAT");
    case arith::CmpFPredicate::OLE:
      return std::make_pair("LE", "FLOAT");
    default:
      return std::nullopt;
    }
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return std::make_pair("EQ", "SIGNED");
    case arith::CmpIPredicate::ne:
      return std::make_pair("NE", "SIGNED");
    case arith::CmpIPredicate::sgt:
      return std::make_pair("GT", "SIGNED");
    case arith::CmpIPredicate::sge:
      return std::make_pair("GE", "SIGNED");
    case arith::CmpIPredicate::slt:
      return std::make_pair("LT", "SIGNED");
    case arith::CmpIPredicate::sle:
      return std::make_pair("LE", "SIGNED");
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Whether a cast maps to `convert`: every cast that keeps the value, and
/// zero extensions and unsigned conversions of i1 (0 or 1 either way).
static bool isConvert(Operation *op) {
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp,
          arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return true;
  if (isa<arith::ExtUIOp, arith::UIToFPOp, arith::IndexCastUIOp>(op))
    return op->getOperand(0).getType().isInteger(1);
  return false;
}

HValue Writer::emit(StringRef name, ArrayRef<HValue> operands,
                    RankedTensorType result, StringRef attrs) {
  HValue out{"%v" + std::to_string(counter++), result};
  os << "    " << out.name << " = \"stablehlo." << name << "\"(";
  llvm::interleaveComma(operands, os, [&](const HValue &v) { os << v.name; });
  os << ")";
  if (!attrs.empty())
    os << " {" << attrs << "}";
  os << " : (";
  llvm::interleaveComma(operands, os, [&](const HValue &v) { os << v.type; });
  os << ") -> " << result << "\n";
  return out;
}

HValue Writer::constant(Attribute dense, RankedTensorType type) {
  // The support mask needs no text (weights are not copied for it).
  if (!report)
    return emit("constant", {}, type);
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << "value = ";
  // Resource blobs (weights) are written inline: the module is text.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(dense)) {
    // Checked by emitConstant: the blob is loaded and holds the tensor.
    ArrayRef<char> data = resource.getRawHandle().getBlob()->getData();
    dense = DenseElementsAttr::getFromRawBuffer(
        cast<ShapedType>(resource.getType()), data);
  }
  if (auto elements = dyn_cast<DenseElementsAttr>(dense))
    dense = elements.reshape(
        RankedTensorType::get(type.getShape(), elements.getElementType()));
  // The module's own text: no elision (--mlir-elide-elementsattrs-if-larger)
  // or other global printing flags.
  AsmState state(dense.getContext(), OpPrintingFlags());
  dense.print(stream, state);
  return emit("constant", {}, type, text);
}

HValue Writer::scalar(TypedAttr value) {
  auto type = RankedTensorType::get({}, value.getType());
  return constant(DenseElementsAttr::get(type, value), type);
}

HValue Writer::reshape(HValue value, ArrayRef<int64_t> shape) {
  if (value.type.getShape() == shape)
    return value;
  return emit("reshape", {value},
              RankedTensorType::get(shape, value.type.getElementType()));
}

HValue Writer::transpose(HValue value, ArrayRef<int64_t> permutation) {
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return value;
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(value.type.getDimSize(p));
  return emit("transpose", {value},
              RankedTensorType::get(shape, value.type.getElementType()),
              "permutation = " + i64Array(permutation));
}

HValue Writer::broadcast(HValue value, ArrayRef<int64_t> shape,
                         ArrayRef<int64_t> dims) {
  if (value.type.getShape() == shape)
    return value;
  return emit("broadcast_in_dim", {value},
              RankedTensorType::get(shape, value.type.getElementType()),
              "broadcast_dimensions = " + i64Array(dims));
}

HValue Writer::convert(HValue value, Type element) {
  if (value.type.getElementType() == element)
    return value;
  return emit("convert", {value},
              RankedTensorType::get(value.type.getShape(), element));
}

HValue Writer::toUnsigned(HValue value) {
  auto type = cast<IntegerType>(value.type.getElementType());
  return emit(
      "bitcast_convert", {value},
      RankedTensorType::get(value.type.getShape(),
                            IntegerType::get(type.getContext(), type.getWidth(),
                                             IntegerType::Unsigned)));
}

HValue Writer::fromUnsigned(HValue value, Type signless) {
  if (value.type.getElementType() == signless)
    return value;
  return emit("bitcast_convert", {value},
              RankedTensorType::get(value.type.getShape(), signless));
}

/// The comparison direction of an unsigned cmpi predicate.
static std::optional<StringRef> getUnsignedComparison(Operation *op) {
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp)
    return std::nullopt;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::ugt:
    return StringRef("GT");
  case arith::CmpIPredicate::uge:
    return StringRef("GE");
  case arith::CmpIPredicate::ult:
    return StringRef("LT");
  case arith::CmpIPredicate::ule:
    return StringRef("LE");
  default:
    return std::nullopt;
  }
}

FailureOr<HValue> Writer::emitUnsignedOp(Operation *inner,
                                         ArrayRef<HValue> operands,
                                         RankedTensorType type) {
  Type from =
      operands.empty() ? Type() : operands.front().type.getElementType();
  Type to = type.getElementType();
  auto isWideInt = [](Type t) { return t && t.isInteger() && !t.isInteger(1); };
  auto onUnsigned = [&](StringRef name) -> HValue {
    SmallVector<HValue> unsignedOperands;
    for (const HValue &operand : operands)
      unsignedOperands.push_back(toUnsigned(operand));
    auto unsignedType = RankedTensorType::get(
        type.getShape(), unsignedOperands.front().type.getElementType());
    return fromUnsigned(emit(name, unsignedOperands, unsignedType), to);
  };
  if (isWideInt(from) &&
      isa<arith::DivUIOp, arith::RemUIOp, arith::MaxUIOp, arith::MinUIOp>(
          inner)) {
    StringRef name = TypeSwitch<Operation *, StringRef>(inner)
                         .Case<arith::DivUIOp>([](auto) { return "divide"; })
                         .Case<arith::RemUIOp>([](auto) { return "remainder"; })
                         .Case<arith::MaxUIOp>([](auto) { return "maximum"; })
                         .Default([](Operation *) { return "minimum"; });
    return onUnsigned(name);
  }
  if (std::optional<StringRef> direction = getUnsignedComparison(inner)) {
    if (!isWideInt(from))
      return failure();
    SmallVector<HValue> unsignedOperands = {toUnsigned(operands[0]),
                                            toUnsigned(operands[1])};
    return emit("compare", unsignedOperands, type,
                ("comparison_direction = #stablehlo<comparison_direction " +
                 *direction +
                 ">, compare_type = #stablehlo<comparison_type UNSIGNED>")
                    .str());
  }
  // Conversions from and to unsigned integers: through uiN.
  if (isa<arith::ExtUIOp, arith::UIToFPOp, arith::IndexCastUIOp>(inner) &&
      isWideInt(from)) {
    HValue source = toUnsigned(operands.front());
    if (isa<FloatType>(to))
      return convert(source, to);
    auto width = cast<IntegerType>(to).getWidth();
    Type unsignedTo =
        IntegerType::get(to.getContext(), width, IntegerType::Unsigned);
    return fromUnsigned(convert(source, unsignedTo), to);
  }
  if (isa<arith::FPToUIOp>(inner) && isWideInt(to)) {
    Type unsignedTo =
        IntegerType::get(to.getContext(), cast<IntegerType>(to).getWidth(),
                         IntegerType::Unsigned);
    return fromUnsigned(convert(operands.front(), unsignedTo), to);
  }
  return failure();
}

FailureOr<HValue> Writer::lookup(Operation *user, Value value) {
  auto it = values.find(value);
  if (it != values.end())
    return it->second;
  // tensor.empty: read only when an op uses its init; zeros then.
  if (auto empty = value.getDefiningOp<tensor::EmptyOp>()) {
    RankedTensorType type = toTensorType(empty.getType());
    if (!type)
      return fail(user, "a tensor.empty of a type StableHLO has no form for");
    Builder b(user->getContext());
    HValue zero = scalar(cast<TypedAttr>(b.getZeroAttr(type.getElementType())));
    HValue result = broadcast(zero, type.getShape(), {});
    values[value] = result;
    return result;
  }
  return fail(user, "an operand is defined by an op that was not converted");
}

FailureOr<HValue> Writer::toDomain(Operation *op, HValue value, AffineMap map,
                                   ArrayRef<int64_t> domain) {
  // Drop the unit dims the map reads at a constant 0.
  SmallVector<int64_t> kept, positions;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      kept.push_back(value.type.getDimSize(i));
      if (llvm::is_contained(positions, dim.getPosition()))
        return fail(op, "an operand reads a loop twice (a diagonal)");
      positions.push_back(dim.getPosition());
      continue;
    }
    auto cst = dyn_cast<AffineConstantExpr>(expr);
    if (!cst || cst.getValue() != 0 || value.type.getDimSize(i) != 1)
      return fail(op, "an operand's indexing map is not a projected "
                      "permutation");
  }
  value = reshape(value, kept);
  // Into domain order, then broadcast to the domain.
  SmallVector<int64_t> order(positions.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order,
             [&](int64_t a, int64_t b) { return positions[a] < positions[b]; });
  value = transpose(value, order);
  SmallVector<int64_t> dims;
  for (int64_t i : order)
    dims.push_back(positions[i]);
  return broadcast(value, domain, dims);
}

FailureOr<HValue> Writer::emitScalarOp(Operation *inner,
                                       ArrayRef<HValue> operands,
                                       ArrayRef<int64_t> shape) {
  Type resultType = inner->getResult(0).getType();
  RankedTensorType scalarType = toTensorType(resultType);
  if (!scalarType)
    return fail(inner, "its result type has no StableHLO form");
  auto type = RankedTensorType::get(shape, scalarType.getElementType());
  Type operandElement =
      operands.empty() ? Type() : operands.front().type.getElementType();
  if (FailureOr<HValue> unsignedResult = emitUnsignedOp(inner, operands, type);
      succeeded(unsignedResult))
    return *unsignedResult;
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::MaxUIOp, arith::MinUIOp,
          arith::CeilDivUIOp, arith::FPToUIOp>(inner))
    return fail(inner, "this unsigned integer op is not converted");
  // StableHLO's i1 is a boolean: its add is `or`, its maximum `or`, ...
  bool boolArithmetic =
      operandElement && operandElement.isInteger(1) &&
      isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
          arith::RemSIOp, arith::MaxSIOp, arith::MinSIOp, arith::ShLIOp,
          arith::ShRSIOp, arith::ShRUIOp>(inner);
  if (boolArithmetic)
    return fail(inner, "integer arithmetic on i1 is not converted (StableHLO's "
                       "i1 is a boolean)");
  if (StringRef name = getElementwiseName(inner); !name.empty())
    return emit(name, operands, type);
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(inner)) {
    // IEEE maxNum/minNum: a NaN operand yields the other one (StableHLO's
    // maximum and minimum propagate NaN).
    HValue extremum = emit(isa<arith::MaxNumFOp>(inner) ? "maximum" : "minimum",
                           operands, type);
    auto isNaN = [&](const HValue &v) {
      return emit(
          "compare", {v, v},
          RankedTensorType::get(type.getShape(),
                                IntegerType::get(inner->getContext(), 1)),
          "comparison_direction = #stablehlo<comparison_direction NE>, "
          "compare_type = #stablehlo<comparison_type FLOAT>");
    };
    HValue noNaNInB =
        emit("select", {isNaN(operands[1]), operands[0], extremum}, type);
    return emit("select", {isNaN(operands[0]), operands[1], noNaNInB}, type);
  }
  if (auto comparison = getComparison(inner)) {
    std::string attrs = ("comparison_direction = #stablehlo<comparison_"
                         "direction " +
                         comparison->first +
                         ">, compare_type = "
                         "#stablehlo<comparison_type " +
                         comparison->second + ">")
                            .str();
    if (isa<FloatType>(operandElement) && comparison->second == "SIGNED")
      return fail(inner, "mismatched comparison");
    if (operandElement.isInteger(1)) {
      if (comparison->first != "EQ" && comparison->first != "NE")
        return fail(inner, "an ordered comparison of i1");
      attrs = ("comparison_direction = #stablehlo<comparison_direction " +
               comparison->first +
               ">, compare_type = #stablehlo<comparison_type UNSIGNED>")
                  .str();
    }
    return emit("compare", operands, type, attrs);
  }
  if (isa<arith::CmpFOp, arith::CmpIOp>(inner))
    return fail(inner, "this comparison predicate is not converted");
  if (isa<arith::SelectOp>(inner))
    return emit("select", operands, type);
  if (isConvert(inner)) {
    HValue source = operands.front();
    Type from = source.type.getElementType();
    // `convert` to i1 tests for non-zero; trunci keeps the low bit.
    if (type.getElementType().isInteger(1) && !isa<arith::TruncIOp>(inner) &&
        !from.isInteger(1))
      return fail(inner, "a conversion to i1 other than trunci");
    if (isa<arith::TruncIOp>(inner) && type.getElementType().isInteger(1)) {
      Builder b(inner->getContext());
      HValue one = broadcast(scalar(b.getIntegerAttr(from, 1)),
                             source.type.getShape(), {});
      source = emit("and", {source, one}, source.type);
    }
    HValue converted = convert(source, type.getElementType());
    // A signed i1 is 0 or -1: `convert` of true gives 1.
    if (isa<arith::ExtSIOp, arith::SIToFPOp, arith::IndexCastOp>(inner) &&
        from.isInteger(1) && !type.getElementType().isInteger(1))
      return emit("negate", {converted}, converted.type);
    return converted;
  }
  if (isa<arith::BitcastOp>(inner))
    return emit("bitcast_convert", operands, type);
  if (auto fma = dyn_cast<math::FmaOp>(inner)) {
    HValue product = emit("multiply", operands.take_front(2), type);
    return emit("add", {product, operands[2]}, type);
  }
  return fail(inner, "'" + inner->getName().getStringRef() +
                         "' has no StableHLO conversion");
}

LogicalResult Writer::emitContraction(linalg::LinalgOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return fail(op, "an unsupported contraction");
  // Zero extension of integers other than i1 would need unsigned types.
  for (Operation &inner : op.getBlock()->without_terminator())
    if (isa<arith::ExtUIOp, arith::UIToFPOp>(inner) &&
        !inner.getOperand(0).getType().isInteger(1))
      return fail(op, "unsigned integer contractions are not converted yet");
  OpOperand *out = op.getDpsInitOperand(0);
  RankedTensorType outType = toTensorType(out->get().getType());
  if (!outType)
    return fail(op, "its result type has no StableHLO form");
  Type acc = outType.getElementType();
  if (acc.isInteger(1))
    return fail(op, "a contraction of i1 (StableHLO's i1 is a boolean)");
  SmallVector<HValue> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<HValue> value = lookup(op, input->get());
    if (failed(value))
      return failure();
    operands.push_back(convert(*value, acc));
    maps.push_back(op.getMatchingIndexingMap(input));
  }
  auto positionsIn = [](AffineMap map, ArrayRef<unsigned> loopDims) {
    SmallVector<int64_t> positions;
    for (unsigned d : loopDims)
      if (std::optional<unsigned> p =
              map.getResultPosition(getAffineDimExpr(d, map.getContext())))
        positions.push_back(*p);
    return positions;
  };
  SmallVector<int64_t> lhsBatch = positionsIn(maps[0], dims->batch);
  SmallVector<int64_t> rhsBatch = positionsIn(maps[1], dims->batch);
  SmallVector<int64_t> lhsK = positionsIn(maps[0], dims->k);
  SmallVector<int64_t> rhsK = positionsIn(maps[1], dims->k);
  if (lhsBatch.size() != dims->batch.size() ||
      rhsBatch.size() != dims->batch.size() || lhsK.size() != dims->k.size() ||
      rhsK.size() != dims->k.size())
    return fail(op, "a contraction with a dimension on one side only");
  // dot_general's result: batch dims, then the lhs's free dims, then the
  // rhs's, each in operand order; as loop dims:
  SmallVector<unsigned> resultLoops(dims->batch.begin(), dims->batch.end());
  for (AffineMap map : maps)
    for (AffineExpr expr : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(expr).getPosition();
      if (!llvm::is_contained(dims->batch, d) &&
          !llvm::is_contained(dims->k, d))
        resultLoops.push_back(d);
    }
  // Every loop a batch, free or contracted dim of both sides as dot_general
  // reads them, and the output exactly dot_general's result dims.
  AffineMap outMap = op.getMatchingIndexingMap(out);
  unsigned freeCount = resultLoops.size() - dims->batch.size();
  if (dims->m.size() + dims->n.size() != freeCount ||
      outMap.getNumResults() != resultLoops.size() ||
      resultLoops.size() + dims->k.size() != op.getNumLoops() ||
      llvm::any_of(outMap.getResults(), [&](AffineExpr expr) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        return !dim || !llvm::is_contained(resultLoops, dim.getPosition());
      }))
    return fail(op, "a contraction that dot_general does not express (a dim "
                    "of the output or a reduction on one side only)");
  SmallVector<int64_t> domain = op.getStaticLoopRanges();
  SmallVector<int64_t> dotShape;
  for (unsigned d : resultLoops)
    dotShape.push_back(domain[d]);
  std::string attrs =
      "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = " +
      i64List(lhsBatch) + ", rhs_batching_dimensions = " + i64List(rhsBatch) +
      ", lhs_contracting_dimensions = " + i64List(lhsK) +
      ", rhs_contracting_dimensions = " + i64List(rhsK) + ">" +
      getPrecisionConfig(acc);
  HValue dot = emit("dot_general", operands,
                    RankedTensorType::get(dotShape, acc), attrs);
  // Into the output's order.
  SmallVector<int64_t> permutation;
  for (AffineExpr expr : outMap.getResults()) {
    unsigned d = cast<AffineDimExpr>(expr).getPosition();
    permutation.push_back(llvm::find(resultLoops, d) - resultLoops.begin());
  }
  FailureOr<HValue> result = accumulate(op, transpose(dot, permutation));
  if (failed(result))
    return failure();
  values[op->getResult(0)] = *result;
  return success();
}

FailureOr<HValue> Writer::accumulate(linalg::LinalgOp op, HValue result) {
  // C += A * B, unless C starts at zero.
  Value init = op.getDpsInitOperand(0)->get();
  bool zeroInit = init.getDefiningOp<tensor::EmptyOp>();
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    zeroInit = matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
               matchPattern(fill.getInputs()[0], m_Zero());
  if (zeroInit)
    return result;
  FailureOr<HValue> c = lookup(op, init);
  if (failed(c))
    return failure();
  return emit("add", {result, *c}, result.type);
}

std::string Writer::combinerRegion(StringRef combiner, Type element) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto scalarType = RankedTensorType::get({}, element);
  os << "({\n"
     << "    ^bb0(%a: " << scalarType << ", %b: " << scalarType << "):\n"
     << "      %c = \"stablehlo." << combiner << "\"(%a, %b) : (" << scalarType
     << ", " << scalarType << ") -> " << scalarType << "\n"
     << "      \"stablehlo.return\"(%c) : (" << scalarType << ") -> ()\n"
     << "    })";
  return text;
}

/// The strides and dilations of a named convolution or pooling op.

LogicalResult Writer::emitStructured(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return fail(op, "it works on memrefs");
  if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNdhwcMaxOp>(op))
    return emitPooling(op, "maximum");
  if (isa<linalg::PoolingNhwcMinOp, linalg::PoolingNdhwcMinOp>(op))
    return emitPooling(op, "minimum");
  if (isa<linalg::PoolingNhwcSumOp, linalg::PoolingNdhwcSumOp>(op))
    return emitPooling(op, "add");
  if (isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return emitConvolution(op);
  if (matchGroupedConvolutionNhwc(op))
    return emitGroupedConvolution(op);
  if (linalg::isaContractionOpInterface(op) && op.getNumReductionLoops() > 0)
    return emitContraction(op);
  if (op.hasDynamicShape())
    return fail(op, "it has dynamic shapes");
  SmallVector<int64_t> domain = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> reductionDims, parallelDims;
  for (auto [i, it] : llvm::enumerate(iterators))
    (it == utils::IteratorType::reduction ? reductionDims : parallelDims)
        .push_back(i);
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());

  // A reduction: one output whose yielded value combines an expression of
  // the inputs with the output's block argument.
  Operation *combiner = nullptr;
  std::optional<Combiner> combine;
  if (!reductionDims.empty()) {
    if (op.getNumDpsInits() != 1)
      return fail(op, "a reduction with several outputs");
    BlockArgument outArg = body->getArguments().back();
    combiner = yield.getOperand(0).getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 ||
        combiner->getBlock() != body ||
        !llvm::is_contained(combiner->getOperands(), Value(outArg)) ||
        combiner->getOperand(0) == combiner->getOperand(1))
      return fail(op, "a reduction whose body is not a combination of its "
                      "output with an expression of its inputs");
    RankedTensorType accType = toTensorType(outArg.getType());
    if (!accType || accType.getElementType().isInteger(1))
      return fail(op, "a reduction of i1 or of a type StableHLO has no form "
                      "for");
    combine = getCombiner(combiner, accType.getElementType());
    if (!combine)
      return fail(op, "a reduction of an unsupported combiner");
    bool outUsedElsewhere = llvm::any_of(
        outArg.getUsers(), [&](Operation *u) { return u != combiner; });
    if (outUsedElsewhere)
      return fail(op, "a reduction that reads its output elsewhere");
  }

  // Block arguments over the domain.
  llvm::DenseMap<Value, HValue> local;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || (combiner && op.isDpsInit(&operand)))
      continue;
    FailureOr<HValue> value = lookup(op, operand.get());
    if (failed(value))
      return failure();
    FailureOr<HValue> inDomain =
        toDomain(op, *value, op.getMatchingIndexingMap(&operand), domain);
    if (failed(inDomain))
      return failure();
    local[arg] = *inDomain;
  }
  auto operandOf = [&](Operation *inner, Value v) -> FailureOr<HValue> {
    if (auto it = local.find(v); it != local.end())
      return it->second;
    // A scalar defined outside the op: broadcast over the domain.
    FailureOr<HValue> outer = lookup(inner, v);
    if (failed(outer))
      return failure();
    if (outer->type.getRank() != 0)
      return fail(inner, "reads a tensor inside a structured op's body");
    HValue spread = broadcast(*outer, domain, {});
    local[v] = spread;
    return spread;
  };
  for (Operation &inner : body->without_terminator()) {
    if (&inner == combiner)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      auto type =
          RankedTensorType::get(domain, IntegerType::get(op->getContext(), 64));
      local[index] =
          emit("iota", {}, type,
               "iota_dimension = " + std::to_string(index.getDim()) + " : i64");
      continue;
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(inner)) {
      auto typed = dyn_cast<TypedAttr>(cst.getValue());
      if (!typed || !toTensorType(typed.getType()) ||
          isa<ShapedType>(typed.getType()))
        return fail(&inner, "a constant StableHLO has no form for");
      local[cst] = broadcast(scalar(typed), domain, {});
      continue;
    }
    SmallVector<HValue> operands;
    for (Value v : inner.getOperands()) {
      FailureOr<HValue> h = operandOf(&inner, v);
      if (failed(h))
        return failure();
      operands.push_back(*h);
    }
    if (inner.getNumResults() != 1)
      return fail(&inner, "an op of several results");
    FailureOr<HValue> result = emitScalarOp(&inner, operands, domain);
    if (failed(result))
      return failure();
    local[inner.getResult(0)] = *result;
  }

  if (combiner) {
    // The expression, reduced over the reduction dims, then combined with
    // the init.
    Value exprValue = combiner->getOperand(0) == body->getArguments().back()
                          ? combiner->getOperand(1)
                          : combiner->getOperand(0);
    FailureOr<HValue> expr = operandOf(combiner, exprValue);
    if (failed(expr))
      return failure();
    Type element = expr->type.getElementType();
    auto scalarType = RankedTensorType::get({}, element);
    HValue identity = scalar(combine->identity);
    SmallVector<int64_t> reducedShape;
    for (int64_t d : parallelDims)
      reducedShape.push_back(domain[d]);
    auto reducedType = RankedTensorType::get(reducedShape, element);
    std::string name = "%v" + std::to_string(counter++);
    os << "    " << name << " = \"stablehlo.reduce\"(" << expr->name << ", "
       << identity.name << ") " << combinerRegion(combine->op, element)
       << " {dimensions = " << i64Array(reductionDims) << "} : (" << expr->type
       << ", " << scalarType << ") -> " << reducedType << "\n";
    HValue reduced{name, reducedType};
    OpOperand *out = op.getDpsInitOperand(0);
    SmallVector<int64_t> permutation;
    for (AffineExpr e : op.getMatchingIndexingMap(out).getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim)
        return fail(op, "a reduction whose output map is not a permutation");
      permutation.push_back(llvm::find(parallelDims, dim.getPosition()) -
                            parallelDims.begin());
    }
    reduced = transpose(reduced, permutation);
    FailureOr<HValue> init = lookup(op, out->get());
    if (failed(init))
      return failure();
    values[op->getResult(0)] =
        emit(combine->op, {reduced, *init}, reduced.type);
    return success();
  }

  // Each result: the yielded value, in the output's order.
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    FailureOr<HValue> yielded = operandOf(yield, yield.getOperand(i));
    if (failed(yielded))
      return failure();
    AffineMap map = op.getIndexingMapMatchingResult(cast<OpResult>(result));
    if (!map.isPermutation())
      return fail(op, "an output map that is not a permutation");
    SmallVector<int64_t> permutation;
    for (AffineExpr e : map.getResults())
      permutation.push_back(cast<AffineDimExpr>(e).getPosition());
    values[result] = transpose(*yielded, permutation);
  }
  return success();
}

LogicalResult Writer::emitOp(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return success(); // Materialized where it is read (lookup).
  if (auto cst = dyn_cast<arith::ConstantOp>(op))
    return emitConstant(cst);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return emitStructured(linalgOp);
  if (isa<tensor::TensorDialect>(op->getDialect()))
    return emitTensorOp(op);
  if (isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
          op->getDialect())) {
    // A scalar computation of the function: on 0-d tensors.
    if (op->getNumResults() != 1 || !toTensorType(op->getResult(0).getType()) ||
        isa<ShapedType>(op->getResult(0).getType()))
      return fail(op, "arith and math ops are converted on scalars only");
    SmallVector<HValue> operands;
    for (Value v : op->getOperands()) {
      FailureOr<HValue> h = lookup(op, v);
      if (failed(h))
        return failure();
      operands.push_back(*h);
    }
    FailureOr<HValue> result = emitScalarOp(op, operands, {});
    if (failed(result))
      return failure();
    values[op->getResult(0)] = *result;
    return success();
  }
  return fail(op, "'" + op->getName().getStringRef() +
                      "' has no StableHLO conversion");
}

LogicalResult Writer::emitFunction(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return fail(func, "a function of several blocks");
  FunctionType type = func.getFunctionType();
  SmallVector<RankedTensorType> argTypes, resultTypes;
  for (Type t : type.getInputs()) {
    RankedTensorType tensor = toTensorType(t);
    if (!tensor)
      return fail(func, "an argument type StableHLO has no form for");
    argTypes.push_back(tensor);
  }
  for (Type t : type.getResults()) {
    RankedTensorType tensor = toTensorType(t);
    if (!tensor)
      return fail(func, "a result type StableHLO has no form for");
    resultTypes.push_back(tensor);
  }
  os << "module {\n  func.func @main(";
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    HValue h{"%arg" + std::to_string(i), argTypes[i]};
    os << (i ? ", " : "") << h.name << ": " << h.type;
    values[arg] = h;
  }
  os << ") -> (";
  llvm::interleaveComma(resultTypes, os);
  os << ") {\n";
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator())
    if (failed(emitOp(&op)))
      return failure();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<HValue> results;
  for (Value v : ret.getOperands()) {
    FailureOr<HValue> h = lookup(ret, v);
    if (failed(h))
      return failure();
    results.push_back(*h);
  }
  os << "    \"func.return\"(";
  llvm::interleaveComma(results, os, [&](const HValue &h) { os << h.name; });
  os << ") : (";
  llvm::interleaveComma(results, os, [&](const HValue &h) { os << h.type; });
  os << ") -> ()\n  }\n}\n";
  return success();
}

bool stablehlo::canConvert(Operation *op) {
  // Terminators (a pad's yield) are converted with their parent.
  if (isa<func::FuncOp, ModuleOp>(op) || op->hasTrait<OpTrait::IsTerminator>())
    return true;
  for (Type type : op->getResultTypes())
    if (!toTensorType(type))
      return false;
  // Its own stream: the mask may be asked from several threads.
  llvm::raw_null_ostream nowhere;
  Writer writer(nowhere, /*report=*/false);
  // Its operands and the values its regions capture (a structured op's body
  // may read a scalar of the function).
  SetVector<Value> used(op->getOperands().begin(), op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  for (Value operand : used) {
    RankedTensorType type = toTensorType(operand.getType());
    if (!type)
      return false;
    writer.bind(operand, HValue{"%x", type});
  }
  return succeeded(writer.emitOp(op));
}

FailureOr<std::string> stablehlo::emitModule(func::FuncOp func) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Writer writer(os, /*report=*/true);
  if (failed(writer.emitFunction(func)))
    return failure();
  return text;
}
