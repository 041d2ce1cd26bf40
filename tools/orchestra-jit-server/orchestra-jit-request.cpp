//===- orchestra-jit-request.cpp - One request to the feedback service ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Sends one RecompileKernel request, made of a profile file (orchestra-run
// --profile-out), to an orchestra-jit-server and prints its answer: for
// trying a service by hand and for its tests. Reads the profile as it is
// (any profile_version), so that the service's own checks can be seen.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Profile/Profile.h"
#include "orchestra_jit.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace fdo = orchestra::fdo;

static int usage() {
  std::cerr << "usage: orchestra-jit-request HOST:PORT ARTIFACT_HASH KERNEL "
               "PROFILE [--out FILE]\n\n"
               "Sends PROFILE's records for the cached artifact of "
               "ARTIFACT_HASH (16 hex digits)\nand KERNEL to the feedback "
               "service; prints its decision and reason, or its error\n"
               "status; --out writes a new artifact it sends.\n";
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 5 && !(argc == 7 && std::strcmp(argv[5], "--out") == 0))
    return usage();
  char *end = nullptr;
  uint64_t hash = std::strtoull(argv[2], &end, 16);
  if (*end != '\0' || std::strlen(argv[2]) != 16)
    return usage();
  fdo::RecompileRequest request;
  request.set_artifact_hash(hash);
  request.set_kernel_id(argv[3]);
  std::vector<fdo::DivergenceProfile> profiles;
  std::string error;
  if (!orchestra::profile::readProfileFile(argv[4], profiles, error,
                                           /*checkVersion=*/false)) {
    std::cerr << "orchestra-jit-request: error: " << error << "\n";
    return 1;
  }
  for (fdo::DivergenceProfile &profile : profiles)
    *request.add_profiles() = std::move(profile);
  auto stub = fdo::OrchestraJIT::NewStub(
      grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(120));
  fdo::RecompileReply reply;
  grpc::Status status = stub->RecompileKernel(&context, request, &reply);
  if (!status.ok()) {
    std::cout << "status " << status.error_code() << ": "
              << status.error_message() << "\n";
    return 1;
  }
  std::cout << fdo::RecompileReply::Decision_Name(reply.decision()) << ": "
            << reply.reason() << "\n";
  if (argc == 7 && !reply.artifact().empty()) {
    FILE *file = std::fopen(argv[6], "wb");
    if (!file ||
        std::fwrite(reply.artifact().data(), 1, reply.artifact().size(),
                    file) != reply.artifact().size()) {
      std::cerr << "orchestra-jit-request: error: cannot write '" << argv[6]
                << "'\n";
      return 1;
    }
    std::fclose(file);
  }
  return 0;
}
