//===- orchestra-targets.cpp - List the archs of the target registry ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Prints what the target registry of this build knows: every arch with its
// `target` keys, memory spaces, strategy script, lowering pipeline and
// executable format. `--format=markdown` writes the reference page
// docs/TargetRegistry.md is made of.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::orchestra;

namespace {
enum class Format { Text, Markdown };
} // namespace

static llvm::cl::opt<Format>
    format("format", llvm::cl::desc("Output format"),
           llvm::cl::init(Format::Text),
           llvm::cl::values(clEnumValN(Format::Text, "text", "plain text"),
                            clEnumValN(Format::Markdown, "markdown",
                                       "the reference page in docs/")));

static llvm::cl::list<std::string> archFilter(llvm::cl::Positional,
                                              llvm::cl::desc("[arch...]"));

/// Returns `value`, or a placeholder when a later stage has not filled it yet.
static std::string orNotYet(const std::string &value) {
  return value.empty() ? "(not yet available)" : value;
}

static void printText(const TargetInfo &info, llvm::raw_ostream &os) {
  os << info.arch << " - " << info.description << "\n";
  os << "  executable format: "
     << stringifyExecutableFormat(info.executableFormat) << "\n";
  os << "  runtime driver:    " << info.runtimeDriver << "\n";
  os << "  strategy script:   " << orNotYet(info.strategyScript) << "\n";
  if (!info.strategyLibraries.empty())
    os << "  strategy libraries: " << llvm::join(info.strategyLibraries, ", ")
       << "\n";
  if (!info.constantLayoutPipeline.empty())
    os << "  constant layouts:  " << info.constantLayoutPipeline << "\n";
  if (!info.preparePipeline.empty())
    os << "  first:             " << info.preparePipeline << "\n";
  if (!info.preStrategyPipeline.empty())
    os << "  before the strategy: " << info.preStrategyPipeline << "\n";
  os << "  lowering pipeline: " << orNotYet(info.loweringPipeline) << "\n";
  os << "  nki_source:        "
     << (info.acceptsNKISource ? "accepted" : "not accepted") << "\n";
  os << "  asm_kernel:        "
     << (info.kernelAssembly.empty() ? "not accepted"
                                     : info.kernelAssembly + " assembly")
     << "\n";
  os << "  target keys:\n";
  os << "    arch (string, required)\n";
  os << "    device_id (integer, required)\n";
  for (const TargetKeySpec &key : info.keys) {
    os << "    " << key.name << " (" << stringifyTargetKeyType(key.type)
       << (key.required ? ", required" : "");
    if (key.minValue)
      os << ", >= " << *key.minValue;
    if (!key.allowedValues.empty()) {
      os << ", one of ";
      llvm::interleaveComma(key.allowedValues, os);
    }
    os << "): " << key.description << "\n";
  }
  os << "  memory spaces:\n";
  for (const MemorySpaceKind &space : info.memorySpaces)
    os << "    " << space.name << " (" << stringifyMemoryScope(space.scope)
       << (space.name == info.defaultMemorySpace ? ", default" : "")
       << "): " << space.description << "\n";
}

static void printMarkdown(const TargetInfo &info, llvm::raw_ostream &os) {
  os << "## `" << info.arch << "`\n\n" << info.description << ".\n\n";
  os << "| | |\n| --- | --- |\n";
  os << "| executable format | "
     << stringifyExecutableFormat(info.executableFormat) << " |\n";
  os << "| runtime driver | `" << info.runtimeDriver << "` |\n";
  os << "| strategy script | " << orNotYet(info.strategyScript) << " |\n";
  if (!info.strategyLibraries.empty())
    os << "| strategy libraries | " << llvm::join(info.strategyLibraries, ", ")
       << " |\n";
  if (!info.constantLayoutPipeline.empty())
    os << "| constant layouts (stage 4) | " << info.constantLayoutPipeline
       << " |\n";
  if (!info.preparePipeline.empty())
    os << "| first | " << info.preparePipeline << " |\n";
  if (!info.preStrategyPipeline.empty())
    os << "| before the strategy | " << info.preStrategyPipeline << " |\n";
  os << "| lowering pipeline | " << orNotYet(info.loweringPipeline) << " |\n";
  os << "| `nki_source` | "
     << (info.acceptsNKISource ? "accepted" : "not accepted") << " |\n";
  os << "| `asm_kernel` | "
     << (info.kernelAssembly.empty() ? "not accepted"
                                     : info.kernelAssembly + " assembly")
     << " |\n\n";
  os << "| target key | type | required | constraint | meaning |\n";
  os << "| --- | --- | --- | --- | --- |\n";
  os << "| `arch` | string | yes | | `\"" << info.arch << "\"` |\n";
  os << "| `device_id` | integer | yes | >= 0 | the device of this arch |\n";
  for (const TargetKeySpec &key : info.keys) {
    os << "| `" << key.name << "` | " << stringifyTargetKeyType(key.type)
       << " | " << (key.required ? "yes" : "no") << " | ";
    if (key.minValue)
      os << ">= " << *key.minValue;
    llvm::interleave(
        key.allowedValues, os,
        [&](const std::string &value) { os << "`\"" << value << "\"`"; }, ", ");
    os << " | " << key.description << " |\n";
  }
  os << "\n| memory space kind | scope | meaning |\n| --- | --- | --- |\n";
  for (const MemorySpaceKind &space : info.memorySpaces)
    os << "| `" << space.name << "` | " << stringifyMemoryScope(space.scope)
       << (space.name == info.defaultMemorySpace ? " (default)" : "") << " | "
       << space.description << " |\n";
  os << "\n";
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-targets");
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "OrchestraOS target registry: the archs of this build\n");
  const TargetRegistry &registry = getTargetRegistry();
  // Diagnostics (an unknown arch) go through MLIR's default handler.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  llvm::SmallVector<llvm::StringRef> archs;
  if (archFilter.empty()) {
    archs = registry.getArchs();
  } else {
    for (const std::string &arch : archFilter) {
      if (failed(registry.lookupOrError(arch, [&] {
            return mlir::emitError(mlir::UnknownLoc::get(&context));
          })))
        return 1;
      archs.push_back(arch);
    }
  }
  llvm::raw_ostream &os = llvm::outs();
  if (format == Format::Markdown)
    os << "# Target registry\n\n"
          "<!-- Generated by `orchestra-targets --format=markdown`; do not "
          "edit. -->\n\n"
          "Every `orchestra.task` names its device with a `target` "
          "dictionary; the keys below are what\nthe verifier accepts for "
          "each arch. Memory spaces (`orchestra.memory_space`) take their "
          "`kind`\nfrom the arch's list.\n\n"
          "Each arch is registered by its backend folder "
          "`lib/Target/<Name>/` (`register<Name>Targets`),\nwhich also "
          "brings the passes of its pipelines, the transform ops of its "
          "strategy scripts and\nits tuning hooks (`get<Name>Backend`, "
          "[design/0010](design/0010-backend-plugins.md)). The\n\"before "
          "the strategy\" row lists the passes that prepare a kernel module "
          "for the script.\n\n";
  for (llvm::StringRef arch : archs) {
    const TargetInfo &info = *registry.lookup(arch);
    if (format == Format::Markdown)
      printMarkdown(info, os);
    else
      printText(info, os);
  }
  return 0;
}
