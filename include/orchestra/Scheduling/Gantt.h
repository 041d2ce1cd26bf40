//===- Gantt.h - Gantt charts of schedules ----------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Draws a schedule as a Gantt chart: one row per device and per link, tasks
// and transfers as named bars on a common time axis. Writes standalone SVG or
// a self-contained HTML page (the SVG plus a table of every bar); no scripts
// and no external resources.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_SCHEDULING_GANTT_H
#define ORCHESTRA_SCHEDULING_GANTT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::orchestra::gantt {

enum class BarKind { Task, Transfer };

struct Bar {
  /// E.g. "t3_matmul" or "copy cpu0_dram -> gpu0_hbm".
  std::string label;
  /// Seconds from the start of the schedule.
  double start = 0;
  double finish = 0;
  BarKind kind = BarKind::Task;
  /// Extra text for the tooltip and the table (may be empty).
  std::string detail;
};

enum class RowKind { Device, Link };

struct Row {
  /// E.g. "cpu0 (x86_64)" or "cpu0_dram -> gpu0_hbm".
  std::string name;
  RowKind kind = RowKind::Device;
  std::vector<Bar> bars;
};

struct Chart {
  std::string title;
  std::vector<Row> rows;
};

/// Writes a standalone SVG document.
void writeSVG(const Chart &chart, llvm::raw_ostream &os);

/// Writes a self-contained HTML page: the SVG inline and a table of every
/// bar (row, name, start, finish, duration).
void writeHTML(const Chart &chart, llvm::raw_ostream &os);

/// Writes `path` as SVG (".svg") or HTML (".html", ".htm"); fails on another
/// extension or when the file cannot be written.
llvm::Error writeChartFile(const Chart &chart, llvm::StringRef path);

} // namespace mlir::orchestra::gantt

#endif // ORCHESTRA_SCHEDULING_GANTT_H
