//===- TuningCache.cpp - Persisted results of orchestra-tune --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/TuningCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace orchestra::tuning;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string TuningKey::str() const {
  std::string dims;
  for (auto [i, d] : llvm::enumerate(shape))
    dims += (i ? "x" : "") + std::to_string(d);
  return llvm::formatv("{0}/{1} threads: {2} {3} {4}", arch, threads, op, dims,
                       elementType)
      .str();
}

const TuningEntry *TuningCache::lookup(const TuningKey &key) const {
  for (const TuningEntry &entry : entries)
    if (entry.key == key)
      return &entry;
  return nullptr;
}

void TuningCache::insert(TuningEntry entry) {
  for (TuningEntry &existing : entries)
    if (existing.key == entry.key) {
      existing = std::move(entry);
      return;
    }
  entries.push_back(std::move(entry));
}

llvm::Expected<TuningCache> TuningCache::parse(llvm::StringRef text,
                                               llvm::StringRef name) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return makeError("tuning cache '" + name + "' is not valid JSON: " +
                     llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return makeError("tuning cache '" + name + "': expected a JSON object");
  std::optional<llvm::StringRef> format = root->getString("format");
  if (!format || *format != kFormat)
    return makeError("tuning cache '" + name + "': \"format\" must be \"" +
                     kFormat + "\"");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version || *version != kVersion)
    return makeError("tuning cache '" + name + "': unsupported \"version\" (" +
                     llvm::Twine(kVersion) + " expected)");
  TuningCache cache;
  if (std::optional<llvm::StringRef> machine = root->getString("machine"))
    cache.machine = machine->str();
  const llvm::json::Array *entries = root->getArray("entries");
  if (!entries)
    return makeError("tuning cache '" + name + "': missing \"entries\" array");
  for (auto [index, value] : llvm::enumerate(*entries)) {
    auto fail = [&, index = index](const llvm::Twine &what) {
      return makeError("tuning cache '" + name + "': entry " +
                       llvm::Twine(index) + ": " + what);
    };
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail("expected an object");
    TuningEntry entry;
    std::optional<llvm::StringRef> arch = object->getString("arch");
    std::optional<llvm::StringRef> op = object->getString("op");
    std::optional<llvm::StringRef> type = object->getString("element_type");
    std::optional<llvm::StringRef> variant = object->getString("variant");
    std::optional<int64_t> threads = object->getInteger("threads");
    const llvm::json::Array *shape = object->getArray("shape");
    if (!arch || !op || !type || !variant || !threads || !shape)
      return fail("needs \"arch\", \"threads\", \"op\", \"element_type\", "
                  "\"shape\" and \"variant\"");
    if (*threads < 0)
      return fail("\"threads\" must not be negative");
    if (variant->empty() || !llvm::all_of(*variant, [](char c) {
          return llvm::isAlnum(c) || c == '_';
        }))
      return fail("\"variant\" must be a non-empty name of letters, digits "
                  "and '_'");
    entry.key.arch = arch->str();
    entry.key.threads = *threads;
    entry.key.op = op->str();
    entry.key.elementType = type->str();
    for (const llvm::json::Value &dim : *shape) {
      std::optional<int64_t> d = dim.getAsInteger();
      if (!d || *d <= 0)
        return fail("\"shape\" must hold positive integers");
      entry.key.shape.push_back(*d);
    }
    entry.variant = variant->str();
    entry.timeMs = object->getNumber("time_ms").value_or(0);
    entry.defaultTimeMs = object->getNumber("default_time_ms").value_or(0);
    cache.insert(std::move(entry));
  }
  return cache;
}

llvm::Expected<TuningCache> TuningCache::readFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError("cannot read tuning cache '" + path +
                     "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

std::string TuningCache::toJSON() const {
  llvm::json::Array array;
  for (const TuningEntry &entry : entries) {
    llvm::json::Array shape;
    for (int64_t d : entry.key.shape)
      shape.push_back(d);
    array.push_back(
        llvm::json::Object{{"arch", entry.key.arch},
                           {"threads", entry.key.threads},
                           {"op", entry.key.op},
                           {"element_type", entry.key.elementType},
                           {"shape", std::move(shape)},
                           {"variant", entry.variant},
                           {"time_ms", entry.timeMs},
                           {"default_time_ms", entry.defaultTimeMs}});
  }
  llvm::json::Value root = llvm::json::Object{{"format", kFormat},
                                              {"version", kVersion},
                                              {"machine", machine},
                                              {"entries", std::move(array)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", root) << "\n";
  return text;
}

llvm::Error TuningCache::writeFile(llvm::StringRef path) const {
  llvm::SmallString<256> temporary(path);
  temporary += ".tmp";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return makeError("cannot write tuning cache '" + temporary +
                       "': " + ec.message());
    os << toJSON();
    os.close();
    if (os.has_error())
      return makeError("cannot write tuning cache '" + temporary +
                       "': " + os.error().message());
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path))
    return makeError("cannot write tuning cache '" + path +
                     "': " + ec.message());
  return llvm::Error::success();
}
