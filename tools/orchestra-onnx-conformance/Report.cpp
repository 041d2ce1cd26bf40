//===- Report.cpp - Results, summary, report and expectations -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "TestData.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// "PASS        node/test_add", "FAIL        node/test_x: reason".
void conformance::printResultLine(llvm::raw_ostream &os, const TestCase &test,
                                  const TestResult &result) {
  os << llvm::left_justify(getOutcomeName(result.outcome), 11) << " "
     << test.getId();
  if (!result.reason.empty())
    os << ": " << result.reason;
  os << "\n";
}

/// "    onnxruntime: PASS", "    onnxruntime: FAIL: reason"; with -v, the
/// time too.
void conformance::printPeerResultLine(llvm::raw_ostream &os,
                                      const PeerKind &kind,
                                      const PeerResult &result, bool verbose) {
  os << "    " << kind.option << ": " << (result.passed ? "PASS" : "FAIL");
  if (!result.reason.empty())
    os << ": " << result.reason;
  os << "\n";
  if (verbose)
    os << "    " << kind.option
       << " time: " << llvm::format("%.2f", result.seconds) << " s\n";
}

/// With -v: the time, the notes and, for tests that do not pass, the
/// child's diagnostics and stderr.
void conformance::printDetails(llvm::raw_ostream &os,
                               const TestResult &result) {
  os << "    time: " << llvm::format("%.2f", result.seconds) << " s\n";
  for (const std::string &note : result.notes)
    os << "    note: " << note << "\n";
  if (result.outcome == Outcome::Pass || result.outcome == Outcome::Skipped)
    return;
  SmallVector<StringRef> lines;
  StringRef(result.log).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    os << "    | " << line << "\n";
}

namespace {
/// Per-suite (or per-op) counts.
struct Counts {
  unsigned pass = 0, fail = 0, unsupported = 0, crash = 0, skipped = 0;

  void add(Outcome outcome) {
    switch (outcome) {
    case Outcome::Pass:
      ++pass;
      break;
    case Outcome::Fail:
      ++fail;
      break;
    case Outcome::Unsupported:
      ++unsupported;
      break;
    case Outcome::Crash:
      ++crash;
      break;
    case Outcome::Skipped:
      ++skipped;
      break;
    }
  }
  /// The tests that count: all but the skipped training tests.
  unsigned counted() const { return pass + fail + unsupported + crash; }

  /// With a peer, of the tests that count: those the peer passes, those
  /// only the peer passes and those only OrchestraOS passes.
  unsigned peerPass = 0, onlyPeer = 0, onlyOurs = 0;

  void addPeer(Outcome outcome, bool peerPassed) {
    if (outcome == Outcome::Skipped)
      return;
    bool passed = outcome == Outcome::Pass;
    peerPass += peerPassed;
    onlyPeer += peerPassed && !passed;
    onlyOurs += passed && !peerPassed;
  }
};
} // namespace

/// Counts test `index` of the run, and the peer's result when a peer ran.
static void countTest(Counts &counts, size_t index,
                      const std::vector<TestResult> &results,
                      const PeerRun &peerRun) {
  counts.add(results[index].outcome);
  if (peerRun.kind)
    counts.addPeer(results[index].outcome, peerRun.passed(index));
}

/// Counts per suite and in total.
static void countBySuite(const std::vector<TestCase> &tests,
                         const std::vector<TestResult> &results,
                         const PeerRun &peerRun,
                         std::map<std::string, Counts> &bySuite,
                         Counts &total) {
  for (size_t i = 0; i < tests.size(); ++i) {
    countTest(bySuite[tests[i].suite], i, results, peerRun);
    countTest(total, i, results, peerRun);
  }
}

static std::string formatPercent(unsigned part, unsigned whole) {
  if (!whole)
    return "-";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.1f%%", 100.0 * part / whole);
  return text;
}

/// "12 (34.5%)", right-aligned in `width`.
static std::string formatCount(unsigned part, unsigned whole, unsigned width) {
  std::string text =
      std::to_string(part) + " (" + formatPercent(part, whole) + ")";
  if (text.size() < width)
    text.insert(0, width - text.size(), ' ');
  return text;
}

/// The suites that appear in `tests`, in report order.
static std::vector<std::string>
getSuitesInOrder(const std::vector<TestCase> &tests) {
  std::vector<std::string> suites;
  for (const char *suite : kKnownSuites)
    if (llvm::any_of(tests,
                     [&](const TestCase &t) { return t.suite == suite; }))
      suites.push_back(suite);
  return suites;
}

void conformance::printSummary(llvm::raw_ostream &os,
                               const std::vector<TestCase> &tests,
                               const std::vector<TestResult> &results,
                               const PeerRun &peerRun) {
  std::map<std::string, Counts> bySuite;
  Counts total;
  countBySuite(tests, results, peerRun, bySuite, total);
  os << "\nResults by suite (percentages of the tests that are not skipped "
        "training tests):\n";
  os << llvm::left_justify("suite", 18) << llvm::right_justify("tests", 6)
     << llvm::right_justify("pass", 15) << llvm::right_justify("fail", 15)
     << llvm::right_justify("unsupported", 15)
     << llvm::right_justify("crash", 15) << llvm::right_justify("training", 9)
     << "\n";
  auto printRow = [&](StringRef name, const Counts &c) {
    unsigned n = c.counted();
    os << llvm::left_justify(name, 18)
       << llvm::right_justify(std::to_string(n), 6)
       << formatCount(c.pass, n, 15) << formatCount(c.fail, n, 15)
       << formatCount(c.unsupported, n, 15) << formatCount(c.crash, n, 15)
       << llvm::right_justify(std::to_string(c.skipped), 9) << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    printRow(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    printRow("total", total);
  os << "Pass rate (excluding training tests):";
  for (const std::string &suite : getSuitesInOrder(tests))
    os << " " << suite << " "
       << formatPercent(bySuite[suite].pass, bySuite[suite].counted()) << ";";
  os << " total " << formatPercent(total.pass, total.counted()) << "\n";
  if (!peerRun.kind)
    return;

  StringRef peerName = peerRun.kind->option;
  os << "\nResults of " << peerRun.kind->title << " " << peerRun.version
     << " (--peer=" << peerName
     << ") on the same tests, compared the same way:\n";
  std::string onlyPeer = ("only " + peerName).str();
  os << llvm::left_justify("suite", 18) << llvm::right_justify("tests", 6)
     << llvm::right_justify("pass", 15)
     << llvm::right_justify(onlyPeer, std::max<size_t>(onlyPeer.size(), 10) + 2)
     << llvm::right_justify("only OrchestraOS", 18) << "\n";
  auto printPeerRow = [&](StringRef name, const Counts &c) {
    unsigned n = c.counted();
    os << llvm::left_justify(name, 18)
       << llvm::right_justify(std::to_string(n), 6)
       << formatCount(c.peerPass, n, 15)
       << llvm::right_justify(std::to_string(c.onlyPeer),
                              std::max<size_t>(onlyPeer.size(), 10) + 2)
       << llvm::right_justify(std::to_string(c.onlyOurs), 18) << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    printPeerRow(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    printPeerRow("total", total);
  os << "Pass rate of " << peerName << " (excluding training tests):";
  for (const std::string &suite : getSuitesInOrder(tests))
    os << " " << suite << " "
       << formatPercent(bySuite[suite].peerPass, bySuite[suite].counted())
       << ";";
  os << " total " << formatPercent(total.peerPass, total.counted()) << "\n";
}

/// Markdown: characters that would start markup are escaped.
static std::string escapeMarkdown(StringRef text) {
  std::string result;
  for (char c : text) {
    if (StringRef("\\`*_[]<>|").contains(c))
      result.push_back('\\');
    result.push_back(c);
  }
  return result;
}

/// The tests of the run that count (not skipped training tests) and
/// satisfy `predicate`, by id.
template <typename Predicate>
static std::vector<size_t> selectTests(const std::vector<TestCase> &tests,
                                       const std::vector<TestResult> &results,
                                       Predicate predicate) {
  std::vector<size_t> selected;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome != Outcome::Skipped && predicate(i))
      selected.push_back(i);
  llvm::sort(selected, [&](size_t a, size_t b) {
    return tests[a].getId() < tests[b].getId();
  });
  return selected;
}

/// Writes `text` to `path` whole or not at all (a temporary file renamed
/// over it).
static bool writeText(StringRef path, const std::string &text,
                      std::string &error) {
  if (llvm::Error failure =
          llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
            os << text;
            return llvm::Error::success();
          })) {
    error = llvm::toString(std::move(failure));
    return false;
  }
  return true;
}

bool conformance::writeReport(StringRef path, StringRef command,
                              StringRef dataDir,
                              const std::vector<TestCase> &tests,
                              const std::vector<TestResult> &results,
                              const PeerRun &peerRun,
                              const std::vector<OtherTopology> &others,
                              std::string &error) {
  // Read first: a list that cannot be read writes no report.
  std::vector<std::map<std::string, unsigned>> otherCounts;
  for (const OtherTopology &other : others) {
    std::set<std::string> passing;
    if (!readExpectations(other.expectations, passing, error)) {
      error = "cannot read '" + other.expectations + "': " + error;
      return false;
    }
    std::map<std::string, unsigned> &bySuite = otherCounts.emplace_back();
    for (const std::string &id : passing)
      ++bySuite[id.substr(0, id.find('/'))];
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  const PeerKind *peer = peerRun.kind;
  os << "# ONNX backend test suite results\n\n"
     << "<!-- Generated by orchestra-onnx-conformance; do not edit. -->\n\n"
     << "Generated with `" << command << "` from the ONNX backend test "
     << "data in `" << dataDir << "`. Each test is imported, compiled "
     << "for the `host` topology and run; floating-point outputs must match "
     << "within rtol " << kToleranceText[0] << " and atol " << kToleranceText[1]
     << ", integers and bools exactly.";
  if (peer)
    os << " Each test also runs in " << peer->title << " " << peerRun.version
       << " (\"" << peer->shortName
       << "\" below; CPU execution provider, every graph optimisation, one "
          "thread) "
       << "on the same inputs; its outputs are compared the same way, with "
       << "the same tolerances. A model " << peer->shortName
       << " does not load or run counts as a failure.";
  os << "\n\n";

  std::map<std::string, Counts> bySuite;
  Counts total;
  countBySuite(tests, results, peerRun, bySuite, total);
  os << "## By suite\n\n"
     << "| Suite | Tests | Pass | Fail | Unsupported | Crash | Pass rate |";
  if (peer)
    os << " " << peer->shortName << " pass | " << peer->shortName
       << " rate | Only " << peer->shortName << " | Only OrchestraOS |";
  os << "\n|---|---:|---:|---:|---:|---:|---:|";
  if (peer)
    os << "---:|---:|---:|---:|";
  os << "\n";
  auto row = [&](StringRef name, const Counts &c) {
    os << "| " << name << " | " << c.counted() << " | " << c.pass << " | "
       << c.fail << " | " << c.unsupported << " | " << c.crash << " | "
       << formatPercent(c.pass, c.counted()) << " |";
    if (peer)
      os << " " << c.peerPass << " | " << formatPercent(c.peerPass, c.counted())
         << " | " << c.onlyPeer << " | " << c.onlyOurs << " |";
    os << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    row(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    row("**total**", total);
  os << "\nTraining tests (models that import `" << kTrainingDomain
     << "`) are not counted: " << total.skipped << " skipped.\n";

  if (!others.empty()) {
    os << "\n## On other topologies\n\n"
       << "The tests each list names pass when compiled for that topology; "
          "the test that runs them there keeps the list (and fails when one "
          "of them does not pass).\n\n"
       << "| Topology | Suite | Pass | Of | List |\n|---|---|---:|---:|---|\n";
    for (auto [other, passes] : llvm::zip(others, otherCounts))
      for (const auto &[suite, count] : passes)
        os << "| " << other.label << " | " << suite << " | " << count << " | "
           << bySuite[suite].counted() << " | `" << other.expectations
           << "` |\n";
  }

  // Per op type of the node suite: a test counts under each distinct op
  // type of its top-level graph.
  std::map<std::string, Counts> byOp;
  for (size_t i = 0; i < tests.size(); ++i)
    if (tests[i].suite == "node" && results[i].outcome != Outcome::Skipped)
      for (const std::string &op : results[i].opTypes)
        countTest(byOp[op], i, results, peerRun);
  if (!byOp.empty()) {
    os << "\n## Node tests by op type\n\n"
       << "A test counts under every op type of its graph; crashes count "
          "as failures.\n\n"
       << "| Op | Tests | Pass | Fail | Unsupported |";
    if (peer)
      os << " " << peer->shortName << " pass | Only " << peer->shortName
         << " | Only OrchestraOS |";
    os << "\n|---|---:|---:|---:|---:|";
    if (peer)
      os << "---:|---:|---:|";
    os << "\n";
    for (auto &[op, c] : byOp) {
      os << "| " << escapeMarkdown(op) << " | " << c.counted() << " | "
         << c.pass << " | " << c.fail + c.crash << " | " << c.unsupported
         << " |";
      if (peer)
        os << " " << c.peerPass << " | " << c.onlyPeer << " | " << c.onlyOurs
           << " |";
      os << "\n";
    }
  }

  std::vector<size_t> failing = selectTests(tests, results, [&](size_t i) {
    return results[i].outcome != Outcome::Pass;
  });
  os << "\n## Tests that do not pass\n\n";
  if (failing.empty())
    os << "None.\n";
  else if (peer)
    os << "**" << peer->shortName << " passes** marks the tests " << peer->title
       << " passes.\n\n";
  for (size_t i : failing) {
    os << "- `" << tests[i].getId() << "`";
    if (peerRun.passed(i))
      os << " (**" << peer->shortName << " passes**)";
    os << ": " << getOutcomeName(results[i].outcome).lower() << " — "
       << escapeMarkdown(results[i].reason) << "\n";
  }
  if (!peer)
    return writeText(path, text, error);

  std::vector<size_t> peerFailing =
      selectTests(tests, results, [&](size_t i) { return !peerRun.passed(i); });
  os << "\n## Tests " << peer->title << " does not pass\n\n";
  if (peerFailing.empty())
    os << "None.\n";
  else
    os << "With " << peer->shortName << "'s error or how its outputs "
       << "differ; **OrchestraOS passes** marks the tests OrchestraOS "
       << "passes.\n\n";
  for (size_t i : peerFailing) {
    os << "- `" << tests[i].getId() << "`";
    if (results[i].outcome == Outcome::Pass)
      os << " (**OrchestraOS passes**)";
    const std::optional<PeerResult> &result = peerRun.results[i];
    os << ": " << escapeMarkdown(result ? result->reason : "no result") << "\n";
  }
  return writeText(path, text, error);
}

//===----------------------------------------------------------------------===//
// Expectations
//===----------------------------------------------------------------------===//

/// Reads `suite/test` lines; '#' starts a comment.
bool conformance::readExpectations(StringRef path, std::set<std::string> &tests,
                                   std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = file.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      tests.insert(line.str());
  }
  return true;
}

bool conformance::writeExpectations(StringRef path, StringRef command,
                                    const std::set<std::string> &tests,
                                    std::string &error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "# ONNX backend tests (suite/test) that pass with OrchestraOS.\n"
     << "# Generated by: " << command << "\n"
     << "# orchestra-onnx-conformance --expect fails when one of them stops "
        "passing;\n"
     << "# regenerate with --update-expectations after a converter lands.\n";
  for (const std::string &test : tests)
    os << test << "\n";
  return writeText(path, text, error);
}
