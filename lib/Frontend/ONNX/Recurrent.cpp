//===- Recurrent.cpp - ONNX recurrent-network converters ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// RNN, GRU and LSTM: every direction, both layouts, initial states, sequence
// lengths, the activations the specification allows (with their alphas and
// betas), clip, LSTM peepholes and input_forget, GRU linear_before_reset;
// the per-step outputs Y and the final states Y_h (and Y_c).
//
// Each direction is imported as
//  1. the input projection of all steps at once, X [S*B, I] times W^T
//     [I, G*H] onto the biases that do not depend on the state: one large
//     matmul, tiled and fused like any other;
//  2. an `scf.for` over the S steps that carries the hidden state [B, H]
//     (and the LSTM cell state) and Y [S, B, H]. A step is the matmul of
//     the state with R^T [H, G*H] accumulated onto that step's projection,
//     and one `linalg.generic` that applies the gates and writes the new
//     state and the step's row of Y. Past a batch entry's sequence length
//     the state is kept and Y is zero.
// The reverse direction runs the same loop over its input reversed per
// batch entry (its first sequence_lens[b] steps) and reverses its Y back.
// Nothing is unrolled: the IR has the same size for 10 steps or 10,000.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

enum class Cell { RNN, GRU, LSTM };

/// An activation function as the node names it, with its parameters.
struct Activation {
  std::string name; // lower case
  float alpha = 0;
  float beta = 0;
};

/// The activations the specification allows, with the number of parameters
/// each consumes from activation_alpha and activation_beta and their
/// defaults (those of the ONNX operators of the same name).
struct ActivationInfo {
  StringRef name;
  bool takesAlpha, takesBeta;
  float alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", false, false, 0, 0},
    {"tanh", false, false, 0, 0},
    {"sigmoid", false, false, 0, 0},
    {"affine", true, true, 1.0f, 0.0f},
    {"leakyrelu", true, false, 0.01f, 0},
    {"thresholdedrelu", true, false, 1.0f, 0},
    {"scaledtanh", true, true, 1.0f, 1.0f},
    {"hardsigmoid", true, true, 0.2f, 0.5f},
    {"elu", true, false, 1.0f, 0},
    {"softsign", false, false, 0, 0},
    {"softplus", false, false, 0, 0},
};

Value applyActivation(OpBuilder &b, Location loc, const Activation &f,
                      Value x) {
  Type type = x.getType();
  auto c = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  };
  auto isNegative = [&](Value v) -> Value {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, c(0));
  };
  StringRef name = f.name;
  if (name == "sigmoid")
    return sigmoidOf(b, loc, x);
  if (name == "tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "relu")
    return arith::MaximumFOp::create(b, loc, x, c(0));
  if (name == "affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, c(f.alpha), x), c(f.beta));
  if (name == "leakyrelu")
    return arith::SelectOp::create(
        b, loc, isNegative(x), arith::MulFOp::create(b, loc, c(f.alpha), x), x);
  if (name == "thresholdedrelu") {
    Value above =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(f.alpha));
    return arith::SelectOp::create(b, loc, above, x, c(0));
  }
  if (name == "scaledtanh")
    return arith::MulFOp::create(
        b, loc, c(f.alpha),
        math::TanhOp::create(b, loc,
                             arith::MulFOp::create(b, loc, c(f.beta), x)));
  if (name == "hardsigmoid")
    return hardSigmoidOf(b, loc, x, c(f.alpha), c(f.beta));
  if (name == "elu")
    return arith::SelectOp::create(
        b, loc, isNegative(x),
        arith::MulFOp::create(b, loc, c(f.alpha),
                              math::ExpM1Op::create(b, loc, x)),
        x);
  if (name == "softsign")
    return softsignOf(b, loc, x);
  assert(name == "softplus" && "activation checked by getActivations");
  return softplusOf(b, loc, x);
}

/// The node's activations, `defaults.size()` per direction (the forward
/// direction's first), with their alphas and betas consumed in order by the
/// functions that take them.
FailureOr<SmallVector<Activation>> getActivations(NodeContext &ctx,
                                                  ArrayRef<StringRef> defaults,
                                                  int64_t numDirections) {
  SmallVector<std::string> names;
  // Only the node's own list: the schema's default (RNN's is two Tanh,
  // for both directions) is what `defaults` says per direction.
  const onnx::AttributeProto *attr = nullptr;
  for (const onnx::AttributeProto &candidate : ctx.getNode().attribute())
    if (candidate.name() == "activations")
      attr = &candidate;
  if (attr && attr->strings_size() > 0) {
    for (const std::string &name : attr->strings())
      names.push_back(llvm::StringRef(name).lower());
  } else {
    for (int64_t d = 0; d < numDirections; ++d)
      for (StringRef name : defaults)
        names.push_back(name.str());
  }
  if (int64_t(names.size()) != int64_t(defaults.size()) * numDirections)
    return ctx.emitError() << "expects " << defaults.size() * numDirections
                           << " activations (" << defaults.size()
                           << " per direction), got " << names.size();
  SmallVector<float> alphas = ctx.getAttrFloats("activation_alpha");
  SmallVector<float> betas = ctx.getAttrFloats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> activations;
  for (const std::string &name : names) {
    const ActivationInfo *info = llvm::find_if(
        kActivations, [&](const ActivationInfo &a) { return a.name == name; });
    if (info == std::end(kActivations))
      return ctx.emitError()
             << "unknown activation '" << name
             << "' (the specification allows Relu, Tanh, Sigmoid, Affine, "
                "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, "
                "Softsign and Softplus)";
    Activation activation{name, info->alpha, info->beta};
    if (info->takesAlpha && nextAlpha < alphas.size())
      activation.alpha = alphas[nextAlpha++];
    if (info->takesBeta && nextBeta < betas.size())
      activation.beta = betas[nextBeta++];
    activations.push_back(activation);
  }
  return activations;
}

RankedTensorType getType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Rows [first, first + count) of `input[d]` (a [D, rows, K] tensor) as a
/// [count, K] matrix, folded when the input is a constant.
TensorOperand getRows(NodeContext &ctx, const TensorOperand &input, int64_t d,
                      int64_t first, int64_t count) {
  int64_t k = input.type.getDimSize(2);
  TensorOperand rows =
      sliceOperand(ctx, input, {d, first, 0}, {1, count, k}, {1, 1, 1});
  return reshapeOperand(ctx, rows, {count, k});
}

/// Elements [first, first + count) of `input[d]` (a [D, N] tensor).
TensorOperand getVector(NodeContext &ctx, const TensorOperand &input, int64_t d,
                        int64_t first, int64_t count) {
  TensorOperand slice =
      sliceOperand(ctx, input, {d, first}, {1, count}, {1, 1});
  return reshapeOperand(ctx, slice, {count});
}

/// The static slice [offsets, offsets + sizes) of `value`, of type
/// `resultShape` (the sizes without the unit dimensions it drops).
Value extractSlice(OpBuilder &b, Location loc, Value value,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
                   ArrayRef<int64_t> resultShape) {
  SmallVector<OpFoldResult> sizeAttrs, strides;
  for (int64_t size : sizes) {
    sizeAttrs.push_back(b.getIndexAttr(size));
    strides.push_back(b.getIndexAttr(1));
  }
  auto type =
      RankedTensorType::get(resultShape, getType(value).getElementType());
  return tensor::ExtractSliceOp::create(b, loc, type, value, offsets, sizeAttrs,
                                        strides);
}

/// `value` [S, B, K] with the first lens[b] steps of every batch entry b in
/// reverse order (the rest stays where it is); all S steps when `lens` is
/// null.
Value reverseSteps(NodeContext &ctx, Value value, Value lens) {
  ArrayRef<int64_t> shape = getType(value).getShape();
  MLIRContext *context = ctx.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (lens) {
    inputs.push_back(lens);
    maps.push_back(AffineMap::get(3, 0, getAffineDimExpr(1, context)));
  }
  return buildIndexedGeneric(
      ctx, shape, getType(value).getElementType(), inputs, maps,
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        Value t = indices[0];
        Value length =
            lens ? arith::IndexCastOp::create(b, loc, b.getIndexType(), args[0])
                       .getResult()
                 : arith::ConstantIndexOp::create(b, loc, shape[0]).getResult();
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        Value reversed = arith::SubIOp::create(
            b, loc, arith::SubIOp::create(b, loc, length, one), t);
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t, length);
        Value step = arith::SelectOp::create(b, loc, inside, reversed, t);
        return tensor::ExtractOp::create(
            b, loc, value, ValueRange{step, indices[1], indices[2]});
      });
}

/// What one direction of the layer computes with.
struct Direction {
  /// The input projection of every step [S, B, G*H] (biases included),
  /// in the order this direction visits the steps.
  Value projection;
  /// R^T of each gate, [H, H], in the node's gate order (one matmul per
  /// gate, whose result the gates' generic reads directly, so that tiling
  /// the generic by hidden units fuses the matmuls' columns into its
  /// tiles).
  SmallVector<Value, 4> recurrence;
  /// GRU with linear_before_reset: Rbh [H]; LSTM: peepholes i, o, f [H].
  Value recurrenceBias;
  Value peepholes[3];
  Value initialHidden, initialCell;
  /// Activations f, g (GRU, LSTM) and h (LSTM).
  ArrayRef<Activation> activations;
};

/// The layer's settings shared by its directions.
struct Layer {
  Cell cell;
  int64_t steps, batch, hidden;
  Type elementType;
  std::optional<float> clip;
  bool inputForget = false;
  bool linearBeforeReset = false;
  /// The sequence lengths [B] (i32), or null when every entry runs all
  /// steps.
  Value lens;
  bool needsY = false;
};

struct DirectionResult {
  Value y, hidden, cell;
};

/// Runs the steps of one direction: the loop over time.
DirectionResult runDirection(NodeContext &ctx, const Layer &layer,
                             const Direction &dir) {
  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  MLIRContext *context = ctx.getContext();
  int64_t batch = layer.batch, hidden = layer.hidden;
  Type elementType = layer.elementType;
  bool isLSTM = layer.cell == Cell::LSTM;
  bool isGRU = layer.cell == Cell::GRU;
  int64_t gates = getType(dir.projection).getDimSize(2);

  SmallVector<Value> inits = {dir.initialHidden};
  if (isLSTM)
    inits.push_back(dir.initialCell);
  if (layer.needsY)
    inits.push_back(ctx.createEmpty({layer.steps, batch, hidden}, elementType));
  Value lower = arith::ConstantIndexOp::create(builder, loc, 0);
  Value upper = arith::ConstantIndexOp::create(builder, loc, layer.steps);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);

  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  AffineMap perUnit = AffineMap::get(2, 0, getAffineDimExpr(1, context));
  AffineMap perEntry = AffineMap::get(2, 0, getAffineDimExpr(0, context));
  SmallVector<utils::IteratorType> parallel(2, utils::IteratorType::parallel);

  auto loop = scf::ForOp::create(
      builder, loc, lower, upper, one, inits,
      [&](OpBuilder &b, Location loc, Value t, ValueRange carried) {
        // The helpers below build with `b`; the gates' generics point `b`
        // at their body while they build it (an InsertionGuard restores
        // it), so the same helpers serve inside the payloads.
        auto constant = [&](double value) -> Value {
          return arith::ConstantOp::create(b, loc,
                                           b.getFloatAttr(elementType, value));
        };
        auto clip = [&](Value x) -> Value {
          if (!layer.clip)
            return x;
          Value bound = constant(*layer.clip);
          Value low = arith::MaximumFOp::create(
              b, loc, x, arith::NegFOp::create(b, loc, bound));
          return arith::MinimumFOp::create(b, loc, low, bound);
        };
        auto activate = [&](unsigned which, Value x) {
          return applyActivation(b, loc, dir.activations[which], clip(x));
        };
        auto columns = [&](Value matrix, int64_t first, int64_t count) {
          return extractSlice(b, loc, matrix,
                              {b.getIndexAttr(0), b.getIndexAttr(first)},
                              {batch, count}, {batch, count});
        };
        auto matmul = [&](Value lhs, Value rhs, Value init) {
          return linalg::MatmulOp::create(b, loc, init.getType(),
                                          ValueRange{lhs, rhs}, init)
              .getResult(0);
        };
        auto empty = [&]() {
          return tensor::EmptyOp::create(
                     b, loc, ArrayRef<int64_t>{batch, hidden}, elementType)
              .getResult();
        };

        Value previous = carried[0];
        Value stepInput = extractSlice(
            b, loc, dir.projection, {t, b.getIndexAttr(0), b.getIndexAttr(0)},
            {1, batch, gates}, {batch, gates});
        // The gates' inputs (read elementwise over [B, H]) besides the
        // state, which the generic reads from its own outputs.
        SmallVector<Value> inputs;
        SmallVector<AffineMap> maps;
        auto addInput = [&](Value value, AffineMap map) {
          inputs.push_back(value);
          maps.push_back(map);
          return inputs.size() - 1;
        };
        // Hidden-gate operands of the GRU, computed before the generic.
        if (isGRU) {
          Value z = matmul(previous, dir.recurrence[0],
                           columns(stepInput, 0, hidden));
          Value r = matmul(previous, dir.recurrence[1],
                           columns(stepInput, hidden, hidden));
          Value hiddenInput = columns(stepInput, 2 * hidden, hidden);
          // r first: without linear_before_reset the hidden gate's matmul
          // reads r * H.
          auto reset = linalg::GenericOp::create(
              b, loc, TypeRange{getType(z), getType(z)},
              ValueRange{z, r, previous}, ValueRange{empty(), empty()},
              SmallVector<AffineMap>(5, identity), parallel,
              [&](OpBuilder &nb, Location nloc, ValueRange args) {
                OpBuilder::InsertionGuard guard(b);
                b.setInsertionPoint(nb.getInsertionBlock(),
                                    nb.getInsertionPoint());
                Value zGate = activate(0, args[0]);
                Value rGate = activate(0, args[1]);
                Value second =
                    layer.linearBeforeReset
                        ? rGate
                        : arith::MulFOp::create(nb, nloc, rGate, args[2])
                              .getResult();
                linalg::YieldOp::create(nb, nloc, ValueRange{zGate, second});
              });
          addInput(reset.getResult(0), identity);
          if (layer.linearBeforeReset) {
            // Rbh + H R_h^T, multiplied by r in the gates.
            Value init = empty();
            if (dir.recurrenceBias)
              init = linalg::GenericOp::create(
                         b, loc, TypeRange{getType(init)},
                         ValueRange{dir.recurrenceBias}, ValueRange{init},
                         ArrayRef<AffineMap>{perUnit, identity}, parallel,
                         [](OpBuilder &nb, Location nloc, ValueRange args) {
                           linalg::YieldOp::create(nb, nloc, args[0]);
                         })
                         .getResult(0);
            else
              init = linalg::FillOp::create(b, loc, constant(0), init)
                         .getResult(0);
            addInput(hiddenInput, identity);
            addInput(reset.getResult(1), identity);
            addInput(matmul(previous, dir.recurrence[2], init), identity);
          } else {
            addInput(matmul(reset.getResult(1), dir.recurrence[2], hiddenInput),
                     identity);
          }
        } else {
          for (auto [g, recurrence] : llvm::enumerate(dir.recurrence))
            addInput(matmul(previous, recurrence,
                            columns(stepInput, g * hidden, hidden)),
                     identity);
        }
        if (isLSTM)
          for (Value peephole : dir.peepholes)
            if (peephole)
              addInput(peephole, perUnit);
        std::optional<size_t> lensInput;
        if (layer.lens)
          lensInput = addInput(layer.lens, perEntry);

        SmallVector<Value> outputs(carried.take_front(isLSTM ? 2 : 1));
        Value yRow;
        if (layer.needsY) {
          yRow = extractSlice(b, loc, carried.back(),
                              {t, b.getIndexAttr(0), b.getIndexAttr(0)},
                              {1, batch, hidden}, {batch, hidden});
          outputs.push_back(yRow);
        }
        for (size_t i = 0; i < outputs.size(); ++i)
          maps.push_back(identity);
        SmallVector<Type> resultTypes(outputs.size(), getType(previous));

        auto step = linalg::GenericOp::create(
            b, loc, resultTypes, inputs, outputs, maps, parallel,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(nb.getInsertionBlock(),
                                  nb.getInsertionPoint());
              ValueRange in = args.take_front(inputs.size());
              Value hPrev = args[inputs.size()];
              Value newHidden, newCell;
              auto mul = [&](Value x, Value y) -> Value {
                return arith::MulFOp::create(b, loc, x, y);
              };
              auto add = [&](Value x, Value y) -> Value {
                return arith::AddFOp::create(b, loc, x, y);
              };
              auto oneMinus = [&](Value x) -> Value {
                return arith::SubFOp::create(b, loc, constant(1), x);
              };
              if (layer.cell == Cell::RNN) {
                newHidden = activate(0, in[0]);
              } else if (isGRU) {
                Value z = in[0];
                Value candidate =
                    layer.linearBeforeReset
                        ? activate(1, add(in[1], mul(in[2], in[3])))
                        : activate(1, in[1]);
                newHidden = add(mul(oneMinus(z), candidate), mul(z, hPrev));
              } else {
                // Gates i, o, f, c; peepholes i, o, f.
                Value cPrev = args[inputs.size() + 1];
                size_t next = 4;
                auto peep = [&](unsigned which, Value gate, Value cell) {
                  return dir.peepholes[which] ? add(gate, mul(in[next++], cell))
                                              : gate;
                };
                Value inputPre = peep(0, in[0], cPrev);
                Value outputPeephole = dir.peepholes[1] ? in[next++] : Value();
                Value forgetPre = peep(2, in[2], cPrev);
                Value inputGate = activate(0, inputPre);
                Value forgetGate = layer.inputForget ? oneMinus(inputGate)
                                                     : activate(0, forgetPre);
                Value candidate = activate(1, in[3]);
                newCell =
                    add(mul(forgetGate, cPrev), mul(inputGate, candidate));
                Value outputPre = outputPeephole
                                      ? add(in[1], mul(outputPeephole, newCell))
                                      : in[1];
                Value outputGate = activate(0, outputPre);
                newHidden =
                    mul(outputGate,
                        applyActivation(b, loc, dir.activations[2], newCell));
              }
              Value y = newHidden;
              if (lensInput) {
                Value length = arith::IndexCastOp::create(
                    b, loc, b.getIndexType(), in[*lensInput]);
                Value valid = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, t, length);
                newHidden =
                    arith::SelectOp::create(b, loc, valid, newHidden, hPrev);
                if (newCell)
                  newCell = arith::SelectOp::create(b, loc, valid, newCell,
                                                    args[inputs.size() + 1]);
                y = arith::SelectOp::create(b, loc, valid, y, constant(0));
              }
              SmallVector<Value> results = {newHidden};
              if (newCell)
                results.push_back(newCell);
              if (layer.needsY)
                results.push_back(y);
              linalg::YieldOp::create(b, loc, results);
            });
        SmallVector<Value> next(step.getResults());
        if (layer.needsY) {
          SmallVector<OpFoldResult> offsets = {t, b.getIndexAttr(0),
                                               b.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes = {
              b.getIndexAttr(1), b.getIndexAttr(batch), b.getIndexAttr(hidden)};
          SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
          next.back() = tensor::InsertSliceOp::create(
              b, loc, next.back(), carried.back(), offsets, sizes, strides);
        }
        scf::YieldOp::create(b, loc, next);
      });

  // An entry with no steps ends in zero states, not the initial ones (as
  // ONNX Runtime does).
  auto zeroIfEmpty = [&](Value state) -> Value {
    if (!layer.lens)
      return state;
    Value zero = ctx.createScalar(elementType, 0);
    return linalg::GenericOp::create(
               builder, loc, TypeRange{getType(state)},
               ValueRange{state, layer.lens},
               ValueRange{ctx.createEmpty({batch, hidden}, elementType)},
               ArrayRef<AffineMap>{identity, perEntry, identity}, parallel,
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 Value empty = arith::CmpIOp::create(
                     b, loc, arith::CmpIPredicate::sle, args[1],
                     arith::ConstantOp::create(
                         b, loc, b.getIntegerAttr(args[1].getType(), 0)));
                 linalg::YieldOp::create(
                     b, loc,
                     arith::SelectOp::create(b, loc, empty, zero, args[0])
                         .getResult());
               })
        .getResult(0);
  };
  DirectionResult result;
  result.hidden = zeroIfEmpty(loop.getResult(0));
  if (isLSTM)
    result.cell = zeroIfEmpty(loop.getResult(1));
  if (layer.needsY)
    result.y = loop.getResults().back();
  return result;
}

/// The node's input `index`, with its first two dimensions swapped when
/// `swap` (layout 1 puts the batch first).
TensorOperand getOperandInLayout(NodeContext &ctx, unsigned index, bool swap) {
  TensorOperand operand = getOperand(ctx, index);
  return swap ? transposeOperand(ctx, operand, {1, 0, 2}) : operand;
}

LogicalResult convertRecurrent(NodeContext &ctx, Cell cell) {
  int64_t numGates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  StringRef opType = ctx.getOpType();
  for (unsigned i = 0; i < 3; ++i)
    if (!ctx.hasInput(i))
      return ctx.emitError() << "input " << i << " ("
                             << (i == 0   ? "X"
                                 : i == 1 ? "W"
                                          : "R")
                             << ") is required";
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype))
    return ctx.emitError() << "X must be a float tensor (got "
                           << getOnnxDTypeName(dtype) << ")";
  for (unsigned i : {1u, 2u, 3u, 5u, 6u, 7u})
    if (ctx.hasInput(i) && ctx.getInputDType(i) != dtype)
      return ctx.emitError() << "input " << i << " has type "
                             << getOnnxDTypeName(ctx.getInputDType(i))
                             << "; X has " << getOnnxDTypeName(dtype);
  for (unsigned i = 0; i < 3; ++i)
    if (ctx.getInputRank(i) != 3)
      return ctx.emitError() << "input " << i << " must have rank 3 (got "
                             << ctx.getInputRank(i) << ")";
  int64_t layout = ctx.getAttrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return ctx.emitError() << "layout must be 0 or 1 (got " << layout << ")";
  std::string direction = ctx.getAttrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.emitError() << "direction must be forward, reverse or "
                              "bidirectional (got '"
                           << direction << "')";
  int64_t numDirections = direction == "bidirectional" ? 2 : 1;

  ArrayRef<int64_t> xShape = ctx.getInputShape(0);
  int64_t steps = xShape[layout == 0 ? 0 : 1];
  int64_t batch = xShape[layout == 0 ? 1 : 0];
  int64_t inputSize = xShape[2];
  ArrayRef<int64_t> wShape = ctx.getInputShape(1);
  auto print = [](ArrayRef<int64_t> shape) {
    return "[" +
           llvm::join(llvm::map_range(
                          shape, [](int64_t v) { return std::to_string(v); }),
                      ", ") +
           "]";
  };
  if (wShape[1] % numGates != 0)
    return ctx.emitError() << "W " << print(wShape) << " must have " << numGates
                           << " gates of hidden_size rows per direction";
  int64_t hidden = wShape[1] / numGates;
  if (ctx.hasAttr("hidden_size") && ctx.getAttrInt("hidden_size", 0) != hidden)
    return ctx.emitError() << "hidden_size is "
                           << ctx.getAttrInt("hidden_size", 0) << " but W has "
                           << wShape[1] << " rows per direction (" << numGates
                           << " gates of " << hidden << ")";
  auto checkShape = [&](unsigned index, StringRef name,
                        ArrayRef<int64_t> expected) -> LogicalResult {
    if (!ctx.hasInput(index) || ctx.getInputShape(index) == expected)
      return success();
    return ctx.emitError() << name << " has shape "
                           << print(ctx.getInputShape(index)) << ", expected "
                           << print(expected);
  };
  int64_t gateRows = numGates * hidden;
  SmallVector<int64_t> stateShape =
      layout == 0 ? SmallVector<int64_t>{numDirections, batch, hidden}
                  : SmallVector<int64_t>{batch, numDirections, hidden};
  if (failed(checkShape(1, "W", {numDirections, gateRows, inputSize})) ||
      failed(checkShape(2, "R", {numDirections, gateRows, hidden})) ||
      failed(checkShape(3, "B", {numDirections, 2 * gateRows})) ||
      failed(checkShape(4, "sequence_lens", {batch})) ||
      failed(checkShape(5, "initial_h", stateShape)) ||
      (cell == Cell::LSTM &&
       (failed(checkShape(6, "initial_c", stateShape)) ||
        failed(checkShape(7, "P", {numDirections, 3 * hidden})))))
    return failure();
  if (steps == 0 || batch == 0 || hidden == 0)
    return ctx.unsupported(opType + " with an empty dimension (" +
                           std::to_string(steps) + " steps, batch " +
                           std::to_string(batch) + ", hidden_size " +
                           std::to_string(hidden) + ")");

  static constexpr StringRef kRNN[] = {"tanh"};
  static constexpr StringRef kGRU[] = {"sigmoid", "tanh"};
  static constexpr StringRef kLSTM[] = {"sigmoid", "tanh", "tanh"};
  ArrayRef<StringRef> defaults = cell == Cell::LSTM  ? ArrayRef(kLSTM)
                                 : cell == Cell::GRU ? ArrayRef(kGRU)
                                                     : ArrayRef(kRNN);
  FailureOr<SmallVector<Activation>> activations =
      getActivations(ctx, defaults, numDirections);
  if (failed(activations))
    return failure();

  FailureOr<Type> elementType = ctx.getElementTypeOrError(dtype);
  if (failed(elementType))
    return failure();
  Layer layer;
  layer.cell = cell;
  layer.steps = steps;
  layer.batch = batch;
  layer.hidden = hidden;
  layer.elementType = *elementType;
  layer.needsY = ctx.hasOutput(0);
  if (ctx.hasAttr("clip")) {
    float clip = ctx.getAttrFloat("clip", 0);
    if (!(clip > 0))
      return ctx.emitError() << "clip must be positive (got " << clip << ")";
    layer.clip = clip;
  }
  layer.inputForget = ctx.getAttrInt("input_forget", 0) != 0;
  layer.linearBeforeReset = ctx.getAttrInt("linear_before_reset", 0) != 0;

  // Sequence lengths: dropped when a constant says every entry runs all
  // steps; checked at compile time when constant.
  if (ctx.hasInput(4)) {
    OnnxDType lensType = ctx.getInputDType(4);
    if (lensType != onnx::TensorProto::INT32)
      return ctx.emitError() << "sequence_lens must be int32 (got "
                             << getOnnxDTypeName(lensType) << ")";
    DenseElementsAttr lens = ctx.getConstantInput(4);
    bool allSteps = false;
    if (lens) {
      SmallVector<int64_t> values = getIntValues(lens);
      for (int64_t value : values)
        if (value < 0 || value > steps)
          return ctx.emitError() << "sequence_lens has " << value
                                 << ", outside [0, " << steps << "]";
      allSteps = llvm::all_of(values, [&](int64_t v) { return v == steps; });
    }
    if (!allSteps)
      layer.lens = ctx.getInput(4);
  }

  bool batchFirst = layout == 1;
  Value x = materialize(ctx, getOperandInLayout(ctx, 0, batchFirst));
  // [S, B, I] -> [S*B, I] rows of the projection.
  Value rows = materialize(ctx, reshapeOperand(ctx, TensorOperand::runtime(x),
                                               {steps * batch, inputSize}));
  TensorOperand w = getOperand(ctx, 1), r = getOperand(ctx, 2);
  std::optional<TensorOperand> bias, initialH, initialC, peepholes;
  if (ctx.hasInput(3))
    bias = getOperand(ctx, 3);
  if (ctx.hasInput(5))
    initialH = getOperandInLayout(ctx, 5, batchFirst);
  if (cell == Cell::LSTM && ctx.hasInput(6))
    initialC = getOperandInLayout(ctx, 6, batchFirst);
  if (cell == Cell::LSTM && ctx.hasInput(7))
    peepholes = getOperand(ctx, 7);

  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  MLIRContext *context = ctx.getContext();
  Value zero = ctx.createScalar(*elementType, 0);
  auto transposed = [&](TensorOperand matrix) {
    return materialize(ctx, transposeOperand(ctx, matrix, {1, 0}));
  };
  auto state = [&](const std::optional<TensorOperand> &operand, int64_t d) {
    if (!operand)
      return ctx.createFilled({batch, hidden}, zero);
    return materialize(ctx, getRows(ctx, *operand, d, 0, batch));
  };

  SmallVector<DirectionResult> results;
  int64_t activationsPerDirection = defaults.size();
  for (int64_t d = 0; d < numDirections; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Direction dir;
    dir.activations =
        ArrayRef(*activations)
            .slice(d * activationsPerDirection, activationsPerDirection);
    // The projection's initial value: Wb + Rb per gate, except the GRU's
    // hidden gate with linear_before_reset, whose Rbh is multiplied by r.
    Value init = ctx.createEmpty({steps * batch, gateRows}, *elementType);
    if (bias) {
      TensorOperand inputBias = getVector(ctx, *bias, d, 0, gateRows);
      int64_t stateBiasRows =
          cell == Cell::GRU && layer.linearBeforeReset ? 2 * hidden : gateRows;
      TensorOperand stateBias =
          getVector(ctx, *bias, d, gateRows, stateBiasRows);
      if (stateBiasRows != gateRows) {
        auto zeros = DenseElementsAttr::get(
            RankedTensorType::get({gateRows - stateBiasRows}, *elementType),
            builder.getZeroAttr(*elementType));
        stateBias =
            concatOperands(ctx, {stateBias, TensorOperand::folded(zeros)}, 0);
        dir.recurrenceBias = materialize(
            ctx, getVector(ctx, *bias, d, gateRows + 2 * hidden, hidden));
      }
      AffineMap perColumn = AffineMap::get(2, 0, getAffineDimExpr(1, context));
      init = linalg::GenericOp::create(
                 builder, loc, TypeRange{getType(init)},
                 ValueRange{materialize(ctx, inputBias),
                            materialize(ctx, stateBias)},
                 ValueRange{init},
                 ArrayRef<AffineMap>{perColumn, perColumn,
                                     builder.getMultiDimIdentityMap(2)},
                 SmallVector<utils::IteratorType>(
                     2, utils::IteratorType::parallel),
                 [](OpBuilder &b, Location loc, ValueRange args) {
                   linalg::YieldOp::create(
                       b, loc,
                       arith::AddFOp::create(b, loc, args[0], args[1])
                           .getResult());
                 })
                 .getResult(0);
    } else {
      init = linalg::FillOp::create(builder, loc, zero, init).getResult(0);
    }
    Value projection =
        linalg::MatmulOp::create(
            builder, loc, getType(init),
            ValueRange{rows, transposed(getRows(ctx, w, d, 0, gateRows))}, init)
            .getResult(0);
    projection =
        materialize(ctx, reshapeOperand(ctx, TensorOperand::runtime(projection),
                                        {steps, batch, gateRows}));
    if (reverse)
      projection = reverseSteps(ctx, projection, layer.lens);
    dir.projection = projection;
    for (int64_t g = 0; g < numGates; ++g)
      dir.recurrence.push_back(
          transposed(getRows(ctx, r, d, g * hidden, hidden)));
    if (peepholes)
      for (int64_t p = 0; p < 3; ++p)
        dir.peepholes[p] =
            materialize(ctx, getVector(ctx, *peepholes, d, p * hidden, hidden));
    dir.initialHidden = state(initialH, d);
    if (cell == Cell::LSTM)
      dir.initialCell = state(initialC, d);
    DirectionResult result = runDirection(ctx, layer, dir);
    if (reverse && result.y)
      result.y = reverseSteps(ctx, result.y, layer.lens);
    results.push_back(result);
  }

  // Y [S, D, B, H] (layout 1: [B, S, D, H]); Y_h and Y_c [D, B, H] (layout
  // 1: [B, D, H]).
  auto stack = [&](function_ref<Value(const DirectionResult &)> get,
                   int64_t axis) {
    SmallVector<TensorOperand> parts;
    for (const DirectionResult &result : results) {
      Value part = get(result);
      SmallVector<int64_t> shape(getType(part).getShape());
      shape.insert(shape.begin() + axis, 1);
      parts.push_back(reshapeOperand(ctx, TensorOperand::runtime(part), shape));
    }
    return parts.size() == 1 ? parts[0] : concatOperands(ctx, parts, axis);
  };
  if (ctx.hasOutput(0)) {
    TensorOperand y = stack([](const DirectionResult &r) { return r.y; }, 1);
    if (batchFirst)
      y = transposeOperand(ctx, y, {2, 0, 1, 3});
    setResult(ctx, 0, y, dtype);
  }
  auto setState = [&](unsigned index,
                      function_ref<Value(const DirectionResult &)> get) {
    if (!ctx.hasOutput(index))
      return;
    TensorOperand value = stack(get, 0);
    if (batchFirst)
      value = transposeOperand(ctx, value, {1, 0, 2});
    setResult(ctx, index, value, dtype);
  };
  setState(1, [](const DirectionResult &r) { return r.hidden; });
  if (cell == Cell::LSTM)
    setState(2, [](const DirectionResult &r) { return r.cell; });
  return success();
}

} // namespace

void onnx_import::registerRecurrentConverters(ConverterRegistry &registry) {
  registry.add("RNN", {7, 14}, [](NodeContext &ctx) {
    return convertRecurrent(ctx, Cell::RNN);
  });
  registry.add("GRU", {7, 14}, [](NodeContext &ctx) {
    return convertRecurrent(ctx, Cell::GRU);
  });
  registry.add("LSTM", {7, 14}, [](NodeContext &ctx) {
    return convertRecurrent(ctx, Cell::LSTM);
  });
}
