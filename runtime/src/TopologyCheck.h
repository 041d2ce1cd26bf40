//===- TopologyCheck.h - Was an artifact built for a topology? --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_TOPOLOGYCHECK_H
#define ORCHESTRA_RT_TOPOLOGYCHECK_H

#include "orchestra_rt/Artifact.h"

#include <string>

namespace orx {

/// Checks that `artifact` was built for the topology whose JSON text is
/// `topologyJson` (docs/Topology.md): same name, same devices (name and arch)
/// in the same order. The rest of the file (throughputs, links, memory) is
/// the compiler's to validate. Returns false with `error` set.
bool checkTopology(const Artifact &artifact, const std::string &topologyJson,
                   std::string &error);

} // namespace orx

#endif // ORCHESTRA_RT_TOPOLOGYCHECK_H
