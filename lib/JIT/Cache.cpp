//===- Cache.cpp - The compiles the feedback service may redo -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/JIT/JIT.h"
#include "orchestra/Support/AtomicFile.h"
#include "orchestra_rt/Artifact.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::orchestra;

std::string jit::getEntryName(uint64_t hash) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << llvm::format_hex_no_prefix(hash, 16);
  return name;
}

/// Writes `text` to `path` whole or not at all.
static LogicalResult writeText(const std::string &path, StringRef text,
                               std::string &error) {
  return success(
      ::orchestra::writeFileAtomically(path, text.data(), text.size(), error));
}

/// Copies the file `from` to `to` whole or not at all.
static LogicalResult copyFile(StringRef from, const std::string &to,
                              std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(from);
  if (!buffer) {
    error = "cannot read '" + from.str() + "': " + buffer.getError().message();
    return failure();
  }
  return writeText(to, (*buffer)->getBuffer(), error);
}

LogicalResult jit::writeCacheEntry(StringRef dir, ModuleOp source,
                                   const CompileOptions &options,
                                   const std::vector<uint8_t> &artifact,
                                   std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir.str() + "': " + ec.message();
    return failure();
  }
  orx::Artifact parsed;
  if (!orx::parseArtifact(artifact.data(), artifact.size(), parsed, error))
    return failure();
  std::string base = (dir + llvm::sys::path::get_separator() +
                      getEntryName(parsed.payloadHash))
                         .str();

  // The options, with the files the compile read copied beside them.
  llvm::json::Object json;
  if (options.topology != "host") {
    if (failed(copyFile(options.topology, base + ".topology.json", error)))
      return failure();
    json["topology"] = "file";
  } else {
    json["topology"] = "host";
  }
  if (options.strategy != "default" && options.strategy != "none") {
    if (failed(copyFile(options.strategy, base + ".strategy.mlir", error)))
      return failure();
    json["strategy"] = "file";
  } else {
    json["strategy"] = options.strategy;
  }
  if (!options.tuningCache.empty()) {
    if (failed(copyFile(options.tuningCache, base + ".tuning.json", error)))
      return failure();
    json["tuning_cache"] = true;
  }
  json["scheduler"] = options.scheduler;
  json["entry"] = options.entry;
  json["speculate"] = options.speculate;
  json["profile_branches"] = options.profileBranches;
  json["strategies_dir"] = options.strategiesDir;
  llvm::json::Array dims;
  for (const std::string &dim : options.dims)
    dims.push_back(dim);
  json["dims"] = std::move(dims);
  std::string optionsText;
  llvm::raw_string_ostream(optionsText)
      << llvm::formatv("{0:2}", llvm::json::Value(std::move(json))) << "\n";

  // The module with its locations: the branch table names branches by them.
  std::string moduleText;
  llvm::raw_string_ostream moduleStream(moduleText);
  source->print(moduleStream, OpPrintingFlags().enableDebugInfo());

  if (failed(writeText(base + ".json", optionsText, error)) ||
      failed(writeText(base + ".mlir", moduleText, error)))
    return failure();
  // The artifact last: an entry is complete once its .orcx is there.
  return success(::orchestra::writeFileAtomically(
      base + ".orcx", artifact.data(), artifact.size(), error));
}

std::vector<uint64_t> jit::scanCache(StringRef dir,
                                     std::vector<std::string> &problems) {
  std::vector<uint64_t> hashes;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef file = llvm::sys::path::filename(it->path());
    if (!file.ends_with(".orcx"))
      continue;
    StringRef name = file.drop_back(5);
    uint64_t hash = 0;
    if (name.size() != 16 || name.getAsInteger(16, hash) ||
        getEntryName(hash) != name) {
      problems.push_back("'" + it->path() +
                         "': not named by an artifact hash (16 lowercase hex "
                         "digits), left out");
      continue;
    }
    orx::Artifact artifact;
    std::string error;
    if (!orx::readArtifactFile(it->path(), artifact, error)) {
      problems.push_back(error + ", left out");
      continue;
    }
    if (artifact.payloadHash != hash) {
      problems.push_back("'" + it->path() + "': its payload hash is " +
                         getEntryName(artifact.payloadHash) +
                         ", not its name, left out");
      continue;
    }
    std::string base = (dir + llvm::sys::path::get_separator() + name).str();
    if (!llvm::sys::fs::exists(base + ".mlir") ||
        !llvm::sys::fs::exists(base + ".json")) {
      problems.push_back("'" + it->path() +
                         "': its .mlir or .json is missing, left out");
      continue;
    }
    hashes.push_back(hash);
  }
  if (ec)
    problems.push_back("cannot list '" + dir.str() + "': " + ec.message());
  llvm::sort(hashes);
  return hashes;
}
