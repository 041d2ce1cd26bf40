//===- ScheduleChart.cpp - Gantt chart of a scheduled program -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/ScheduleChart.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::orchestra;

FailureOr<gantt::Chart> mlir::orchestra::buildScheduleChart(ModuleOp module) {
  FailureOr<TopologyAttr> topology =
      TopologyAttr::require(module, "a schedule chart");
  if (failed(topology))
    return failure();
  ScheduleOp schedule;
  module.walk([&](ScheduleOp op) {
    schedule = op;
    return WalkResult::interrupt();
  });
  if (!schedule)
    return module.emitError()
           << "the module has no 'orchestra.schedule' to draw";

  gantt::Chart chart;
  std::string algorithm = "?";
  if (auto name = schedule->getAttrOfType<StringAttr>(attr::kAlgorithm))
    algorithm = name.str();
  auto func = schedule->getParentOfType<FunctionOpInterface>();
  chart.title = llvm::formatv("{0} on topology '{1}' (scheduler {2})",
                              func ? func.getName() : "?",
                              topology->getName().getValue(), algorithm)
                    .str();

  // One row per device, keyed by (arch, device_id).
  std::map<std::pair<std::string, int64_t>, unsigned> deviceRow;
  for (DeviceAttr device : topology->getDevices()) {
    deviceRow[{device.getArch().str(), device.getDeviceId()}] =
        chart.rows.size();
    chart.rows.push_back({(device.getName().getValue() + " (" +
                           device.getArch().getValue() + ")")
                              .str(),
                          gantt::RowKind::Device,
                          {}});
  }
  llvm::MapVector<std::pair<StringRef, StringRef>, gantt::Row> links;
  auto describe = [](std::optional<llvm::APFloat> start,
                     std::optional<llvm::APFloat> finish)
      -> std::optional<std::pair<double, double>> {
    if (!start || !finish)
      return std::nullopt;
    return std::make_pair(start->convertToDouble(), finish->convertToDouble());
  };
  schedule.walk([&](Operation *op) {
    if (auto task = dyn_cast<TaskOp>(op)) {
      auto times =
          describe(task.getPredictedStart(), task.getPredictedFinish());
      if (!times)
        return;
      DictionaryAttr target = task.getTarget();
      auto arch = target.getAs<StringAttr>(TargetRegistry::kArchKey);
      auto id = target.getAs<IntegerAttr>(TargetRegistry::kDeviceIdKey);
      auto it = deviceRow.end();
      if (arch && id)
        it = deviceRow.find({arch.str(), id.getInt()});
      if (it == deviceRow.end())
        return;
      std::string detail;
      llvm::raw_string_ostream os(detail);
      os << "target " << target;
      chart.rows[it->second].bars.push_back({task.getName().str(), times->first,
                                             times->second,
                                             gantt::BarKind::Task, detail});
      return;
    }
    if (auto transfer = dyn_cast<TransferOp>(op)) {
      auto times =
          describe(transfer.getPredictedStart(), transfer.getPredictedFinish());
      if (!times)
        return;
      gantt::Row &row = links[{transfer.getFrom(), transfer.getTo()}];
      row.name = (transfer.getFrom() + " -> " + transfer.getTo()).str();
      row.kind = gantt::RowKind::Link;
      std::string detail;
      llvm::raw_string_ostream os(detail);
      os << transfer.getSource().getType();
      std::string label = "copy";
      if (Operation *def = transfer.getSource().getDefiningOp())
        if (auto producer = dyn_cast<TaskOp>(def))
          label = ("copy " + producer.getName()).str();
      row.bars.push_back({label, times->first, times->second,
                          gantt::BarKind::Transfer, detail});
    }
  });
  for (auto &entry : links)
    chart.rows.push_back(std::move(entry.second));
  return chart;
}
