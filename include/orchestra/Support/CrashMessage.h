//===- CrashMessage.h - What a crashing tool tells its user -----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The tools link LLVM, whose signal handlers print "PLEASE submit a bug
// report to https://github.com/llvm/llvm-project/issues/" above the stack of
// a crash: the wrong project for a bug of ours. Each tool's main calls
// setCrashMessage first, so a crash names the tool and says how to report
// it; LLVM still prints the stack.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_CRASHMESSAGE_H
#define ORCHESTRA_SUPPORT_CRASHMESSAGE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/PrettyStackTrace.h"

#include <string>

namespace mlir::orchestra {

/// Makes LLVM's crash handler print OrchestraOS's message for `tool`.
inline void setCrashMessage(llvm::StringRef tool) {
  // Read by the signal handler: it must outlive main.
  static std::string message;
  message = tool.str() +
            " crashed. This is a bug in OrchestraOS, not in your input: "
            "please report it to the OrchestraOS developers with the command "
            "line, the input and the stack below (for a compile, "
            "--mlir-pass-pipeline-crash-reproducer=repro.mlir also saves the "
            "IR that crashed).\n";
  llvm::setBugReportMsg(message.c_str());
}

} // namespace mlir::orchestra

#endif // ORCHESTRA_SUPPORT_CRASHMESSAGE_H
