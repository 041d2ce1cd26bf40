//===- TargetRegistry.cpp - The registry of target architectures ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::orchestra;

StringRef mlir::orchestra::stringifyTargetKeyType(TargetKeyType type) {
  switch (type) {
  case TargetKeyType::Bool:
    return "bool";
  case TargetKeyType::Integer:
    return "integer";
  case TargetKeyType::Float:
    return "float";
  case TargetKeyType::String:
    return "string";
  }
  llvm_unreachable("unknown TargetKeyType");
}

StringRef mlir::orchestra::stringifyMemoryScope(MemoryScope scope) {
  switch (scope) {
  case MemoryScope::Device:
    return "device";
  case MemoryScope::Kernel:
    return "kernel";
  }
  llvm_unreachable("unknown MemoryScope");
}

StringRef mlir::orchestra::stringifyExecutableFormat(ExecutableFormat format) {
  switch (format) {
  case ExecutableFormat::NativeObject:
    return "native-object";
  case ExecutableFormat::Cubin:
    return "cubin";
  case ExecutableFormat::HSACO:
    return "hsaco";
  case ExecutableFormat::StableHLO:
    return "stablehlo";
  }
  llvm_unreachable("unknown ExecutableFormat");
}

const TargetKeySpec *TargetInfo::lookupKey(StringRef name) const {
  auto it = llvm::find_if(
      keys, [&](const TargetKeySpec &key) { return key.name == name; });
  return it == keys.end() ? nullptr : &*it;
}

const MemorySpaceKind *TargetInfo::lookupMemorySpace(StringRef kind) const {
  auto it = llvm::find_if(memorySpaces, [&](const MemorySpaceKind &space) {
    return space.name == kind;
  });
  return it == memorySpaces.end() ? nullptr : &*it;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

llvm::Error TargetRegistry::registerTarget(TargetInfo info) {
  auto fail = [&](const Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot register arch '" + info.arch +
                                       "': " + why);
  };
  if (info.arch.empty())
    return fail("the arch string is empty");
  if (targets.count(info.arch))
    return fail("it is already registered");
  llvm::StringSet<> seen;
  for (const TargetKeySpec &key : info.keys) {
    if (key.name == kArchKey || key.name == kDeviceIdKey)
      return fail("key '" + key.name + "' is common to every arch");
    if (!seen.insert(key.name).second)
      return fail("key '" + key.name + "' is declared twice");
    if (key.minValue && key.type != TargetKeyType::Integer)
      return fail("key '" + key.name + "' has a minimum but is not an integer");
    if (!key.allowedValues.empty() && key.type != TargetKeyType::String)
      return fail("key '" + key.name +
                  "' has allowed values but is not a string");
  }
  const MemorySpaceKind *defaultSpace =
      info.lookupMemorySpace(info.defaultMemorySpace);
  if (!defaultSpace || defaultSpace->scope != MemoryScope::Device)
    return fail("default memory space '" + info.defaultMemorySpace +
                "' is not one of its device-scope memory spaces");
  if (info.runtimeDriver.empty())
    return fail("it names no runtime driver");
  std::string arch = info.arch;
  targets.try_emplace(arch, std::move(info));
  return llvm::Error::success();
}

const TargetInfo *TargetRegistry::lookup(StringRef arch) const {
  auto it = targets.find(arch);
  return it == targets.end() ? nullptr : &it->second;
}

SmallVector<StringRef> TargetRegistry::getArchs() const {
  SmallVector<StringRef> archs;
  for (const auto &entry : targets)
    archs.push_back(entry.getKey());
  llvm::sort(archs);
  return archs;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// Returns the candidate closest to `name` by edit distance, if it is close
/// enough to be a plausible typo (at most half the longer name's length).
static std::optional<StringRef> closestMatch(StringRef name,
                                             ArrayRef<StringRef> candidates) {
  std::optional<StringRef> best;
  unsigned bestDistance = 0;
  for (StringRef candidate : candidates) {
    unsigned limit = std::max(name.size(), candidate.size()) / 2;
    unsigned distance =
        name.edit_distance(candidate, /*AllowReplacements=*/true,
                           /*MaxEditDistance=*/limit + 1);
    if (distance <= limit && (!best || distance < bestDistance)) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

FailureOr<const TargetInfo *> TargetRegistry::lookupOrError(
    StringRef arch, function_ref<InFlightDiagnostic()> emitError) const {
  if (const TargetInfo *info = lookup(arch))
    return info;
  SmallVector<StringRef> archs = getArchs();
  InFlightDiagnostic diag = emitError() << "unknown arch \"" << arch << "\"";
  if (std::optional<StringRef> suggestion = closestMatch(arch, archs))
    diag << "; did you mean \"" << *suggestion << "\"?";
  else
    diag << ";";
  diag << " known archs: ";
  if (archs.empty())
    diag << "(none: no target backend is compiled in)";
  else
    diag << llvm::join(archs, ", ");
  return failure();
}

/// Returns whether `value` has the attribute kind `type` stands for.
static bool hasType(Attribute value, TargetKeyType type) {
  switch (type) {
  case TargetKeyType::Bool:
    return isa<BoolAttr>(value);
  case TargetKeyType::Integer: {
    // BoolAttr is an IntegerAttr of i1: it is not an integer here.
    auto intAttr = dyn_cast<IntegerAttr>(value);
    return intAttr && !isa<BoolAttr>(value) &&
           isa<IntegerType>(intAttr.getType());
  }
  case TargetKeyType::Float:
    return isa<FloatAttr>(value);
  case TargetKeyType::String:
    return isa<StringAttr>(value);
  }
  llvm_unreachable("unknown TargetKeyType");
}

std::optional<int64_t> mlir::orchestra::getTargetInteger(Attribute value) {
  auto intAttr = dyn_cast<IntegerAttr>(value);
  if (!intAttr || isa<BoolAttr>(value))
    return std::nullopt;
  auto type = dyn_cast<IntegerType>(intAttr.getType());
  if (!type)
    return std::nullopt;
  const APInt &bits = intAttr.getValue();
  if (type.isUnsigned()) {
    if (bits.getActiveBits() > 63)
      return std::nullopt;
    return static_cast<int64_t>(bits.getZExtValue());
  }
  if (bits.getSignificantBits() > 64)
    return std::nullopt;
  return bits.getSExtValue();
}

/// Lists the arch's keys as "name (type), ..." for diagnostics.
static std::string describeKeys(const TargetInfo &info) {
  SmallVector<const TargetKeySpec *> keys;
  for (const TargetKeySpec &key : info.keys)
    keys.push_back(&key);
  llvm::sort(keys, [](const TargetKeySpec *a, const TargetKeySpec *b) {
    return a->name < b->name;
  });
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(keys, os, [&](const TargetKeySpec *key) {
    os << key->name << " (" << stringifyTargetKeyType(key->type) << ")";
  });
  return result;
}

LogicalResult TargetRegistry::verifyTarget(
    DictionaryAttr target, function_ref<InFlightDiagnostic()> emitError) const {
  Attribute archValue = target.get(kArchKey);
  if (!archValue)
    return emitError() << "target is missing the mandatory key '" << kArchKey
                       << "' (a string naming the architecture)";
  auto archAttr = dyn_cast<StringAttr>(archValue);
  if (!archAttr)
    return emitError() << "target key '" << kArchKey
                       << "' must be a string, got " << archValue;
  FailureOr<const TargetInfo *> info =
      lookupOrError(archAttr.getValue(), emitError);
  if (failed(info))
    return failure();

  Attribute deviceValue = target.get(kDeviceIdKey);
  if (!deviceValue)
    return emitError() << "target is missing the mandatory key '"
                       << kDeviceIdKey << "' (integer)";
  if (!hasType(deviceValue, TargetKeyType::Integer))
    return emitError() << "target key '" << kDeviceIdKey
                       << "' must be an integer, got " << deviceValue;
  std::optional<int64_t> deviceId = getTargetInteger(deviceValue);
  if (!deviceId)
    return emitError() << "target key '" << kDeviceIdKey
                       << "' does not fit in 64 bits, got " << deviceValue;
  if (*deviceId < 0)
    return emitError() << "target key '" << kDeviceIdKey
                       << "' must be non-negative, got " << deviceValue;

  StringRef arch = (*info)->arch;
  for (NamedAttribute entry : target) {
    StringRef name = entry.getName().getValue();
    if (name == kArchKey || name == kDeviceIdKey)
      continue;
    const TargetKeySpec *key = (*info)->lookupKey(name);
    if (!key) {
      InFlightDiagnostic diag = emitError() << "unknown target key '" << name
                                            << "' for arch \"" << arch << "\"";
      SmallVector<StringRef> names;
      for (const TargetKeySpec &spec : (*info)->keys)
        names.push_back(spec.name);
      if (std::optional<StringRef> suggestion = closestMatch(name, names))
        diag << "; did you mean '" << *suggestion << "'?";
      else
        diag << ";";
      if (names.empty())
        diag << " (the arch has no arch-specific keys)";
      else
        diag << " known keys: " << describeKeys(**info);
      return diag;
    }
    Attribute value = entry.getValue();
    if (!hasType(value, key->type))
      return emitError() << "target key '" << name << "' of arch \"" << arch
                         << "\" must be a " << stringifyTargetKeyType(key->type)
                         << ", got " << value;
    if (key->type == TargetKeyType::Integer) {
      std::optional<int64_t> number = getTargetInteger(value);
      if (!number)
        return emitError() << "target key '" << name << "' of arch \"" << arch
                           << "\" does not fit in 64 bits, got " << value;
      if (key->minValue && *number < *key->minValue)
        return emitError() << "target key '" << name << "' of arch \"" << arch
                           << "\" must be at least " << *key->minValue
                           << ", got " << *number;
    }
    if (!key->allowedValues.empty() &&
        !llvm::is_contained(key->allowedValues,
                            cast<StringAttr>(value).getValue())) {
      InFlightDiagnostic diag = emitError()
                                << "target key '" << name << "' of arch \""
                                << arch << "\" must be one of ";
      llvm::interleaveComma(
          key->allowedValues, diag,
          [&](const std::string &allowed) { diag << "\"" << allowed << "\""; });
      return diag << "; got " << value;
    }
  }

  for (const TargetKeySpec &key : (*info)->keys) {
    if (key.required && !target.get(key.name))
      return emitError() << "arch \"" << arch << "\" requires target key '"
                         << key.name << "' ("
                         << stringifyTargetKeyType(key.type) << ")";
  }
  return success();
}
