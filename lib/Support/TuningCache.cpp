//===- TuningCache.cpp - Persisted results of orchestra-tune --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/TuningCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
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
  // A temporary file renamed over `path`: a reader never sees half a cache,
  // and an interrupted write leaves the previous one.
  if (llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << toJSON();
        return llvm::Error::success();
      }))
    return makeError("cannot write tuning cache '" + path +
                     "': " + llvm::toString(std::move(error)));
  return llvm::Error::success();
}

llvm::Expected<TuningCache>
TuningCache::update(llvm::StringRef path, llvm::ArrayRef<TuningEntry> entries,
                    llvm::StringRef machine) {
  llvm::SmallString<256> lockPath(path);
  lockPath += ".lock";
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::openFileForReadWrite(
          lockPath, fd, llvm::sys::fs::CD_OpenAlways, llvm::sys::fs::OF_None))
    return makeError("cannot lock tuning cache '" + path + "' (" + lockPath +
                     "): " + ec.message());
  llvm::scope_exit closeLock(
      [&] { llvm::sys::Process::SafelyCloseFileDescriptor(fd); });
  if (std::error_code ec = llvm::sys::fs::lockFile(fd))
    return makeError("cannot lock tuning cache '" + path + "' (" + lockPath +
                     "): " + ec.message());
  llvm::scope_exit unlock([&] { (void)llvm::sys::fs::unlockFile(fd); });

  TuningCache cache;
  if (llvm::sys::fs::exists(path)) {
    llvm::Expected<TuningCache> existing = readFile(path);
    if (!existing)
      return existing.takeError();
    cache = std::move(*existing);
  }
  for (const TuningEntry &entry : entries)
    cache.insert(entry);
  if (!machine.empty())
    cache.machine = machine.str();
  if (llvm::Error error = cache.writeFile(path))
    return std::move(error);
  return cache;
}
