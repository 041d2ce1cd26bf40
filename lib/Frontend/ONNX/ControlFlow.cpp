//===- ControlFlow.cpp - ONNX graph-structure converters ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Constant, Identity and If. Identity forwards its operand (no op is built).
// If on a condition known at compile time imports the taken branch inline;
// on a condition known only at run time it becomes an scf.if whose regions
// hold the two branches (both must give the same types). The scheduler keeps
// such an scf.if inside one task: the branch runs inside a kernel.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/ScopeExit.h"

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

/// Imports `branch` into `block` (before its terminator) and replaces the
/// terminator by an scf.yield of the branch's outputs.
FailureOr<SmallVector<ImportedValue>>
importBranch(NodeContext &ctx, const onnx::GraphProto &branch, Block &block) {
  OpBuilder &builder = ctx.getBuilder();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(block.getTerminator());
  FailureOr<SmallVector<ImportedValue>> outputs = ctx.importSubgraph(branch);
  if (failed(outputs))
    return failure();
  SmallVector<Value> values;
  for (ImportedValue &output : *outputs)
    values.push_back(ctx.materialize(output));
  Operation *terminator = block.getTerminator();
  builder.setInsertionPoint(terminator);
  scf::YieldOp::create(builder, ctx.getLoc(), values);
  terminator->erase();
  return outputs;
}

/// If whose condition is known only at run time: an scf.if.
LogicalResult convertRuntimeIf(NodeContext &ctx) {
  RankedTensorType conditionType = ctx.getInputType(0);
  if (conditionType.getNumElements() != 1 ||
      !conditionType.getElementType().isInteger(1))
    return ctx.emitError() << "the condition must be one bool; it is "
                           << conditionType;
  const onnx::GraphProto *thenBranch = ctx.getAttrGraph("then_branch");
  const onnx::GraphProto *elseBranch = ctx.getAttrGraph("else_branch");
  if (!thenBranch || !elseBranch)
    return ctx.emitError() << "missing branch attribute";

  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  Value condition = ctx.getInput(0);
  SmallVector<Value> indices(conditionType.getRank(),
                             arith::ConstantIndexOp::create(builder, loc, 0));
  Value flag = tensor::ExtractOp::create(builder, loc, condition, indices);
  // The branches are imported into an scf.if without results, and moved
  // into the real one once their types are known.
  auto staging = scf::IfOp::create(builder, loc, TypeRange(), flag,
                                   /*withElseRegion=*/true);
  llvm::scope_exit discard([&] { staging->erase(); });
  FailureOr<SmallVector<ImportedValue>> thenOutputs =
      importBranch(ctx, *thenBranch, *staging.thenBlock());
  if (failed(thenOutputs))
    return failure();
  FailureOr<SmallVector<ImportedValue>> elseOutputs =
      importBranch(ctx, *elseBranch, *staging.elseBlock());
  if (failed(elseOutputs))
    return failure();
  if (thenOutputs->size() != ctx.getNumOutputs() ||
      elseOutputs->size() != ctx.getNumOutputs())
    return ctx.emitError() << "the branches have " << thenOutputs->size()
                           << " and " << elseOutputs->size()
                           << " outputs; the node has " << ctx.getNumOutputs();
  SmallVector<Type> types;
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip_equal(*thenOutputs, *elseOutputs))) {
    auto &[thenValue, elseValue] = pair;
    if (thenValue.type != elseValue.type ||
        thenValue.dtype != elseValue.dtype) {
      std::string thenType, elseType;
      llvm::raw_string_ostream(thenType) << thenValue.type;
      llvm::raw_string_ostream(elseType) << elseValue.type;
      return ctx.unsupported("If whose branches give output " +
                             std::to_string(i) + " different types (" +
                             thenType + " and " + elseType +
                             "): its shape would be known only at run time");
    }
    types.push_back(thenValue.type);
  }
  auto result = scf::IfOp::create(builder, loc, types, flag,
                                  /*withElseRegion=*/true);
  result.getThenRegion().takeBody(staging.getThenRegion());
  result.getElseRegion().takeBody(staging.getElseRegion());
  for (auto [i, value] : llvm::enumerate(result.getResults()))
    ctx.setOutput(i, value, (*thenOutputs)[i].dtype);
  return success();
}

LogicalResult convertIf(NodeContext &ctx) {
  DenseElementsAttr condition = ctx.getConstantInput(0);
  if (!condition)
    return convertRuntimeIf(ctx);
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
