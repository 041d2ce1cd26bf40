//===- ExternalTools.cpp - Programs the compiler runs ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/ExternalTools.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Finds the program `name`: `option`, else $`envVar`, else beside the
/// running tool (build/bin, an install's bin), else on PATH. An option or
/// variable that names no executable is an error (`error` set); found
/// nowhere: std::nullopt with `error` empty.
std::optional<std::string> mlir::orchestra::findTool(StringRef name,
                                                     StringRef option,
                                                     StringRef envVar,
                                                     std::string &error) {
  auto named = [&](StringRef path,
                   const Twine &by) -> std::optional<std::string> {
    if (llvm::sys::fs::can_execute(path))
      return path.str();
    error = (by + " names '" + path + "', which is not an executable " + name)
                .str();
    return std::nullopt;
  };
  if (!option.empty())
    return named(option, "the " + name + " option");
  if (std::optional<std::string> env = llvm::sys::Process::GetEnv(envVar))
    if (!env->empty())
      return named(*env, "$" + envVar);
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!self.empty()) {
    SmallString<256> beside(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(beside, name);
    if (llvm::sys::fs::can_execute(beside))
      return beside.str().str();
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName(name))
    return *onPath;
  return std::nullopt;
}

/// Runs `args` (the program first) for at most `seconds`; on failure sets
/// `failure` to what it printed (stdout and stderr), else the launcher's
/// message. `exitStatus`, when given, receives the exit status.
LogicalResult mlir::orchestra::runTool(ArrayRef<StringRef> args,
                                       unsigned seconds, std::string &printed,
                                       int *exitStatus) {
  SmallString<128> log;
  if (llvm::sys::fs::createTemporaryFile("orchestra-tool", "log", log)) {
    printed = "cannot create a temporary file";
    return failure();
  }
  llvm::scope_exit removeLog([&] { llvm::sys::fs::remove(log); });
  // Its output and errors both go to the log (the compiler's stdout may be
  // the IR it prints).
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(args.front(), args, std::nullopt,
                                         redirects, seconds,
                                         /*MemoryLimit=*/0, &message);
  if (exitStatus)
    *exitStatus = status;
  printed.clear();
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    printed = StringRef((*buffer)->getBuffer()).trim().str();
  if (status == 0)
    return success();
  if (printed.empty())
    printed =
        !message.empty() ? message : "exit status " + std::to_string(status);
  return failure();
}

/// Writes `content` to `path`.
LogicalResult mlir::orchestra::writeFile(Operation *op, StringRef path,
                                         StringRef content) {
  if (llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << content;
        return llvm::Error::success();
      }))
    return op->emitError() << "cannot write '" << path
                           << "': " << llvm::toString(std::move(error));
  return success();
}

/// Reads `path` whole, or nothing.
std::vector<uint8_t> mlir::orchestra::readFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return {};
  StringRef bytes = (*buffer)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

FailureOr<std::vector<uint8_t>>
mlir::orchestra::runToolOnSource(Operation *op, ArrayRef<StringRef> args,
                                 StringRef sourceName, StringRef source,
                                 StringRef outputName, std::string &printed) {
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("orchestra-tool", dir)) {
    printed = "cannot create a temporary folder: " + ec.message();
    return failure();
  }
  llvm::scope_exit removeDir(
      [&] { (void)llvm::sys::fs::remove_directories(dir); });
  SmallString<256> input(dir), output(dir);
  llvm::sys::path::append(input, sourceName);
  llvm::sys::path::append(output, outputName);
  if (failed(writeFile(op, input, source))) {
    printed = "cannot write the source";
    return failure();
  }
  SmallVector<StringRef> expanded;
  for (StringRef arg : args)
    expanded.push_back(arg == "{in}"    ? StringRef(input)
                       : arg == "{out}" ? StringRef(output)
                                        : arg);
  if (failed(runTool(expanded, /*seconds=*/120, printed))) {
    std::string prefix = (dir + "/").str();
    for (size_t at = printed.find(prefix); at != std::string::npos;
         at = printed.find(prefix, at))
      printed.erase(at, prefix.size());
    return failure();
  }
  std::vector<uint8_t> bytes = readFile(output);
  if (bytes.empty()) {
    printed = "it wrote no " + outputName.str();
    return failure();
  }
  return bytes;
}
