//===- VendorLibrary.cpp - Opening a vendor's library at run time ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Apart from the driver registry (Device.cpp), so that a tool that loads a
// PJRT plugin (orchestra-pjrt-compile) links this without the drivers.
//
//===----------------------------------------------------------------------===//

#include "hal/Device.h"

#include <dlfcn.h>

void *orx::hal::openVendorLibrary(const std::string &path,
                                  std::string &reason) {
  if (void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
    return handle;
  // dlerror() usually starts with the path; do not repeat it.
  const char *text = ::dlerror();
  reason = text ? text : "cannot be opened";
  if (reason.rfind(path + ": ", 0) == 0)
    reason.erase(0, path.size() + 2);
  return nullptr;
}

void *orx::hal::lookupVendorSymbol(void *library, const char *name) {
  return ::dlsym(library, name);
}
