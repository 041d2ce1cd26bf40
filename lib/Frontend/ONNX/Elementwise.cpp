//===- Elementwise.cpp - ONNX elementwise converters ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Elementwise ops become one `linalg.generic` each over the numpy broadcast
// of their operands; the placement pass fuses them into their neighbours.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

/// Binary arithmetic with a float and an integer form.
LogicalResult convertArithmetic(NodeContext &ctx) {
  if (ctx.getInputDType(0) != ctx.getInputDType(1))
    return ctx.emitError() << "operands have different element types ("
                           << getOnnxDTypeName(ctx.getInputDType(0)) << ", "
                           << getOnnxDTypeName(ctx.getInputDType(1)) << ")";
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  StringRef op = ctx.getOpType();
  bool isFloat = isFloatDType(dtype);
  bool isUnsigned = isUnsignedDType(dtype);
  FailureOr<Value> result = buildElementwise(
      ctx, {ctx.getInput(0), ctx.getInput(1)},
      ctx.getInputType(0).getElementType(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value lhs = args[0], rhs = args[1];
        if (op == "Add")
          return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                         : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
        if (op == "Sub")
          return isFloat ? arith::SubFOp::create(b, loc, lhs, rhs).getResult()
                         : arith::SubIOp::create(b, loc, lhs, rhs).getResult();
        if (op == "Mul")
          return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                         : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
        assert(op == "Div" && "unexpected op");
        if (isFloat)
          return arith::DivFOp::create(b, loc, lhs, rhs);
        if (isUnsigned)
          return arith::DivUIOp::create(b, loc, lhs, rhs);
        return arith::DivSIOp::create(b, loc, lhs, rhs);
      });
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, dtype);
  return success();
}

/// Relu: max(x, 0), NaN propagating.
LogicalResult convertRelu(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  Type element = ctx.getInputType(0).getElementType();
  FailureOr<Value> result = buildElementwise(
      ctx, ctx.getInput(0), element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (isFloatDType(dtype)) {
          Value zero =
              arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0));
          return arith::MaximumFOp::create(b, loc, args[0], zero);
        }
        Value zero =
            arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, 0));
        return arith::MaxSIOp::create(b, loc, args[0], zero);
      });
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, dtype);
  return success();
}

} // namespace

void onnx_import::registerElementwiseConverters(ConverterRegistry &registry) {
  for (StringRef op : {"Add", "Sub", "Mul", "Div"})
    registry.add(op, {7, 13, 14}, convertArithmetic);
  registry.add("Relu", {6, 13, 14}, convertRelu);
}
