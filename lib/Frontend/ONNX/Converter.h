//===- Converter.h - ONNX node converters and their registry ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The interface between the importer and the per-op converters. A converter
// is registered for (domain, op type, since-version) and turns one ONNX node
// into linalg/tensor/arith/math ops through a NodeContext, which gives it the
// node's operands (with their ONNX element types and, where known, constant
// values), its attributes (with the schema's defaults), a builder and
// diagnostics that name the node.
//
// Converters live in one file per op family and register themselves in
// `register<Family>Converters`.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_FRONTEND_ONNX_CONVERTER_H
#define ORCHESTRA_LIB_FRONTEND_ONNX_CONVERTER_H

#include "orchestra/Frontend/ONNX/TensorData.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace mlir::orchestra::onnx_import {

/// An ONNX element type: a `onnx::TensorProto::DataType` value. MLIR tensors
/// use signless integers, so the ONNX type is kept beside every value to know
/// its signedness (and that a bool is a bool).
using OnnxDType = int32_t;

/// Short ONNX type name ("float", "uint8", ...), for diagnostics.
llvm::StringRef getOnnxDTypeName(OnnxDType dtype);
/// The MLIR element type of an ONNX type, or null (string, complex).
using onnx_data::getElementType;
bool isFloatDType(OnnxDType dtype);
bool isIntegerDType(OnnxDType dtype); // signed or unsigned, not bool
bool isUnsignedDType(OnnxDType dtype);
bool isSignedDType(OnnxDType dtype); // signed integer
inline bool isBoolDType(OnnxDType dtype) {
  return dtype == onnx::TensorProto::BOOL;
}

class ModelImporter;

/// Converts one node: the importer calls it with the node's context. On
/// failure the converter has emitted a diagnostic (through `emitError` or
/// `unsupported`).
class NodeContext;
using ConvertFn = std::function<LogicalResult(NodeContext &)>;

/// The converters, keyed by (domain, op type, since-version). A node is
/// converted by the converter registered for the since-version of the op
/// schema in effect at the model's opset; when there is none and the schema
/// defines the op as a function, the function body is imported instead.
class ConverterRegistry {
public:
  /// Registers `fn` for every version in `sinceVersions`. The default domain
  /// is "".
  void add(llvm::StringRef opType, llvm::ArrayRef<int> sinceVersions,
           ConvertFn fn, llvm::StringRef domain = "");
  const ConvertFn *lookup(llvm::StringRef domain, llvm::StringRef opType,
                          int sinceVersion) const;
  /// Versions registered for an op, ascending.
  llvm::SmallVector<int> versions(llvm::StringRef domain,
                                  llvm::StringRef opType) const;
  const std::map<std::tuple<std::string, std::string, int>, ConvertFn> &
  entries() const {
    return converters;
  }

private:
  std::map<std::tuple<std::string, std::string, int>, ConvertFn> converters;
};

/// The registry with every family registered.
const ConverterRegistry &getConverterRegistry();

// One registration function per op family (one file each).
void registerElementwiseConverters(ConverterRegistry &registry);
void registerLogicalConverters(ConverterRegistry &registry);
void registerContractionConverters(ConverterRegistry &registry);
void registerPoolingConverters(ConverterRegistry &registry);
void registerNormalizationConverters(ConverterRegistry &registry);
void registerReductionConverters(ConverterRegistry &registry);
void registerShapeConverters(ConverterRegistry &registry);
void registerDataMovementConverters(ConverterRegistry &registry);
void registerControlFlowConverters(ConverterRegistry &registry);
void registerRecurrentConverters(ConverterRegistry &registry);
void registerQuantizationConverters(ConverterRegistry &registry);

struct ImportedValue;

/// Where a float value of a quantized (QDQ) graph comes from, so that the
/// contractions and QuantizeLinear consuming it can compute on integers as
/// ONNX Runtime's fused QDQ kernels do (Quantization.cpp, design note 0018).
struct QuantizedOrigin {
  enum class Kind {
    /// The output of a DequantizeLinear: (integer - zeroPoint) * scale.
    Dequantized,
    /// The output of an integer contraction: accumulator * scale.
    Accumulated,
  };
  Kind kind;
  /// Dequantized: the int8/uint8/int32 operand (the importer's own record,
  /// which outlives the node).
  ImportedValue *integer = nullptr;
  /// Accumulated: the i32 sums.
  Value accumulator;
  /// f32; one value, or one per index of `axis`.
  DenseElementsAttr scale;
  /// Dequantized only; as many values as `scale`; null means zero.
  DenseElementsAttr zeroPoint;
  int64_t axis = -1;
};

/// A value of the graph as the converters see it.
struct ImportedValue {
  /// The MLIR value; null while the value is only known as a constant (it is
  /// materialized on first use).
  Value value;
  RankedTensorType type;
  OnnxDType dtype = onnx::TensorProto::UNDEFINED;
  /// The value when it is known at compile time (initializers, Constant
  /// nodes, folded shape computations, bound inputs).
  ElementsAttr constant;
  /// For graph inputs that may be bound: the value to bind on demand.
  DenseElementsAttr bindable;
  /// For graph inputs: the name (to report bindings).
  std::string graphInputName;
  /// In a quantized graph: how the value was computed from integers.
  std::shared_ptr<const QuantizedOrigin> quantized;
  /// For a small integer tensor (rank 0 or 1) computed from dynamic sizes
  /// (the Shape of a dynamically shaped value and the arithmetic on it):
  /// each element as an expression in the model's dynamic dims
  /// (design/0017). `value` stays null until the tensor is needed at run
  /// time; Reshape, Slice, ConstantOfShape and Expand read the sizes.
  llvm::SmallVector<AffineExpr> sizes;
};

/// Folds a shape computation whose operands are sizes (Shape of a dynamic
/// tensor, Gather/Concat/Slice/Unsqueeze/Squeeze/Reshape/Cast/Identity of
/// sizes, integer arithmetic on them) into sizes; returns false when the
/// node is not one (its converter then runs).
FailureOr<bool> foldSizeComputation(NodeContext &ctx);

/// Ops on dynamic sizes (Sizes.cpp), which the converters call when a shape
/// is dynamic or an operand is a computed size.
/// `input` (of sizes `from`) reshaped to sizes `to`, through collapse and
/// expand shapes grouped as a static reshape would be; failure (diagnosed)
/// when the element counts differ for some sizes of the dims.
FailureOr<Value> reshapeToSizes(NodeContext &ctx, Value input,
                                llvm::ArrayRef<AffineExpr> from,
                                llvm::ArrayRef<AffineExpr> to);
/// `tensor.empty` of `sizes` (static where constant).
Value createEmptyOfSizes(NodeContext &ctx, llvm::ArrayRef<AffineExpr> sizes,
                         Type elementType);
/// Whether two sizes are equal for every size of the dims.
bool areEqualSizes(AffineExpr lhs, AffineExpr rhs);
/// Reshape to `shape` (0 copies, one -1 inferred).
LogicalResult convertDynamicReshape(NodeContext &ctx,
                                    llvm::ArrayRef<AffineExpr> shape);
/// Slice (opset 10 and later) with unit steps on its sliced axes.
LogicalResult convertDynamicSlice(NodeContext &ctx);
/// Expand of a dynamically shaped input, or to computed sizes.
LogicalResult convertDynamicExpand(NodeContext &ctx);
/// Range whose start or limit is a computed size (positions up to the
/// sequence's length), with a positive constant delta.
LogicalResult convertDynamicRange(NodeContext &ctx);
/// ConstantOfShape of computed sizes.
LogicalResult convertDynamicConstantOfShape(NodeContext &ctx,
                                            llvm::ArrayRef<AffineExpr> shape,
                                            TypedAttr value, OnnxDType dtype);

/// Maximum number of elements of a constant that converters fold through
/// (shape computations); larger constants stay opaque.
constexpr int64_t kMaxFoldElements = 1 << 16;

/// The view of one node given to its converter.
class NodeContext {
public:
  NodeContext(ModelImporter &importer, const onnx::NodeProto &node,
              int opsetVersion, int sinceVersion, Location loc,
              OpBuilder &builder);

  // Identity.
  llvm::StringRef getOpType() const { return node.op_type(); }
  llvm::StringRef getDomain() const { return node.domain(); }
  /// The node's name, or "<op type>#<index>" when it has none.
  std::string getNodeName() const;
  int getOpsetVersion() const { return opsetVersion; }
  int getSinceVersion() const { return sinceVersion; }
  Location getLoc() const { return loc; }
  OpBuilder &getBuilder() { return builder; }
  MLIRContext *getContext() const { return builder.getContext(); }
  const onnx::NodeProto &getNode() const { return node; }

  // Inputs. Optional inputs that are absent (missing or named "") report
  // false from `hasInput`.
  unsigned getNumInputs() const { return node.input_size(); }
  bool hasInput(unsigned index) const;
  /// The input as an MLIR value (constants are materialized here).
  Value getInput(unsigned index);
  RankedTensorType getInputType(unsigned index) const;
  llvm::ArrayRef<int64_t> getInputShape(unsigned index) const {
    return getInputType(index).getShape();
  }
  int64_t getInputRank(unsigned index) const {
    return getInputType(index).getRank();
  }
  OnnxDType getInputDType(unsigned index) const;
  const ImportedValue &getImportedInput(unsigned index) const;
  /// The input's value when it is a compile-time constant of at most
  /// kMaxFoldElements elements; null otherwise. Never binds graph inputs.
  DenseElementsAttr getConstantInput(unsigned index) const;
  /// The input's value, which must be known at compile time because it fixes
  /// a shape or an index (`what` says which, e.g. "the target shape"). A
  /// graph input is bound to its value when the import allows it; otherwise
  /// this emits an error naming the input and returns failure.
  FailureOr<DenseElementsAttr> requireConstantInput(unsigned index,
                                                    llvm::StringRef what);
  /// As above, as integers (any integer type).
  FailureOr<llvm::SmallVector<int64_t>>
  requireConstantInts(unsigned index, llvm::StringRef what);

  // Dynamic sizes (design/0017): expressions whose symbols are the model's
  // dynamic dimensions.
  /// The size of dimension `dim` of `tensor` (a value of the graph).
  FailureOr<AffineExpr> getDimExpr(Value tensor, int64_t dim);
  /// The sizes of all dimensions of input `index`.
  FailureOr<llvm::SmallVector<AffineExpr>> getInputSizes(unsigned index);
  /// Input `index`'s elements as sizes, when it is a small integer constant
  /// or a computed size (ImportedValue::sizes); nullopt otherwise.
  std::optional<llvm::SmallVector<AffineExpr>> getSizeInput(unsigned index);
  /// Defines output `index`, an integer tensor of rank 0 (`scalar`, one
  /// element) or 1, from sizes; a constant when every size is one.
  void setSizeOutput(unsigned index, llvm::ArrayRef<AffineExpr> elements,
                     bool scalar, OnnxDType dtype);
  /// `expr` as an index (an attribute when constant); its ops are built at
  /// the top of the function, where every dim is known.
  OpFoldResult buildSize(AffineExpr expr);
  llvm::SmallVector<OpFoldResult> buildSizes(llvm::ArrayRef<AffineExpr> exprs);
  /// The range of `expr` over the dims' declared ranges (--dim), or nothing.
  std::optional<int64_t> getUpperBound(AffineExpr expr);
  std::optional<int64_t> getLowerBound(AffineExpr expr);
  /// `expr` with the dims' names, for diagnostics ("seq * 4").
  std::string printSize(AffineExpr expr);

  // Attributes. Lookups fall back to the schema's default value.
  bool hasAttr(llvm::StringRef name) const;
  /// The attribute as written on the node, else the schema default, else
  /// null.
  const onnx::AttributeProto *getAttr(llvm::StringRef name) const;
  int64_t getAttrInt(llvm::StringRef name, int64_t defaultValue) const;
  float getAttrFloat(llvm::StringRef name, float defaultValue) const;
  std::string getAttrString(llvm::StringRef name,
                            llvm::StringRef defaultValue) const;
  llvm::SmallVector<int64_t>
  getAttrInts(llvm::StringRef name,
              llvm::ArrayRef<int64_t> defaultValue = {}) const;
  llvm::SmallVector<float>
  getAttrFloats(llvm::StringRef name,
                llvm::ArrayRef<float> defaultValue = {}) const;
  /// Required attributes: a diagnostic when absent.
  FailureOr<int64_t> getRequiredAttrInt(llvm::StringRef name);
  FailureOr<llvm::SmallVector<int64_t>>
  getRequiredAttrInts(llvm::StringRef name);
  /// A tensor-valued attribute as a constant; failure (diagnosed) when
  /// absent or malformed.
  FailureOr<ElementsAttr> getAttrTensor(llvm::StringRef name,
                                        OnnxDType *dtype = nullptr);
  /// A graph-valued attribute (If/Loop bodies), or null.
  const onnx::GraphProto *getAttrGraph(llvm::StringRef name) const;

  // Outputs. Outputs named "" are absent (optional outputs not requested).
  unsigned getNumOutputs() const { return node.output_size(); }
  bool hasOutput(unsigned index) const;
  void setOutput(unsigned index, Value value, OnnxDType dtype);
  /// A compile-time result; it is materialized only if something needs the
  /// value at run time.
  void setConstantOutput(unsigned index, ElementsAttr value, OnnxDType dtype);
  /// Forwards an imported value unchanged (Identity, If on a constant).
  void setOutput(unsigned index, const ImportedValue &value);
  /// Records how output `index` (defined already) was computed from
  /// integers.
  void setQuantizedOrigin(unsigned index,
                          std::shared_ptr<const QuantizedOrigin> origin);
  /// The input's QuantizedOrigin of `kind`, or null.
  const QuantizedOrigin *getQuantizedOrigin(unsigned index,
                                            QuantizedOrigin::Kind kind) const;
  /// Input `index`'s own record (e.g. for a QuantizedOrigin).
  ImportedValue *getImportedInputRecord(unsigned index);
  /// A record of a value no ONNX name refers to (the integers a
  /// QuantizedOrigin names), owned by the importer.
  ImportedValue *createRecord(Value value, OnnxDType dtype);
  /// A recorded value as an MLIR value (constants are materialized here).
  Value materialize(ImportedValue &value);

  /// Imports the nodes of a subgraph inline (its names are looked up in the
  /// enclosing scopes too) and returns its outputs. The subgraph's inputs
  /// (a Loop body's) are `inputs`, one per graph input.
  FailureOr<llvm::SmallVector<ImportedValue>>
  importSubgraph(const onnx::GraphProto &graph,
                 llvm::ArrayRef<ImportedValue> inputs = {});

  // Diagnostics, prefixed with "node 'NAME' (OP, opset N): ".
  InFlightDiagnostic emitError();
  /// Reports a construct this importer does not support: "unsupported: ...".
  LogicalResult unsupported(const llvm::Twine &what);

  // Small builders.
  /// `tensor.empty` of the given shape and element type.
  Value createEmpty(llvm::ArrayRef<int64_t> shape, Type elementType);
  /// A scalar constant of `elementType` (float or integer) with `value`.
  Value createScalar(Type elementType, double value);
  /// A tensor filled with `scalar`.
  Value createFilled(llvm::ArrayRef<int64_t> shape, Value scalar);
  /// The MLIR element type of an ONNX type; diagnoses string/complex.
  FailureOr<Type> getElementTypeOrError(OnnxDType dtype);

private:
  ModelImporter &importer;
  const onnx::NodeProto &node;
  int opsetVersion;
  int sinceVersion;
  Location loc;
  OpBuilder &builder;
};

//===----------------------------------------------------------------------===//
// Shared builders (Builders.cpp)
//===----------------------------------------------------------------------===//

/// Body of an elementwise op: the scalar operands (one per input, in their
/// MLIR element types) to the scalar result.
using ScalarBodyFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The numpy-broadcast shape of `shapes`, or failure (diagnosed on `ctx`).
FailureOr<llvm::SmallVector<int64_t>>
getBroadcastShape(NodeContext &ctx,
                  llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Refuses a broadcast of `inputs` whose dynamic sizes may differ at run
/// time (design/0017): at each result dimension every size but a static 1
/// must be the same expression in the dims.
LogicalResult checkDynamicBroadcast(NodeContext &ctx, ValueRange inputs);

/// A `linalg.generic` computing `body` elementwise over the numpy broadcast
/// of `inputs`, with result element type `resultElementType`.
FailureOr<Value> buildElementwise(NodeContext &ctx, ValueRange inputs,
                                  Type resultElementType, ScalarBodyFn body);

/// Scalar activations (Elementwise.cpp), shared with the recurrent ops,
/// whose activation attributes name them.
Value sigmoidOf(OpBuilder &b, Location loc, Value x);
/// log(1 + exp(x)), without overflow for large x.
Value softplusOf(OpBuilder &b, Location loc, Value x);
/// x / (1 + |x|).
Value softsignOf(OpBuilder &b, Location loc, Value x);
/// max(0, min(1, alpha * x + beta)).
Value hardSigmoidOf(OpBuilder &b, Location loc, Value x, Value alpha,
                    Value beta);

/// Converts a scalar between ONNX element types with ONNX Cast semantics
/// (float to int truncates toward zero, to bool is `!= 0`).
Value castScalar(OpBuilder &builder, Location loc, Value scalar, OnnxDType from,
                 OnnxDType to);

/// Requantizes the i32 `accumulator` of a QLinear op (Quantization.cpp):
/// saturate(round_half_even(acc * multiplier) + zero point), where the f32
/// multiplier is the product of the node inputs `scales` divided by the node
/// input `outputScale`, and the zero point (node input `outputZeroPoint`)
/// gives the output type (int8 or uint8). A scale may hold one value per
/// index of the accumulator's dimension `channelAxis` (-1: none may).
FailureOr<Value> requantize(NodeContext &ctx, Value accumulator,
                            llvm::ArrayRef<unsigned> scales,
                            int64_t channelAxis, unsigned outputScale,
                            unsigned outputZeroPoint);

/// The integers of a Dequantized origin minus its zero point, as an i32
/// tensor (a constant, folded here whatever its size, when the integers
/// are).
FailureOr<Value> getZeroAdjustedI32(NodeContext &ctx,
                                    const QuantizedOrigin &origin);
/// The integers of a Dequantized origin whose integers are a constant,
/// minus its zero point; nullopt otherwise.
std::optional<std::vector<int32_t>>
getZeroAdjustedValues(const QuantizedOrigin &origin);
/// The uint8 bytes of `input` as int8, x - 128 (x ^ 0x80), which orders
/// them as signed integers; applied twice, the bytes again.
FailureOr<Value> shiftToSigned(NodeContext &ctx, Value input);
/// Defines output 0 as float(accumulator) * scales (one value, or one per
/// index of the accumulator's dimension `axis`) and records that origin, so
/// that a QuantizeLinear of it requantizes the i32 sums.
LogicalResult setAccumulatedOutput(NodeContext &ctx, Value accumulator,
                                   llvm::ArrayRef<float> scales, int64_t axis);

/// Converts a tensor between ONNX element types elementwise.
Value castTensor(NodeContext &ctx, Value tensor, OnnxDType from, OnnxDType to);

/// The integers of an integer constant.
llvm::SmallVector<int64_t> getIntValues(DenseElementsAttr attr);

/// Normalizes an axis in [-rank, rank) to [0, rank); failure (diagnosed)
/// when out of range.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank);

//===----------------------------------------------------------------------===//
// Data-movement builders (Builders.cpp), shared by ShapeOps.cpp and
// DataMovement.cpp. Each folds when its operand is a compile-time constant.
//===----------------------------------------------------------------------===//

/// A tensor operand of a data-movement op: either a compile-time constant,
/// folded through, or a runtime value.
struct TensorOperand {
  RankedTensorType type;
  DenseElementsAttr constant;
  Value value;

  static TensorOperand runtime(Value value);
  static TensorOperand folded(DenseElementsAttr constant);
};

/// The node's input `index`, as a constant when it is one.
TensorOperand getOperand(NodeContext &ctx, unsigned index);
/// The operand as an MLIR value (a constant is materialized).
Value materialize(NodeContext &ctx, const TensorOperand &operand);
/// Defines output `index`; constants and empty tensors stay constants.
void setResult(NodeContext &ctx, unsigned index, const TensorOperand &result,
               OnnxDType dtype);

/// Calls `fn` with every index of `shape`, in row-major order.
void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  llvm::function_ref<void(llvm::ArrayRef<int64_t>)> fn);
/// The constant of `type` whose element at each index `i` is the element of
/// `input` at row-major position `source(i)`, or `fill` where that is
/// negative.
DenseElementsAttr
foldByIndex(DenseElementsAttr input, RankedTensorType type,
            llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> source,
            Attribute fill = {});

/// Reshapes to `shape` (same number of elements): collapse_shape and/or
/// expand_shape.
TensorOperand reshapeOperand(NodeContext &ctx, const TensorOperand &input,
                             llvm::ArrayRef<int64_t> shape);
/// `linalg.transpose`: result dimension i is input dimension perm[i].
TensorOperand transposeOperand(NodeContext &ctx, const TensorOperand &input,
                               llvm::ArrayRef<int64_t> perm);
/// Strided slice; result dimension d reads offsets[d] + i * strides[d]
/// (strides may be negative).
TensorOperand sliceOperand(NodeContext &ctx, const TensorOperand &input,
                           llvm::ArrayRef<int64_t> offsets,
                           llvm::ArrayRef<int64_t> sizes,
                           llvm::ArrayRef<int64_t> strides);
/// Concatenation along `axis` (`tensor.concat`).
TensorOperand concatOperands(NodeContext &ctx,
                             llvm::ArrayRef<TensorOperand> inputs,
                             int64_t axis);
/// Numpy broadcast to `shape` (which must be a broadcast of the input's).
TensorOperand broadcastOperand(NodeContext &ctx, const TensorOperand &input,
                               llvm::ArrayRef<int64_t> shape);
/// Per-dimension gather: result dimension d has tables[d].size() elements,
/// element i reading input index tables[d][i] (an empty table keeps the
/// dimension as it is). A negative entry reads `fill` instead.
TensorOperand gatherTables(NodeContext &ctx, const TensorOperand &input,
                           llvm::ArrayRef<llvm::SmallVector<int64_t>> tables,
                           TypedAttr fill = {});

/// Body of an indexed generic: its input scalars and the loop indices.
using IndexedBodyFn = llvm::function_ref<Value(
    OpBuilder &, Location, ValueRange args, ValueRange indices)>;
/// An all-parallel `linalg.generic` over `shape` with `inputs` read through
/// `inputMaps`; the body also gets the loop indices (`linalg.index`), to
/// `tensor.extract` from tensors by computed indices.
Value buildIndexedGeneric(NodeContext &ctx, llvm::ArrayRef<int64_t> shape,
                          Type elementType, ValueRange inputs,
                          llvm::ArrayRef<AffineMap> inputMaps,
                          IndexedBodyFn body);
/// A 1-D constant tensor of i64 values.
Value createI64Tensor(NodeContext &ctx, llvm::ArrayRef<int64_t> values);
/// An integer scalar as an in-range index into a dimension of `size`:
/// negative values count from the end, out-of-range ones are clamped.
Value normalizeIndex(OpBuilder &b, Location loc, Value index, int64_t size);

//===----------------------------------------------------------------------===//
// Reduction builders (Builders.cpp), shared by Reduction.cpp and
// Normalization.cpp. A reduction over `axes` of an iteration domain yields
// the domain's shape without those axes (the "reduced shape").
//===----------------------------------------------------------------------===//

/// The map (d0, ..., d{rank-1}) -> (d{dims[0]}, d{dims[1]}, ...).
AffineMap getDimsMap(MLIRContext *context, int64_t rank,
                     llvm::ArrayRef<int64_t> dims);
/// The dimensions in [0, rank) that are not in `axes`, ascending.
llvm::SmallVector<int64_t> getKeptDims(int64_t rank,
                                       llvm::ArrayRef<int64_t> axes);
/// `shape` without the dimensions in `axes` or, with `keepDims`, with those
/// dimensions set to 1.
llvm::SmallVector<int64_t> getReducedShape(llvm::ArrayRef<int64_t> shape,
                                           llvm::ArrayRef<int64_t> axes,
                                           bool keepDims);
/// Normalizes `axes` (each in [-rank, rank)) to sorted axes in [0, rank);
/// failure (diagnosed) when one is out of range or repeated.
FailureOr<llvm::SmallVector<int64_t>>
normalizeAxes(NodeContext &ctx, llvm::ArrayRef<int64_t> axes, int64_t rank);

/// Body of a reduction: the input scalars and the accumulators to the new
/// accumulators.
using ReductionBodyFn = llvm::function_ref<llvm::SmallVector<Value>(
    OpBuilder &, Location, ValueRange inputs, ValueRange accumulators)>;
/// A `linalg.generic` over the iteration domain `domain` whose loops in
/// `axes` are reductions, reading `inputs` through `inputMaps`. It has one
/// result per scalar of `inits`, of the reduced shape, starting as a
/// `linalg.fill` of that scalar (which is also the result of reducing an
/// empty set).
llvm::SmallVector<Value> buildReduction(NodeContext &ctx,
                                        llvm::ArrayRef<int64_t> domain,
                                        llvm::ArrayRef<int64_t> axes,
                                        ValueRange inputs,
                                        llvm::ArrayRef<AffineMap> inputMaps,
                                        ValueRange inits, ReductionBodyFn body);
/// A parallel `linalg.generic` over `domain` reading `inputs` through
/// `inputMaps`, with an identity-mapped result of `resultElementType`.
Value buildParallel(NodeContext &ctx, llvm::ArrayRef<int64_t> domain,
                    ValueRange inputs, llvm::ArrayRef<AffineMap> inputMaps,
                    Type resultElementType, ScalarBodyFn body);

/// Body of a single-input reduction: the element, the scalars of the
/// reduced operands and the accumulator to the new accumulator.
using CombineFn = llvm::function_ref<Value(OpBuilder &, Location, Value x,
                                           ValueRange reduced, Value acc)>;
/// Reduces `input` over `axes` (buildReduction): the accumulator starts at
/// `init` and becomes `combine(x, reduced, acc)` for every element x, where
/// `reducedOperands` (of the reduced shape) are read at x's row.
Value reduceOverAxes(NodeContext &ctx, Value input,
                     llvm::ArrayRef<int64_t> axes, Value init,
                     ValueRange reducedOperands, CombineFn combine);
/// A parallel `linalg.generic` over the shape of `full` reading `full`
/// elementwise and `reducedOperands` (of the shape without `axes`)
/// broadcast along `axes`; the body gets them in that order.
Value mapWithReduced(NodeContext &ctx, Value full, ValueRange reducedOperands,
                     llvm::ArrayRef<int64_t> axes, Type resultElementType,
                     ScalarBodyFn body);
/// Re-inserts the reduced `axes` of `domain` as unit dimensions
/// (`tensor.expand_shape`): the reduced shape becomes the keepdims shape.
Value expandReducedDims(NodeContext &ctx, Value reduced,
                        llvm::ArrayRef<int64_t> domain,
                        llvm::ArrayRef<int64_t> axes);

//===----------------------------------------------------------------------===//
// Elementwise ops with constant folding (Builders.cpp), shared by
// Elementwise.cpp and Logical.cpp.
//===----------------------------------------------------------------------===//

/// Evaluates `body` at compile time over the numpy broadcast (to `shape`) of
/// the constants `inputs`: the scalar IR that `body` builds on constant
/// operands is folded by the ops' own folders, so compile-time results follow
/// the same semantics as the runtime code. Null when some element does not
/// fold (e.g. an integer division by zero) or when the result would have more
/// than kMaxFoldElements elements (unless every input is a splat).
DenseElementsAttr foldElementwise(Location loc,
                                  llvm::ArrayRef<DenseElementsAttr> inputs,
                                  llvm::ArrayRef<int64_t> shape,
                                  Type resultElementType, ScalarBodyFn body);

/// `body` elementwise over the numpy broadcast of `inputs`: folded when every
/// input is a constant and the body folds, else a `linalg.generic`.
FailureOr<TensorOperand>
buildElementwiseOperands(NodeContext &ctx, llvm::ArrayRef<TensorOperand> inputs,
                         Type resultElementType, ScalarBodyFn body);

/// The common path of elementwise converters: `body` over the node inputs
/// `inputs` defines output 0, of ONNX type `resultDType`. With `alignAxis`,
/// or for the legacy (opset < 7) `broadcast = 1` with an `axis` attribute,
/// the dimensions of the second operand line up with those of the first
/// starting at that axis (trailing unit dimensions are added).
LogicalResult
convertElementwiseNode(NodeContext &ctx, llvm::ArrayRef<unsigned> inputs,
                       OnnxDType resultDType, ScalarBodyFn body,
                       std::optional<int64_t> alignAxis = std::nullopt);

/// The ONNX type shared by the node inputs `inputs`; failure (diagnosed) when
/// they differ.
FailureOr<OnnxDType> getCommonInputDType(NodeContext &ctx,
                                         llvm::ArrayRef<unsigned> inputs);

//===----------------------------------------------------------------------===//
// Sliding windows (Builders.cpp), shared by Contraction.cpp (Conv) and
// Pooling.cpp.
//===----------------------------------------------------------------------===//

/// `tensor.pad` of `input` by `low`/`high` (non-negative) elements per
/// dimension with the scalar `padValue`; `input` itself when nothing is
/// padded.
Value buildPad(NodeContext &ctx, Value input, llvm::ArrayRef<int64_t> low,
               llvm::ArrayRef<int64_t> high, Value padValue);

/// An attribute with one positive value per spatial dimension (strides,
/// dilations), all 1 when absent; failure (diagnosed) when malformed.
FailureOr<llvm::SmallVector<int64_t>>
getWindowAttr(NodeContext &ctx, llvm::StringRef name, size_t count);

/// The geometry of a window sliding over the spatial dimensions of an
/// [N, C, spatial...] input (Conv and the pooling ops), per spatial
/// dimension.
struct WindowGeometry {
  llvm::SmallVector<int64_t> kernel, strides, dilations;
  /// Padding before and after the input (explicit pads or auto_pad).
  llvm::SmallVector<int64_t> padsBegin, padsEnd;
  /// Output size.
  llvm::SmallVector<int64_t> output;
  /// With ceil_mode, how far the last window reaches past the end padding.
  llvm::SmallVector<int64_t> overhang;
};

/// The geometry of a window of `kernel` over `inputSpatial` from the node's
/// `strides`, `dilations`, `pads` and `auto_pad` attributes (defaults: 1, 1,
/// 0, NOTSET); with `ceilMode` the output size rounds up, as long as every
/// window starts inside the input or its begin padding. Diagnoses malformed
/// or unsupported (negative) values.
FailureOr<WindowGeometry>
getWindowGeometry(NodeContext &ctx, llvm::ArrayRef<int64_t> inputSpatial,
                  llvm::ArrayRef<int64_t> kernel, bool ceilMode);

} // namespace mlir::orchestra::onnx_import

#endif // ORCHESTRA_LIB_FRONTEND_ONNX_CONVERTER_H
