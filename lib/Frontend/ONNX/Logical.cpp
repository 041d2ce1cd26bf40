//===- Logical.cpp - ONNX logical and comparison converters ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// And/Or/Xor/Not on bools, the comparisons (bool results; signed, unsigned
// or ordered-float predicates by the operands' ONNX type) and Where. Like the
// other elementwise ops they fold when their operands are constants, which
// shape computations rely on (e.g. Equal + Where on a Shape result).
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

constexpr OnnxDType kBool = onnx::TensorProto::BOOL;

LogicalResult requireBool(NodeContext &ctx, OnnxDType dtype) {
  if (isBoolDType(dtype))
    return success();
  return ctx.emitError() << "expects bool operands, not "
                         << getOnnxDTypeName(dtype);
}

/// And, Or, Xor.
LogicalResult convertLogicalBinary(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype) || failed(requireBool(ctx, *dtype)))
    return failure();
  StringRef op = ctx.getOpType();
  return convertElementwiseNode(
      ctx, {0, 1}, kBool,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (op == "And")
          return arith::AndIOp::create(b, loc, args[0], args[1]);
        if (op == "Or")
          return arith::OrIOp::create(b, loc, args[0], args[1]);
        return arith::XOrIOp::create(b, loc, args[0], args[1]);
      });
}

LogicalResult convertNot(NodeContext &ctx) {
  if (failed(requireBool(ctx, ctx.getInputDType(0))))
    return failure();
  return convertElementwiseNode(
      ctx, {0}, kBool, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value one = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
        return arith::XOrIOp::create(b, loc, args[0], one);
      });
}

/// The predicates of a comparison op: (float, signed, unsigned). Float
/// comparisons are ordered (false with a NaN).
struct Predicates {
  arith::CmpFPredicate floatPredicate;
  arith::CmpIPredicate signedPredicate;
  arith::CmpIPredicate unsignedPredicate;
};

Predicates getPredicates(StringRef op) {
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  if (op == "Less")
    return {F::OLT, I::slt, I::ult};
  if (op == "LessOrEqual")
    return {F::OLE, I::sle, I::ule};
  if (op == "Greater")
    return {F::OGT, I::sgt, I::ugt};
  if (op == "GreaterOrEqual")
    return {F::OGE, I::sge, I::uge};
  assert(op == "Equal" && "unexpected comparison");
  return {F::OEQ, I::eq, I::eq};
}

LogicalResult convertComparison(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype))
    return failure();
  Predicates predicates = getPredicates(ctx.getOpType());
  return convertElementwiseNode(
      ctx, {0, 1}, kBool,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (isFloatDType(*dtype))
          return arith::CmpFOp::create(b, loc, predicates.floatPredicate,
                                       args[0], args[1]);
        // Bools compare as unsigned (false < true).
        return arith::CmpIOp::create(b, loc,
                                     isSignedDType(*dtype)
                                         ? predicates.signedPredicate
                                         : predicates.unsignedPredicate,
                                     args[0], args[1]);
      });
}

/// Where(condition, X, Y): the three operands broadcast together.
LogicalResult convertWhere(NodeContext &ctx) {
  if (failed(requireBool(ctx, ctx.getInputDType(0))))
    return failure();
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {1, 2});
  if (failed(dtype))
    return failure();
  return convertElementwiseNode(
      ctx, {0, 1, 2}, *dtype, [&](OpBuilder &b, Location loc, ValueRange args) {
        return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
      });
}

} // namespace

void onnx_import::registerLogicalConverters(ConverterRegistry &registry) {
  for (StringRef op : {"And", "Or", "Xor"})
    registry.add(op, {1, 7}, convertLogicalBinary);
  registry.add("Not", {1}, convertNot);
  registry.add("Equal", {1, 7, 11, 13}, convertComparison);
  for (StringRef op : {"Less", "Greater"})
    registry.add(op, {1, 7, 9, 13}, convertComparison);
  for (StringRef op : {"LessOrEqual", "GreaterOrEqual"})
    registry.add(op, {12, 16}, convertComparison);
  registry.add("Where", {9, 16}, convertWhere);
}
