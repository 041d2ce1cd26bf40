//===- ControlFlow.cpp - ONNX graph-structure converters ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Constant, Identity and If. Identity forwards its operand (no op is built);
// If on a condition known at compile time imports the taken branch inline.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

LogicalResult convertConstant(NodeContext &ctx) {
  const onnx::NodeProto &node = ctx.getNode();
  if (node.attribute_size() != 1)
    return ctx.emitError() << "expects exactly one value attribute";
  StringRef name = node.attribute(0).name();
  MLIRContext *context = ctx.getContext();
  if (name == "value") {
    OnnxDType dtype;
    FailureOr<ElementsAttr> value = ctx.getAttrTensor("value", &dtype);
    if (failed(value))
      return failure();
    ctx.setConstantOutput(0, *value, dtype);
    return success();
  }
  auto i64 = IntegerType::get(context, 64);
  auto f32 = Float32Type::get(context);
  if (name == "value_int") {
    ctx.setConstantOutput(
        0,
        DenseElementsAttr::get(RankedTensorType::get({}, i64),
                               APInt(64, ctx.getAttrInt("value_int", 0), true)),
        onnx::TensorProto::INT64);
    return success();
  }
  if (name == "value_ints") {
    SmallVector<int64_t> values = ctx.getAttrInts("value_ints");
    ctx.setConstantOutput(
        0,
        DenseElementsAttr::get(
            RankedTensorType::get({int64_t(values.size())}, i64),
            ArrayRef<int64_t>(values)),
        onnx::TensorProto::INT64);
    return success();
  }
  if (name == "value_float") {
    ctx.setConstantOutput(
        0,
        DenseElementsAttr::get(RankedTensorType::get({}, f32),
                               ctx.getAttrFloat("value_float", 0)),
        onnx::TensorProto::FLOAT);
    return success();
  }
  if (name == "value_floats") {
    SmallVector<float> values = ctx.getAttrFloats("value_floats");
    ctx.setConstantOutput(
        0,
        DenseElementsAttr::get(
            RankedTensorType::get({int64_t(values.size())}, f32),
            ArrayRef<float>(values)),
        onnx::TensorProto::FLOAT);
    return success();
  }
  return ctx.unsupported("Constant with attribute '" + name + "'");
}

LogicalResult convertIdentity(NodeContext &ctx) {
  ctx.setOutput(0, ctx.getImportedInput(0));
  return success();
}

LogicalResult convertIf(NodeContext &ctx) {
  DenseElementsAttr condition = ctx.getConstantInput(0);
  if (!condition)
    return ctx.unsupported(
        "If with a condition that is not known at compile time");
  if (condition.getNumElements() != 1)
    return ctx.emitError() << "the condition must have one element";
  bool taken = getIntValues(condition).front() != 0;
  const onnx::GraphProto *branch =
      ctx.getAttrGraph(taken ? "then_branch" : "else_branch");
  if (!branch)
    return ctx.emitError() << "missing branch attribute";
  FailureOr<SmallVector<ImportedValue>> outputs = ctx.importSubgraph(*branch);
  if (failed(outputs))
    return failure();
  if (outputs->size() != ctx.getNumOutputs())
    return ctx.emitError() << "the branch has " << outputs->size()
                           << " outputs; the node has " << ctx.getNumOutputs();
  for (auto [i, value] : llvm::enumerate(*outputs))
    ctx.setOutput(i, value);
  return success();
}

} // namespace

void onnx_import::registerControlFlowConverters(ConverterRegistry &registry) {
  registry.add("Constant", {1, 9, 11, 12, 13}, convertConstant);
  registry.add("Identity", {1, 13, 14, 16}, convertIdentity);
  registry.add("If", {1, 11, 13, 16}, convertIf);
}
