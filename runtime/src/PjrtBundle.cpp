//===- PjrtBundle.cpp - The PJRT program bundle of an artifact ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/PjrtBundle.h"

#include "ByteIO.h"

#include <limits>
#include <set>

using namespace orx;

static constexpr char kBundleMagic[8] = {'O', 'R', 'X', 'P',
                                         'J', 'R', 'T', '\0'};

size_t PjrtTensorDesc::byteSize() const {
  size_t bytes = dtypeSize(elementType);
  for (int64_t dim : dims)
    bytes *= static_cast<size_t>(dim);
  return bytes;
}

const PjrtKernelDesc *
PjrtBundle::lookupKernel(const std::string &symbol) const {
  for (const PjrtKernelDesc &kernel : kernels)
    if (kernel.symbol == symbol)
      return &kernel;
  return nullptr;
}

static void writeTensors(ByteWriter &w,
                         const std::vector<PjrtTensorDesc> &tensors) {
  w.count(tensors.size());
  for (const PjrtTensorDesc &tensor : tensors) {
    w.u32(static_cast<uint32_t>(tensor.elementType));
    w.count(tensor.dims.size());
    for (int64_t dim : tensor.dims)
      w.i64(dim);
  }
}

std::vector<uint8_t> orx::serializePjrtBundle(const PjrtBundle &bundle) {
  ByteWriter w;
  w.bytes.assign(kBundleMagic, kBundleMagic + sizeof(kBundleMagic));
  w.u32(kPjrtBundleVersion);
  w.str(bundle.plugin);
  w.str(bundle.platform);
  w.str(bundle.requirements);
  w.count(bundle.kernels.size());
  for (const PjrtKernelDesc &kernel : bundle.kernels) {
    w.str(kernel.symbol);
    w.str(kernel.programFormat);
    w.blob(kernel.program);
    w.blob(kernel.compileOptions);
    writeTensors(w, kernel.args);
    writeTensors(w, kernel.results);
    w.str(kernel.aotFormat);
    w.blob(kernel.aotBinary);
  }
  return std::move(w.bytes);
}

/// A kernel: symbol, format, program and options, two tensor counts, and the
/// ahead-of-time format and binary.
static constexpr size_t kMinKernel = 4 + 4 + 8 + 8 + 4 + 4 + 4 + 8;
/// A tensor: element type and rank.
static constexpr size_t kMinTensor = 4 + 4;

static std::string at(const std::string &prefix, const char *field, size_t i) {
  return prefix + field + "[" + std::to_string(i) + "]";
}

static bool readTensors(ByteReader &r, std::vector<PjrtTensorDesc> &out,
                        const std::string &what) {
  uint32_t n;
  if (!r.count(n, kMinTensor, what))
    return false;
  out.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    PjrtTensorDesc &tensor = out[i];
    std::string tensorWhat = at(what, "", i);
    uint32_t elementType, rank;
    if (!r.u32(elementType, tensorWhat + ".element_type"))
      return false;
    if (!isValidDType(elementType))
      return r.fail(tensorWhat + ".element_type = " +
                    std::to_string(elementType) + " is not an element type");
    tensor.elementType = static_cast<DType>(elementType);
    if (!r.count(rank, 8, tensorWhat + ".dims"))
      return false;
    tensor.dims.resize(rank);
    // The size must fit in memory: the driver copies it from and to arenas.
    uint64_t bytes = dtypeSize(tensor.elementType);
    for (uint32_t j = 0; j < rank; ++j) {
      int64_t &dim = tensor.dims[j];
      if (!r.i64(dim, tensorWhat + ".dims"))
        return false;
      if (dim < 0)
        return r.fail(tensorWhat + ".dims[" + std::to_string(j) +
                      "] = " + std::to_string(dim) + " is negative");
      if (dim != 0 && bytes > std::numeric_limits<size_t>::max() / 2 /
                                  static_cast<uint64_t>(dim))
        return r.fail(tensorWhat + " is too large to address");
      bytes *= static_cast<uint64_t>(dim);
    }
  }
  return true;
}

static bool readKernel(ByteReader &r, PjrtKernelDesc &kernel,
                       const std::string &what) {
  if (!r.str(kernel.symbol, what + ".symbol") ||
      !r.str(kernel.programFormat, what + ".program_format") ||
      !r.blob(kernel.program, what + ".program") ||
      !r.blob(kernel.compileOptions, what + ".compile_options") ||
      !readTensors(r, kernel.args, what + ".args") ||
      !readTensors(r, kernel.results, what + ".results") ||
      !r.str(kernel.aotFormat, what + ".aot_format") ||
      !r.blob(kernel.aotBinary, what + ".aot_binary"))
    return false;
  if (kernel.symbol.empty())
    return r.fail(what + ".symbol is empty");
  if (kernel.programFormat.empty())
    return r.fail(what + " ('" + kernel.symbol + "') has no program format");
  if (kernel.program.empty())
    return r.fail(what + " ('" + kernel.symbol + "') has an empty program");
  if (kernel.aotFormat.empty() != kernel.aotBinary.empty())
    return r.fail(what + " ('" + kernel.symbol + "') has " +
                  (kernel.aotFormat.empty()
                       ? "an ahead-of-time binary without a format"
                       : "an ahead-of-time format without a binary"));
  return true;
}

bool orx::parsePjrtBundle(const uint8_t *data, size_t size, PjrtBundle &out,
                          std::string &error) {
  out = PjrtBundle();
  if (size < sizeof(kBundleMagic) ||
      std::memcmp(data, kBundleMagic, sizeof(kBundleMagic)) != 0) {
    error = "not a PJRT program bundle";
    return false;
  }
  ByteReader r(data + sizeof(kBundleMagic), size - sizeof(kBundleMagic));
  uint32_t version = 0, n = 0;
  if (r.u32(version, "version") && version != kPjrtBundleVersion)
    r.fail("PJRT program bundle version " + std::to_string(version) +
           ", this runtime reads " + std::to_string(kPjrtBundleVersion));
  if (r.ok() && r.str(out.plugin, "plugin") &&
      r.str(out.platform, "platform") &&
      r.str(out.requirements, "requirements") &&
      r.count(n, kMinKernel, "kernels")) {
    out.kernels.resize(n);
    std::set<std::string> symbols;
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      std::string what = at("", "kernels", i);
      if (readKernel(r, out.kernels[i], what) &&
          !symbols.insert(out.kernels[i].symbol).second)
        r.fail(what + " repeats the symbol '" + out.kernels[i].symbol + "'");
    }
  }
  if (r.ok() && r.remaining() != 0)
    r.fail(std::to_string(r.remaining()) +
           " bytes follow the last kernel of the PJRT program bundle");
  if (!r.ok()) {
    error = "PJRT program bundle: " + r.error;
    return false;
  }
  return true;
}

bool orx::isPjrtBundle(const BinaryDesc &binary) {
  return binary.format == kPjrtBundleFormat;
}

bool orx::parsePjrtBundleBinary(const BinaryDesc &binary, size_t index,
                                PjrtBundle &out, std::string &error) {
  std::string what = "kernel binary " + std::to_string(index);
  if (!isPjrtBundle(binary)) {
    error = what + " has format '" + binary.format + "', not '" +
            kPjrtBundleFormat + "'";
    return false;
  }
  std::string reason;
  if (parsePjrtBundle(binary.data.data(), binary.data.size(), out, reason))
    return true;
  error = what + " (" + std::to_string(binary.data.size()) +
          " bytes) is invalid: " + reason;
  return false;
}
