//===- CPUDescription.cpp - The CPU an x86_64 kernel module targets -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/CPUDescription.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
using namespace mlir::orchestra::cpu;

CPUDescription::CPUDescription(CPUDescription &&) = default;
CPUDescription::~CPUDescription() = default;

FailureOr<CPUDescription> CPUDescription::get(DictionaryAttr target,
                                              StringRef cpuOverride,
                                              StringRef featuresOverride,
                                              std::string &error) {
  llvm::InitializeNativeTarget();
  auto stringKey = [&](StringRef key) -> std::string {
    auto value =
        target ? dyn_cast_or_null<StringAttr>(target.get(key)) : StringAttr();
    return value ? value.str() : "";
  };
  CPUDescription description;
  description.cpu = !cpuOverride.empty() ? cpuOverride.str() : stringKey("cpu");
  description.features = !featuresOverride.empty() ? featuresOverride.str()
                                                   : stringKey("features");
  bool hostCPU = description.cpu.empty() || description.cpu == "native";
  if (hostCPU)
    description.cpu = llvm::sys::getHostCPUName().str();
  if (description.features == "native" ||
      (description.features.empty() && hostCPU)) {
    SmallVector<std::string> hostFeatures;
    for (const auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
      hostFeatures.push_back(((enabled ? "+" : "-") + name).str());
    llvm::sort(hostFeatures);
    description.features = llvm::join(hostFeatures, ",");
  }

  llvm::Triple triple(llvm::sys::getProcessTriple());
  description.target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!description.target) {
    error = "cannot generate code for " + triple.str() + ": " + error;
    return failure();
  }
  // An unknown CPU name only gives an LLVM warning on stderr; refuse it.
  std::unique_ptr<llvm::MCSubtargetInfo> probe(
      description.target->createMCSubtargetInfo(triple, "", ""));
  if (!probe || !probe->isCPUStringValid(description.cpu)) {
    error = "unknown CPU '" + description.cpu + "' for " + triple.str();
    return failure();
  }
  description.subtarget.reset(description.target->createMCSubtargetInfo(
      triple, description.cpu, description.features));
  if (!description.subtarget) {
    error = "cannot describe CPU '" + description.cpu + "'";
    return failure();
  }
  return description;
}

bool CPUDescription::hasFeature(StringRef name) const {
  return subtarget->checkFeatures(("+" + name).str());
}
