//===- OrchestraUpstreamHeadersNDEBUG.h - Without assertions ---*- C++ -*-===//
//
// OrchestraUpstreamHeaders.h for the libraries whose files compile without
// assertions (their targets set ORCHESTRA_WITHOUT_ASSERTIONS; each file says
// why at its top): the headers' inline code must see NDEBUG as the files do.
//
//===----------------------------------------------------------------------===//

#ifndef NDEBUG
#define NDEBUG
#endif
#include "OrchestraUpstreamHeaders.h"
