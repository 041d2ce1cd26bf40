//===- PeerRuntime.h - Another runtime on the same tests --------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A peer runtime runs the same tests as OrchestraOS so that the report can
// show both pass rates side by side. The peer is one long-lived process, a
// Python script (onnxruntime_peer.py for ONNX Runtime), that takes one test
// at a time over a line protocol on its stdin and stdout:
//
//   at startup  <- READY <version>  |  ERROR <why>
//   RUN <test dir> <output dir>
//               <- OUTPUT <data set> <index> <file>   (per output)
//                  DONE  |  ERROR <stage>: <message>
//
// The peer only runs models. Its outputs, written in the test data's own
// format, are compared here with the test data by the runner's comparison
// (TestData.h), with the tolerances OrchestraOS's outputs get.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_PEERRUNTIME_H
#define ORCHESTRA_ONNX_CONFORMANCE_PEERRUNTIME_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

namespace mlir::orchestra::conformance {

/// A peer the runner knows: its option value, its names, its script.
struct PeerKind {
  /// The value of --peer: "onnxruntime".
  llvm::StringRef option;
  /// For prose: "ONNX Runtime".
  llvm::StringRef title;
  /// For table headers: "ORT".
  llvm::StringRef shortName;
  /// The script's file name, looked up next to the runner's share files.
  llvm::StringRef script;
};

/// The peers --peer accepts; none when `option` is not one of them.
const PeerKind *lookupPeerKind(llvm::StringRef option);
/// "onnxruntime", for messages.
std::string getKnownPeerNames();

/// Reads what the non-blocking `fd` has into `buffer`; returns false at end
/// of file (or on an error).
bool readAvailable(int fd, std::string &buffer);

/// How one test went in the peer.
struct PeerResult {
  bool passed = false;
  /// Why it did not pass (one line): the peer's error or the difference.
  std::string reason;
  double seconds = 0;
};

/// The peer process. Not thread-safe; the runner's one loop drives it.
class PeerRuntime {
public:
  /// Starts `python script` and waits until it says it is ready. Errors say
  /// why it cannot run (no such interpreter, a missing package, ...).
  static llvm::Expected<std::unique_ptr<PeerRuntime>>
  start(const PeerKind &kind, llvm::StringRef python, llvm::StringRef script);

  /// Ends the process and removes the outputs it wrote.
  ~PeerRuntime();

  const PeerKind &getKind() const { return kind; }
  /// The version the peer reported: "1.32.0".
  llvm::StringRef getVersion() const { return version; }

  /// Whether a test is running in the peer.
  bool isBusy() const { return current.has_value(); }
  /// The process, for the CPU-time limit; -1 when none is running.
  pid_t getPid() const { return pid; }
  /// The fd to poll for the peer's replies; -1 when none is running.
  int getReplyFd() const { return replyFd; }

  /// Sends test `id` (the data in `testDir`) to the idle peer. Where the
  /// peer cannot take it (it died and does not restart), the result is
  /// ready at once through poll().
  void submit(size_t id, llvm::StringRef testDir);

  /// Reads what the peer has written. Returns the finished test and its
  /// result once the peer is done with it (or died running it: then it is
  /// started again for the next test).
  std::optional<std::pair<size_t, PeerResult>> poll();

  /// Kills the peer because the running test took too long; poll() then
  /// reports the test as failed with `reason`.
  void abort(llvm::StringRef reason);

private:
  PeerRuntime(const PeerKind &kind, std::string python, std::string script,
              std::string workDir)
      : kind(kind), python(std::move(python)), script(std::move(script)),
        workDir(std::move(workDir)) {}

  /// Starts the process and waits for READY.
  llvm::Error launch();
  /// Closes the pipes, lets the process end (killing it when it does not),
  /// reaps it and returns its wait status.
  int stop();
  /// Handles one complete reply line; returns the result when the test is
  /// done.
  std::optional<PeerResult> handleLine(llvm::StringRef line);
  /// The result of a test the process died running.
  PeerResult diedResult(int status);
  /// The last line the process wrote to its stderr (its log file).
  std::string getLastLogLine() const;

  struct RunningTest {
    size_t id;
    std::string testDir;
    std::string outputDir;
    std::chrono::steady_clock::time_point start;
    /// (data set name, output index) -> file.
    std::map<std::pair<std::string, unsigned>, std::string> outputs;
  };

  const PeerKind &kind;
  std::string python, script, workDir;
  std::string version;
  pid_t pid = -1;
  int requestFd = -1, replyFd = -1;
  std::string replyBuffer;
  std::optional<RunningTest> current;
  /// Why the running test was aborted; empty when it was not.
  std::string abortReason;
  /// A result that is ready without the process (submitted to a peer that
  /// cannot start).
  std::optional<std::pair<size_t, PeerResult>> pending;
  /// Why the peer cannot run any more; empty while it can.
  std::string brokenReason;
};

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_PEERRUNTIME_H
