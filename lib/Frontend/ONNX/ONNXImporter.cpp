//===- ONNXImporter.cpp - ONNX model to func + linalg ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Walks an ONNX graph in order and hands every node to the converter
// registered for its (domain, op type, since-version). Ops without a
// converter whose schema defines them as a function are imported through
// their function body. Values known at compile time (initializers,
// Constant nodes, shape computations) are kept as attributes and only
// materialized when something needs them at run time, so that PyTorch's
// Shape -> Gather -> Concat -> Reshape chains fold to static shapes.
//
// Size: about 1,000 lines: the model walker (graphs, subgraphs, value
// infos, initializers, functions of local domains, diagnostics with node
// locations) is one piece; converters live in the family files.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Frontend/ONNX/TensorData.h"

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/defs/schema.h"

#include <deque>
#include <exception>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

StringRef onnx_import::getOnnxDTypeName(OnnxDType dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::INT16:
    return "int16";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    return "undefined";
  }
}

bool onnx_import::isFloatDType(OnnxDType dtype) {
  return dtype == onnx::TensorProto::FLOAT ||
         dtype == onnx::TensorProto::DOUBLE ||
         dtype == onnx::TensorProto::FLOAT16 ||
         dtype == onnx::TensorProto::BFLOAT16;
}

bool onnx_import::isUnsignedDType(OnnxDType dtype) {
  return dtype == onnx::TensorProto::UINT8 ||
         dtype == onnx::TensorProto::UINT16 ||
         dtype == onnx::TensorProto::UINT32 ||
         dtype == onnx::TensorProto::UINT64;
}

bool onnx_import::isSignedDType(OnnxDType dtype) {
  return dtype == onnx::TensorProto::INT8 ||
         dtype == onnx::TensorProto::INT16 ||
         dtype == onnx::TensorProto::INT32 || dtype == onnx::TensorProto::INT64;
}

bool onnx_import::isIntegerDType(OnnxDType dtype) {
  return isSignedDType(dtype) || isUnsignedDType(dtype);
}

//===----------------------------------------------------------------------===//
// ModelImporter
//===----------------------------------------------------------------------===//

namespace mlir::orchestra::onnx_import {

/// Imports one model into one function.
class ModelImporter {
public:
  ModelImporter(MLIRContext *context, const onnx::ModelProto &model,
                StringRef filename, const ImportOptions &options)
      : context(context), model(model), filename(filename.str()),
        options(options), builder(context) {}

  FailureOr<ImportResult> run();

  // Used by NodeContext.
  ImportedValue *lookup(StringRef name);
  Value materialize(ImportedValue &value);
  LogicalResult bind(ImportedValue &value);
  void define(StringRef name, ImportedValue value);
  /// Keeps `value` for the whole import (std::deque: stable addresses).
  ImportedValue *store(ImportedValue value);
  FailureOr<ElementsAttr> convertTensor(const onnx::TensorProto &tensor,
                                        Location loc, OnnxDType *dtype);
  DenseElementsAttr getDenseConstant(const ImportedValue &value) const;
  FailureOr<SmallVector<ImportedValue>>
  importSubgraph(const onnx::GraphProto &graph, NodeContext &parent,
                 ArrayRef<ImportedValue> inputs);
  const onnx::OpSchema *getSchema(const onnx::NodeProto &node) const;

  // Dynamic sizes (design/0017). The symbols of size expressions are the
  // dynamic dimensions of the function's arguments, in order of first use.
  FailureOr<AffineExpr> getDimExpr(Value tensor, int64_t dim);
  FailureOr<AffineExpr> resolveArgDim(BlockArgument arg, int64_t dim);
  OpFoldResult buildSize(AffineExpr expr);
  ArrayRef<DynamicDim> getSymbolRanges() const { return symbolRanges; }
  /// A tensor.empty whose dynamic sizes wait for the op it initializes.
  void addPlaceholder(tensor::EmptyOp empty) { placeholders.push_back(empty); }

private:
  struct Scope {
    llvm::StringMap<ImportedValue *> values;
    /// Function bodies see only their own names.
    bool isolated = false;
  };

  LogicalResult
  importNodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes);
  LogicalResult importNode(const onnx::NodeProto &node, unsigned index);
  LogicalResult expandFunction(const onnx::NodeProto &node,
                               const onnx::FunctionProto &function,
                               NodeContext &ctx);
  FailureOr<RankedTensorType>
  getValueInfoType(const onnx::ValueInfoProto &info, OnnxDType &dtype,
                   SmallVectorImpl<std::string> &dimNames);
  Location getNodeLoc(const onnx::NodeProto &node, unsigned index);
  int getOpsetVersion(StringRef domain) const;
  InFlightDiagnostic emitModelError() {
    return mlir::emitError(FileLineColLoc::get(context, filename, 0, 0));
  }

  MLIRContext *context;
  const onnx::ModelProto &model;
  std::string filename;
  const ImportOptions &options;
  OpBuilder builder;
  func::FuncOp func;
  /// Constants are materialized at the top of the function, in order.
  Operation *lastConstant = nullptr;
  std::deque<ImportedValue> storage;
  SmallVector<Scope> scopes;
  /// Opset versions by domain; function bodies push their own.
  SmallVector<std::map<std::string, int>> opsets;
  /// Graph inputs bound to constants.
  std::vector<std::string> bound;
  /// The pinned dimensions (ImportOptions::pinnedDims) that were used.
  std::vector<std::string> usedDims;
  /// The symbolic dimensions that stay dynamic, in order of appearance.
  std::vector<std::string> dynamicDims;
  /// Number of nodes imported so far (for unique names of unnamed nodes).
  unsigned nodeCounter = 0;
  /// The names of the arguments' dimensions ("" for static ones).
  SmallVector<SmallVector<std::string>> argDimNames;
  /// Size expressions' symbols: (argument, dimension), their ranges and
  /// their sizes in the function (built on first use).
  SmallVector<std::pair<unsigned, int64_t>> symbols;
  SmallVector<DynamicDim> symbolRanges;
  /// Sizes built so far, at the top of the function.
  DenseMap<AffineExpr, Value> builtSizes;
  Operation *lastSize = nullptr;
  SmallVector<tensor::EmptyOp> placeholders;
  LogicalResult resolvePlaceholders(bool final);
};

} // namespace mlir::orchestra::onnx_import

static std::string normalizeDomain(StringRef domain) {
  return domain == "ai.onnx" ? std::string() : domain.str();
}

int ModelImporter::getOpsetVersion(StringRef domain) const {
  const std::map<std::string, int> &current = opsets.back();
  auto it = current.find(normalizeDomain(domain));
  return it == current.end() ? -1 : it->second;
}

Location ModelImporter::getNodeLoc(const onnx::NodeProto &node,
                                   unsigned index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  return NameLoc::get(StringAttr::get(context, name),
                      FileLineColLoc::get(context, filename, 0, 0));
}

ImportedValue *ModelImporter::lookup(StringRef name) {
  for (Scope &scope : llvm::reverse(scopes)) {
    auto it = scope.values.find(name);
    if (it != scope.values.end())
      return it->second;
    if (scope.isolated)
      break;
  }
  return nullptr;
}

void ModelImporter::define(StringRef name, ImportedValue value) {
  scopes.back().values[name] = store(std::move(value));
}

ImportedValue *ModelImporter::store(ImportedValue value) {
  storage.push_back(std::move(value));
  return &storage.back();
}

Value ModelImporter::materialize(ImportedValue &value) {
  if (value.value)
    return value.value;
  if (!value.sizes.empty()) {
    // Computed sizes: index_cast to the tensor's integer type, at the top of
    // the function (where each use can see them).
    SmallVector<Value> elements;
    for (AffineExpr expr : value.sizes) {
      OpFoldResult size = buildSize(expr);
      OpBuilder::InsertionGuard guard(builder);
      if (lastSize)
        builder.setInsertionPointAfter(lastSize);
      else
        builder.setInsertionPointToStart(&func.getBody().front());
      Value index =
          getValueOrCreateConstantIndexOp(builder, func.getLoc(), size);
      auto cast = arith::IndexCastOp::create(
          builder, func.getLoc(), value.type.getElementType(), index);
      elements.push_back(cast);
      lastSize = cast;
    }
    OpBuilder::InsertionGuard guard(builder);
    if (lastSize)
      builder.setInsertionPointAfter(lastSize);
    else
      builder.setInsertionPointToStart(&func.getBody().front());
    auto tensor = tensor::FromElementsOp::create(builder, func.getLoc(),
                                                 value.type, elements);
    lastSize = tensor;
    value.value = tensor;
    return value.value;
  }
  assert(value.constant && "a value without an MLIR value is a constant");
  OpBuilder::InsertionGuard guard(builder);
  if (lastConstant)
    builder.setInsertionPointAfter(lastConstant);
  else
    builder.setInsertionPointToStart(&func.getBody().front());
  auto op = arith::ConstantOp::create(builder, func.getLoc(),
                                      cast<TypedAttr>(value.constant));
  lastConstant = op;
  value.value = op.getResult();
  return value.value;
}

FailureOr<AffineExpr> ModelImporter::resolveArgDim(BlockArgument arg,
                                                   int64_t dim) {
  auto type = cast<ShapedType>(arg.getType());
  if (!type.isDynamicDim(dim))
    return getAffineConstantExpr(type.getDimSize(dim), context);
  // One symbol per name: inputs that share a dim_param share its size
  // (the runtime checks that they agree).
  std::string name;
  if (arg.getArgNumber() < argDimNames.size() &&
      dim < static_cast<int64_t>(argDimNames[arg.getArgNumber()].size()))
    name = argDimNames[arg.getArgNumber()][dim];
  if (name.empty())
    name =
        "arg" + std::to_string(arg.getArgNumber()) + "." + std::to_string(dim);
  for (auto [i, range] : llvm::enumerate(symbolRanges))
    if (range.name == name)
      return getAffineSymbolExpr(i, context);
  auto key = std::make_pair(arg.getArgNumber(), dim);
  // The dim's declared range (--dim NAME=MIN..MAX), else the default of
  // orchestra-bind-dims, whose names (`argI.J`) it also takes.
  DynamicDim range{name, 1, kDefaultDimUpperBound, kDefaultDimUpperBound};
  auto declared = options.dimRanges.find(name);
  if (declared != options.dimRanges.end())
    range = declared->second;
  symbols.push_back(key);
  symbolRanges.push_back(range);
  return getAffineSymbolExpr(symbols.size() - 1, context);
}

FailureOr<AffineExpr> ModelImporter::getDimExpr(Value tensor, int64_t dim) {
  return orchestra::getDimExpr(
      tensor, dim, func,
      [&](BlockArgument arg, int64_t d) { return resolveArgDim(arg, d); });
}

OpFoldResult ModelImporter::buildSize(AffineExpr expr) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return builder.getIndexAttr(constant.getValue());
  if (Value built = builtSizes.lookup(expr))
    return built;
  // Operands first: each lands after the sizes built before it.
  OpFoldResult lhsSize, rhsSize;
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (binary) {
    lhsSize = buildSize(binary.getLHS());
    rhsSize = buildSize(binary.getRHS());
  }
  OpBuilder::InsertionGuard guard(builder);
  Block &body = func.getBody().front();
  if (lastSize)
    builder.setInsertionPointAfter(lastSize);
  else
    builder.setInsertionPointToStart(&body);
  Location loc = func.getLoc();
  Value result;
  if (!binary) {
    auto [arg, dim] = symbols[cast<AffineSymbolExpr>(expr).getPosition()];
    result = tensor::DimOp::create(builder, loc, body.getArgument(arg), dim);
  } else {
    Value lhs = getValueOrCreateConstantIndexOp(builder, loc, lhsSize);
    Value rhs = getValueOrCreateConstantIndexOp(builder, loc, rhsSize);
    switch (expr.getKind()) {
    case AffineExprKind::Add:
      result = arith::AddIOp::create(builder, loc, lhs, rhs);
      break;
    case AffineExprKind::Mul:
      result = arith::MulIOp::create(builder, loc, lhs, rhs);
      break;
    case AffineExprKind::FloorDiv:
      result = arith::FloorDivSIOp::create(builder, loc, lhs, rhs);
      break;
    case AffineExprKind::CeilDiv:
      result = arith::CeilDivSIOp::create(builder, loc, lhs, rhs);
      break;
    default:
      result = arith::RemSIOp::create(builder, loc, lhs, rhs);
      break;
    }
  }
  lastSize = result.getDefiningOp();
  builtSizes[expr] = result;
  return result;
}

LogicalResult ModelImporter::bind(ImportedValue &value) {
  if (!value.bindable)
    return failure();
  auto arg = cast<BlockArgument>(value.value);
  value.constant = value.bindable;
  value.value = nullptr;
  Value constant = materialize(value);
  arg.replaceAllUsesWith(constant);
  value.bindable = nullptr;
  bound.push_back(value.graphInputName);
  return success();
}

DenseElementsAttr
ModelImporter::getDenseConstant(const ImportedValue &value) const {
  if (!value.constant)
    return nullptr;
  auto type = cast<ShapedType>(value.constant.getType());
  if (type.getNumElements() > kMaxFoldElements)
    return nullptr;
  if (auto dense = dyn_cast<DenseElementsAttr>(value.constant))
    return dense;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value.constant)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return nullptr;
    return DenseElementsAttr::getFromRawBuffer(type, blob->getData());
  }
  return nullptr;
}

FailureOr<RankedTensorType>
ModelImporter::getValueInfoType(const onnx::ValueInfoProto &info,
                                OnnxDType &dtype,
                                SmallVectorImpl<std::string> &dimNames) {
  if (!info.type().has_tensor_type()) {
    emitModelError() << "unsupported: graph input '" << info.name()
                     << "' is not a tensor (sequences, maps and optionals "
                        "are not supported)";
    return failure();
  }
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  dtype = tensor.elem_type();
  Type element = getElementType(context, dtype);
  if (!element) {
    emitModelError() << "unsupported: graph input '" << info.name()
                     << "' has element type " << getOnnxDTypeName(dtype);
    return failure();
  }
  if (!tensor.has_shape()) {
    emitModelError() << "unsupported: graph input '" << info.name()
                     << "' has no shape (only static shapes are supported)";
    return failure();
  }
  // A symbolic dimension is pinned (--dim NAME=SIZE) or stays dynamic,
  // named by its dim_param (design/0017); so does one without a name.
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      dimNames.push_back("");
      continue;
    }
    std::string name = dim.has_dim_param() ? dim.dim_param() : "";
    auto pinned = options.pinnedDims.find(name);
    if (!name.empty() && pinned != options.pinnedDims.end()) {
      if (!llvm::is_contained(usedDims, name))
        usedDims.push_back(name);
      shape.push_back(pinned->second);
      dimNames.push_back("");
      continue;
    }
    if (dim.has_dim_value()) {
      emitModelError() << "graph input '" << info.name()
                       << "' has a negative dimension " << dim.dim_value();
      return failure();
    }
    if (!name.empty() && !llvm::is_contained(dynamicDims, name))
      dynamicDims.push_back(name);
    shape.push_back(ShapedType::kDynamic);
    dimNames.push_back(name);
  }
  SmallVector<int64_t> staticDims(
      llvm::make_filter_range(shape, [](int64_t size) { return size >= 0; }));
  if (!getBoundedElementCount(staticDims)) {
    emitModelError() << "graph input '" << info.name() << "' has "
                     << "more than 2^40 elements (the largest tensor "
                        "OrchestraOS compiles)";
    return failure();
  }
  return RankedTensorType::get(shape, element);
}

FailureOr<ElementsAttr>
ModelImporter::convertTensor(const onnx::TensorProto &tensor, Location loc,
                             OnnxDType *dtypeOut) {
  OnnxDType dtype = tensor.data_type();
  if (dtypeOut)
    *dtypeOut = dtype;
  std::string what = tensor.name().empty() ? std::string("tensor")
                                           : "tensor '" + tensor.name() + "'";
  Type element = getElementType(context, dtype);
  if (!element)
    return mlir::emitError(loc)
           << "unsupported: " << what << " has element type "
           << getOnnxDTypeName(dtype);
  SmallVector<int64_t> shape;
  int64_t count = 1;
  std::string error;
  if (!onnx_data::readShape(tensor, shape, count, error))
    return mlir::emitError(loc) << what << " " << error;
  auto type = RankedTensorType::get(shape, element);
  size_t elementSize =
      element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
  size_t expectedBytes = count * elementSize;

  std::vector<char> bytes;
  if (!onnx_data::readBytes(tensor, elementSize, expectedBytes,
                            llvm::sys::path::parent_path(filename), what, bytes,
                            error))
    return mlir::emitError(loc) << error;
  if (bytes.size() != expectedBytes)
    return mlir::emitError(loc)
           << what << " of shape ["
           << llvm::make_range(shape.begin(), shape.end()) << "] and type "
           << getOnnxDTypeName(dtype) << " has " << bytes.size()
           << " bytes of data; expected " << expectedBytes;

  if (element.isInteger(1)) {
    SmallVector<bool> values;
    values.reserve(count);
    for (char byte : bytes)
      values.push_back(byte != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  if (expectedBytes > options.resourceThresholdBytes) {
    std::string blobName =
        tensor.name().empty() ? "onnx_tensor" : tensor.name();
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        ArrayRef<char>(bytes.data(), bytes.size()), alignof(uint64_t));
    return ElementsAttr(
        DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
  }
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(
          type, ArrayRef<char>(bytes.data(), bytes.size()), detectedSplat))
    return mlir::emitError(loc) << what << " has malformed data";
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size())));
}

const onnx::OpSchema *
ModelImporter::getSchema(const onnx::NodeProto &node) const {
  int version = getOpsetVersion(node.domain());
  if (version < 0)
    return nullptr;
  return onnx::OpSchemaRegistry::Schema(node.op_type(), version,
                                        normalizeDomain(node.domain()));
}

LogicalResult ModelImporter::importNodes(
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes) {
  unsigned index = 0;
  for (const onnx::NodeProto &node : nodes) {
    if (failed(importNode(node, index++)))
      return failure();
    if (!placeholders.empty() && failed(resolvePlaceholders(/*final=*/false)))
      return failure();
  }
  return success();
}

/// The converters that take dynamically shaped inputs (design/0017), and
/// which dimensions of which inputs may be dynamic: elementwise ops, data
/// movement (Reshape, Squeeze, Unsqueeze, Transpose, Slice) and MatMul any;
/// convolutions, poolings and normalizations the batch (input 0, dimension
/// 0), LayerNormalization and Softmax the dimensions before the normalized
/// ones, reductions the dimensions they keep, Gemm the rows of A, Gather the
/// indices (or the data when the indices are constants), Flatten the dimensions
/// before its axis. Any other dynamic input is refused with an error that names
/// it, before its converter could compute with an unknown size.
static LogicalResult checkDynamicInputs(NodeContext &ctx) {
  auto isDynamic = [&](unsigned i) {
    return ctx.hasInput(i) && !ctx.getInputType(i).hasStaticShape();
  };
  bool any = false;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
    any |= isDynamic(i);
  if (!any)
    return success();
  static const llvm::StringSet<> elementwise = {
      "Abs",         "Add",       "Ceil",      "Clip",      "Cos",
      "Div",         "Elu",       "Erf",       "Exp",       "Floor",
      "HardSigmoid", "HardSwish", "Identity",  "LeakyRelu", "Log",
      "Max",         "Min",       "Mul",       "Neg",       "Pow",
      "Reciprocal",  "Relu",      "Round",     "Sigmoid",   "Sign",
      "Sin",         "Softplus",  "Sqrt",      "Sub",       "Sum",
      "Tanh",        "Cast",      "Where",     "Equal",     "Not",
      "Transpose",   "Squeeze",   "Unsqueeze", "Reshape",   "Slice",
      "MatMul",      "Concat",    "Expand"};
  static const llvm::StringSet<> batched = {
      "AveragePool",       "BatchNormalization", "Conv",
      "GlobalAveragePool", "GlobalMaxPool",      "MaxPool"};
  StringRef op = ctx.getOpType();
  // The dimensions of input `i` that may be dynamic: [first, last).
  auto onlyDims = [&](unsigned i, int64_t first, int64_t last) {
    if (!isDynamic(i))
      return true;
    ArrayRef<int64_t> shape = ctx.getInputShape(i);
    for (auto [axis, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size) &&
          (int64_t(axis) < first || int64_t(axis) >= last))
        return false;
    return true;
  };
  auto othersStatic = [&](unsigned except) {
    for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
      if (i != except && isDynamic(i))
        return false;
    return true;
  };
  bool supported = false;
  if (ctx.getDomain().empty() && elementwise.contains(op)) {
    supported = true;
  } else if (ctx.getDomain().empty() && batched.contains(op)) {
    supported = onlyDims(0, 0, 1) && othersStatic(0);
  } else if (op == "Flatten") {
    int64_t rank = ctx.getInputRank(0);
    int64_t axis = ctx.getAttrInt("axis", 1);
    supported = onlyDims(0, 0, axis < 0 ? axis + rank : axis);
  } else if (op == "Gemm") {
    supported = ctx.getAttrInt("transA", 0) == 0 && onlyDims(0, 0, 1) &&
                othersStatic(0);
  } else if (op == "Gather") {
    supported = !isDynamic(0) || ctx.getConstantInput(1);
  } else if (op == "LayerNormalization") {
    int64_t rank = ctx.getInputRank(0);
    int64_t axis = ctx.getAttrInt("axis", -1);
    supported =
        onlyDims(0, 0, axis < 0 ? axis + rank : axis) && othersStatic(0);
  } else if (op == "Softmax" && ctx.getSinceVersion() >= 13) {
    supported = othersStatic(0);
  } else if (op.starts_with("Reduce") && ctx.getDomain().empty()) {
    // Over static dimensions only: a mean divides by their count.
    SmallVector<int64_t> axes = ctx.getAttrInts("axes");
    if (ctx.hasInput(1)) {
      DenseElementsAttr constant = ctx.getConstantInput(1);
      axes = constant ? getIntValues(constant) : SmallVector<int64_t>{};
    }
    int64_t rank = ctx.getInputRank(0);
    supported = !axes.empty() && othersStatic(0);
    for (int64_t axis : axes)
      supported &= axis >= -rank && axis < rank &&
                   !ShapedType::isDynamic(
                       ctx.getInputShape(0)[axis < 0 ? axis + rank : axis]);
  }
  if (supported)
    return success();
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
    if (isDynamic(i))
      return ctx.emitError()
             << "unsupported: input " << i << " has the dynamic type "
             << ctx.getInputType(i) << " (dynamic dimensions reach "
             << "elementwise ops, data movement, convolutions, poolings, "
                "normalizations, reductions over static dimensions, Softmax, "
                "Gemm, MatMul, Gather and Flatten so far); compile for one "
                "size with --dim NAME=SIZE";
  return success();
}

/// Replaces each placeholder size of a `tensor.empty` (NodeContext::
/// createEmpty) by the size of the same loop dimension in an input of the
/// structured op the tensor initializes. Runs after each node, so that the
/// sizes of every value imported so far are derivable (Shape of a dynamic
/// value); `final` (after the graph) reports the placeholders left.
LogicalResult ModelImporter::resolvePlaceholders(bool final) {
  SmallVector<tensor::EmptyOp> empties = std::move(placeholders);
  placeholders.clear();
  DominanceInfo dominance(func);
  // The operand and dimension that give dimension `dim` of `value`, an
  // init of a structured op (directly or through fills).
  std::function<std::optional<std::pair<Value, int64_t>>(Value, int64_t)>
      findSource =
          [&](Value value,
              int64_t dim) -> std::optional<std::pair<Value, int64_t>> {
    for (OpOperand &use : value.getUses()) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!linalgOp || !linalgOp.isDpsInit(&use))
        continue;
      if (isa<linalg::FillOp>(linalgOp.getOperation())) {
        if (auto found = findSource(linalgOp->getResult(0), dim))
          return found;
        continue;
      }
      auto loop = dyn_cast<AffineDimExpr>(
          linalgOp.getMatchingIndexingMap(&use).getResult(dim));
      if (!loop)
        continue;
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        auto type = dyn_cast<ShapedType>(input->get().getType());
        if (!type)
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(input);
        for (auto [axis, expr] : llvm::enumerate(map.getResults()))
          if (expr == loop)
            return std::make_pair(input->get(), int64_t(axis));
      }
      // No input has the dimension (a broadcast bias): the result, of the
      // init's shape, may initialize an op that has.
      if (auto found = findSource(linalgOp.getTiedOpResult(&use), dim))
        return found;
    }
    return std::nullopt;
  };
  for (tensor::EmptyOp empty : empties) {
    OpBuilder builder(empty);
    SmallVector<Value> sizes;
    bool resolved = true;
    unsigned next = 0;
    for (auto [dim, size] : llvm::enumerate(empty.getType().getShape())) {
      if (!ShapedType::isDynamic(size))
        continue;
      Value current = empty.getDynamicSizes()[next++];
      Operation *def = current.getDefiningOp();
      if (!def || !def->hasAttr(attr::kUnresolvedSize)) {
        sizes.push_back(current);
        continue;
      }
      std::optional<std::pair<Value, int64_t>> source =
          findSource(empty.getResult(), dim);
      if (!source || !dominance.properlyDominates(source->first, empty)) {
        if (final)
          return empty.emitError()
                 << "unsupported: the size of dynamic dimension #" << dim
                 << " of this result cannot be derived from the op's inputs; "
                    "compile for one size with --dim NAME=SIZE";
        resolved = false;
        break;
      }
      sizes.push_back(tensor::DimOp::create(builder, empty.getLoc(),
                                            source->first, source->second));
    }
    if (!resolved) {
      for (Value size : sizes)
        if (size.getDefiningOp<tensor::DimOp>() &&
            !llvm::is_contained(empty.getDynamicSizes(), size))
          size.getDefiningOp()->erase();
      placeholders.push_back(empty);
      continue;
    }
    empty.getDynamicSizesMutable().assign(sizes);
  }
  if (!final)
    return success();
  SmallVector<Operation *> constants;
  func.walk([&](arith::ConstantOp op) {
    if (op->hasAttr(attr::kUnresolvedSize))
      constants.push_back(op);
  });
  for (Operation *op : constants) {
    if (!op->use_empty())
      return op->emitError() << "internal error: an unresolved dynamic size";
    op->erase();
  }
  return success();
}

LogicalResult ModelImporter::importNode(const onnx::NodeProto &node,
                                        unsigned index) {
  ++nodeCounter;
  Location loc = getNodeLoc(node, index);
  std::string domain = normalizeDomain(node.domain());
  int opset = getOpsetVersion(domain);
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  auto prefix = [&]() {
    return "node '" + name + "' (" + node.op_type() +
           (opset >= 0 ? ", opset " + std::to_string(opset) : std::string()) +
           "): ";
  };
  if (opset < 0)
    return mlir::emitError(loc)
           << prefix() << "unsupported: domain '" << node.domain()
           << "' is not imported by the model";

  // Every input must be defined before use (graphs are topologically
  // sorted).
  for (const std::string &input : node.input())
    if (!input.empty() && !lookup(input))
      return mlir::emitError(loc) << prefix() << "input '" << input
                                  << "' is not defined before the node";

  // Model-local functions (IR version 8).
  for (const onnx::FunctionProto &function : model.functions()) {
    if (function.name() == node.op_type() &&
        normalizeDomain(function.domain()) == domain) {
      NodeContext ctx(*this, node, opset, opset, loc, builder);
      return expandFunction(node, function, ctx);
    }
  }

  const onnx::OpSchema *schema = getSchema(node);
  if (!schema) {
    if (domain != "" && domain != "ai.onnx.ml")
      return mlir::emitError(loc)
             << prefix() << "unsupported: op domain '" << node.domain() << "'";
    return mlir::emitError(loc) << prefix() << "unsupported: unknown op '"
                                << node.op_type() << "' in opset " << opset;
  }
  int since = schema->SinceVersion();
  if (schema->Deprecated())
    return mlir::emitError(loc) << prefix() << "unsupported: " << node.op_type()
                                << " is deprecated in opset " << opset;

  // The schema's own checks: input/output counts, attribute types, required
  // attributes.
  try {
    schema->Verify(node);
  } catch (const std::exception &error) {
    std::string message = error.what();
    // ONNX prefixes its messages with "[ValidationError] ".
    StringRef text = message;
    text.consume_front("[ValidationError] ");
    return mlir::emitError(loc) << prefix() << "invalid node: " << text;
  }

  // An input left empty is absent: only an optional one may be (ONNX's
  // checker lets an empty name through in any place).
  const std::vector<onnx::OpSchema::FormalParameter> &formals =
      schema->inputs();
  for (int i = 0, e = node.input_size(); i < e && !formals.empty(); ++i) {
    const onnx::OpSchema::FormalParameter &formal =
        formals[std::min<size_t>(i, formals.size() - 1)];
    if (node.input(i).empty() && formal.GetOption() != onnx::OpSchema::Optional)
      return mlir::emitError(loc)
             << prefix() << "input " << i << " ('" << formal.GetName()
             << "') is required but absent (an empty name)";
  }

  NodeContext ctx(*this, node, opset, since, loc, builder);
  // Shape computations on dynamic sizes fold into sizes (Sizes.cpp).
  FailureOr<bool> folded = foldSizeComputation(ctx);
  if (failed(folded))
    return failure();
  if (*folded)
    return success();
  if (failed(checkDynamicInputs(ctx)))
    return failure();
  const ConverterRegistry &registry = getConverterRegistry();
  if (const ConvertFn *convert =
          registry.lookup(domain, node.op_type(), since)) {
    if (failed((*convert)(ctx)))
      return failure();
  } else if (schema->HasFunction() || schema->HasContextDependentFunction()) {
    onnx::FunctionProto function;
    if (schema->HasFunction()) {
      function = *schema->GetFunction();
    } else {
      std::vector<onnx::TypeProto> inputTypes;
      for (unsigned i = 0, e = node.input_size(); i < e; ++i) {
        onnx::TypeProto type;
        if (ctx.hasInput(i)) {
          auto *tensor = type.mutable_tensor_type();
          tensor->set_elem_type(ctx.getInputDType(i));
          auto *shape = tensor->mutable_shape();
          for (int64_t dim : ctx.getInputShape(i))
            shape->add_dim()->set_dim_value(dim);
        }
        inputTypes.push_back(std::move(type));
      }
      onnx::FunctionBodyBuildContextImpl buildContext(node, inputTypes);
      bool built = false;
      try {
        built = schema->BuildContextDependentFunction(buildContext, function);
      } catch (const std::exception &error) {
        return mlir::emitError(loc)
               << prefix()
               << "cannot expand the function body: " << error.what();
      }
      if (!built)
        return mlir::emitError(loc)
               << prefix() << "unsupported: no converter for " << node.op_type()
               << " version " << since
               << " and its function body cannot be built for these inputs";
    }
    if (failed(expandFunction(node, function, ctx)))
      return failure();
  } else {
    SmallVector<int> versions = registry.versions(domain, node.op_type());
    auto diag = mlir::emitError(loc) << prefix() << "unsupported: ";
    if (versions.empty()) {
      diag << "no converter for " << node.op_type();
    } else {
      diag << "no converter for " << node.op_type() << " version " << since
           << " (converters exist for versions "
           << llvm::make_range(versions.begin(), versions.end()) << ")";
    }
    return diag;
  }

  for (unsigned i = 0, e = node.output_size(); i < e; ++i) {
    if (node.output(i).empty())
      continue;
    ImportedValue *output = lookup(node.output(i));
    if (!output)
      return mlir::emitError(loc)
             << prefix() << "internal error: the converter produced no value "
             << "for output " << i << " ('" << node.output(i) << "')";
    // Shapes computed from the model's data (Expand, ConstantOfShape, ...)
    // are bounded here, with the node's name, not later by the scheduler.
    SmallVector<int64_t> staticDims(llvm::make_filter_range(
        output->type.getShape(), [](int64_t size) { return size >= 0; }));
    if (!getBoundedElementCount(staticDims))
      return mlir::emitError(loc)
             << prefix() << "output " << i << " ('" << node.output(i)
             << "') would have shape " << output->type
             << ": more than 2^40 elements (the largest tensor OrchestraOS "
                "compiles)";
  }
  return success();
}

LogicalResult ModelImporter::expandFunction(const onnx::NodeProto &node,
                                            const onnx::FunctionProto &function,
                                            NodeContext &ctx) {
  // The body sees the formal parameters only.
  Scope scope;
  scope.isolated = true;
  for (int i = 0, e = function.input_size(); i < e; ++i)
    if (ctx.hasInput(i))
      scope.values[function.input(i)] = lookup(node.input(i));
  scopes.push_back(std::move(scope));
  std::map<std::string, int> bodyOpsets = opsets.back();
  for (const onnx::OperatorSetIdProto &opset : function.opset_import())
    bodyOpsets[normalizeDomain(opset.domain())] = opset.version();
  opsets.push_back(std::move(bodyOpsets));

  // Attribute references resolve to the caller's attributes, or to the
  // caller's schema defaults.
  google::protobuf::RepeatedPtrField<onnx::NodeProto> body;
  for (const onnx::NodeProto &inner : function.node()) {
    onnx::NodeProto resolved = inner;
    resolved.clear_attribute();
    for (const onnx::AttributeProto &attr : inner.attribute()) {
      if (attr.ref_attr_name().empty()) {
        *resolved.add_attribute() = attr;
        continue;
      }
      if (const onnx::AttributeProto *actual =
              ctx.getAttr(attr.ref_attr_name())) {
        onnx::AttributeProto copy = *actual;
        copy.set_name(attr.name());
        *resolved.add_attribute() = std::move(copy);
      }
    }
    if (resolved.name().empty())
      resolved.set_name(ctx.getNodeName() + "/" + inner.op_type() + "#" +
                        std::to_string(body.size()));
    else
      resolved.set_name(ctx.getNodeName() + "/" + inner.name());
    *body.Add() = std::move(resolved);
  }
  LogicalResult result = importNodes(body);
  SmallVector<ImportedValue> outputs;
  if (succeeded(result)) {
    for (int i = 0, e = node.output_size(); i < e; ++i) {
      if (node.output(i).empty())
        continue;
      ImportedValue *value =
          i < function.output_size() ? lookup(function.output(i)) : nullptr;
      if (!value) {
        result = mlir::emitError(ctx.getLoc())
                 << "node '" << ctx.getNodeName() << "' (" << node.op_type()
                 << "): the function body does not define output " << i;
        break;
      }
      outputs.push_back(*value);
    }
  }
  opsets.pop_back();
  scopes.pop_back();
  if (failed(result))
    return failure();
  unsigned next = 0;
  for (int i = 0, e = node.output_size(); i < e; ++i)
    if (!node.output(i).empty())
      ctx.setOutput(i, outputs[next++]);
  return success();
}

FailureOr<SmallVector<ImportedValue>>
ModelImporter::importSubgraph(const onnx::GraphProto &graph,
                              NodeContext &parent,
                              ArrayRef<ImportedValue> inputs) {
  scopes.emplace_back();
  LogicalResult result = success();
  if (graph.input_size() != static_cast<int>(inputs.size()))
    result = parent.emitError()
             << "the subgraph '" << graph.name() << "' has "
             << graph.input_size() << " inputs; the node gives it "
             << inputs.size();
  for (int i = 0, e = succeeded(result) ? graph.input_size() : 0; i < e; ++i)
    define(graph.input(i).name(), inputs[i]);
  for (const onnx::TensorProto &initializer : graph.initializer()) {
    OnnxDType dtype;
    FailureOr<ElementsAttr> value =
        convertTensor(initializer, parent.getLoc(), &dtype);
    if (failed(value)) {
      result = failure();
      break;
    }
    ImportedValue imported;
    imported.constant = *value;
    imported.type = cast<RankedTensorType>(value->getType());
    imported.dtype = dtype;
    define(initializer.name(), std::move(imported));
  }
  if (succeeded(result))
    result = importNodes(graph.node());
  SmallVector<ImportedValue> outputs;
  if (succeeded(result)) {
    for (const onnx::ValueInfoProto &output : graph.output()) {
      ImportedValue *value = lookup(output.name());
      if (!value) {
        result = parent.emitError()
                 << "subgraph output '" << output.name() << "' is not defined";
        break;
      }
      outputs.push_back(*value);
    }
  }
  scopes.pop_back();
  if (failed(result))
    return failure();
  return outputs;
}

FailureOr<ImportResult> ModelImporter::run() {
  if (model.ir_version() < 3 || model.ir_version() > 8)
    return emitModelError() << "unsupported: ONNX IR version "
                            << model.ir_version() << " (supported: 3 to 8)";
  if (!model.has_graph())
    return emitModelError() << "the model has no graph";
  const onnx::GraphProto &graph = model.graph();

  std::map<std::string, int> modelOpsets;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    modelOpsets[normalizeDomain(opset.domain())] = opset.version();
  if (!modelOpsets.count(""))
    return emitModelError() << "the model imports no default-domain opset";
  int defaultOpset = modelOpsets[""];
  int maxOpset = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                     .Map()
                     .at(onnx::ONNX_DOMAIN)
                     .second;
  if (defaultOpset < 1 || defaultOpset > maxOpset)
    return emitModelError()
           << "unsupported: default-domain opset " << defaultOpset
           << " (supported: 1 to " << maxOpset << ")";
  opsets.push_back(std::move(modelOpsets));
  scopes.emplace_back();

  auto module = ModuleOp::create(FileLineColLoc::get(context, filename, 0, 0));
  OwningOpRef<ModuleOp> owned(module);
  builder.setInsertionPointToEnd(module.getBody());
  Location funcLoc = NameLoc::get(StringAttr::get(context, graph.name()),
                                  FileLineColLoc::get(context, filename, 0, 0));
  func = func::FuncOp::create(builder, funcLoc, options.entryName,
                              builder.getFunctionType({}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);

  // Initializers: compile-time constants. Older models also list them as
  // graph inputs; those inputs take the initializer's value.
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &initializer : graph.initializer()) {
    OnnxDType dtype;
    FailureOr<ElementsAttr> value = convertTensor(
        initializer, FileLineColLoc::get(context, filename, 0, 0), &dtype);
    if (failed(value))
      return failure();
    ImportedValue imported;
    imported.constant = *value;
    imported.type = cast<RankedTensorType>(value->getType());
    imported.dtype = dtype;
    define(initializer.name(), std::move(imported));
    initializerNames.insert(initializer.name());
  }

  SmallVector<Type> argTypes;
  SmallVector<OnnxDType> argDTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue;
    OnnxDType dtype;
    SmallVector<std::string> dimNames;
    FailureOr<RankedTensorType> type = getValueInfoType(input, dtype, dimNames);
    if (failed(type))
      return failure();
    argDimNames.push_back(std::move(dimNames));
    BlockArgument arg = body->addArgument(*type, funcLoc);
    ImportedValue imported;
    imported.value = arg;
    imported.type = *type;
    imported.dtype = dtype;
    imported.graphInputName = input.name();
    imported.bindable = options.bindableInputs.lookup(input.name());
    if (imported.bindable && imported.bindable.getType() != *type)
      return emitModelError()
             << "the value bound to input '" << input.name() << "' has type "
             << imported.bindable.getType() << "; the input is " << *type;
    define(input.name(), std::move(imported));
    argDTypes.push_back(dtype);
    argNames.push_back(input.name());
  }

  if (failed(importNodes(graph.node())))
    return failure();

  // Results.
  SmallVector<Value> results;
  SmallVector<OnnxDType> resultDTypes;
  ImportResult result;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    ImportedValue *value = lookup(output.name());
    if (!value)
      return emitModelError()
             << "graph output '" << output.name() << "' is not defined";
    if (output.type().has_tensor_type()) {
      const onnx::TypeProto::Tensor &declared = output.type().tensor_type();
      if (declared.elem_type() != onnx::TensorProto::UNDEFINED &&
          declared.elem_type() != value->dtype)
        return emitModelError()
               << "graph output '" << output.name() << "' is declared as "
               << getOnnxDTypeName(declared.elem_type()) << " but computed as "
               << getOnnxDTypeName(value->dtype);
      if (declared.has_shape()) {
        bool matches = declared.shape().dim_size() == value->type.getRank();
        for (int i = 0; matches && i < declared.shape().dim_size(); ++i)
          if (declared.shape().dim(i).has_dim_value() &&
              declared.shape().dim(i).dim_value() != value->type.getDimSize(i))
            matches = false;
        if (!matches)
          return emitModelError()
                 << "graph output '" << output.name()
                 << "' is computed with shape " << value->type
                 << ", which does not match its declared shape";
      }
    }
    builder.setInsertionPointToEnd(body);
    results.push_back(materialize(*value));
    resultDTypes.push_back(value->dtype);
    result.outputNames.push_back(output.name());
  }
  builder.setInsertionPointToEnd(body);
  func::ReturnOp::create(builder, funcLoc, results);

  // Bound inputs leave the signature.
  llvm::BitVector erase(body->getNumArguments());
  for (BlockArgument arg : body->getArguments())
    if (arg.use_empty() &&
        llvm::is_contained(bound, argNames[arg.getArgNumber()]))
      erase.set(arg.getArgNumber());
  SmallVector<Type> resultTypes;
  for (Value value : results)
    resultTypes.push_back(value.getType());
  SmallVector<Type> inputTypes;
  for (BlockArgument arg : body->getArguments())
    inputTypes.push_back(arg.getType());
  func.setFunctionType(builder.getFunctionType(inputTypes, resultTypes));
  for (unsigned i = 0, e = body->getNumArguments(); i < e; ++i) {
    func.setArgAttr(i, attr::kName, builder.getStringAttr(argNames[i]));
    if (isUnsignedDType(argDTypes[i]))
      func.setArgAttr(i, attr::kUnsigned, builder.getUnitAttr());
    // The names of dynamic dimensions, for orchestra-bind-dims.
    if (!cast<RankedTensorType>(inputTypes[i]).hasStaticShape()) {
      SmallVector<Attribute> names;
      for (const std::string &name : argDimNames[i])
        names.push_back(builder.getStringAttr(name));
      func.setArgAttr(i, attr::kDimNames, builder.getArrayAttr(names));
    }
  }
  for (unsigned i = 0, e = results.size(); i < e; ++i) {
    func.setResultAttr(i, attr::kName,
                       builder.getStringAttr(result.outputNames[i]));
    if (isUnsignedDType(resultDTypes[i]))
      func.setResultAttr(i, attr::kUnsigned, builder.getUnitAttr());
  }
  if (failed(func.eraseArguments(erase)))
    return emitModelError() << "internal error: cannot drop bound inputs";
  for (BlockArgument arg : body->getArguments())
    result.inputNames.push_back(
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attr::kName)
            .str());

  if (failed(resolvePlaceholders(/*final=*/true)))
    return failure();
  if (failed(mlir::verify(module)))
    return emitModelError()
           << "internal error: the imported IR does not verify";
  result.boundInputs = bound;
  result.usedDims = usedDims;
  result.dynamicDims = dynamicDims;
  result.module = std::move(owned);
  return result;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(ModelImporter &importer, const onnx::NodeProto &node,
                         int opsetVersion, int sinceVersion, Location loc,
                         OpBuilder &builder)
    : importer(importer), node(node), opsetVersion(opsetVersion),
      sinceVersion(sinceVersion), loc(loc), builder(builder) {}

std::string NodeContext::getNodeName() const {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return node.name();
}

bool NodeContext::hasInput(unsigned index) const {
  return index < unsigned(node.input_size()) && !node.input(index).empty();
}

const ImportedValue &NodeContext::getImportedInput(unsigned index) const {
  assert(hasInput(index) && "absent input");
  ImportedValue *value = importer.lookup(node.input(index));
  assert(value && "inputs are checked before conversion");
  return *value;
}

Value NodeContext::getInput(unsigned index) {
  assert(hasInput(index) && "absent input");
  return importer.materialize(*importer.lookup(node.input(index)));
}

ImportedValue *NodeContext::getImportedInputRecord(unsigned index) {
  assert(hasInput(index) && "absent input");
  return importer.lookup(node.input(index));
}

ImportedValue *NodeContext::createRecord(Value value, OnnxDType dtype) {
  ImportedValue record;
  record.value = value;
  record.type = cast<RankedTensorType>(value.getType());
  record.dtype = dtype;
  return importer.store(std::move(record));
}

Value NodeContext::materialize(ImportedValue &value) {
  return importer.materialize(value);
}

void NodeContext::setQuantizedOrigin(
    unsigned index, std::shared_ptr<const QuantizedOrigin> origin) {
  if (!hasOutput(index))
    return;
  if (ImportedValue *value = importer.lookup(node.output(index)))
    value->quantized = std::move(origin);
}

const QuantizedOrigin *
NodeContext::getQuantizedOrigin(unsigned index,
                                QuantizedOrigin::Kind kind) const {
  if (!hasInput(index))
    return nullptr;
  const QuantizedOrigin *origin = getImportedInput(index).quantized.get();
  return origin && origin->kind == kind ? origin : nullptr;
}

RankedTensorType NodeContext::getInputType(unsigned index) const {
  return getImportedInput(index).type;
}

OnnxDType NodeContext::getInputDType(unsigned index) const {
  return getImportedInput(index).dtype;
}

DenseElementsAttr NodeContext::getConstantInput(unsigned index) const {
  if (!hasInput(index))
    return nullptr;
  return importer.getDenseConstant(getImportedInput(index));
}

FailureOr<DenseElementsAttr> NodeContext::requireConstantInput(unsigned index,
                                                               StringRef what) {
  if (!hasInput(index)) {
    emitError() << "input " << index << " (" << what << ") is missing";
    return failure();
  }
  ImportedValue *value = importer.lookup(node.input(index));
  if (!value->constant && value->bindable)
    (void)importer.bind(*value);
  if (DenseElementsAttr constant = importer.getDenseConstant(*value))
    return constant;
  auto diag = emitError() << "unsupported: input '" << node.input(index)
                          << "' (" << what << ") must be known at compile time";
  if (!value->graphInputName.empty())
    diag << "; it is a graph input: bind it to a value (--bind-input "
         << value->graphInputName << "=FILE.npy)";
  return failure();
}

FailureOr<SmallVector<int64_t>>
NodeContext::requireConstantInts(unsigned index, StringRef what) {
  FailureOr<DenseElementsAttr> constant = requireConstantInput(index, what);
  if (failed(constant))
    return failure();
  if (!constant->getElementType().isInteger()) {
    emitError() << "input '" << node.input(index) << "' (" << what
                << ") must be integers";
    return failure();
  }
  return getIntValues(*constant);
}

bool NodeContext::hasAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return true;
  return false;
}

const onnx::AttributeProto *NodeContext::getAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  if (const onnx::OpSchema *schema = importer.getSchema(node)) {
    auto it = schema->attributes().find(name.str());
    if (it != schema->attributes().end() &&
        it->second.default_value.type() != onnx::AttributeProto::UNDEFINED)
      return &it->second.default_value;
  }
  return nullptr;
}

int64_t NodeContext::getAttrInt(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_i() ? attr->i() : defaultValue;
}

float NodeContext::getAttrFloat(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_f() ? attr->f() : defaultValue;
}

std::string NodeContext::getAttrString(StringRef name,
                                       StringRef defaultValue) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_s() ? attr->s() : defaultValue.str();
}

SmallVector<int64_t> NodeContext::getAttrInts(StringRef name,
                                              ArrayRef<int64_t> dflt) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr ||
      (attr->ints_size() == 0 && attr->type() != onnx::AttributeProto::INTS))
    return SmallVector<int64_t>(dflt.begin(), dflt.end());
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

SmallVector<float> NodeContext::getAttrFloats(StringRef name,
                                              ArrayRef<float> dflt) const {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr || (attr->floats_size() == 0 &&
                attr->type() != onnx::AttributeProto::FLOATS))
    return SmallVector<float>(dflt.begin(), dflt.end());
  return SmallVector<float>(attr->floats().begin(), attr->floats().end());
}

FailureOr<int64_t> NodeContext::getRequiredAttrInt(StringRef name) {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr || !attr->has_i()) {
    emitError() << "missing required attribute '" << name << "'";
    return failure();
  }
  return attr->i();
}

FailureOr<SmallVector<int64_t>>
NodeContext::getRequiredAttrInts(StringRef name) {
  if (!getAttr(name)) {
    emitError() << "missing required attribute '" << name << "'";
    return failure();
  }
  return getAttrInts(name);
}

FailureOr<ElementsAttr> NodeContext::getAttrTensor(StringRef name,
                                                   OnnxDType *dtype) {
  const onnx::AttributeProto *attr = getAttr(name);
  if (!attr || !attr->has_t()) {
    emitError() << "missing tensor attribute '" << name << "'";
    return failure();
  }
  return importer.convertTensor(attr->t(), loc, dtype);
}

const onnx::GraphProto *NodeContext::getAttrGraph(StringRef name) const {
  const onnx::AttributeProto *attr = getAttr(name);
  return attr && attr->has_g() ? &attr->g() : nullptr;
}

bool NodeContext::hasOutput(unsigned index) const {
  return index < unsigned(node.output_size()) && !node.output(index).empty();
}

Value NodeContext::createEmpty(ArrayRef<int64_t> shape, Type elementType) {
  // A dynamic size takes a placeholder, replaced by the size of the operand
  // of the consuming op that has the same loop dimension once the node is
  // imported (ModelImporter::resolvePlaceholders).
  SmallVector<Value> sizes;
  for (int64_t size : shape)
    if (ShapedType::isDynamic(size)) {
      auto placeholder =
          arith::ConstantIndexOp::create(builder, loc, ShapedType::kDynamic);
      placeholder->setAttr(attr::kUnresolvedSize, builder.getUnitAttr());
      sizes.push_back(placeholder);
    }
  auto empty = tensor::EmptyOp::create(
      builder, loc, RankedTensorType::get(shape, elementType), sizes);
  if (!sizes.empty())
    importer.addPlaceholder(empty);
  return empty;
}

FailureOr<AffineExpr> NodeContext::getDimExpr(Value tensor, int64_t dim) {
  FailureOr<AffineExpr> expr = importer.getDimExpr(tensor, dim);
  if (failed(expr))
    emitError() << "unsupported: the size of dimension " << dim << " of "
                << tensor.getType()
                << " cannot be derived from the model's dynamic dimensions";
  return expr;
}

FailureOr<SmallVector<AffineExpr>> NodeContext::getInputSizes(unsigned index) {
  SmallVector<AffineExpr> sizes;
  RankedTensorType type = getInputType(index);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(getAffineConstantExpr(type.getDimSize(d), getContext()));
      continue;
    }
    FailureOr<AffineExpr> size = getDimExpr(getInput(index), d);
    if (failed(size))
      return failure();
    sizes.push_back(*size);
  }
  return sizes;
}

std::optional<SmallVector<AffineExpr>>
NodeContext::getSizeInput(unsigned index) {
  if (!hasInput(index))
    return std::nullopt;
  const ImportedValue &value = getImportedInput(index);
  if (value.type.getRank() > 1 ||
      !isa<IntegerType>(value.type.getElementType()) ||
      isBoolDType(value.dtype))
    return std::nullopt;
  if (!value.sizes.empty())
    return value.sizes;
  DenseElementsAttr constant = getConstantInput(index);
  if (!constant)
    return std::nullopt;
  SmallVector<AffineExpr> sizes;
  for (int64_t v : getIntValues(constant))
    sizes.push_back(getAffineConstantExpr(v, getContext()));
  return sizes;
}

void NodeContext::setSizeOutput(unsigned index, ArrayRef<AffineExpr> elements,
                                bool scalar, OnnxDType dtype) {
  if (!hasOutput(index))
    return;
  assert((!scalar || elements.size() == 1) && "a scalar has one element");
  auto elementType = cast<IntegerType>(getElementType(getContext(), dtype));
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{}
             : ArrayRef<int64_t>{int64_t(elements.size())},
      elementType);
  if (llvm::all_of(elements, llvm::IsaPred<AffineConstantExpr>)) {
    SmallVector<APInt> values;
    for (AffineExpr e : elements)
      values.push_back(APInt(elementType.getWidth(),
                             cast<AffineConstantExpr>(e).getValue(),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    setConstantOutput(index, DenseElementsAttr::get(type, values), dtype);
    return;
  }
  ImportedValue imported;
  imported.type = type;
  imported.dtype = dtype;
  imported.sizes.assign(elements.begin(), elements.end());
  importer.define(node.output(index), std::move(imported));
}

OpFoldResult NodeContext::buildSize(AffineExpr expr) {
  return importer.buildSize(expr);
}

SmallVector<OpFoldResult> NodeContext::buildSizes(ArrayRef<AffineExpr> exprs) {
  return llvm::map_to_vector(exprs, [&](AffineExpr e) { return buildSize(e); });
}

std::optional<int64_t> NodeContext::getUpperBound(AffineExpr expr) {
  return orchestra::getUpperBound(expr, importer.getSymbolRanges());
}

std::optional<int64_t> NodeContext::getLowerBound(AffineExpr expr) {
  return orchestra::getLowerBound(expr, importer.getSymbolRanges());
}

std::string NodeContext::printSize(AffineExpr expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ArrayRef<DynamicDim> ranges = importer.getSymbolRanges();
  std::function<void(AffineExpr)> print = [&](AffineExpr e) {
    if (auto symbol = dyn_cast<AffineSymbolExpr>(e)) {
      os << ranges[symbol.getPosition()].name;
      return;
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary) {
      os << e;
      return;
    }
    StringRef op = e.getKind() == AffineExprKind::Add        ? " + "
                   : e.getKind() == AffineExprKind::Mul      ? " * "
                   : e.getKind() == AffineExprKind::Mod      ? " mod "
                   : e.getKind() == AffineExprKind::FloorDiv ? " floordiv "
                                                             : " ceildiv ";
    bool nested = isa<AffineBinaryOpExpr>(binary.getLHS());
    os << (nested ? "(" : "");
    print(binary.getLHS());
    os << (nested ? ")" : "") << op;
    nested = isa<AffineBinaryOpExpr>(binary.getRHS());
    os << (nested ? "(" : "");
    print(binary.getRHS());
    os << (nested ? ")" : "");
  };
  print(expr);
  return text;
}

void NodeContext::setOutput(unsigned index, Value value, OnnxDType dtype) {
  if (!hasOutput(index))
    return;
  ImportedValue imported;
  imported.value = value;
  imported.type = cast<RankedTensorType>(value.getType());
  imported.dtype = dtype;
  importer.define(node.output(index), std::move(imported));
}

void NodeContext::setConstantOutput(unsigned index, ElementsAttr value,
                                    OnnxDType dtype) {
  if (!hasOutput(index))
    return;
  ImportedValue imported;
  imported.constant = value;
  imported.type = cast<RankedTensorType>(value.getType());
  imported.dtype = dtype;
  importer.define(node.output(index), std::move(imported));
}

void NodeContext::setOutput(unsigned index, const ImportedValue &value) {
  if (!hasOutput(index))
    return;
  ImportedValue copy = value;
  // A forwarded graph input is no longer bindable through its new name.
  copy.bindable = nullptr;
  copy.graphInputName.clear();
  importer.define(node.output(index), std::move(copy));
}

FailureOr<SmallVector<ImportedValue>>
NodeContext::importSubgraph(const onnx::GraphProto &graph,
                            ArrayRef<ImportedValue> inputs) {
  return importer.importSubgraph(graph, *this, inputs);
}

InFlightDiagnostic NodeContext::emitError() {
  auto diag = mlir::emitError(loc);
  diag << "node '" << getNodeName() << "' (" << node.op_type() << ", opset "
       << opsetVersion << "): ";
  return diag;
}

LogicalResult NodeContext::unsupported(const Twine &what) {
  return emitError() << "unsupported: " << what;
}

FailureOr<Type> NodeContext::getElementTypeOrError(OnnxDType dtype) {
  Type type = getElementType(getContext(), dtype);
  if (!type) {
    emitError() << "unsupported: element type " << getOnnxDTypeName(dtype);
    return failure();
  }
  return type;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<ImportResult> onnx_import::importModel(MLIRContext *context,
                                                 StringRef bytes,
                                                 StringRef filename,
                                                 const ImportOptions &options) {
  context->loadDialect<arith::ArithDialect, func::FuncDialect,
                       linalg::LinalgDialect, scf::SCFDialect,
                       tensor::TensorDialect>();
  onnx::ModelProto model;
  if (bytes.size() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return mlir::emitError(FileLineColLoc::get(context, filename, 0, 0))
           << "not a valid ONNX model (the protobuf does not parse: the file "
              "is truncated or not ONNX, or its subgraphs nest deeper than "
              "protobuf's limit of 100 messages)";
  ModelImporter importer(context, model, filename, options);
  try {
    return importer.run();
  } catch (const std::exception &error) {
    return mlir::emitError(FileLineColLoc::get(context, filename, 0, 0))
           << "internal error while importing: " << error.what();
  }
}

FailureOr<ImportResult>
onnx_import::importModelFile(MLIRContext *context, StringRef path,
                             const ImportOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!file)
    return mlir::emitError(FileLineColLoc::get(context, path, 0, 0))
           << "cannot read '" << path << "': " << file.getError().message();
  return importModel(context, (*file)->getBuffer(), path, options);
}

bool onnx_import::isONNXModelPath(StringRef path) {
  return path.ends_with_insensitive(".onnx");
}

std::vector<ConverterEntry> onnx_import::getRegisteredConverters() {
  std::vector<ConverterEntry> entries;
  for (const auto &entry : getConverterRegistry().entries())
    entries.push_back({std::get<0>(entry.first), std::get<1>(entry.first),
                       std::get<2>(entry.first)});
  return entries;
}
