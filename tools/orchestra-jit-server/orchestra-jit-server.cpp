//===- orchestra-jit-server.cpp - The feedback service --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The gRPC service of the feedback loop (design/0019): RecompileKernel takes
// the branch profile of a running artifact, recompiles that artifact's
// compile from the cache (`orchestra-compile --jit-cache DIR`) with the
// profile's weights and answers with a new plan when the scheduler predicts
// one faster by --min-gain, else NO_GAIN. It listens on loopback unless told
// otherwise, knows only the artifacts of its cache, writes only files it
// names from numbers inside the cache, bounds request and reply sizes, and
// recompiles one request at a time with a short queue.
//
//===----------------------------------------------------------------------===//

#include "orchestra/InitAll.h"
#include "orchestra/JIT/JIT.h"
#include "orchestra/Profile/Profile.h"
#include "orchestra/Support/AtomicFile.h"
#include "orchestra/Support/CrashMessage.h"
#include "orchestra_rt/Artifact.h"

#include "orchestra_jit.grpc.pb.h"

#include "mlir/Debug/CLOptionsSetup.h"
#include "mlir/Debug/Counter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <csignal>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;
namespace fdo = ::orchestra::fdo;
namespace jit = mlir::orchestra::jit;

static cl::OptionCategory category("orchestra-jit-server options");
static cl::opt<std::string>
    cacheDir("cache-dir",
             cl::desc("The cache of compiles it may redo (orchestra-compile "
                      "--jit-cache DIR); its only working directory"),
             cl::value_desc("dir"), cl::Required, cl::cat(category));
static cl::opt<std::string>
    listen("listen",
           cl::desc("Address to listen on, HOST:PORT (port 0: any free port; "
                    "default 127.0.0.1:0). Only a loopback host unless "
                    "--allow-remote"),
           cl::value_desc("host:port"), cl::init("127.0.0.1:0"),
           cl::cat(category));
static cl::opt<bool> allowRemote(
    "allow-remote",
    cl::desc("Accept a --listen address other than loopback (no TLS or "
             "authentication: trusted networks only)"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string>
    portFile("port-file",
             cl::desc("Write the port listened on to this file once ready"),
             cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<double>
    minGain("min-gain",
            cl::desc("The least predicted saving, as a fraction of the "
                     "running plan's makespan, for a new plan (default 0.1)"),
            cl::init(0.1), cl::cat(category));
static cl::opt<unsigned>
    maxRequestBytes("max-request-bytes",
                    cl::desc("The largest request accepted (default 1 MiB)"),
                    cl::init(1u << 20), cl::cat(category));
static cl::opt<unsigned> maxReplyBytes(
    "max-reply-bytes",
    cl::desc("The largest new artifact sent back; a larger one is answered "
             "NO_GAIN (default 256 MiB)"),
    cl::init(256u << 20), cl::cat(category));

/// The most profile records one request may carry, and requests waiting for
/// the one recompiling.
static constexpr int kMaxRecords = 4096;
static constexpr int kMaxWaiting = 4;

/// Whether `host` (of HOST:PORT) is a loopback address.
static bool isLoopback(StringRef host) {
  return host == "localhost" || host.starts_with("127.") || host == "[::1]" ||
         host == "::1";
}

namespace {
class Service final : public fdo::OrchestraJIT::Service {
public:
  Service(mlir::DialectRegistry &registry, std::set<uint64_t> known)
      : registry(registry), known(std::move(known)) {}

  grpc::Status RecompileKernel(grpc::ServerContext *,
                               const fdo::RecompileRequest *request,
                               fdo::RecompileReply *reply) override {
    uint64_t hash = request->artifact_hash();
    std::string name = jit::getEntryName(hash);
    if (!known.count(hash))
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "unknown artifact hash " + name +
                              " (not in the cache)");
    if (grpc::Status status = checkProfile(*request, name); !status.ok())
      return status;

    // One recompilation at a time, a short queue.
    if (waiting.fetch_add(1) >= kMaxWaiting) {
      waiting.fetch_sub(1);
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "too many recompilations waiting; try later");
    }
    std::lock_guard<std::mutex> lock(compileMutex);
    waiting.fetch_sub(1);

    // The profile, in a file named by numbers only, removed afterwards.
    std::string path = (cacheDir + sys::path::get_separator() + name + "-" +
                        std::to_string(nextRequest++) + ".profile")
                           .str();
    std::vector<fdo::DivergenceProfile> profiles(request->profiles().begin(),
                                                 request->profiles().end());
    std::string error;
    if (!::orchestra::profile::writeProfileFile(path, profiles, error))
      return grpc::Status(grpc::StatusCode::INTERNAL, error);
    std::string diagnostics;
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
    mlir::ScopedDiagnosticHandler handler(
        &context, [&](mlir::Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
            diagnostics += (diagnostics.empty() ? "" : "; ") + diagnostic.str();
          return mlir::success();
        });
    std::optional<mlir::tracing::InstallDebugHandler> debug;
    debug.emplace(context, mlir::tracing::DebugConfig::createFromCLOptions());
    FailureOr<jit::RecompileResult> result = jit::recompileWithProfile(
        context, cacheDir, hash, path, minGain, error);
    sys::fs::remove(path);
    if (failed(result)) {
      errs() << "orchestra-jit-server: recompiling " << name
             << " failed: " << error
             << (diagnostics.empty() ? "" : ": " + diagnostics) << "\n";
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          "recompiling " + name + " failed: " + error +
                              (diagnostics.empty() ? "" : ": " + diagnostics));
    }
    reply->set_predicted_gain(result->predictedGain);
    reply->set_reason(result->reason);
    switch (result->decision) {
    case jit::Decision::Disabled:
      reply->set_decision(fdo::RecompileReply::DISABLED);
      break;
    case jit::Decision::NoGain:
      reply->set_decision(fdo::RecompileReply::NO_GAIN);
      break;
    case jit::Decision::SwapArtifact:
      if (result->artifact.size() > maxReplyBytes) {
        reply->set_decision(fdo::RecompileReply::NO_GAIN);
        reply->set_reason("the new artifact has " +
                          std::to_string(result->artifact.size()) +
                          " bytes, more than --max-reply-bytes");
        break;
      }
      reply->set_decision(fdo::RecompileReply::SWAP_ARTIFACT);
      reply->set_artifact(result->artifact.data(), result->artifact.size());
      break;
    }
    outs() << "orchestra-jit-server: " << name << ": "
           << fdo::RecompileReply::Decision_Name(reply->decision()) << ": "
           << reply->reason() << "\n";
    outs().flush();
    return grpc::Status::OK;
  }

private:
  /// Checks the request's profile against the cached artifact's kernels and
  /// branch tables.
  grpc::Status checkProfile(const fdo::RecompileRequest &request,
                            const std::string &name) {
    auto invalid = [](const std::string &message) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
    };
    if (request.profiles_size() == 0)
      return invalid("the request carries no profile");
    if (request.profiles_size() > kMaxRecords)
      return invalid(
          "the request carries " + std::to_string(request.profiles_size()) +
          " profile records, more than " + std::to_string(kMaxRecords));
    orx::Artifact artifact;
    std::string error;
    std::string path =
        (cacheDir + sys::path::get_separator() + name + ".orcx").str();
    if (!orx::readArtifactFile(path, artifact, error))
      return grpc::Status(grpc::StatusCode::INTERNAL, error);
    std::map<std::string, size_t> branches;
    for (const orx::KernelDesc &kernel : artifact.kernels)
      branches[kernel.symbol] = kernel.branches.size();
    for (auto &[name, locations] : orx::getBranchTables(artifact))
      branches[name] = locations.size();
    if (!branches.count(request.kernel_id()))
      return invalid("kernel '" + request.kernel_id() +
                     "' is not a kernel of artifact " + name);
    for (int i = 0; i < request.profiles_size(); ++i) {
      const fdo::DivergenceProfile &profile = request.profiles(i);
      std::string what = "profile record " + std::to_string(i);
      if (profile.profile_version() != ::orchestra::profile::kProfileVersion)
        return invalid(what + ": profile_version " +
                       std::to_string(profile.profile_version()) +
                       ", this service reads " +
                       std::to_string(::orchestra::profile::kProfileVersion));
      auto it = branches.find(profile.kernel_name());
      if (it == branches.end())
        return invalid(what + ": kernel '" + profile.kernel_name() +
                       "' is not a kernel of artifact " + name);
      if (profile.branch_id() >= it->second)
        return invalid(what + ": kernel '" + profile.kernel_name() + "' has " +
                       std::to_string(it->second) + " profiled branch(es)");
      if (profile.path_outcome_counts_size() != 2)
        return invalid(what + ": " +
                       std::to_string(profile.path_outcome_counts_size()) +
                       " path outcome counts, expected 2");
      if (!(profile.divergence_rate() >= 0 && profile.divergence_rate() <= 1))
        return invalid(what + ": divergence rate " +
                       std::to_string(profile.divergence_rate()) +
                       " is not in [0, 1]");
    }
    return grpc::Status::OK;
  }

  mlir::DialectRegistry &registry;
  std::set<uint64_t> known;
  std::mutex compileMutex;
  std::atomic<int> waiting{0};
  uint64_t nextRequest = 0;
};
} // namespace

static std::unique_ptr<grpc::Server> server;

static void stop(int) {
  // Shutdown from a signal handler is not allowed; exit without cleanup
  // (the cache holds only whole files).
  std::_Exit(0);
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-jit-server");
  InitLLVM y(argc, argv);
  mlir::orchestra::registerAllPasses();
  mlir::tracing::DebugConfig::registerCLOptions();
  mlir::tracing::DebugCounter::registerCLOptions();
  cl::HideUnrelatedOptions(category);
  for (auto &option : cl::getRegisteredOptions())
    if (option.first == "log-actions-to" ||
        option.first == "mlir-debug-counter" ||
        option.first == "log-mlir-actions-filter")
      option.second->setHiddenFlag(cl::NotHidden);
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS feedback service\n\nRecompiles cached artifacts with the "
      "branch profiles running sessions send (gRPC, RecompileKernel; "
      "proto/orchestra_jit.proto).\n");

  StringRef host = StringRef(listen).rsplit(':').first;
  if (!isLoopback(host) && !allowRemote) {
    errs() << "orchestra-jit-server: error: '" << listen
           << "' is not a loopback address; pass --allow-remote to listen "
              "there (no TLS or authentication: trusted networks only)\n";
    return 1;
  }
  if (!sys::fs::is_directory(cacheDir)) {
    errs() << "orchestra-jit-server: error: --cache-dir '" << cacheDir
           << "' is not a directory\n";
    return 1;
  }
  std::vector<std::string> problems;
  std::vector<uint64_t> hashes = jit::scanCache(cacheDir, problems);
  for (const std::string &problem : problems)
    errs() << "orchestra-jit-server: warning: " << problem << "\n";

  mlir::DialectRegistry registry;
  mlir::orchestra::registerAllDialectsAndExtensions(registry);
  Service service(registry, std::set<uint64_t>(hashes.begin(), hashes.end()));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(maxRequestBytes));
  builder.SetMaxSendMessageSize(static_cast<int>(maxReplyBytes) + (1 << 20));
  builder.RegisterService(&service);
  server = builder.BuildAndStart();
  if (!server || port == 0) {
    errs() << "orchestra-jit-server: error: cannot listen on '" << listen
           << "'\n";
    return 1;
  }
  if (!portFile.empty()) {
    std::string text = std::to_string(port) + "\n";
    std::string error;
    if (!::orchestra::writeFileAtomically(portFile, text.data(), text.size(),
                                          error)) {
      errs() << "orchestra-jit-server: error: " << error << "\n";
      return 1;
    }
  }
  outs() << "orchestra-jit-server: listening on " << host << ":" << port << " ("
         << hashes.size() << " cached artifact(s) in " << cacheDir << ")\n";
  outs().flush();
  std::signal(SIGTERM, stop);
  std::signal(SIGINT, stop);
  server->Wait();
  return 0;
}
