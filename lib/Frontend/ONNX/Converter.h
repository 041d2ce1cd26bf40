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

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <map>
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
Type getElementType(MLIRContext *context, OnnxDType dtype);
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
void registerControlFlowConverters(ConverterRegistry &registry);

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
};

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

  /// Imports the nodes of a subgraph inline (its names are looked up in the
  /// enclosing scopes too) and returns its outputs.
  FailureOr<llvm::SmallVector<ImportedValue>>
  importSubgraph(const onnx::GraphProto &graph);

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

/// A `linalg.generic` computing `body` elementwise over the numpy broadcast
/// of `inputs`, with result element type `resultElementType`.
FailureOr<Value> buildElementwise(NodeContext &ctx, ValueRange inputs,
                                  Type resultElementType, ScalarBodyFn body);

/// Converts a scalar between ONNX element types with ONNX Cast semantics
/// (float to int truncates toward zero, to bool is `!= 0`).
Value castScalar(OpBuilder &builder, Location loc, Value scalar, OnnxDType from,
                 OnnxDType to);

/// Converts a tensor between ONNX element types elementwise.
Value castTensor(NodeContext &ctx, Value tensor, OnnxDType from, OnnxDType to);

/// The integers of an integer constant.
llvm::SmallVector<int64_t> getIntValues(DenseElementsAttr attr);

/// Normalizes an axis in [-rank, rank) to [0, rank); failure (diagnosed)
/// when out of range.
FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank);

} // namespace mlir::orchestra::onnx_import

#endif // ORCHESTRA_LIB_FRONTEND_ONNX_CONVERTER_H
