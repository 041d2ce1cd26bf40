//===- ControlFlow.cpp - ONNX graph-structure converters ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Constant, Identity, If and Loop. Identity forwards its operand (no op is
// built). If on a condition known at compile time imports the taken branch
// inline; on a condition known only at run time it becomes an scf.if whose
// regions hold the two branches (both must give the same types). Loop
// becomes an scf.for when its trip count is a constant and nothing ends it
// early (then it may have scan outputs), else an scf.while (design note
// 0019, decision 2). The scheduler keeps such ops inside one task: the
// branch or loop runs inside a kernel.
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
  // The condition as a 0-d tensor, the form in which the scheduler passes
  // it between tasks (design/0019).
  Value condition = ctx.getInput(0);
  if (conditionType.getRank() != 0)
    condition = tensor::CollapseShapeOp::create(
        builder, loc, RankedTensorType::get({}, conditionType.getElementType()),
        condition, ArrayRef<ReassociationIndices>{});
  Value flag = tensor::ExtractOp::create(builder, loc, condition);
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

/// A one-element tensor's element (M, cond), as a scalar.
Value extractScalar(NodeContext &ctx, unsigned index) {
  OpBuilder &builder = ctx.getBuilder();
  SmallVector<Value> indices(
      ctx.getInputRank(index),
      arith::ConstantIndexOp::create(builder, ctx.getLoc(), 0));
  return tensor::ExtractOp::create(builder, ctx.getLoc(), ctx.getInput(index),
                                   indices);
}

/// A rank-0 tensor holding `scalar`.
Value toTensor(OpBuilder &builder, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      builder, loc, RankedTensorType::get({}, scalar.getType()), scalar);
}

/// Whether the imported value is a constant whose elements are all true.
bool isConstantTrue(const ImportedValue &value) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(value.constant);
  return dense &&
         llvm::all_of(dense.getValues<bool>(), [](bool b) { return b; });
}

ImportedValue makeRecord(Value value, OnnxDType dtype) {
  ImportedValue imported;
  imported.value = value;
  imported.type = cast<RankedTensorType>(value.getType());
  imported.dtype = dtype;
  return imported;
}

/// The Loop body's inputs: the iteration number (a tensor<i64>), the
/// condition (a tensor<i1>, or the constant true) and the carried values.
SmallVector<ImportedValue> bodyInputs(OpBuilder &builder, Value iteration,
                                      Value condition, ValueRange carried,
                                      ArrayRef<OnnxDType> carriedTypes) {
  SmallVector<ImportedValue> inputs = {
      makeRecord(iteration, onnx::TensorProto::INT64)};
  if (condition) {
    inputs.push_back(makeRecord(condition, onnx::TensorProto::BOOL));
  } else {
    ImportedValue alwaysTrue;
    alwaysTrue.type = RankedTensorType::get({}, builder.getI1Type());
    alwaysTrue.dtype = onnx::TensorProto::BOOL;
    alwaysTrue.constant =
        DenseElementsAttr::get(alwaysTrue.type, builder.getBoolAttr(true));
    inputs.push_back(alwaysTrue);
  }
  for (auto [value, dtype] : llvm::zip_equal(carried, carriedTypes))
    inputs.push_back(makeRecord(value, dtype));
  return inputs;
}

/// Checks that the body gives a condition and each carried value back with
/// the loop's types; its scan outputs follow.
LogicalResult checkBodyOutputs(NodeContext &ctx,
                               ArrayRef<ImportedValue> outputs,
                               ArrayRef<Type> carriedTypes) {
  if (outputs.size() < carriedTypes.size() + 1)
    return ctx.emitError() << "the body has " << outputs.size()
                           << " outputs; a condition and "
                           << carriedTypes.size()
                           << " carried values are expected";
  if (outputs[0].type.getNumElements() != 1 ||
      !outputs[0].type.getElementType().isInteger(1))
    return ctx.emitError() << "the body's condition must be one bool; it is "
                           << outputs[0].type;
  for (auto [i, type] : llvm::enumerate(carriedTypes))
    if (outputs[i + 1].type != type) {
      std::string in, out;
      llvm::raw_string_ostream(in) << type;
      llvm::raw_string_ostream(out) << outputs[i + 1].type;
      return ctx.unsupported("Loop whose carried value " + std::to_string(i) +
                             " changes type (" + in + " in, " + out +
                             " out): its shape would depend on the trip count");
    }
  return success();
}

/// Loop with a constant trip count M and nothing that ends it early: an
/// scf.for; each scan output is a carried [M, ...] tensor that every
/// iteration writes its row of. Value() (nothing built) when the body's
/// condition is not constant true.
FailureOr<bool> convertCountedLoop(NodeContext &ctx, int64_t tripCount,
                                   ArrayRef<Value> initial,
                                   ArrayRef<OnnxDType> carriedTypes,
                                   const onnx::GraphProto &body) {
  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value bound = arith::ConstantIndexOp::create(builder, loc,
                                               std::max<int64_t>(tripCount, 0));
  SmallVector<Type> types =
      llvm::map_to_vector(initial, [](Value value) { return value.getType(); });
  // The body is imported into a loop without scan outputs, and moved into
  // the real one once their types are known.
  auto staging = scf::ForOp::create(builder, loc, zero, bound, one, initial);
  llvm::scope_exit discard([&] { staging->erase(); });
  SmallVector<ImportedValue> outputs;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(staging.getBody());
    Value number = arith::IndexCastOp::create(
        builder, loc, builder.getI64Type(), staging.getInductionVar());
    FailureOr<SmallVector<ImportedValue>> imported = ctx.importSubgraph(
        body, bodyInputs(builder, toTensor(builder, loc, number), Value(),
                         staging.getRegionIterArgs(), carriedTypes));
    if (failed(imported) || failed(checkBodyOutputs(ctx, *imported, types)))
      return failure();
    outputs = std::move(*imported);
  }
  if (!isConstantTrue(outputs[0]))
    return false;

  // The real loop: the carried values, then one [M, ...] tensor per scan
  // output.
  SmallVector<Value> inits(initial);
  SmallVector<OnnxDType> resultTypes(carriedTypes);
  ArrayRef<ImportedValue> scans =
      ArrayRef(outputs).drop_front(1 + types.size());
  for (const ImportedValue &scan : scans) {
    SmallVector<int64_t> shape = {std::max<int64_t>(tripCount, 0)};
    llvm::append_range(shape, scan.type.getShape());
    inits.push_back(tensor::EmptyOp::create(builder, loc, shape,
                                            scan.type.getElementType()));
    resultTypes.push_back(scan.dtype);
  }
  auto loop = scf::ForOp::create(builder, loc, zero, bound, one, inits);
  loop.getRegion().takeBody(staging.getRegion());
  Block *block = loop.getBody();
  SmallVector<Value> yielded;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    for (ImportedValue &output :
         MutableArrayRef(outputs).slice(1, types.size()))
      yielded.push_back(ctx.materialize(output));
    for (auto [k, scan] : llvm::enumerate(
             MutableArrayRef(outputs).drop_front(1 + types.size()))) {
      Value buffer = block->addArgument(inits[types.size() + k].getType(), loc);
      Value row = ctx.materialize(scan);
      int64_t rank = scan.type.getRank();
      SmallVector<OpFoldResult> offsets(rank + 1, builder.getIndexAttr(0));
      offsets[0] = loop.getInductionVar();
      SmallVector<OpFoldResult> sizes = {builder.getIndexAttr(1)};
      for (int64_t size : scan.type.getShape())
        sizes.push_back(builder.getIndexAttr(size));
      SmallVector<OpFoldResult> strides(rank + 1, builder.getIndexAttr(1));
      yielded.push_back(tensor::InsertSliceOp::create(builder, loc, row, buffer,
                                                      offsets, sizes, strides));
    }
    scf::YieldOp::create(builder, loc, yielded);
  }
  for (auto [i, value] : llvm::enumerate(loop.getResults()))
    ctx.setOutput(i, value, resultTypes[i]);
  return true;
}

/// Loop: an scf.for when M is a constant, the condition absent or true and
/// the body's condition constant true; otherwise an scf.while over (the
/// iteration number, the condition, the carried values), which has no scan
/// outputs (their length would be known only at run time).
LogicalResult convertLoop(NodeContext &ctx) {
  const onnx::GraphProto *body = ctx.getAttrGraph("body");
  if (!body)
    return ctx.emitError() << "missing body attribute";
  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  for (unsigned index : {0u, 1u}) {
    OnnxDType expected =
        index ? onnx::TensorProto::BOOL : onnx::TensorProto::INT64;
    if (ctx.hasInput(index) && (ctx.getInputType(index).getNumElements() != 1 ||
                                ctx.getInputDType(index) != expected))
      return ctx.emitError()
             << "input " << index << " (" << (index ? "cond" : "M")
             << ") must be one " << (index ? "bool" : "int64") << "; it is "
             << ctx.getInputType(index);
  }
  SmallVector<Value> initial;
  SmallVector<OnnxDType> carriedTypes;
  for (unsigned i = 2, e = ctx.getNumInputs(); i < e; ++i) {
    if (!ctx.hasInput(i))
      return ctx.unsupported("Loop with an absent carried value");
    initial.push_back(ctx.getInput(i));
    carriedTypes.push_back(ctx.getInputDType(i));
  }

  DenseElementsAttr tripCount =
      ctx.hasInput(0) ? ctx.getConstantInput(0) : DenseElementsAttr();
  DenseElementsAttr condition =
      ctx.hasInput(1) ? ctx.getConstantInput(1) : DenseElementsAttr();
  bool alwaysTrue = !ctx.hasInput(1) ||
                    (condition && llvm::all_of(condition.getValues<bool>(),
                                               [](bool b) { return b; }));
  if (tripCount && alwaysTrue) {
    FailureOr<bool> done = convertCountedLoop(
        ctx, getIntValues(tripCount).front(), initial, carriedTypes, *body);
    if (failed(done) || *done)
      return failure(failed(done));
  }

  // while (i < M && cond) { cond, v = body(i, cond, v); ++i }, with the
  // iteration number and the condition carried as tensors (the values
  // between the program's ops are).
  auto scalarTensor = [&](unsigned index) {
    return toTensor(builder, loc, extractScalar(ctx, index));
  };
  Value zero =
      toTensor(builder, loc, arith::ConstantIntOp::create(builder, loc, 0, 64));
  Value start =
      ctx.hasInput(1)
          ? scalarTensor(1)
          : toTensor(builder, loc,
                     arith::ConstantIntOp::create(builder, loc, 1, 1));
  SmallVector<Value> inits = {zero, start};
  llvm::append_range(inits, initial);
  SmallVector<Type> types =
      llvm::map_to_vector(inits, [](Value value) { return value.getType(); });
  auto loop = scf::WhileOp::create(builder, loc, types, inits);
  SmallVector<Location> locs(types.size(), loc);
  Block *before = builder.createBlock(&loop.getBefore(), {}, types, locs);
  Block *after = builder.createBlock(&loop.getAfter(), {}, types, locs);
  auto element = [&](Value tensor) -> Value {
    return tensor::ExtractOp::create(builder, loc, tensor, ValueRange());
  };
  // (M is read in the loop: only tensors cross between the program's ops.)
  builder.setInsertionPointToStart(before);
  Value go = element(before->getArgument(1));
  if (ctx.hasInput(0)) {
    Value inRange = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::slt,
        element(before->getArgument(0)), extractScalar(ctx, 0));
    go = arith::AndIOp::create(builder, loc, go, inRange);
  }
  scf::ConditionOp::create(builder, loc, go, before->getArguments());
  builder.setInsertionPointToStart(after);
  SmallVector<Type> carried(ArrayRef(types).drop_front(2));
  FailureOr<SmallVector<ImportedValue>> outputs = ctx.importSubgraph(
      *body, bodyInputs(builder, after->getArgument(0), after->getArgument(1),
                        after->getArguments().drop_front(2), carriedTypes));
  auto erase = [&] {
    builder.setInsertionPoint(loop);
    loop->erase();
    return failure();
  };
  if (failed(outputs) || failed(checkBodyOutputs(ctx, *outputs, carried)))
    return erase();
  if (outputs->size() != carried.size() + 1) {
    (void)ctx.unsupported(
        "Loop with scan outputs whose trip count is known only at run time "
        "(a trip count M that is not a constant, or a condition that may end "
        "it early): their length would be data");
    return erase();
  }
  Value next =
      arith::AddIOp::create(builder, loc, element(after->getArgument(0)),
                            arith::ConstantIntOp::create(builder, loc, 1, 64));
  ImportedValue &conditionOut = (*outputs)[0];
  Value nextCondition = tensor::ExtractOp::create(
      builder, loc, ctx.materialize(conditionOut),
      SmallVector<Value>(conditionOut.type.getRank(),
                         arith::ConstantIndexOp::create(builder, loc, 0)));
  SmallVector<Value> yielded = {toTensor(builder, loc, next),
                                toTensor(builder, loc, nextCondition)};
  for (ImportedValue &output : MutableArrayRef(*outputs).drop_front())
    yielded.push_back(ctx.materialize(output));
  scf::YieldOp::create(builder, loc, yielded);
  builder.setInsertionPointAfter(loop);
  for (auto [i, dtype] : llvm::enumerate(carriedTypes))
    ctx.setOutput(i, loop.getResult(i + 2), dtype);
  return success();
}

} // namespace

void onnx_import::registerControlFlowConverters(ConverterRegistry &registry) {
  registry.add("Constant", {1, 9, 11, 12, 13}, convertConstant);
  registry.add("Identity", {1, 13, 14, 16}, convertIdentity);
  registry.add("If", {1, 11, 13, 16}, convertIf);
  registry.add("Loop", {1, 11, 13, 16, 19, 21}, convertLoop);
}
