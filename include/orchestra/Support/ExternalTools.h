//===- ExternalTools.h - Programs the compiler runs -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The vendor compilers and helpers some passes run as subprocesses (the
// StableHLO bridge, neuronx-cc, orchestra-pjrt-compile): how they are found,
// run, and fed files.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_EXTERNALTOOLS_H
#define ORCHESTRA_SUPPORT_EXTERNALTOOLS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::orchestra {

/// Finds the program `name`: `option`, else $`envVar`, else beside the
/// running tool (build/bin, an install's bin), else on PATH. An option or
/// variable that names no executable is an error (`error` set); found
/// nowhere: std::nullopt with `error` empty.
std::optional<std::string> findTool(StringRef name, StringRef option,
                                    StringRef envVar, std::string &error);

/// Runs `args` (the program first) for at most `seconds`. `printed`
/// receives what it printed (stdout and stderr, trimmed); on failure, when
/// it printed nothing, the launcher's message or the exit status.
/// `exitStatus`, when given, receives the exit status.
LogicalResult runTool(ArrayRef<StringRef> args, unsigned seconds,
                      std::string &printed, int *exitStatus = nullptr);

/// Writes `content` to `path`; an error on `op` when it cannot.
LogicalResult writeFile(Operation *op, StringRef path, StringRef content);

/// Reads `path` whole, or nothing.
std::vector<uint8_t> readFile(StringRef path);

/// Runs a tool that turns one source file into one output file (an
/// assembler): writes `source` as `sourceName` in a temporary folder, runs
/// `args` (the program first) with "{in}" and "{out}" replaced by the paths
/// of the source and of `outputName` there, and returns the output's bytes.
/// On failure returns failure with `printed` set to the tool's messages,
/// the temporary folder removed from the paths in them (so that they name
/// `sourceName:line`), or to why the tool could not run.
FailureOr<std::vector<uint8_t>>
runToolOnSource(Operation *op, ArrayRef<StringRef> args, StringRef sourceName,
                StringRef source, StringRef outputName, std::string &printed);

} // namespace mlir::orchestra

#endif // ORCHESTRA_SUPPORT_EXTERNALTOOLS_H
