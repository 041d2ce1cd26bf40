//===- orchestra-onnx-conformance.cpp - ONNX backend test-suite runner ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Runs the ONNX backend test suite (the `model.onnx` + `test_data_set_*/`
// directories of Debian's libonnx-testdata) through the whole OrchestraOS
// path: import, compile for the host topology, build the artifact, load it
// with the runtime, run every data set and compare every output.
//
// Each test runs in a forked child, so that a crash or a hang is contained
// and classified. The child reports over a pipe in lines of the form
//
//   STAGE <import|compile|artifact|run|...>   (where a later crash happened)
//   OPS <op type>...                          (for the per-op report)
//   NOTE <text>                               (shown with -v)
//   RESULT <PASS|FAIL|UNSUPPORTED|CRASH|SKIPPED> <one-line reason>
//
// and its stdout/stderr go to a second pipe that -v shows for tests that do
// not pass. The parent never compiles or runs a model itself; it schedules
// children and writes the summary, the expectations and the Markdown report.
//
// With --peer, a peer runtime (ONNX Runtime) runs every test too, in one
// long-lived process beside the children (PeerRuntime.h); the parent compares
// its outputs with the test data through the same routine (TestData.h).
//
// The parts: this file (options and the driver's loop), Child.cpp (one test,
// in the child), Children.cpp (forking, reading and classifying children),
// Report.cpp (result lines, summary, Markdown report, expectations),
// TestData.cpp (test data and comparisons), PeerRuntime.cpp (the peer).
//
//===----------------------------------------------------------------------===//

#include "Children.h"
#include "PeerRuntime.h"
#include "Report.h"
#include "TestData.h"

#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <map>
#include <memory>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;
namespace cl = llvm::cl;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("orchestra-onnx-conformance options");

static cl::opt<std::string> suiteOption(
    "suite",
    cl::desc("Suites to run: node, pytorch-converted, pytorch-operator, "
             "simple, real, or all (the first four); a comma-separated list "
             "picks several"),
    cl::value_desc("name"), cl::init("all"), cl::cat(category));
static cl::opt<std::string>
    filterOption("filter",
                 cl::desc("Run only the tests whose 'suite/test' name "
                          "matches REGEX (anywhere; anchor with ^ and $)"),
                 cl::value_desc("REGEX"), cl::cat(category));
static cl::opt<unsigned> sampleOption(
    "sample",
    cl::desc("Run one selected test in N: those whose 'suite/test' name "
             "hashes to 0 modulo N, the same ones on every run (the lit "
             "suite on a sanitized build, where compiles take twice as "
             "long); 1 runs them all"),
    cl::value_desc("N"), cl::init(1), cl::cat(category));
static cl::opt<unsigned>
    jobsOption("jobs",
               cl::desc("Tests run at a time, each in its own process "
                        "(default: the number of cores)"),
               cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::alias jobsAlias("j", cl::desc("Alias for --jobs"),
                           cl::aliasopt(jobsOption), cl::cat(category));
static cl::opt<std::string> dataDirOption(
    "data-dir", cl::desc("Directory holding one subdirectory per suite"),
    cl::value_desc("DIR"), cl::init("/usr/share/libonnx-testdata/data"),
    cl::cat(category));
static cl::opt<std::string> topologyOption(
    "topology",
    cl::desc("The topology every test is compiled for: 'host' or a file "
             "(a topology with StableHLO devices runs them through the PJRT "
             "plugin of $ORCHESTRA_PJRT_PLUGIN or its pjrt_plugin key)"),
    cl::value_desc("host|FILE"), cl::init("host"), cl::cat(category));
static cl::opt<std::string> expectOption(
    "expect",
    cl::desc("Tests expected to pass ('suite/test' per line, '#' comments); "
             "exit with status 1 when one of them does not pass"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> updateOption(
    "update-expectations",
    cl::desc("Write the sorted list of passing tests to FILE (entries of "
             "tests outside this run's --suite/--filter are kept)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    reportOption("report-md",
                 cl::desc("Write a Markdown report (per suite, per op of the "
                          "node suite, and every test that does not pass)"),
                 cl::value_desc("FILE"), cl::cat(category));
static cl::list<std::string> otherTopologyOption(
    "report-other",
    cl::desc("Also report, in --report-md, how many tests of each suite the "
             "expectations FILE of another topology lists as passing "
             "(repeatable)"),
    cl::value_desc("LABEL=FILE"), cl::cat(category));
static cl::opt<unsigned>
    timeoutOption("timeout",
                  cl::desc("CPU seconds a test may use before it is killed "
                           "and counted as failed; a test whose CPU time "
                           "stops growing for as long is killed too "
                           "(default: 120; 0: no limit)"),
                  cl::value_desc("SECONDS"), cl::init(120), cl::cat(category));
static cl::opt<bool> verboseOption(
    "v",
    cl::desc("Show the time of each test, bound inputs, and the diagnostics "
             "and stderr of every test that does not pass"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> peerOption(
    "peer",
    cl::desc("Run every test in a peer runtime too, on the same inputs, and "
             "compare its outputs the same way, so that the summary and the "
             "report show both pass rates: 'onnxruntime' (ONNX Runtime's CPU "
             "execution provider, run by --peer-python)"),
    cl::value_desc("name"), cl::cat(category));
static cl::opt<std::string> peerPythonOption(
    "peer-python",
    cl::desc("The Python interpreter, with numpy, onnx and onnxruntime, that "
             "runs the peer (default: " ORCHESTRA_DEFAULT_PEER_PYTHON ")"),
    cl::value_desc("PATH"), cl::init(ORCHESTRA_DEFAULT_PEER_PYTHON),
    cl::cat(category));
// Testing hooks for the runner's own tests: make a child crash or hang.
static cl::opt<std::string>
    injectCrashOption("inject-crash",
                      cl::desc("(testing) tests matching REGEX raise SIGSEGV "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));
static cl::opt<std::string> injectHangOption(
    "inject-hang",
    cl::desc("(testing) tests matching REGEX spin forever when "
             "the compile starts"),
    cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

static cl::opt<std::string>
    injectStallOption("inject-stall",
                      cl::desc("(testing) tests matching REGEX wait forever "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The command line, for the report and the expectations header.
static std::string getCommandLine(int argc, char **argv) {
  std::string command = llvm::sys::path::filename(argv[0]).str();
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
      return llvm::isAlnum(c) || StringRef("-_=./,:+@%").contains(c);
    });
    command += " " + (plain ? arg.str() : "'" + arg.str() + "'");
  }
  return command;
}

/// Where the build puts the peer's script: share/orchestra/ beside the
/// runner's bin/.
static std::string getPeerScriptPath(const char *argv0, const PeerKind &kind) {
  std::string executable = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&getPeerScriptPath));
  SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(path, "share", "orchestra", kind.script);
  return path.str().str();
}

static int usageError(const llvm::Twine &message) {
  llvm::errs() << "orchestra-onnx-conformance: error: " << message << "\n";
  return 2;
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-onnx-conformance");
  llvm::InitLLVM init(argc, argv);
  orchestra::registerAllPasses();
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS ONNX backend test-suite runner\n\n"
      "Imports, compiles (topology 'host') and runs every test of the ONNX\n"
      "backend test data, each in its own process, and compares the outputs\n"
      "(floats: rtol 1e-3, atol 1e-7; integers and bools exactly). Prints\n"
      "PASS, FAIL, UNSUPPORTED (a diagnostic says 'unsupported'), CRASH (a\n"
      "signal or an internal error) or SKIPPED (training) per test, then\n"
      "per-suite counts and 'N passed, M failed'. With --peer=onnxruntime,\n"
      "ONNX Runtime runs every test too, and its results are shown beside\n"
      "OrchestraOS's (a line per test, a table per suite, the report's\n"
      "columns); they do not change the exit status.\n\n"
      "Examples:\n"
      "  orchestra-onnx-conformance --suite node --filter 'test_(add|mul)'\n"
      "  orchestra-onnx-conformance --suite all --jobs 8 "
      "--report-md results.md\n"
      "  orchestra-onnx-conformance --expect expected-passes.txt\n"
      "  orchestra-onnx-conformance --update-expectations "
      "expected-passes.txt\n"
      "  orchestra-onnx-conformance --filter '^node/test_relu$' -v\n"
      "  orchestra-onnx-conformance --suite all --peer=onnxruntime "
      "--report-md results.md\n\n"
      "Exit status: 0; 1 when a test listed by --expect does not pass or a\n"
      "test crashes; 2 on a usage error or when the peer cannot run.\n");
  std::string command = getCommandLine(argc, argv);

  // Suites.
  std::vector<std::string> suites;
  SmallVector<StringRef> suiteNames;
  StringRef(suiteOption).split(suiteNames, ',', -1, /*KeepEmpty=*/false);
  for (StringRef name : suiteNames) {
    name = name.trim();
    if (name == "all") {
      suites.insert(suites.end(), std::begin(kDefaultSuites),
                    std::end(kDefaultSuites));
    } else if (llvm::is_contained(kKnownSuites, name)) {
      suites.push_back(name.str());
    } else {
      return usageError("unknown suite '" + name +
                        "' (known: node, pytorch-converted, pytorch-operator, "
                        "simple, real, all)");
    }
  }
  std::sort(suites.begin(), suites.end());
  suites.erase(std::unique(suites.begin(), suites.end()), suites.end());
  if (suites.empty())
    return usageError("no suite given");
  bool explicitSuites = StringRef(suiteOption) != "all";

  const PeerKind *peerKind = nullptr;
  if (!peerOption.empty()) {
    peerKind = lookupPeerKind(peerOption);
    if (!peerKind)
      return usageError("unknown peer '" + peerOption +
                        "' (known: " + getKnownPeerNames() + ")");
  }

  std::optional<llvm::Regex> filter;
  auto compileRegex = [](StringRef text, std::optional<llvm::Regex> &regex,
                         StringRef option) {
    if (text.empty())
      return true;
    regex.emplace(text);
    std::string error;
    if (!regex->isValid(error)) {
      usageError("invalid --" + option + " regex '" + text + "': " + error);
      return false;
    }
    return true;
  };
  ChildConfig config;
  if (!compileRegex(filterOption, filter, "filter") ||
      !compileRegex(injectCrashOption, config.injectCrash, "inject-crash") ||
      !compileRegex(injectHangOption, config.injectHang, "inject-hang") ||
      !compileRegex(injectStallOption, config.injectStall, "inject-stall"))
    return 2;

  // The pipeline is checked once here (the strategy scripts are found);
  // every child compiles with the same options.
  config.compileOptions.topology = topologyOption;
  if (llvm::Expected<Topology> topology =
          Topology::resolve(topologyOption, getTargetRegistry());
      !topology)
    return usageError(llvm::toString(topology.takeError()));
  std::string pipelineError;
  if (failed(buildCompilePipeline(config.compileOptions, pipelineError)))
    return usageError(pipelineError);

  std::set<std::string> expected;
  if (!expectOption.empty()) {
    std::string error;
    if (!readExpectations(expectOption, expected, error))
      return usageError("cannot read '" + expectOption + "': " + error);
  }

  // Tests: every directory of each selected suite.
  if (sampleOption == 0)
    return usageError("--sample must be at least 1");
  auto isSelected = [&](StringRef suite, StringRef id) {
    return llvm::is_contained(suites, suite) &&
           (!filter || filter->match(id)) &&
           (sampleOption == 1 || llvm::xxh3_64bits(id) % sampleOption == 0);
  };
  if (!llvm::sys::fs::is_directory(dataDirOption))
    return usageError("'" + dataDirOption + "' is not a directory");
  std::vector<TestCase> tests;
  unsigned withoutModel = 0;
  for (const std::string &suite : suites) {
    SmallString<256> suiteDir(dataDirOption);
    llvm::sys::path::append(suiteDir, suite);
    if (!llvm::sys::fs::is_directory(suiteDir)) {
      if (explicitSuites)
        return usageError("no suite '" + suite + "' in '" + dataDirOption +
                          "'");
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(suiteDir, ec), end;
         it != end && !ec; it.increment(ec)) {
      if (!llvm::sys::fs::is_directory(it->path()))
        continue;
      TestCase test{suite, llvm::sys::path::filename(it->path()).str(),
                    it->path()};
      if (!isSelected(suite, test.getId()))
        continue;
      // The `real` suite ships only download links (data.json).
      SmallString<256> model(it->path());
      llvm::sys::path::append(model, "model.onnx");
      if (!llvm::sys::fs::exists(model)) {
        ++withoutModel;
        continue;
      }
      tests.push_back(std::move(test));
    }
  }
  if (withoutModel)
    llvm::errs() << "orchestra-onnx-conformance: note: " << withoutModel
                 << " test directories without model.onnx were skipped\n";
  // Suites in report order, tests by name: the order of a --jobs 1 run.
  auto suiteRank = [](StringRef suite) {
    return llvm::find(kKnownSuites, suite) - std::begin(kKnownSuites);
  };
  llvm::sort(tests, [&](const TestCase &a, const TestCase &b) {
    return std::make_pair(suiteRank(a.suite), a.name) <
           std::make_pair(suiteRank(b.suite), b.name);
  });
  if (tests.empty())
    llvm::errs() << "orchestra-onnx-conformance: warning: no test selected\n";

  unsigned jobs = jobsOption
                      ? unsigned(jobsOption)
                      : std::max(1u, std::thread::hardware_concurrency());
  unsigned timeout = timeoutOption;
  numRunningSlots = jobs;
  runningGroups.reset(new volatile sig_atomic_t[jobs]());
  llvm::sys::SetInterruptFunction(killRunningChildren);

  // The peer starts before the first test: one that cannot run ends the
  // run before it begins.
  std::unique_ptr<PeerRuntime> peer;
  PeerRun peerRun;
  if (peerKind) {
    std::string script = getPeerScriptPath(argv[0], *peerKind);
    llvm::Expected<std::unique_ptr<PeerRuntime>> started =
        PeerRuntime::start(*peerKind, peerPythonOption, script);
    if (!started)
      return usageError("--peer=" + peerKind->option +
                        " cannot run: " + llvm::toString(started.takeError()));
    peer = std::move(*started);
    peerGroup = std::max<pid_t>(peer->getPid(), 0);
    peerRun.kind = peerKind;
    peerRun.version = peer->getVersion().str();
    peerRun.results.resize(tests.size());
  }

  // Run: at most `jobs` children, and the peer beside them one test at a
  // time; a test's result is printed once both have finished it.
  auto startTime = std::chrono::steady_clock::now();
  std::vector<TestResult> results(tests.size());
  std::vector<bool> finished(tests.size());
  std::vector<std::optional<Child>> slots(jobs);
  Progress progress(tests.size());
  size_t next = 0, nextForPeer = 0, done = 0, notPassing = 0;
  CPUTimeLimit peerLimit;
  llvm::raw_ostream &os = llvm::outs();
  auto report = [&](size_t index) {
    if (!finished[index] || (peer && !peerRun.results[index]))
      return;
    progress.clear();
    const TestResult &result = results[index];
    printResultLine(os, tests[index], result);
    if (peer)
      printPeerResultLine(os, *peerKind, *peerRun.results[index],
                          verboseOption);
    if (verboseOption)
      printDetails(os, result);
    os.flush();
    ++done;
    if (result.outcome != Outcome::Pass && result.outcome != Outcome::Skipped)
      ++notPassing;
  };
  while (done < tests.size()) {
    for (unsigned slot = 0; slot < jobs && next < tests.size(); ++slot) {
      if (slots[slot])
        continue;
      Child child;
      size_t index = next++;
      if (!spawnChild(tests, index, config, child, results[index])) {
        finished[index] = true;
        report(index);
        continue;
      }
      runningGroups[slot] = child.pid;
      slots[slot] = std::move(child);
    }
    if (peer && !peer->isBusy() && nextForPeer < tests.size()) {
      peer->submit(nextForPeer, tests[nextForPeer].dir);
      peerLimit = CPUTimeLimit(peer->getPid());
      ++nextForPeer;
    }

    std::vector<pollfd> fds;
    for (std::optional<Child> &child : slots) {
      if (!child)
        continue;
      for (int fd : {child->messageFd, child->logFd})
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    }
    if (peer && peer->getReplyFd() >= 0)
      fds.push_back({peer->getReplyFd(), POLLIN, 0});
    // A short timeout also notices children that exited while a tool they
    // started still holds their stderr.
    ::poll(fds.data(), fds.size(), 50);

    size_t running = 0;
    for (unsigned slot = 0; slot < jobs; ++slot) {
      std::optional<Child> &child = slots[slot];
      if (!child)
        continue;
      drainMessages(*child);
      drainLog(*child);
      if (child->timedOut.empty() && !child->gotResult) {
        child->timedOut = child->cpuLimit.check(timeout);
        if (!child->timedOut.empty()) {
          ::kill(-child->pid, SIGKILL);
          ::kill(child->pid, SIGKILL);
        }
      }
      int status = 0;
      pid_t waited = ::waitpid(child->pid, &status, WNOHANG);
      if (waited == 0) {
        ++running;
        continue;
      }
      if (waited < 0)
        status = 0;
      // Tools the child started die with it.
      ::kill(-child->pid, SIGKILL);
      finalizeChild(*child, status);
      results[child->test] = std::move(child->result);
      runningGroups[slot] = 0;
      size_t index = child->test;
      finished[index] = true;
      child.reset();
      report(index);
    }

    if (peer) {
      if (peer->isBusy()) {
        std::string timedOut = peerLimit.check(timeout);
        if (!timedOut.empty())
          peer->abort(timedOut + " (in " + peerKind->title.str() + ")");
      }
      if (std::optional<std::pair<size_t, PeerResult>> result = peer->poll()) {
        result->second.reason = makeOneLine(result->second.reason);
        peerRun.results[result->first] = std::move(result->second);
        report(result->first);
      }
      // A peer that died was started again.
      peerGroup = std::max<pid_t>(peer->getPid(), 0);
    }
    progress.update(done, running, notPassing);
  }
  progress.clear();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - startTime)
                       .count();

  // The summary does not depend on the order in which tests finished.
  printSummary(os, tests, results, peerRun);
  os << "Time: " << llvm::format("%.1f", seconds) << " s with " << jobs
     << " job(s)\n";

  int exitCode = 0;
  std::vector<size_t> crashes;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome == Outcome::Crash)
      crashes.push_back(i);
  if (!crashes.empty()) {
    os << "\nCrashes (" << crashes.size() << "):\n";
    for (size_t i : crashes) {
      os << "  ";
      printResultLine(os, tests[i], results[i]);
    }
    exitCode = 1;
  }

  llvm::StringMap<size_t> indexById;
  for (size_t i = 0; i < tests.size(); ++i)
    indexById[tests[i].getId()] = i;
  if (!expectOption.empty()) {
    // Regressions: expected passes of this run's selection that did not
    // pass or were not found.
    std::vector<std::string> regressions;
    for (const std::string &id : expected) {
      StringRef suite = StringRef(id).split('/').first;
      if (!isSelected(suite, id))
        continue;
      auto it = indexById.find(id);
      if (it == indexById.end()) {
        regressions.push_back("MISSING     " + id +
                              ": no such test in the data directory");
        continue;
      }
      const TestResult &result = results[it->second];
      if (result.outcome == Outcome::Pass)
        continue;
      std::string line;
      llvm::raw_string_ostream lineStream(line);
      printResultLine(lineStream, tests[it->second], result);
      regressions.push_back(StringRef(line).rtrim().str());
    }
    if (!regressions.empty()) {
      os << "\nExpected to pass (" << expectOption << ") but did not ("
         << regressions.size() << "):\n";
      for (const std::string &line : regressions)
        os << "  " << line << "\n";
      exitCode = 1;
    }
    unsigned newPasses = 0;
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass &&
          !expected.count(tests[i].getId()))
        ++newPasses;
    if (newPasses)
      os << "\n"
         << newPasses << " tests pass that are not in " << expectOption
         << "; run with --update-expectations " << expectOption
         << " to add them\n";
  }

  if (!updateOption.empty()) {
    // Entries outside this run's selection stay; the selection's entries
    // are replaced by its passes.
    std::set<std::string> passing;
    if (llvm::sys::fs::exists(updateOption)) {
      std::string error;
      if (!readExpectations(updateOption, passing, error))
        return usageError("cannot read '" + updateOption + "': " + error);
      for (auto it = passing.begin(); it != passing.end();) {
        StringRef suite = StringRef(*it).split('/').first;
        it = isSelected(suite, *it) ? passing.erase(it) : std::next(it);
      }
    }
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass)
        passing.insert(tests[i].getId());
    std::string error;
    if (!writeExpectations(updateOption, command, passing, error))
      return usageError("cannot write '" + updateOption + "': " + error);
    os << "\nWrote " << passing.size() << " expected passes to " << updateOption
       << "\n";
  }

  if (!reportOption.empty()) {
    std::vector<OtherTopology> others;
    for (const std::string &spec : otherTopologyOption) {
      auto [label, file] = StringRef(spec).split('=');
      if (label.empty() || file.empty())
        return usageError("--report-other takes LABEL=FILE, got '" + spec +
                          "'");
      others.push_back({label.str(), file.str()});
    }
    std::string error;
    if (!writeReport(reportOption, command, dataDirOption, tests, results,
                     peerRun, others, error))
      return usageError("cannot write '" + reportOption + "': " + error);
  }

  unsigned passed = 0, failed = 0;
  for (const TestResult &result : results) {
    if (result.outcome == Outcome::Pass)
      ++passed;
    else if (result.outcome != Outcome::Skipped)
      ++failed;
  }
  if (peerRun.kind) {
    unsigned peerPassed = 0, peerFailed = 0;
    for (size_t i = 0; i < tests.size(); ++i) {
      if (results[i].outcome == Outcome::Skipped)
        continue;
      if (peerRun.passed(i))
        ++peerPassed;
      else
        ++peerFailed;
    }
    os << "\n"
       << peerRun.kind->option << " " << peerRun.version << ": " << peerPassed
       << " passed, " << peerFailed << " failed";
  }
  os << "\n" << passed << " passed, " << failed << " failed\n";
  os.flush();
  return exitCode;
}
