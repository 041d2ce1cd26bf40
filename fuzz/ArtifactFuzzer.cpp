//===- ArtifactFuzzer.cpp - Fuzz target: the artifact reader --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Bytes -> an artifact's payload, sealed with a valid header and checksum so
// that the parser behind the checksum is reached (random bytes would
// otherwise all stop at "checksum mismatch") -> parseArtifact (which
// validates the plan: every index, offset and size), then every GPU and
// PJRT bundle among its binaries through its own parser. Nothing is loaded
// or run. A refusal is fine; a crash or a sanitizer report is a bug.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/GpuBundle.h"
#include "orchestra_rt/PjrtBundle.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace orx;

/// The header serializeArtifact writes, around `payload`.
static std::vector<uint8_t> seal(const uint8_t *payload, size_t size) {
  // Take the header of a real (empty) artifact and patch its size and
  // checksum: the fields' offsets stay the reader's business.
  static const std::vector<uint8_t> empty = serializeArtifact(Artifact());
  std::vector<uint8_t> bytes(empty.begin(),
                             empty.begin() + kArtifactHeaderSize);
  auto put = [&](size_t offset, uint64_t value) {
    for (int i = 0; i < 8; ++i)
      bytes[offset + i] = static_cast<uint8_t>(value >> (8 * i));
  };
  put(16, size);
  put(24, fnv1a64(payload, size));
  bytes.insert(bytes.end(), payload, payload + size);
  return bytes;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes = seal(data, size);
  Artifact artifact;
  std::string error;
  if (!parseArtifact(bytes.data(), bytes.size(), artifact, error))
    return 0;
  for (size_t i = 0; i < artifact.binaries.size(); ++i) {
    const BinaryDesc &binary = artifact.binaries[i];
    if (isGpuBundle(binary)) {
      GpuBundle bundle;
      (void)parseGpuBundleBinary(binary, i, bundle, error);
    } else if (isPjrtBundle(binary)) {
      PjrtBundle bundle;
      (void)parsePjrtBundleBinary(binary, i, bundle, error);
    }
  }
  // What was accepted serializes and reads back.
  std::vector<uint8_t> again = serializeArtifact(artifact);
  Artifact reread;
  if (!parseArtifact(again.data(), again.size(), reread, error))
    std::abort();
  return 0;
}
