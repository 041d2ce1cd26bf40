//===- Writer.h - The StableHLO text writer (private) -----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The writer behind orchestra/StableHLO/Emitter.h, shared by its two source
// files: Emitter.cpp (structured ops, contractions, elementwise bodies, the
// function) and WindowAndTensorOps.cpp (convolutions, pooling, constants and
// tensor data movement).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_STABLEHLO_WRITER_H
#define ORCHESTRA_LIB_STABLEHLO_WRITER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::orchestra::stablehlo::detail {

/// A value of the module being written: its SSA name and its type.
struct HValue {
  std::string name;
  RankedTensorType type;
};

/// The StableHLO type of a value: scalars are 0-d tensors, `index` is i64.
inline RankedTensorType toTensorType(Type type) {
  auto element = [](Type t) -> Type {
    if (t.isIndex())
      return IntegerType::get(t.getContext(), 64);
    // The element types StableHLO has (its f8 types aside).
    if (t.isF16() || t.isBF16() || t.isF32() || t.isF64())
      return t;
    if (auto integer = dyn_cast<IntegerType>(t))
      if (!integer.isSigned() &&
          llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth()))
        return t;
    return nullptr;
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (!tensor.hasStaticShape() || !element(tensor.getElementType()))
      return nullptr;
    return RankedTensorType::get(tensor.getShape(),
                                 element(tensor.getElementType()));
  }
  if (Type scalar = element(type))
    return RankedTensorType::get({}, scalar);
  return nullptr;
}

inline std::string i64Array(ArrayRef<int64_t> values) {
  std::string text = "array<i64";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i == 0 ? ": " : ", ") + std::to_string(v);
  return text + ">";
}

/// The precision_config of a dot_general or convolution accumulating in
/// `acc`: f32 and f64 at full precision, which a vendor compiler may
/// otherwise compute in one bf16 pass (its DEFAULT precision on matrix
/// units); empty for the others.
inline std::string getPrecisionConfig(Type acc) {
  if (!acc.isF32() && !acc.isF64())
    return "";
  return ", precision_config = [#stablehlo<precision HIGHEST>, "
         "#stablehlo<precision HIGHEST>]";
}

inline std::string i64List(ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i == 0 ? "" : ", ") + std::to_string(v);
  return text + "]";
}

/// The combiners of reductions and the StableHLO op and identity of each.
struct Combiner {
  StringRef op;
  /// The identity as a TypedAttr of `type`.
  TypedAttr identity;
};

class Writer {
public:
  /// With `report`, failures emit an error at the op.
  Writer(raw_ostream &os, bool report) : os(os), report(report) {}

  LogicalResult emitFunction(func::FuncOp func);
  /// Converts one op whose operands are bound.
  LogicalResult emitOp(Operation *op);
  void bind(Value value, HValue h) { values[value] = std::move(h); }

private:
  LogicalResult fail(Operation *op, const Twine &message) {
    if (report)
      return op->emitError() << "cannot be lowered to StableHLO: " << message;
    return failure();
  }

  FailureOr<HValue> lookup(Operation *user, Value value);

  HValue emit(StringRef name, ArrayRef<HValue> operands,
              RankedTensorType result, StringRef attrs = "");
  HValue constant(Attribute dense, RankedTensorType type);
  HValue scalar(TypedAttr value);
  HValue reshape(HValue value, ArrayRef<int64_t> shape);
  HValue transpose(HValue value, ArrayRef<int64_t> permutation);
  HValue broadcast(HValue value, ArrayRef<int64_t> shape,
                   ArrayRef<int64_t> dims);
  HValue convert(HValue value, Type element);
  /// `value` of signless integers reinterpreted as unsigned ones of the same
  /// width (`bitcast_convert`), and back to `signless`: StableHLO's signless
  /// integers are signed, so unsigned arithmetic runs on uiN.
  HValue toUnsigned(HValue value);
  HValue fromUnsigned(HValue value, Type signless);
  /// The unsigned form of an op on signless integers (divui, remui, maxui,
  /// minui, unsigned comparisons and conversions), or failure when `inner`
  /// is none.
  FailureOr<HValue> emitUnsignedOp(Operation *inner, ArrayRef<HValue> operands,
                                   RankedTensorType type);
  HValue withElement(const HValue &value, Type element) {
    return {value.name, RankedTensorType::get(value.type.getShape(), element)};
  }

  /// Brings `value`, read through `map`, to the iteration domain `domain`.
  FailureOr<HValue> toDomain(Operation *op, HValue value, AffineMap map,
                             ArrayRef<int64_t> domain);
  /// The scalar op `inner` on domain-shaped operands.
  FailureOr<HValue> emitScalarOp(Operation *inner, ArrayRef<HValue> operands,
                                 ArrayRef<int64_t> shape);
  LogicalResult emitStructured(linalg::LinalgOp op);
  LogicalResult emitContraction(linalg::LinalgOp op);
  LogicalResult emitConvolution(linalg::LinalgOp op);
  /// The channels-last grouped convolution of GroupedConvolution.h.
  LogicalResult emitGroupedConvolution(linalg::LinalgOp op);
  /// `convolution` of `x` [N, spatial..., C] and `w` [spatial..., C/G, F]
  /// into `outType` [N, spatial..., F] in G feature groups.
  HValue emitConvolutionOp(HValue x, HValue w, RankedTensorType outType,
                           ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations, int64_t groups);
  LogicalResult emitPooling(linalg::LinalgOp op, StringRef combiner);
  /// `result` plus the init of `op`'s output, unless the init is zero.
  FailureOr<HValue> accumulate(linalg::LinalgOp op, HValue result);
  /// A `reduce`-style region of `combiner` on scalars of `element`, as text.
  std::string combinerRegion(StringRef combiner, Type element);
  LogicalResult emitTensorOp(Operation *op);
  LogicalResult emitConstant(arith::ConstantOp op);

  raw_ostream &os;
  bool report;
  llvm::DenseMap<Value, HValue> values;
  unsigned counter = 0;
};

} // namespace mlir::orchestra::stablehlo::detail

#endif // ORCHESTRA_LIB_STABLEHLO_WRITER_H
