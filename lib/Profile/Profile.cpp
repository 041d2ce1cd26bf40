//===- Profile.cpp - DivergenceProfile files ------------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Profile/Profile.h"
#include "orchestra/Support/AtomicFile.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <sstream>

using namespace orchestra;
namespace io = google::protobuf::io;

fdo::DivergenceProfile
profile::toDivergenceProfile(const orx_branch_record_t &record) {
  fdo::DivergenceProfile profile;
  profile.set_profile_version(kProfileVersion);
  profile.set_kernel_name(record.kernel);
  profile.set_branch_id(record.branch_id);
  profile.set_invocation_count(record.invocation_count);
  profile.set_divergence_rate(record.warps ? double(record.divergent_warps) /
                                                 double(record.warps)
                                           : 0.0);
  profile.add_path_outcome_counts(record.then_count);
  profile.add_path_outcome_counts(record.else_count);
  profile.set_hardware_id(record.hardware_id);
  profile.set_input_shape_hash(record.input_shape_hash);
  return profile;
}

bool profile::writeProfileFile(
    const std::string &path,
    const std::vector<fdo::DivergenceProfile> &profiles, std::string &error) {
  std::string bytes;
  {
    io::StringOutputStream stream(&bytes);
    io::CodedOutputStream coded(&stream);
    for (const fdo::DivergenceProfile &profile : profiles) {
      coded.WriteVarint32(static_cast<uint32_t>(profile.ByteSizeLong()));
      if (!profile.SerializeToCodedStream(&coded)) {
        error = "cannot encode the profile of kernel '" +
                profile.kernel_name() + "'";
        return false;
      }
    }
  }
  return writeFileAtomically(path, bytes.data(), bytes.size(), error);
}

bool profile::readProfileFile(const std::string &path,
                              std::vector<fdo::DivergenceProfile> &profiles,
                              std::string &error, bool checkVersion) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() > kMaxFileBytes) {
    error = "'" + path + "' has " + std::to_string(bytes.size()) +
            " bytes, more than a profile may (" +
            std::to_string(kMaxFileBytes) + ")";
    return false;
  }
  io::ArrayInputStream array(bytes.data(), static_cast<int>(bytes.size()));
  io::CodedInputStream coded(&array);
  profiles.clear();
  for (size_t index = 0;
       coded.CurrentPosition() < static_cast<int>(bytes.size()); ++index) {
    std::string what = "'" + path + "', record " + std::to_string(index);
    uint32_t length;
    if (!coded.ReadVarint32(&length)) {
      error = what + ": truncated or malformed length";
      return false;
    }
    if (length > kMaxMessageBytes) {
      error = what + ": " + std::to_string(length) +
              " bytes, more than a record may (" +
              std::to_string(kMaxMessageBytes) + ")";
      return false;
    }
    if (length > bytes.size() - static_cast<size_t>(coded.CurrentPosition())) {
      error = what + ": truncated DivergenceProfile (" +
              std::to_string(length) + " bytes announced, " +
              std::to_string(bytes.size() - coded.CurrentPosition()) + " left)";
      return false;
    }
    io::CodedInputStream::Limit limit =
        coded.PushLimit(static_cast<int>(length));
    fdo::DivergenceProfile profile;
    if (!profile.ParseFromCodedStream(&coded) ||
        !coded.ConsumedEntireMessage()) {
      error = what + ": truncated or malformed DivergenceProfile";
      return false;
    }
    coded.PopLimit(limit);
    if (checkVersion && profile.profile_version() != kProfileVersion) {
      error = what + ": profile_version " +
              std::to_string(profile.profile_version()) +
              ", this release reads " + std::to_string(kProfileVersion);
      return false;
    }
    profiles.push_back(std::move(profile));
  }
  return true;
}

std::string profile::formatProfile(const fdo::DivergenceProfile &profile) {
  std::ostringstream os;
  os << profile.kernel_name() << " branch " << profile.branch_id() << ": "
     << profile.invocation_count() << " launch(es), outcomes [";
  for (int i = 0; i < profile.path_outcome_counts_size(); ++i)
    os << (i ? ", " : "") << profile.path_outcome_counts(i);
  os << "], divergence " << std::setprecision(4) << profile.divergence_rate()
     << ", hardware '" << profile.hardware_id() << "', input shapes 0x"
     << std::hex << std::setw(16) << std::setfill('0')
     << profile.input_shape_hash();
  return os.str();
}
