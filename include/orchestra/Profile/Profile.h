//===- Profile.h - DivergenceProfile files ----------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Files of DivergenceProfile messages (proto/divergence_profile.proto,
// design/0019): each message preceded by its length as a varint. Protobuf
// only, no MLIR: orchestra-run writes them, the compiler and the feedback
// service read them.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_PROFILE_PROFILE_H
#define ORCHESTRA_PROFILE_PROFILE_H

#include "divergence_profile.pb.h"
#include "orchestra_rt/orchestra_rt.h"

#include <string>
#include <vector>

namespace orchestra::profile {

/// The profile_version this release writes and reads.
constexpr uint32_t kProfileVersion = 1;

/// The largest record (a record is a few hundred bytes) and file a reader
/// takes.
constexpr uint32_t kMaxMessageBytes = 1 << 20;
constexpr size_t kMaxFileBytes = size_t(1) << 30;

/// The record of a session's branch counters (orx_session_branch_profile_*)
/// as a DivergenceProfile message: outcomes [then, else], the divergence
/// rate divergent warps over warps (0 without warps).
fdo::DivergenceProfile toDivergenceProfile(const orx_branch_record_t &record);

/// Writes `profiles` to `path` (whole or not at all).
bool writeProfileFile(const std::string &path,
                      const std::vector<fdo::DivergenceProfile> &profiles,
                      std::string &error);

/// Reads the messages of `path`. Fails with `error` naming the record on a
/// truncated or malformed message, one larger than kMaxMessageBytes, or
/// (with `checkVersion`) a profile_version other than kProfileVersion.
bool readProfileFile(const std::string &path,
                     std::vector<fdo::DivergenceProfile> &profiles,
                     std::string &error, bool checkVersion = true);

/// One line per record: kernel, branch, counts, rate, hardware.
std::string formatProfile(const fdo::DivergenceProfile &profile);

} // namespace orchestra::profile

#endif // ORCHESTRA_PROFILE_PROFILE_H
