//===- Outcomes.h - Tests and their results -------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What the parent and the children of orchestra-onnx-conformance share: the
// suites, a test, its outcome and result, and the peer's part of a run.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_OUTCOMES_H
#define ORCHESTRA_ONNX_CONFORMANCE_OUTCOMES_H

#include "PeerRuntime.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mlir::orchestra::conformance {

/// The suites `--suite all` runs, in report order. `real` (whole models,
/// large) runs only when asked for.
inline const char *const kDefaultSuites[] = {"node", "pytorch-converted",
                                             "pytorch-operator", "simple"};
inline const char *const kKnownSuites[] = {
    "node", "pytorch-converted", "pytorch-operator", "simple", "real"};

/// The domain of the training ops; tests that import it are not counted.
inline const char kTrainingDomain[] = "ai.onnx.preview.training";

/// The one-line reasons are cut at this many characters.
inline constexpr size_t kMaxReasonLength = 500;
/// The parent keeps at most this many bytes of a child's output (its end).
inline constexpr size_t kMaxLogBytes = 64 * 1024;

//===----------------------------------------------------------------------===//
// Outcomes
//===----------------------------------------------------------------------===//

enum class Outcome { Pass, Fail, Unsupported, Crash, Skipped };

/// One test: `<data-dir>/<suite>/<name>/`.
struct TestCase {
  std::string suite;
  std::string name;
  std::string dir;
  std::string getId() const { return suite + "/" + name; }
};

/// What the parent knows about a finished test.
struct TestResult {
  Outcome outcome = Outcome::Crash;
  std::string reason;
  /// Distinct op types of the top-level graph, sorted.
  std::vector<std::string> opTypes;
  /// The last stage the child announced.
  std::string stage = "start";
  std::vector<std::string> notes;
  /// The end of the child's stdout and stderr.
  std::string log;
  double seconds = 0;
};

/// The peer's part of a run (--peer).
struct PeerRun {
  /// Null when no peer ran.
  const PeerKind *kind = nullptr;
  std::string version;
  /// By test.
  std::vector<std::optional<PeerResult>> results;

  /// Whether the peer passed test `index`.
  bool passed(size_t index) const {
    return kind && results[index] && results[index]->passed;
  }
};

inline llvm::StringRef getOutcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Pass:
    return "PASS";
  case Outcome::Fail:
    return "FAIL";
  case Outcome::Unsupported:
    return "UNSUPPORTED";
  case Outcome::Crash:
    return "CRASH";
  case Outcome::Skipped:
    return "SKIPPED";
  }
  llvm_unreachable("unknown outcome");
}

inline std::optional<Outcome> parseOutcome(llvm::StringRef name) {
  for (Outcome outcome : {Outcome::Pass, Outcome::Fail, Outcome::Unsupported,
                          Outcome::Crash, Outcome::Skipped})
    if (name == getOutcomeName(outcome))
      return outcome;
  return std::nullopt;
}

/// Makes `text` one line (newlines and tabs become spaces, runs of spaces
/// collapse) of at most kMaxReasonLength characters.
inline std::string makeOneLine(llvm::StringRef text) {
  std::string line;
  for (char c : text.trim()) {
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
    if (c == ' ' && !line.empty() && line.back() == ' ')
      continue;
    line.push_back(c);
  }
  if (line.size() > kMaxReasonLength)
    line = line.substr(0, kMaxReasonLength - 3) + "...";
  return line;
}

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_OUTCOMES_H
