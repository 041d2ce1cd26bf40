//===- Report.h - Results, summary, report and expectations ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What orchestra-onnx-conformance prints and writes: a line per test (and
// per peer result), live progress, the per-suite summary, the Markdown
// report with the per-op table, and the expectations file.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_REPORT_H
#define ORCHESTRA_ONNX_CONFORMANCE_REPORT_H

#include "Outcomes.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <set>
#include <string>
#include <vector>

namespace mlir::orchestra::conformance {

/// "PASS        node/test_add", "FAIL        node/test_x: reason".
void printResultLine(llvm::raw_ostream &os, const TestCase &test,
                     const TestResult &result);

/// "    onnxruntime: PASS", "    onnxruntime: FAIL: reason"; with -v, the
/// time too.
void printPeerResultLine(llvm::raw_ostream &os, const PeerKind &kind,
                         const PeerResult &result, bool verbose);

/// With -v: the time, the notes and, for tests that do not pass, the
/// child's diagnostics and stderr.
void printDetails(llvm::raw_ostream &os, const TestResult &result);

void printSummary(llvm::raw_ostream &os, const std::vector<TestCase> &tests,
                  const std::vector<TestResult> &results,
                  const PeerRun &peerRun);

/// The expected passes of the suites on another topology (a list that a
/// test of that topology keeps), for the report.
struct OtherTopology {
  /// What the topology is, in words.
  std::string label;
  /// Its expectations file, as given (relative to the working directory).
  std::string expectations;
};

bool writeReport(StringRef path, StringRef command, StringRef dataDir,
                 const std::vector<TestCase> &tests,
                 const std::vector<TestResult> &results, const PeerRun &peerRun,
                 const std::vector<OtherTopology> &others, std::string &error);

/// Reads `suite/test` lines; '#' starts a comment.
bool readExpectations(StringRef path, std::set<std::string> &tests,
                      std::string &error);

bool writeExpectations(StringRef path, StringRef command,
                       const std::set<std::string> &tests, std::string &error);

/// Live progress on a terminal: one line on stderr, rewritten in place.
class Progress {
public:
  Progress(size_t total)
      : total(total), enabled(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Erases the progress line before a result line is printed.
  void clear() {
    if (enabled && shown)
      llvm::errs() << "\r\x1b[K";
    shown = false;
  }

  void update(size_t done, size_t running, size_t failed) {
    if (!enabled)
      return;
    llvm::errs() << "\r\x1b[K[" << done << "/" << total << "] " << running
                 << " running, " << failed << " not passing";
    llvm::errs().flush();
    shown = true;
  }

private:
  size_t total;
  bool enabled;
  bool shown = false;
};

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_REPORT_H
