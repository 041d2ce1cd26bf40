//===- PeerRuntime.cpp - Another runtime on the same tests ----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "PeerRuntime.h"
#include "TestData.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;

/// How long the peer may take to import its packages and say READY.
static constexpr std::chrono::seconds kStartTimeout(60);

static const PeerKind kPeerKinds[] = {
    {"onnxruntime", "ONNX Runtime", "ORT", "onnxruntime_peer.py"},
};

const PeerKind *conformance::lookupPeerKind(StringRef option) {
  for (const PeerKind &kind : kPeerKinds)
    if (kind.option == option)
      return &kind;
  return nullptr;
}

std::string conformance::getKnownPeerNames() {
  return llvm::join(
      llvm::map_range(kPeerKinds,
                      [](const PeerKind &kind) { return kind.option; }),
      ", ");
}

bool conformance::readAvailable(int fd, std::string &buffer) {
  char chunk[8192];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    return false;
  }
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Comparing the peer's outputs with the test data
//===----------------------------------------------------------------------===//

/// Compares the outputs the peer wrote for each data set of the test in
/// `testDir` with its output_<i>.pb, as the runner compares its own.
static PeerResult compareWithTestData(
    StringRef testDir,
    const std::map<std::pair<std::string, unsigned>, std::string> &outputs) {
  PeerResult result;
  SmallString<256> modelPath(testDir);
  llvm::sys::path::append(modelPath, "model.onnx");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> modelFile =
      llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!modelFile ||
      (*modelFile)->getBufferSize() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray((*modelFile)->getBufferStart(),
                            static_cast<int>((*modelFile)->getBufferSize()))) {
    result.reason = "model.onnx does not parse here, but the peer ran it";
    return result;
  }
  const auto &graphOutputs = model.graph().output();

  std::vector<std::pair<int, std::string>> dataSets = listDataSets(testDir);
  if (dataSets.empty()) {
    result.reason = "no test_data_set_* directory";
    return result;
  }
  for (const auto &dataSet : dataSets) {
    const std::string &dir = dataSet.second;
    std::string name = llvm::sys::path::filename(dir).str();
    std::string where = dataSets.size() > 1 ? name + ": " : "";
    auto getExpectedPath = [&](unsigned i) {
      SmallString<256> path(dir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".pb");
      return path;
    };
    unsigned numExpected = 0;
    while (llvm::sys::fs::exists(getExpectedPath(numExpected)))
      ++numExpected;
    unsigned numGot = llvm::count_if(
        outputs, [&](const auto &entry) { return entry.first.first == name; });
    if (numGot != numExpected) {
      result.reason = where + "the peer has " + std::to_string(numGot) +
                      " outputs, the test data " + std::to_string(numExpected);
      return result;
    }

    std::vector<std::string> mismatches;
    for (unsigned i = 0; i < numExpected; ++i) {
      auto it = outputs.find({name, i});
      if (it == outputs.end() || int(i) >= graphOutputs.size()) {
        result.reason = where + "output " + std::to_string(i) +
                        " is not an output of the graph";
        return result;
      }
      const onnx::ValueInfoProto &info = graphOutputs.Get(i);
      std::string what =
          "output " + std::to_string(i) + " ('" + info.name() + "'): ";
      TensorError error;
      std::optional<HostValue> expected =
          readValueFile(getExpectedPath(i), info.type(), error);
      if (!expected) {
        result.reason = name + "/output_" + std::to_string(i) + ".pb: " +
                        (error.unsupportedType ? "unsupported: " : "") +
                        error.message;
        return result;
      }
      std::optional<HostValue> got =
          readValueFile(it->second, info.type(), error);
      if (!got) {
        result.reason = where + what + "the peer's output: " + error.message;
        return result;
      }
      std::string difference = compareValue(*expected, *got);
      if (!difference.empty())
        mismatches.push_back(what + difference);
    }
    if (!mismatches.empty()) {
      result.reason = where + mismatches.front();
      if (mismatches.size() > 1)
        result.reason += " (and " + std::to_string(mismatches.size() - 1) +
                         " more output(s) differ)";
      return result;
    }
  }
  result.passed = true;
  return result;
}

//===----------------------------------------------------------------------===//
// The process
//===----------------------------------------------------------------------===//

/// Writes `text` to `fd`, a pipe whose reader may have died. SIGPIPE, which
/// would end the runner, is held back and discarded: the write fails, and
/// the caller notices the dead reader some other way.
static void writeIgnoringBrokenPipe(int fd, StringRef text) {
  sigset_t pipeSignal, previous;
  sigemptyset(&pipeSignal);
  sigaddset(&pipeSignal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous);
  const char *data = text.data();
  size_t left = text.size();
  bool broken = false;
  while (left) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      broken = errno == EPIPE;
      break;
    }
    data += written;
    left -= written;
  }
  if (broken) {
    timespec noWait = {0, 0};
    sigtimedwait(&pipeSignal, nullptr, &noWait);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

llvm::Expected<std::unique_ptr<PeerRuntime>>
PeerRuntime::start(const PeerKind &kind, StringRef python, StringRef script) {
  if (!llvm::sys::fs::exists(python))
    return makeError("the Python interpreter '" + python +
                     "' does not exist (scripts/setup.sh creates the "
                     "checkout's .venv; or pass --peer-python)");
  if (!llvm::sys::fs::can_execute(python))
    return makeError("the Python interpreter '" + python +
                     "' is not executable");
  if (!llvm::sys::fs::exists(script))
    return makeError("the peer script '" + script +
                     "' does not exist (the build copies it there)");
  SmallString<128> workDir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
          "orchestra-onnx-conformance-" + kind.option, workDir))
    return makeError("cannot create a directory for the peer's outputs: " +
                     ec.message());
  std::unique_ptr<PeerRuntime> peer(
      new PeerRuntime(kind, python.str(), script.str(), workDir.str().str()));
  if (llvm::Error error = peer->launch())
    return std::move(error);
  return peer;
}

PeerRuntime::~PeerRuntime() {
  stop();
  llvm::sys::fs::remove_directories(workDir);
}

llvm::Error PeerRuntime::launch() {
  int request[2], reply[2];
  if (::pipe2(request, O_CLOEXEC) != 0)
    return makeError(llvm::Twine("cannot create a pipe: ") + strerror(errno));
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(request[0]);
    ::close(request[1]);
    return makeError(llvm::Twine("cannot create a pipe: ") + strerror(errno));
  }
  // The peer's stderr (Python tracebacks, the runtime's own log) goes to a
  // file: it would garble the runner's output, and its last line explains
  // a peer that dies. Each process starts it afresh.
  SmallString<128> logPath(workDir);
  llvm::sys::path::append(logPath, "peer.log");
  int logFd =
      ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  // Buffered output would be written twice, once by each process.
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t child = ::fork();
  if (child < 0) {
    for (int fd : {request[0], request[1], reply[0], reply[1], logFd})
      if (fd >= 0)
        ::close(fd);
    return makeError(llvm::Twine("cannot fork: ") + strerror(errno));
  }
  if (child == 0) {
    // Its own process group, so that a kill takes whatever it started.
    ::setpgid(0, 0);
    ::dup2(request[0], STDIN_FILENO);
    ::dup2(reply[1], STDOUT_FILENO);
    if (logFd >= 0)
      ::dup2(logFd, STDERR_FILENO);
    ::signal(SIGPIPE, SIG_DFL);
    ::execl(python.c_str(), python.c_str(), script.c_str(), (char *)nullptr);
    dprintf(STDERR_FILENO, "cannot run %s: %s\n", python.c_str(),
            strerror(errno));
    ::_exit(127);
  }
  ::setpgid(child, child);
  ::close(request[0]);
  ::close(reply[1]);
  if (logFd >= 0)
    ::close(logFd);
  pid = child;
  requestFd = request[1];
  replyFd = reply[0];
  ::fcntl(replyFd, F_SETFL, O_NONBLOCK);
  replyBuffer.clear();

  std::string command = "'" + python + " " + script + "'";
  auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (true) {
    size_t newline = replyBuffer.find('\n');
    if (newline != std::string::npos) {
      StringRef line = StringRef(replyBuffer).take_front(newline);
      auto [kindField, text] = line.split('\t');
      if (kindField == "READY") {
        version = text.str();
        replyBuffer.erase(0, newline + 1);
        return llvm::Error::success();
      }
      std::string message = kindField == "ERROR"
                                ? text.str()
                                : "unexpected first line '" + line.str() + "'";
      stop();
      return makeError(command + ": " + message);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop();
      return makeError(command + " did not start within " +
                       std::to_string(kStartTimeout.count()) + " s");
    }
    pollfd fd = {replyFd, POLLIN, 0};
    ::poll(&fd, 1, static_cast<int>(left.count()));
    if (!readAvailable(replyFd, replyBuffer) &&
        replyBuffer.find('\n') == std::string::npos) {
      std::string log = getLastLogLine();
      stop();
      return makeError(command + " ended before it was ready" +
                       (log.empty() ? "" : ": " + log));
    }
  }
}

int PeerRuntime::stop() {
  if (requestFd >= 0)
    ::close(requestFd);
  if (replyFd >= 0)
    ::close(replyFd);
  requestFd = replyFd = -1;
  if (pid < 0)
    return 0;
  // Without its stdin the script ends; give it a moment, then kill it.
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 100 && !exited; ++i) {
    exited = ::waitpid(pid, &status, WNOHANG) != 0;
    if (!exited)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // What it started dies with it.
  ::kill(-pid, SIGKILL);
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  pid = -1;
  return status;
}

std::string PeerRuntime::getLastLogLine() const {
  SmallString<128> logPath(workDir);
  llvm::sys::path::append(logPath, "peer.log");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> log =
      llvm::MemoryBuffer::getFile(logPath, /*IsText=*/true);
  if (!log)
    return "";
  SmallVector<StringRef> lines;
  (*log)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : llvm::reverse(lines))
    if (!line.trim().empty())
      return line.trim().str();
  return "";
}

void PeerRuntime::submit(size_t id, StringRef testDir) {
  assert(!current && !pending && "the peer runs one test at a time");
  auto fail = [&](std::string reason) {
    pending = {id, PeerResult{false, std::move(reason), 0}};
  };
  if (!brokenReason.empty())
    return fail(brokenReason);
  if (testDir.find_first_of("\t\n") != StringRef::npos)
    return fail("the test's path has a tab or a newline");
  SmallString<128> outputDir(workDir);
  llvm::sys::path::append(outputDir, std::to_string(id));
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create '" + outputDir.str().str() +
                "': " + ec.message());

  current = RunningTest{id,
                        testDir.str(),
                        outputDir.str().str(),
                        std::chrono::steady_clock::now(),
                        {}};
  // A peer that died is noticed by poll(), at the end of its replies.
  writeIgnoringBrokenPipe(requestFd, "RUN\t" + testDir.str() + "\t" +
                                         outputDir.str().str() + "\n");
}

void PeerRuntime::abort(StringRef reason) {
  if (!current || pid < 0)
    return;
  abortReason = reason.str();
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

PeerResult PeerRuntime::diedResult(int status) {
  PeerResult result;
  std::string how;
  if (WIFSIGNALED(status))
    how = "signal " + std::to_string(WTERMSIG(status)) + " (" +
          strsignal(WTERMSIG(status)) + ")";
  else if (WIFEXITED(status))
    how = "exit status " + std::to_string(WEXITSTATUS(status));
  else
    how = "no status";
  result.reason = "the " + kind.title.str() + " peer ended (" + how +
                  ") while running the test";
  std::string log = getLastLogLine();
  if (!log.empty())
    result.reason += ": " + log;
  return result;
}

std::optional<PeerResult> PeerRuntime::handleLine(StringRef line) {
  SmallVector<StringRef> fields;
  line.split(fields, '\t');
  if (fields[0] == "OUTPUT" && fields.size() == 4) {
    unsigned index;
    if (!fields[2].getAsInteger(10, index)) {
      current->outputs[{fields[1].str(), index}] = fields[3].str();
      return std::nullopt;
    }
  }
  if (fields[0] == "DONE" && fields.size() == 1)
    return compareWithTestData(current->testDir, current->outputs);
  if (fields[0] == "ERROR" && fields.size() >= 2)
    return PeerResult{false, line.split('\t').second.str(), 0};
  return PeerResult{false,
                    "unexpected reply from the peer: '" + line.str() + "'", 0};
}

std::optional<std::pair<size_t, PeerResult>> PeerRuntime::poll() {
  if (pending) {
    std::optional<std::pair<size_t, PeerResult>> result = std::move(pending);
    pending.reset();
    return result;
  }
  if (!current || replyFd < 0)
    return std::nullopt;

  auto finish = [&](PeerResult result) {
    result.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - current->start)
                         .count();
    llvm::sys::fs::remove_directories(current->outputDir);
    size_t id = current->id;
    current.reset();
    return std::make_pair(id, std::move(result));
  };

  bool open = readAvailable(replyFd, replyBuffer);
  size_t newline;
  while ((newline = replyBuffer.find('\n')) != std::string::npos) {
    std::string line = replyBuffer.substr(0, newline);
    replyBuffer.erase(0, newline + 1);
    std::optional<PeerResult> result = handleLine(line);
    if (!result)
      continue;
    bool confused = StringRef(result->reason).starts_with("unexpected reply");
    auto finished = finish(std::move(*result));
    // Replies out of step with the requests: start afresh.
    if (confused || !replyBuffer.empty()) {
      stop();
      if (llvm::Error error = launch())
        brokenReason = "the peer could not be restarted: " +
                       llvm::toString(std::move(error));
    }
    return finished;
  }
  if (open)
    return std::nullopt;

  // The process ended (or was killed) while running the test: report it,
  // and start another for the next test.
  int status = stop();
  PeerResult result = abortReason.empty() ? diedResult(status)
                                          : PeerResult{false, abortReason, 0};
  abortReason.clear();
  auto finished = finish(std::move(result));
  if (llvm::Error error = launch())
    brokenReason =
        "the peer could not be restarted: " + llvm::toString(std::move(error));
  return finished;
}
