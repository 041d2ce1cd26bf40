//===- orchestra-topology.cpp - Print and derive topology files -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Reads a topology (`host` probes this machine, anything else is a JSON
// file), optionally derives another from it (some devices only, target keys
// set or removed, other compute units, another name), checks the result
// against the target registry and writes it. Scripts and benchmarks make
// their topologies with it rather than writing the JSON by hand, so the
// library stays the one writer of the format.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::orchestra;
namespace cl = llvm::cl;

static cl::OptionCategory category("orchestra-topology options");

static cl::opt<std::string> spec(cl::Positional,
                                 cl::desc("<host|topology.json>"),
                                 cl::init("host"), cl::cat(category));
static cl::opt<std::string> outputFile("o",
                                       cl::desc("Output file ('-': "
                                                "standard output)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::list<std::string>
    keep("keep",
         cl::desc("Keep only these devices (names or arches), with their "
                  "memory spaces and the links between them"),
         cl::value_desc("device,..."), cl::CommaSeparated, cl::cat(category));
static cl::list<std::string>
    set("set",
        cl::desc("Set a target key of the selected devices (a device name or "
                 "an arch); VALUE is JSON (true, 4, 0.5, \"text\") or else "
                 "a string"),
        cl::value_desc("device.key=value"), cl::cat(category));
static cl::list<std::string> unset("unset", cl::desc("Remove a target key"),
                                   cl::value_desc("device.key"),
                                   cl::cat(category));
static cl::list<std::string> computeUnits(
    "compute-units",
    cl::desc("Set the compute units of the selected devices (peak FLOP/s "
             "scale with them)"),
    cl::value_desc("device=N"), cl::cat(category));
static cl::opt<std::string> name("name", cl::desc("Rename the topology"),
                                 cl::cat(category));

[[noreturn]] static void fail(const llvm::Twine &message) {
  llvm::errs() << "orchestra-topology: error: " << message << "\n";
  std::exit(1);
}

/// The devices `selector` names; fails when it names none.
static llvm::SmallVector<TopologyDevice *>
select(Topology &topology, llvm::StringRef selector, llvm::StringRef option) {
  llvm::SmallVector<TopologyDevice *> devices =
      topology.selectDevices(selector);
  if (devices.empty())
    fail("--" + option + ": topology '" + topology.name +
         "' has no device or arch '" + selector + "'");
  return devices;
}

/// Splits "device.key" at its last dot.
static std::pair<llvm::StringRef, llvm::StringRef>
splitKey(llvm::StringRef text, llvm::StringRef option) {
  size_t dot = text.rfind('.');
  if (dot == llvm::StringRef::npos || dot == 0 || dot + 1 == text.size())
    fail("--" + option + " expects device.key, not '" + text + "'");
  return {text.take_front(dot), text.drop_front(dot + 1)};
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-topology");
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS topologies: prints a topology (`host` probes this "
      "machine), or\nderives one from it, checked against the target "
      "registry.\n\n"
      "  orchestra-topology host -o my-machine.json\n"
      "  orchestra-topology host --compute-units cpu0=4 --set "
      "cpu0.num_threads=4\n"
      "  orchestra-topology topologies/cpu+hopper.json --keep gpu0 --set "
      "gpu0.wgmma=true\n");

  const TargetRegistry &registry = getTargetRegistry();
  llvm::Expected<Topology> topology = Topology::resolve(spec, registry);
  if (!topology)
    fail(llvm::toString(topology.takeError()));

  if (!keep.empty())
    if (llvm::Error error = topology->keepDevices(keep))
      fail("--keep: " + llvm::toString(std::move(error)));
  for (llvm::StringRef assignment : set) {
    auto [path, text] = assignment.split('=');
    if (path.size() == assignment.size())
      fail("--set expects device.key=value, not '" + assignment + "'");
    auto [selector, key] = splitKey(path, "set");
    llvm::json::Value value = text.str();
    if (llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text))
      value = std::move(*parsed);
    else
      llvm::consumeError(parsed.takeError());
    for (TopologyDevice *device : select(*topology, selector, "set"))
      device->target[key] = value;
  }
  for (llvm::StringRef path : unset) {
    auto [selector, key] = splitKey(path, "unset");
    for (TopologyDevice *device : select(*topology, selector, "unset"))
      device->target.erase(key);
  }
  for (llvm::StringRef assignment : computeUnits) {
    auto [selector, text] = assignment.split('=');
    int64_t units = 0;
    if (text.getAsInteger(10, units) || units < 1)
      fail("--compute-units expects device=N with N >= 1, not '" + assignment +
           "'");
    for (TopologyDevice *device : select(*topology, selector, "compute-units"))
      Topology::setComputeUnits(*device, units);
  }
  if (!name.empty())
    topology->name = name;

  // The derived topology is checked as any topology file is read.
  std::string text = llvm::formatv("{0}", topology->toJSON()).str();
  llvm::Expected<Topology> checked = Topology::parse(text, registry);
  if (!checked)
    fail("the derived topology is invalid: " +
         llvm::toString(checked.takeError()));
  if (llvm::Error error = checked->writeFile(outputFile))
    fail("cannot write '" + outputFile +
         "': " + llvm::toString(std::move(error)));
  return 0;
}
