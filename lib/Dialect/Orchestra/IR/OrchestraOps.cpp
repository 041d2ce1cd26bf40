//===- OrchestraOps.cpp - Orchestra dialect operations --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"

#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::orchestra;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Checks that `yield` returns values of `resultTypes`; `owner` names the
/// parent in diagnostics.
static LogicalResult verifyYieldTypes(Operation *owner, YieldOp yield,
                                      TypeRange resultTypes) {
  if (yield.getValues().size() != resultTypes.size())
    return yield.emitOpError()
           << "returns " << yield.getValues().size() << " values but its '"
           << owner->getName() << "' parent has " << resultTypes.size()
           << " results";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(yield.getValues().getTypes(), resultTypes))) {
    auto [yielded, expected] = pair;
    if (yielded != expected)
      return yield.emitOpError()
             << "value #" << index << " has type " << yielded << " but result #"
             << index << " of the parent '" << owner->getName() << "' has type "
             << expected;
  }
  return success();
}

/// Prints `entries` as `{name = value, ...}`, leaving out the type of i64
/// integers and f64 floats: the parser gives untyped literals those types, so
/// the output reads like the spec's examples and still round-trips.
static void printCompactDict(OpAsmPrinter &p,
                             ArrayRef<NamedAttribute> entries) {
  p << '{';
  llvm::interleaveComma(entries, p, [&](NamedAttribute entry) {
    p.printKeywordOrString(entry.getName().getValue());
    p << " = ";
    Attribute value = entry.getValue();
    auto intAttr = dyn_cast<IntegerAttr>(value);
    if (intAttr && intAttr.getType().isSignlessInteger(64)) {
      p.printAttributeWithoutType(value);
      return;
    }
    // A float the printer cannot write in decimal comes out as a hex bit
    // pattern, which would parse back as an integer: keep its type then.
    auto floatAttr = dyn_cast<FloatAttr>(value);
    if (floatAttr && floatAttr.getType().isF64()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      value.print(os, /*elideType=*/true);
      if (!StringRef(text).starts_with("0x")) {
        p << text;
        return;
      }
    }
    p.printAttribute(value);
  });
  p << '}';
}

/// Returns the terminator of `region`'s only block as a YieldOp, or null.
static YieldOp getYieldOf(Region &region) {
  if (region.empty())
    return nullptr;
  return dyn_cast<YieldOp>(region.front().getTerminator());
}

//===----------------------------------------------------------------------===//
// MemorySpaceOp
//===----------------------------------------------------------------------===//

LogicalResult MemorySpaceOp::verify() {
  // I64Attr's getter is unsigned; read the signed value.
  if (getDeviceIdAttr().getInt() < 0)
    return emitOpError() << "'device_id' must be non-negative, got "
                         << getDeviceIdAttr().getInt();
  if (IntegerAttr capacity = getCapacityAttr();
      capacity && capacity.getInt() <= 0)
    return emitOpError() << "'capacity' must be a positive number of bytes, "
                            "got "
                         << capacity.getInt();
  FailureOr<const TargetInfo *> info = getTargetRegistry().lookupOrError(
      getArch(), [&] { return emitOpError(); });
  if (failed(info))
    return failure();
  if ((*info)->lookupMemorySpace(getKind()))
    return success();
  InFlightDiagnostic diag = emitOpError() << "memory space kind \"" << getKind()
                                          << "\" is not provided by arch \""
                                          << getArch() << "\"; it provides: ";
  llvm::interleaveComma(
      (*info)->memorySpaces, diag, [&](const MemorySpaceKind &kind) {
        diag << kind.name << " (" << stringifyMemoryScope(kind.scope) << ")";
      });
  return diag;
}

//===----------------------------------------------------------------------===//
// ScheduleOp
//===----------------------------------------------------------------------===//

YieldOp ScheduleOp::getYield() { return getYieldOf(getBody()); }

/// Whether `op` may appear directly in a schedule body.
static bool isAllowedInSchedule(Operation *op) {
  return isa<TaskOp, LaunchOp, TransferOp, CommitOp, YieldOp>(op) ||
         op->hasTrait<OpTrait::ConstantLike>();
}

LogicalResult ScheduleOp::verifyRegions() {
  if (getBody().front().getNumArguments() != 0)
    return emitOpError("body must not have arguments; a schedule uses the "
                       "values of its enclosing region directly");
  if ((*this)->getParentOfType<TaskOp>())
    return emitOpError("cannot be nested inside an 'orchestra.task': a task "
                       "runs on one device");
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError("body must end with 'orchestra.yield'");
  if (failed(verifyYieldTypes(*this, yield, getResultTypes())))
    return failure();

  llvm::StringMap<TaskOp> tasksByName;
  for (Operation &op : getBody().front()) {
    if (!isAllowedInSchedule(&op)) {
      InFlightDiagnostic diag =
          op.emitOpError()
          << "cannot appear directly in an 'orchestra.schedule'; only "
             "'orchestra.task', 'orchestra.transfer', 'orchestra.commit' and "
             "constants can (computation belongs inside a task)";
      diag.attachNote(getLoc()) << "enclosing schedule";
      return diag;
    }
    auto task = dyn_cast<TaskOp>(op);
    if (!task)
      continue;
    auto [it, inserted] = tasksByName.try_emplace(task.getName(), task);
    if (!inserted) {
      InFlightDiagnostic diag = task.emitOpError()
                                << "has the name \"" << task.getName()
                                << "\" of another task in the schedule; task "
                                   "names must be unique";
      diag.attachNote(it->second.getLoc()) << "first task with this name";
      return diag;
    }
  }
  return success();
}

namespace {
/// Inlines a schedule that contains no task and no transfer into its parent:
/// it does no work, so it only forwards values (and constants or commits).
struct FoldScheduleWithoutWork : OpRewritePattern<ScheduleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScheduleOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    if (llvm::any_of(body, [](Operation &nested) {
          return isa<TaskOp, LaunchOp, TransferOp>(nested);
        }))
      return rewriter.notifyMatchFailure(op, "schedule contains work");
    YieldOp yield = op.getYield();
    SmallVector<Value> results(yield.getValues());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&body, op);
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void ScheduleOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<FoldScheduleWithoutWork>(context);
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

void TaskOp::build(OpBuilder &builder, OperationState &state,
                   TypeRange resultTypes, StringRef name, DictionaryAttr target,
                   ValueRange args) {
  state.addOperands(args);
  state.addTypes(resultTypes);
  Properties &props = state.getOrAddProperties<Properties>();
  props.name = builder.getStringAttr(name);
  props.target = target;
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value arg : args)
    block->addArgument(arg.getType(), arg.getLoc());
}

YieldOp TaskOp::getYield() { return getYieldOf(getBody()); }

StringRef TaskOp::getArch() {
  return cast<StringAttr>(getTarget().get(TargetRegistry::kArchKey)).getValue();
}

int64_t TaskOp::getDeviceId() {
  std::optional<int64_t> id =
      getTargetInteger(getTarget().get(TargetRegistry::kDeviceIdKey));
  assert(id && "verified targets have an int64 device_id");
  return *id;
}

void TaskOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // Name the results after the task; the printer sanitizes the name.
  if (getNumResults() != 0 && !getName().empty())
    setNameFn(getResult(0), getName());
}

ParseResult TaskOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseAttribute(name))
    return failure();
  result.addAttribute(getNameAttrName(result.name), name);

  // args(%block_arg = %operand : type, ...)
  SmallVector<OpAsmParser::Argument> regionArgs;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (succeeded(parser.parseOptionalKeyword("args"))) {
    auto parseArg = [&]() -> ParseResult {
      OpAsmParser::Argument arg;
      OpAsmParser::UnresolvedOperand operand;
      if (parser.parseArgument(arg) || parser.parseEqual() ||
          parser.parseOperand(operand) || parser.parseColonType(arg.type))
        return failure();
      regionArgs.push_back(arg);
      operands.push_back(operand);
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseArg))
      return failure();
  }
  SmallVector<Type> resultTypes;
  if (parser.parseOptionalArrowTypeList(resultTypes))
    return failure();
  result.addTypes(resultTypes);

  DictionaryAttr target;
  if (parser.parseKeyword("target") || parser.parseEqual() ||
      parser.parseAttribute(target))
    return failure();
  result.addAttribute(getTargetAttrName(result.name), target);

  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  // Inherent attributes given in `attributes {...}` must have their declared
  // kinds; otherwise they would be dropped when stored as properties.
  if (failed(verifyInherentAttrs(result.name, result.attributes,
                                 [&] { return parser.emitError(attrLoc); })))
    return failure();

  for (auto [operand, arg] : llvm::zip(operands, regionArgs))
    if (parser.resolveOperand(operand, arg.type, result.operands))
      return failure();

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, regionArgs, /*enableNameShadowing=*/false))
    return failure();
  return success();
}

void TaskOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttribute(getNameAttr());
  Block &body = getBody().front();
  if (!getArgs().empty()) {
    p << " args(";
    llvm::interleaveComma(
        llvm::zip(body.getArguments(), getArgs()), p, [&](auto pair) {
          auto [blockArg, operand] = pair;
          p << blockArg << " = " << operand << " : " << operand.getType();
        });
    p << ')';
  }
  p.printOptionalArrowTypeList(getResultTypes());
  p << " target = ";
  printCompactDict(p, getTarget().getValue());

  // Optional properties and discardable attributes share one dictionary.
  SmallVector<NamedAttribute> extra;
  for (auto [name, value] :
       {std::pair<StringAttr, Attribute>(getNkiSourceAttrName(),
                                         getNkiSourceAttr()),
        {getAsmKernelAttrName(), getAsmKernelAttr()},
        {getPredictedStartAttrName(), getPredictedStartAttr()},
        {getPredictedFinishAttrName(), getPredictedFinishAttr()}})
    if (value)
      extra.emplace_back(name, value);
  llvm::append_range(extra, (*this)->getDiscardableAttrs());
  if (!extra.empty()) {
    p << " attributes ";
    printCompactDict(p, extra);
  }

  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

/// Checks the scheduler's predictions a task or launch carries.
static LogicalResult verifyPredictedTimes(Operation *op,
                                          std::optional<APFloat> start,
                                          std::optional<APFloat> finish) {
  if (start.has_value() != finish.has_value())
    return op->emitOpError(
        "'predicted_start' and 'predicted_finish' must be given together");
  if (!start)
    return success();
  double startUs = start->convertToDouble();
  double finishUs = finish->convertToDouble();
  if (!std::isfinite(startUs) || !std::isfinite(finishUs) || startUs < 0)
    return op->emitOpError("predicted times must be finite and non-negative");
  if (finishUs < startUs)
    return op->emitOpError()
           << "'predicted_finish' (" << finishUs
           << ") is before 'predicted_start' (" << startUs << ")";
  return success();
}

LogicalResult TaskOp::verify() {
  if (getName().empty())
    return emitOpError("requires a non-empty 'name'");
  const TargetRegistry &registry = getTargetRegistry();
  if (failed(registry.verifyTarget(getTarget(), [&] { return emitOpError(); })))
    return failure();

  if (std::optional<StringRef> nki = getNkiSource()) {
    const TargetInfo *info = registry.lookup(getArch());
    if (!info->acceptsNKISource) {
      SmallVector<StringRef> nkiArchs;
      for (StringRef arch : registry.getArchs())
        if (registry.lookup(arch)->acceptsNKISource)
          nkiArchs.push_back(arch);
      return emitOpError() << "'nki_source' is only valid on archs that "
                              "accept NKI kernels ("
                           << (nkiArchs.empty() ? std::string("none")
                                                : llvm::join(nkiArchs, ", "))
                           << "), not \"" << getArch() << "\"";
    }
    if (llvm::StringRef(*nki).trim().empty())
      return emitOpError("'nki_source' must not be empty");
  }

  if (DictionaryAttr asmKernel = getAsmKernelAttr()) {
    const TargetInfo *info = registry.lookup(getArch());
    if (info->kernelAssembly.empty()) {
      SmallVector<std::string> asmArchs;
      for (StringRef arch : registry.getArchs())
        if (const TargetInfo *other = registry.lookup(arch);
            !other->kernelAssembly.empty())
          asmArchs.push_back((arch + " (" + other->kernelAssembly + ")").str());
      return emitOpError() << "'asm_kernel' is only valid on archs that take "
                              "assembly kernels ("
                           << (asmArchs.empty() ? std::string("none")
                                                : llvm::join(asmArchs, ", "))
                           << "), not \"" << getArch() << "\"";
    }
    if (getNkiSource())
      return emitOpError("'asm_kernel' and 'nki_source' exclude each other");
    if (failed(parseAsmKernel(
            asmKernel, [&] { return emitOpError() << "'asm_kernel': "; })))
      return failure();
  }

  if (failed(verifyPredictedTimes(*this, getPredictedStart(),
                                  getPredictedFinish())))
    return failure();
  return success();
}

/// The value of an integer attribute of any integer type that fits 32
/// signed bits; none for anything else.
static std::optional<int64_t> getInt32(Attribute attr) {
  auto integer = dyn_cast<IntegerAttr>(attr);
  if (!integer || isa<BoolAttr>(attr) ||
      integer.getValue().getSignificantBits() > 32)
    return std::nullopt;
  return integer.getValue().getSExtValue();
}

FailureOr<AsmKernel>
mlir::orchestra::parseAsmKernel(DictionaryAttr dict,
                                function_ref<InFlightDiagnostic()> emitError) {
  AsmKernel kernel;
  for (NamedAttribute entry : dict) {
    StringRef key = entry.getName().getValue();
    if (key != "source" && key != "entry" && key != "grid" && key != "block" &&
        key != "shared_bytes")
      return emitError() << "unknown key '" << key
                         << "' (expected source, entry, grid, block, "
                            "shared_bytes)";
  }
  for (auto [key, slot] :
       {std::pair<StringRef, StringRef *>("source", &kernel.source),
        {"entry", &kernel.entry}}) {
    auto value = dict.getAs<StringAttr>(key);
    if (!value || value.getValue().trim().empty())
      return emitError() << "'" << key << "' must be a non-empty string";
    *slot = value.getValue();
  }
  for (auto [key, sizes] :
       {std::pair<StringRef, int64_t *>("grid", kernel.grid),
        {"block", kernel.block}}) {
    auto value = dict.getAs<ArrayAttr>(key);
    if (!value || value.empty() || value.size() > 3)
      return emitError() << "'" << key
                         << "' must be a list of one to three sizes";
    for (auto [i, element] : llvm::enumerate(value)) {
      std::optional<int64_t> size = getInt32(element);
      if (!size || *size <= 0)
        return emitError() << "'" << key
                           << "' sizes must be positive 32-bit "
                              "integers, got "
                           << element;
      sizes[i] = *size;
    }
  }
  if (Attribute value = dict.get("shared_bytes")) {
    std::optional<int64_t> bytes = getInt32(value);
    if (!bytes || *bytes < 0)
      return emitError() << "'shared_bytes' must be a non-negative 32-bit "
                            "integer, got "
                         << value;
    kernel.sharedBytes = *bytes;
  }
  return kernel;
}

namespace {
/// task { ...; %r = reshape(%v); yield %r } and tasks reading %r ->
/// task { ...; yield %v } and tasks reading %v that reshape it first: the
/// reshape (a view) moves from the end of the producing kernel, where it
/// would be a copy into the result's buffer, to the start of each reader.
/// Applies when every user of the result is a task, and the reshape has
/// static shapes and no other user.
struct SinkResultReshapesIntoReaders : OpRewritePattern<TaskOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TaskOp task,
                                PatternRewriter &rewriter) const override {
    YieldOp yield = task.getYield();
    Block &body = task.getBody().front();
    for (OpOperand &yielded : yield->getOpOperands()) {
      Operation *reshape = yielded.get().getDefiningOp();
      if (!isa_and_present<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
              reshape) ||
          reshape->getBlock() != &body || !reshape->hasOneUse())
        continue;
      Value source = reshape->getOperand(0);
      auto sourceType = dyn_cast<RankedTensorType>(source.getType());
      auto resultType =
          dyn_cast<RankedTensorType>(reshape->getResult(0).getType());
      if (!sourceType || !resultType || !sourceType.hasStaticShape() ||
          !resultType.hasStaticShape() || reshape->getNumOperands() != 1 ||
          isa<BlockArgument>(source))
        continue;
      Value result = task->getResult(yielded.getOperandNumber());
      if (result.use_empty() ||
          !llvm::all_of(result.getUsers(),
                        [](Operation *user) { return isa<TaskOp>(user); }))
        continue;

      // Each reader reshapes its argument as the producer did.
      for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
        auto reader = cast<TaskOp>(use.getOwner());
        BlockArgument arg =
            reader.getBody().front().getArgument(use.getOperandNumber());
        rewriter.modifyOpInPlace(reader, [&] { arg.setType(sourceType); });
        rewriter.setInsertionPointToStart(&reader.getBody().front());
        IRMapping mapping;
        mapping.map(source, arg);
        Operation *view = rewriter.clone(*reshape, mapping);
        rewriter.replaceAllUsesExcept(arg, view->getResult(0), view);
      }
      rewriter.modifyOpInPlace(task, [&] { result.setType(sourceType); });
      rewriter.modifyOpInPlace(yield, [&] { yielded.set(source); });
      rewriter.eraseOp(reshape);
      return success();
    }
    return rewriter.notifyMatchFailure(task,
                                       "yields no reshape that readers take");
  }
};
} // namespace

void TaskOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<SinkResultReshapesIntoReaders>(context);
}

LogicalResult TaskOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getArgs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments but the task has " << getArgs().size()
                         << " operands";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), getArgs()))) {
    auto [argType, operand] = pair;
    if (argType != operand.getType())
      return emitOpError() << "body argument #" << index << " has type "
                           << argType << " but operand #" << index
                           << " has type " << operand.getType();
  }
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError("body must end with 'orchestra.yield'");
  return verifyYieldTypes(*this, yield, getResultTypes());
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

Type mlir::orchestra::getKernelABIType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (tensor && tensor.getElementType().isInteger(1))
    return tensor.clone(IntegerType::get(type.getContext(), 8));
  return type;
}

StringRef LaunchOp::getArch() {
  return cast<StringAttr>(getTarget().get(TargetRegistry::kArchKey)).getValue();
}

int64_t LaunchOp::getDeviceId() {
  std::optional<int64_t> id =
      getTargetInteger(getTarget().get(TargetRegistry::kDeviceIdKey));
  assert(id && "verified targets have an int64 device_id");
  return *id;
}

LogicalResult LaunchOp::verify() {
  if (getName().empty())
    return emitOpError("requires a non-empty 'name'");
  if (getKernel().getNestedReferences().size() != 1)
    return emitOpError() << "'kernel' must be a nested symbol "
                            "@<kernel module>::@<function>, got "
                         << getKernel();
  if (failed(getTargetRegistry().verifyTarget(getTarget(),
                                              [&] { return emitOpError(); })))
    return failure();
  return verifyPredictedTimes(*this, getPredictedStart(), getPredictedFinish());
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *parentTable = (*this)->getParentWithTrait<OpTrait::SymbolTable>();
  if (!parentTable)
    return emitOpError("must be inside a symbol table (the module)");
  Operation *moduleOp =
      symbolTable.lookupSymbolIn(parentTable, getKernel().getRootReference());
  auto kernelModule = dyn_cast_or_null<ModuleOp>(moduleOp);
  if (!kernelModule)
    return emitOpError() << "'kernel' names the kernel module @"
                         << getKernel().getRootReference().getValue()
                         << ", which is not a 'builtin.module' of the module";
  StringRef leaf = getKernel().getLeafReference().getValue();
  if (auto exported = kernelModule->getAttrOfType<ArrayAttr>(attr::kKernels)) {
    if (!llvm::any_of(exported, [&](Attribute attr) {
          auto name = dyn_cast<StringAttr>(attr);
          return name && name.getValue() == leaf;
        }))
      return emitOpError() << "kernel @" << leaf
                           << " is not exported by the compiled kernel module "
                           << "@" << kernelModule.getSymName().value_or("");
    return success();
  }
  Operation *fn =
      symbolTable.lookupSymbolIn(kernelModule, getKernel().getLeafReference());
  if (!fn)
    return emitOpError() << "kernel " << getKernel() << " does not exist";
  auto func = dyn_cast<FunctionOpInterface>(fn);
  if (!func)
    return emitOpError() << "kernel " << getKernel() << " is a '"
                         << fn->getName() << "', not a function";
  // The signature is only comparable while the kernel is on tensors; after
  // bufferization it takes output buffers and returns nothing.
  auto matches = [&](TypeRange kernelTypes, TypeRange launchTypes) {
    return kernelTypes.size() == launchTypes.size() &&
           llvm::all_of(llvm::zip(kernelTypes, launchTypes), [&](auto pair) {
             return std::get<0>(pair) == getKernelABIType(std::get<1>(pair));
           });
  };
  auto type = dyn_cast<FunctionType>(func.getFunctionType());
  if (type && llvm::all_of(type.getInputs(),
                           [](Type t) { return isa<TensorType>(t); })) {
    if (!matches(type.getInputs(), getArgs().getTypes()) ||
        !matches(type.getResults(), getResultTypes()))
      return emitOpError() << "operand and result types do not match the "
                              "signature of kernel "
                           << getKernel() << " (" << type << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TransferOp
//===----------------------------------------------------------------------===//

static ParseResult parseTransferTypes(OpAsmParser &parser, Type &sourceType,
                                      Type &resultType) {
  if (parser.parseType(sourceType))
    return failure();
  resultType = sourceType;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(resultType);
  return success();
}

static void printTransferTypes(OpAsmPrinter &p, Operation *, Type sourceType,
                               Type resultType) {
  p << sourceType;
  if (resultType != sourceType)
    p << " -> " << resultType;
}

LogicalResult TransferOp::verify() {
  Type sourceType = getSource().getType();
  Type resultType = getType();
  if (isa<TensorType>(sourceType) != isa<TensorType>(resultType))
    return emitOpError() << "source and result must both be tensors or both "
                            "be memrefs, got "
                         << sourceType << " and " << resultType;
  if (isa<TensorType>(sourceType)) {
    if (sourceType != resultType)
      return emitOpError() << "a tensor transfer keeps the type of its source ("
                           << sourceType << "), but the result has type "
                           << resultType;
  } else {
    auto source = cast<MemRefType>(sourceType);
    auto result = cast<MemRefType>(resultType);
    if (source.getShape() != result.getShape() ||
        source.getElementType() != result.getElementType() ||
        source.getLayout() != result.getLayout())
      return emitOpError() << "a memref transfer may change only the memory "
                              "space of its source ("
                           << sourceType << "), but the result has type "
                           << resultType;
  }

  // A chain of transfers must be consistent about where the value lives.
  if (auto producer = getSource().getDefiningOp<TransferOp>()) {
    if (producer.getTo() != getFrom())
      return emitOpError() << "moves its source from @" << getFrom()
                           << ", but the source was transferred to @"
                           << producer.getTo();
  }
  return success();
}

LogicalResult TransferOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  bool outsideTasks = !(*this)->getParentOfType<TaskOp>();
  for (auto [role, ref] :
       {std::pair<StringRef, FlatSymbolRefAttr>("from", getFromAttr()),
        {"to", getToAttr()}}) {
    Operation *symbol = symbolTable.lookupNearestSymbolFrom(*this, ref);
    if (!symbol)
      return emitOpError() << "'" << role << "' names " << ref
                           << ", which is not declared (declare it with "
                              "'orchestra.memory_space')";
    auto space = dyn_cast<MemorySpaceOp>(symbol);
    if (!space)
      return emitOpError() << "'" << role << "' names " << ref
                           << ", which is a '" << symbol->getName()
                           << "', not an 'orchestra.memory_space'";
    if (!outsideTasks)
      continue;
    const TargetInfo *info = getTargetRegistry().lookup(space.getArch());
    const MemorySpaceKind *kind =
        info ? info->lookupMemorySpace(space.getKind()) : nullptr;
    if (kind && kind->scope == MemoryScope::Kernel)
      return emitOpError()
             << "'" << role << "' names " << ref << ", a kernel-scope memory "
             << "space (\"" << space.getKind() << "\" of \"" << space.getArch()
             << "\"); only transfers inside a task body can name it";
  }
  return success();
}

void TransferOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Tensor transfers have value semantics.
  if (!isa<MemRefType>(getSource().getType()))
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Allocate::get(),
                       cast<OpResult>(getResult()),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), cast<OpResult>(getResult()),
                       SideEffects::DefaultResource::get());
}

OpFoldResult TransferOp::fold(FoldAdaptor) {
  // Memref transfers allocate a fresh buffer: folding them would introduce
  // aliasing, so only tensor transfers fold.
  if (!isa<TensorType>(getType()))
    return {};
  bool changed = false;
  // A transfer of a transfer reads from the first space directly.
  if (auto producer = getSource().getDefiningOp<TransferOp>()) {
    if (producer.getTo() == getFrom()) {
      getSourceMutable().assign(producer.getSource());
      setFromAttr(producer.getFromAttr());
      changed = true;
    }
  }
  if (getFrom() == getTo())
    return getSource();
  return changed ? getResult() : OpFoldResult();
}

namespace {
/// Replaces a tensor transfer by an identical one earlier in the same block.
struct MergeDuplicateTransfers : OpRewritePattern<TransferOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransferOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<TensorType>(op.getType()))
      return rewriter.notifyMatchFailure(
          op, "memref transfers each allocate their own buffer");
    for (Operation *user : op.getSource().getUsers()) {
      auto other = dyn_cast<TransferOp>(user);
      if (!other || other == op || other.getFrom() != op.getFrom() ||
          other.getTo() != op.getTo() || other.getType() != op.getType() ||
          other->getBlock() != op->getBlock() || !other->isBeforeInBlock(op))
        continue;
      rewriter.replaceOp(op, other.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(
        op, "no identical transfer earlier in the block");
  }
};
} // namespace

void TransferOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<MergeDuplicateTransfers>(context);
}

//===----------------------------------------------------------------------===//
// BranchProbeOp
//===----------------------------------------------------------------------===//

LogicalResult BranchProbeOp::verify() {
  if (!getCounters())
    return success();
  int64_t size = getCounters().getType().getDimSize(0);
  int64_t needed = 4 * (static_cast<int64_t>(getBranchId()) + 1);
  if (!ShapedType::isDynamic(size) && size < needed)
    return emitOpError() << "counts branch " << getBranchId()
                         << ", which needs " << needed
                         << " counters, in a buffer of " << size;
  return success();
}

//===----------------------------------------------------------------------===//
// CommitOp
//===----------------------------------------------------------------------===//

void CommitOp::build(OpBuilder &builder, OperationState &state, Value condition,
                     ValueRange trueValues, ValueRange falseValues) {
  state.addOperands(condition);
  state.addOperands(trueValues);
  state.addOperands(falseValues);
  state.addTypes(trueValues.getTypes());
  state.getOrAddProperties<Properties>().num_true =
      builder.getI64IntegerAttr(trueValues.size());
}

/// Returns the number of true values, clamped so that slicing is always safe
/// (the verifier rejects out-of-range counts).
static size_t clampedNumTrue(CommitOp op) {
  int64_t numTrue = op.getNumTrueAttr().getInt();
  if (numTrue < 0)
    return 0;
  return std::min<size_t>(numTrue, op.getValues().size());
}

OperandRange CommitOp::getTrueValues() {
  return getValues().take_front(clampedNumTrue(*this));
}

OperandRange CommitOp::getFalseValues() {
  return getValues().drop_front(clampedNumTrue(*this));
}

ParseResult CommitOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand condition;
  SmallVector<OpAsmParser::UnresolvedOperand> trueValues, falseValues;
  SmallVector<Type> types;
  SMLoc loc = parser.getCurrentLocation();
  // The condition's type follows it unless it is `i1`.
  Type conditionType = parser.getBuilder().getI1Type();
  if (parser.parseOperand(condition) ||
      (succeeded(parser.parseOptionalColon()) &&
       parser.parseType(conditionType)) ||
      parser.parseKeyword("true") ||
      parser.parseOperandList(trueValues, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("false") ||
      parser.parseOperandList(falseValues, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseOptionalColonTypeList(types))
    return failure();
  if (trueValues.size() != types.size() || falseValues.size() != types.size())
    return parser.emitError(loc)
           << "expected " << types.size()
           << " values in each list (one per type), got " << trueValues.size()
           << " true and " << falseValues.size() << " false values";
  Builder &builder = parser.getBuilder();
  if (parser.resolveOperand(condition, conditionType, result.operands) ||
      parser.resolveOperands(trueValues, types, loc, result.operands) ||
      parser.resolveOperands(falseValues, types, loc, result.operands))
    return failure();
  result.addAttribute(getNumTrueAttrName(result.name),
                      builder.getI64IntegerAttr(trueValues.size()));
  result.addTypes(types);
  return success();
}

void CommitOp::print(OpAsmPrinter &p) {
  p << ' ' << getCondition();
  if (!getCondition().getType().isInteger(1))
    p << " : " << getCondition().getType();
  p << " true(" << getTrueValues() << ") false(" << getFalseValues() << ')';
  p.printOptionalAttrDict(llvm::to_vector((*this)->getDiscardableAttrs()));
  if (getNumResults() != 0)
    p << " : " << getResultTypes();
}

LogicalResult CommitOp::verify() {
  int64_t numTrue = getNumTrueAttr().getInt();
  int64_t numValues = getValues().size();
  if (numTrue < 0 || numTrue > numValues)
    return emitOpError() << "'num_true' is " << numTrue << " but there are "
                         << numValues << " values";
  if (numValues - numTrue != numTrue)
    return emitOpError() << "the true list has " << numTrue
                         << " values but the false list has "
                         << numValues - numTrue;
  if (getNumResults() != static_cast<unsigned>(numTrue))
    return emitOpError() << "has " << getNumResults()
                         << " results but each list has " << numTrue
                         << " values";
  for (auto [index, types] :
       llvm::enumerate(llvm::zip(getResultTypes(), getTrueValues().getTypes(),
                                 getFalseValues().getTypes()))) {
    auto [resultType, trueType, falseType] = types;
    if (trueType != resultType || falseType != resultType)
      return emitOpError() << "result #" << index << " has type " << resultType
                           << " but its true value has type " << trueType
                           << " and its false value has type " << falseType;
  }
  return success();
}

LogicalResult CommitOp::fold(FoldAdaptor adaptor,
                             SmallVectorImpl<OpFoldResult> &results) {
  // A fold that succeeds without results means "updated in place"; a commit
  // without results is dead code and left to DCE.
  if (getNumResults() == 0)
    return failure();
  // A constant `i1` or a constant 0-d `tensor<i1>`.
  std::optional<bool> constant;
  if (auto condition = dyn_cast_if_present<BoolAttr>(adaptor.getCondition()))
    constant = condition.getValue();
  else if (auto condition = dyn_cast_if_present<DenseIntElementsAttr>(
               adaptor.getCondition());
           condition && condition.isSplat())
    constant = condition.getSplatValue<bool>();
  if (constant) {
    OperandRange chosen = *constant ? getTrueValues() : getFalseValues();
    results.append(chosen.begin(), chosen.end());
    return success();
  }
  if (llvm::equal(getTrueValues(), getFalseValues())) {
    results.append(getTrueValues().begin(), getTrueValues().end());
    return success();
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// TableGen'd op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.cpp.inc"
