//===- TopologyFuzzer.cpp - Fuzz target: the topology JSON reader ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Bytes -> Topology::parse against the registry of every compiled-in target
// (what `--topology FILE` reads). A refusal is fine; a crash, a sanitizer
// report or an accepted topology that does not print and parse back the same
// is a bug.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir::orchestra;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef json(reinterpret_cast<const char *>(data), size);
  const TargetRegistry &registry = getTargetRegistry();
  llvm::Expected<Topology> topology = Topology::parse(json, registry);
  if (!topology) {
    llvm::consumeError(topology.takeError());
    return 0;
  }
  auto print = [](const Topology &t) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << t.toJSON();
    return text;
  };
  std::string printed = print(*topology);
  llvm::Expected<Topology> again = Topology::parse(printed, registry);
  if (!again) {
    llvm::consumeError(again.takeError());
    std::abort();
  }
  if (print(*again) != printed)
    std::abort();
  return 0;
}
