//===- Children.h - Running tests in forked children ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The parent side of orchestra-onnx-conformance: forking a child per test,
// reading its messages and log, limiting its CPU time, classifying how it
// ended, and taking the children along on Ctrl-C.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_CHILDREN_H
#define ORCHESTRA_ONNX_CONFORMANCE_CHILDREN_H

#include "Child.h"
#include "Outcomes.h"

#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

namespace mlir::orchestra::conformance {

/// The CPU time (user + system) process `pid` has used, in seconds; 0 when
/// /proc does not say.
double getCPUSeconds(pid_t pid);

/// The limit on a process's CPU time (--timeout) while it runs one test:
/// exceeded when the test has used more than the limit, or when the
/// process's CPU time has not grown for as long (a deadlock, a wait on
/// something that never comes). The limit is on CPU time, so that a loaded
/// machine does not turn slow passes into timeouts.
class CPUTimeLimit {
public:
  CPUTimeLimit() = default;
  explicit CPUTimeLimit(pid_t pid)
      : pid(pid), start(std::chrono::steady_clock::now()),
        startCPUSeconds(getCPUSeconds(pid)) {}

  /// Why the test is over a limit of `seconds`; empty while it is not.
  /// Looks at the process once a second.
  std::string check(unsigned seconds) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!seconds || pid < 0 || elapsed < lastCheck + 1)
      return "";
    lastCheck = elapsed;
    double cpu = getCPUSeconds(pid) - startCPUSeconds;
    if (cpu > lastCPUSeconds) {
      lastCPUSeconds = cpu;
      lastProgress = elapsed;
    }
    if (cpu > seconds)
      return "timeout: more than " + std::to_string(seconds) + " s of CPU time";
    if (elapsed > lastProgress + seconds)
      return "timeout: no progress (CPU time) for " + std::to_string(seconds) +
             " s";
    return "";
  }

private:
  pid_t pid = -1;
  std::chrono::steady_clock::time_point start;
  double startCPUSeconds = 0;
  /// The test's CPU seconds at the last check, and the elapsed seconds at
  /// that check and when its CPU time last grew.
  double lastCPUSeconds = 0;
  double lastCheck = 0;
  double lastProgress = 0;
};

/// A running child.
struct Child {
  pid_t pid = -1;
  size_t test = 0;
  int messageFd = -1;
  int logFd = -1;
  std::string messageBuffer;
  std::chrono::steady_clock::time_point start;
  /// Why the child was killed for taking too long; empty if it was not.
  std::string timedOut;
  CPUTimeLimit cpuLimit;
  bool gotResult = false;
  TestResult result;
};

/// Process groups of the running children and of the peer, for the
/// interrupt handler.
extern std::unique_ptr<volatile sig_atomic_t[]> runningGroups;
extern unsigned numRunningSlots;
extern volatile sig_atomic_t peerGroup;

/// On Ctrl-C (called from LLVM's signal handler), takes the children, each
/// in its own process group, along and ends the run without a summary.
void killRunningChildren();

/// Reads what `child` has sent on its message pipe and handles each line.
void drainMessages(Child &child);
/// Reads the end of `child`'s stdout and stderr.
void drainLog(Child &child);
/// Classifies a child that has exited with wait status `status`.
void finalizeChild(Child &child, int status);
/// Forks the child of `tests[index]`. Returns false (and fills `result`)
/// when no process could be started.
bool spawnChild(const std::vector<TestCase> &tests, size_t index,
                const ChildConfig &config, Child &child, TestResult &result);

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_CHILDREN_H
