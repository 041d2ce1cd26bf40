//===- Npy.cpp - .npy files as MLIR constants -----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/Npy.h"
#include "orchestra/Support/Npy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::orchestra;

FailureOr<DenseElementsAttr>
mlir::orchestra::readNpyAsAttr(MLIRContext *context, StringRef path,
                               std::string &error) {
  std::optional<::orchestra::npy::Array> array(std::in_place);
  if (!::orchestra::npy::readFile(path.str(), *array, error))
    return failure();
  using ::orchestra::npy::ElementType;
  Builder b(context);
  Type element;
  switch (array->type) {
  case ElementType::F32:
    element = b.getF32Type();
    break;
  case ElementType::F64:
    element = b.getF64Type();
    break;
  case ElementType::F16:
    element = b.getF16Type();
    break;
  case ElementType::Bool:
    element = b.getI1Type();
    break;
  case ElementType::I8:
  case ElementType::U8:
    element = b.getI8Type();
    break;
  case ElementType::I16:
  case ElementType::U16:
    element = b.getI16Type();
    break;
  case ElementType::I32:
  case ElementType::U32:
    element = b.getI32Type();
    break;
  case ElementType::I64:
  case ElementType::U64:
    element = b.getI64Type();
    break;
  }
  auto type = RankedTensorType::get(array->shape, element);
  if (element.isInteger(1)) {
    SmallVector<bool> values;
    for (uint8_t byte : array->data)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, values);
  }
  ArrayRef<char> raw(reinterpret_cast<const char *>(array->data.data()),
                     array->data.size());
  bool splat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, splat)) {
    error = "'" + path.str() + "' has malformed data";
    return failure();
  }
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}
