//===- Children.cpp - Running tests in forked children --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Children.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;

/// The CPU time (user + system) process `pid` has used, in seconds; 0 when
/// /proc does not say.
double conformance::getCPUSeconds(pid_t pid) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileAsStream("/proc/" + std::to_string(pid) +
                                          "/stat");
  if (!file)
    return 0;
  // "pid (comm) state ppid ... utime stime ...": utime and stime are the
  // 14th and 15th fields; comm may contain spaces, so count after ')'.
  StringRef text = (*file)->getBuffer();
  size_t paren = text.rfind(')');
  if (paren == StringRef::npos)
    return 0;
  SmallVector<StringRef> fields;
  text.drop_front(paren + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  uint64_t user = 0, system = 0;
  if (fields.size() < 13 || fields[11].getAsInteger(10, user) ||
      fields[12].getAsInteger(10, system))
    return 0;
  return double(user + system) / ::sysconf(_SC_CLK_TCK);
}

/// Process groups of the running children and of the peer, for the
/// interrupt handler.
std::unique_ptr<volatile sig_atomic_t[]> conformance::runningGroups;
unsigned conformance::numRunningSlots = 0;
volatile sig_atomic_t conformance::peerGroup = 0;

/// On Ctrl-C (called from LLVM's signal handler), takes the children, each
/// in its own process group, along and ends the run without a summary.
void conformance::killRunningChildren() {
  for (unsigned i = 0; i < numRunningSlots; ++i)
    if (pid_t group = runningGroups[i])
      ::kill(-group, SIGKILL);
  if (pid_t group = peerGroup)
    ::kill(-group, SIGKILL);
  ::_exit(130);
}

static std::string getSignalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "";
  }
}

/// The line of a crash log that says what went wrong: a failed assertion,
/// an LLVM fatal error, an unreachable.
static std::string findCrashMessage(StringRef log) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines)
    if (line.contains("Assertion") || line.contains("LLVM ERROR") ||
        line.contains("UNREACHABLE") || line.contains("terminate called"))
      return makeOneLine(line);
  return "";
}

/// Handles one complete line of a child's messages.
static void handleMessage(Child &child, StringRef line) {
  auto [kind, text] = line.split(' ');
  if (kind == "STAGE") {
    child.result.stage = text.str();
  } else if (kind == "OPS") {
    SmallVector<StringRef> ops;
    text.split(ops, ' ', -1, /*KeepEmpty=*/false);
    child.result.opTypes.assign(ops.begin(), ops.end());
  } else if (kind == "NOTE") {
    child.result.notes.push_back(text.str());
  } else if (kind == "RESULT" && !child.gotResult) {
    auto [name, reason] = text.split(' ');
    if (std::optional<Outcome> outcome = parseOutcome(name)) {
      child.gotResult = true;
      child.result.outcome = *outcome;
      child.result.reason = reason.str();
    }
  }
}

void conformance::drainMessages(Child &child) {
  if (child.messageFd < 0)
    return;
  bool open = readAvailable(child.messageFd, child.messageBuffer);
  size_t newline;
  while ((newline = child.messageBuffer.find('\n')) != std::string::npos) {
    handleMessage(child, StringRef(child.messageBuffer).take_front(newline));
    child.messageBuffer.erase(0, newline + 1);
  }
  if (!open) {
    ::close(child.messageFd);
    child.messageFd = -1;
  }
}

void conformance::drainLog(Child &child) {
  if (child.logFd < 0)
    return;
  bool open = readAvailable(child.logFd, child.result.log);
  if (child.result.log.size() > kMaxLogBytes)
    child.result.log.erase(0, child.result.log.size() - kMaxLogBytes);
  if (!open) {
    ::close(child.logFd);
    child.logFd = -1;
  }
}

/// Classifies a child that has exited with wait status `status`.
void conformance::finalizeChild(Child &child, int status) {
  drainMessages(child);
  drainLog(child);
  if (child.messageFd >= 0)
    ::close(child.messageFd);
  if (child.logFd >= 0)
    ::close(child.logFd);
  TestResult &result = child.result;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - child.start)
                       .count();
  if (child.gotResult)
    return;
  if (!child.timedOut.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = child.timedOut + " (during " + result.stage + ")";
    return;
  }
  result.outcome = Outcome::Crash;
  std::string detail = findCrashMessage(result.log);
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    std::string name = getSignalName(signal);
    result.reason = "signal " + std::to_string(signal) +
                    (name.empty() ? "" : " (" + name + ")") + " during " +
                    result.stage;
    if (signal == SIGKILL)
      result.reason += " (killed from outside; out of memory?)";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    result.reason = "exited with status " +
                    std::to_string(WEXITSTATUS(status)) + " during " +
                    result.stage;
  } else {
    result.reason = "exited without a result during " + result.stage;
  }
  if (!detail.empty())
    result.reason = makeOneLine(result.reason + ": " + detail);
}

/// Forks the child of `tests[index]`. Returns false (and fills `result`)
/// when no process could be started.
bool conformance::spawnChild(const std::vector<TestCase> &tests, size_t index,
                             const ChildConfig &config, Child &child,
                             TestResult &result) {
  int messagePipe[2], logPipe[2];
  if (::pipe2(messagePipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    return false;
  }
  if (::pipe2(logPipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    ::close(messagePipe[0]);
    ::close(messagePipe[1]);
    return false;
  }
  // Buffered output would be written twice, once by each process.
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot fork: ") + strerror(errno);
    for (int fd : {messagePipe[0], messagePipe[1], logPipe[0], logPipe[1]})
      ::close(fd);
    return false;
  }
  if (pid == 0) {
    // Child: its own process group (a timeout kills the tools it started
    // too), stdin from /dev/null, stdout and stderr into the log pipe.
    ::setpgid(0, 0);
    llvm::sys::SetInterruptFunction(nullptr);
    ::close(messagePipe[0]);
    ::close(logPipe[0]);
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0)
      ::dup2(null, STDIN_FILENO);
    ::dup2(logPipe[1], STDOUT_FILENO);
    ::dup2(logPipe[1], STDERR_FILENO);
    childMain(tests[index], config, messagePipe[1]);
  }
  ::setpgid(pid, pid);
  ::close(messagePipe[1]);
  ::close(logPipe[1]);
  ::fcntl(messagePipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(logPipe[0], F_SETFL, O_NONBLOCK);
  child.pid = pid;
  child.test = index;
  child.messageFd = messagePipe[0];
  child.logFd = logPipe[0];
  child.start = std::chrono::steady_clock::now();
  child.cpuLimit = CPUTimeLimit(pid);
  return true;
}
