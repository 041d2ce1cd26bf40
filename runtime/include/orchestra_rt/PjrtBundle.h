//===- PjrtBundle.h - The PJRT program bundle of an artifact ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The kernels of a device that runs through a PJRT plugin (the `pjrt`
// driver) are stored in the artifact as one binary of format "pjrt-bundle":
// the plugin the topology named, and for each task kernel of the plan the
// program the plugin compiles (StableHLO, as a portable artifact or as text)
// with its compile options and the element type and dimensions of each of
// its arguments and results. The plugin compiles the programs when a session
// is created; the runtime core interprets none of these fields: the driver
// does. docs/Artifact.md documents the layout.
//
// Like Artifact.h this depends on the C++ standard library only.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_PJRTBUNDLE_H
#define ORCHESTRA_RT_PJRTBUNDLE_H

#include "orchestra_rt/Artifact.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace orx {

/// The BinaryDesc::format of a PJRT program bundle.
constexpr const char *kPjrtBundleFormat = "pjrt-bundle";
/// Readers accept version 2 only (version 1 had no host requirements and no
/// ahead-of-time binaries).
constexpr uint32_t kPjrtBundleVersion = 2;
/// The program format of StableHLO (a portable artifact or text), in the
/// words of the PJRT C API.
constexpr const char *kPjrtMlirProgramFormat = "mlir";

/// The ahead-of-time format (PjrtKernelDesc::aotFormat) of a serialized PJRT
/// executable, followed by the platform name of the plugin that compiled it
/// ("pjrt-executable:<platform>"): the driver loads it
/// (PJRT_Executable_DeserializeAndLoad) instead of compiling the program when
/// its client has that platform. Other formats are the vendor's own, for its
/// tools.
constexpr const char *kPjrtExecutableFormatPrefix = "pjrt-executable:";

/// An argument or result of a kernel's program: a dense row-major tensor.
struct PjrtTensorDesc {
  DType elementType = DType::F32;
  /// Non-negative; empty for a scalar.
  std::vector<int64_t> dims;

  /// The product of the dimensions times the element size (validated by
  /// parsePjrtBundle to fit).
  size_t byteSize() const;
};

/// A task kernel of the plan (a KernelDesc::symbol): one program whose
/// arguments are the launch step's inputs and whose results are its outputs,
/// in order.
struct PjrtKernelDesc {
  std::string symbol;
  /// What `program` is, in the plugin's words (kPjrtMlirProgramFormat).
  std::string programFormat;
  /// The program; its entry function is named `main`.
  std::vector<uint8_t> program;
  /// A serialized CompileOptionsProto; empty: the driver's default (one
  /// replica, one partition).
  std::vector<uint8_t> compileOptions;
  std::vector<PjrtTensorDesc> args;
  std::vector<PjrtTensorDesc> results;
  /// What the vendor's own compiler made of `program` ahead of time, for a
  /// host of the target (kPjrtExecutableFormatPrefix, or a vendor format
  /// for the vendor's tools); empty: nothing (docs/Passes/StableHLO.md).
  std::string aotFormat;
  std::vector<uint8_t> aotBinary;
};

struct PjrtBundle {
  /// The PJRT plugin the topology named: a path, a file name (looked up next
  /// to the runtime library, then by the dynamic loader), or empty (the
  /// driver then needs $ORCHESTRA_PJRT_PLUGIN).
  std::string plugin;
  /// The platform the programs were built for ("cpu", ...), for messages.
  std::string platform;
  /// What a host of the target needs to run the programs (its PJRT plugin,
  /// the vendor compiler's settings), in words, for people and
  /// `orchestra-run --describe`; may be empty.
  std::string requirements;
  std::vector<PjrtKernelDesc> kernels;

  /// Returns the kernel named `symbol`, or null.
  const PjrtKernelDesc *lookupKernel(const std::string &symbol) const;
};

/// Returns the bytes of `bundle`.
std::vector<uint8_t> serializePjrtBundle(const PjrtBundle &bundle);

/// Reads and validates a bundle: magic and version, every count and length
/// against the bytes left, non-empty and unique kernel symbols, a program
/// format and a non-empty program per kernel, element types (DType values),
/// non-negative dimensions whose byte size fits in memory. Returns false
/// with `error` set.
bool parsePjrtBundle(const uint8_t *data, size_t size, PjrtBundle &out,
                     std::string &error);

/// Is `binary` a PJRT program bundle (format kPjrtBundleFormat)?
bool isPjrtBundle(const BinaryDesc &binary);

/// Parses and validates the PJRT program bundle `binary`, kernel binary
/// `index` of its artifact (named so in the error).
bool parsePjrtBundleBinary(const BinaryDesc &binary, size_t index,
                           PjrtBundle &out, std::string &error);

} // namespace orx

#endif // ORCHESTRA_RT_PJRTBUNDLE_H
