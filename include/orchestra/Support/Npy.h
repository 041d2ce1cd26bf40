//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The subset of the .npy format (versions 1.0, 2.0 and 3.0) orchestra-run
// and the compiler's constant import need: C-order arrays of little-endian
// numbers and booleans. Standard C++ only (the library OrchestraNpy links
// neither MLIR nor LLVM), so that orchestra-run can use it.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SUPPORT_NPY_H
#define ORCHESTRA_SUPPORT_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace orchestra::npy {

/// The element types of .npy files orchestra-run reads and writes, named like
/// the artifact's element types.
enum class ElementType {
  F32,
  F64,
  F16,
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64
};

/// "f32", "f64", "f16", "i1" (bool), "i8", "i16", "i32", "i64", "u8", "u16",
/// "u32", "u64".
const char *getElementTypeName(ElementType type);
size_t getElementTypeSize(ElementType type);

/// A C-order array.
struct Array {
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// Parses the contents of a .npy file. Errors say what is malformed.
bool parse(const std::string &bytes, Array &out, std::string &error);

/// Serialises `array` as a version 1.0 .npy file (2.0 when the header needs
/// it).
std::string serialize(const Array &array);

/// Reads the .npy file at `path`; errors name the file.
bool readFile(const std::string &path, Array &out, std::string &error);

/// Writes `array` to `path`.
bool writeFile(const std::string &path, const Array &array, std::string &error);

} // namespace orchestra::npy

#endif // ORCHESTRA_SUPPORT_NPY_H
