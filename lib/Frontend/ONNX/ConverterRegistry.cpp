//===- ConverterRegistry.cpp - Converters by (domain, op, version) --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

void ConverterRegistry::add(StringRef opType, ArrayRef<int> sinceVersions,
                            ConvertFn fn, StringRef domain) {
  for (int version : sinceVersions) {
    bool inserted =
        converters
            .emplace(std::make_tuple(domain.str(), opType.str(), version), fn)
            .second;
    assert(inserted && "converter registered twice");
    (void)inserted;
  }
}

const ConvertFn *ConverterRegistry::lookup(StringRef domain, StringRef opType,
                                           int sinceVersion) const {
  auto it = converters.find(
      std::make_tuple(domain.str(), opType.str(), sinceVersion));
  return it == converters.end() ? nullptr : &it->second;
}

SmallVector<int> ConverterRegistry::versions(StringRef domain,
                                             StringRef opType) const {
  SmallVector<int> result;
  for (const auto &entry : converters)
    if (std::get<0>(entry.first) == domain &&
        std::get<1>(entry.first) == opType)
      result.push_back(std::get<2>(entry.first));
  return result;
}

const ConverterRegistry &onnx_import::getConverterRegistry() {
  static const ConverterRegistry registry = [] {
    ConverterRegistry r;
    registerElementwiseConverters(r);
    registerLogicalConverters(r);
    registerContractionConverters(r);
    registerPoolingConverters(r);
    registerNormalizationConverters(r);
    registerReductionConverters(r);
    registerShapeConverters(r);
    registerDataMovementConverters(r);
    registerControlFlowConverters(r);
    registerRecurrentConverters(r);
    registerQuantizationConverters(r);
    return r;
  }();
  return registry;
}
