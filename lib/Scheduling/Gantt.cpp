//===- Gantt.cpp - Gantt charts of schedules ------------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Scheduling/Gantt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace mlir::orchestra::gantt;

namespace {

constexpr double kPlotWidth = 1000;
constexpr double kLaneHeight = 26;
constexpr double kRowPadding = 4;
constexpr double kTop = 46;
constexpr double kAxisHeight = 30;
constexpr double kCharWidth = 6.5;

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// A unit of time fitting `span` seconds.
struct TimeUnit {
  double scale;
  const char *name;
};

TimeUnit pickUnit(double span) {
  if (span >= 1)
    return {1, "s"};
  if (span >= 1e-3)
    return {1e3, "ms"};
  if (span >= 1e-6)
    return {1e6, "\u00b5s"};
  return {1e9, "ns"};
}

std::string formatTime(double seconds, TimeUnit unit) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4g %s", seconds * unit.scale,
                unit.name);
  return buffer;
}

/// A tick step of 1, 2 or 5 times a power of ten giving 5 to 10 ticks.
double niceStep(double span) {
  double raw = span / 8;
  double power = std::pow(10, std::floor(std::log10(raw)));
  // The tolerance keeps a rounding error from skipping an exact fit (40 us
  // gives steps of 5 us, not 10 us).
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (raw <= factor * power * (1 + 1e-9))
      return factor * power;
  return 10 * power;
}

struct BarColours {
  const char *fill;
  const char *text;
};

/// Task colours, picked by the op name after the task's "tN_" prefix so that
/// tasks of one op look alike. Light fills get dark text.
BarColours taskColours(llvm::StringRef label) {
  static const BarColours palette[] = {
      {"#4e79a7", "white"}, {"#59a14f", "white"}, {"#b07aa1", "white"},
      {"#76b7b2", "black"}, {"#edc948", "black"}, {"#e15759", "white"},
      {"#9c755f", "white"}, {"#bab0ac", "black"}, {"#86bcb6", "black"}};
  llvm::StringRef op = label;
  if (size_t underscore = label.find('_'); underscore != llvm::StringRef::npos)
    op = label.drop_front(underscore + 1);
  uint32_t hash = 2166136261u;
  for (char c : op)
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return palette[hash % std::size(palette)];
}

/// Bars of one row spread over lanes so that none overlap (first fit in
/// order of start).
struct LaidOutRow {
  const Row *row;
  std::vector<std::pair<const Bar *, unsigned>> bars;
  unsigned lanes = 1;
};

LaidOutRow layOut(const Row &row) {
  LaidOutRow out{&row, {}, 1};
  std::vector<const Bar *> sorted;
  for (const Bar &bar : row.bars)
    sorted.push_back(&bar);
  // Ties keep the input order (the bars are contiguous) so the output is
  // deterministic.
  llvm::sort(sorted, [](const Bar *a, const Bar *b) {
    return a->start != b->start ? a->start < b->start : a < b;
  });
  std::vector<double> laneEnd;
  for (const Bar *bar : sorted) {
    unsigned lane = 0;
    while (lane < laneEnd.size() && laneEnd[lane] > bar->start)
      ++lane;
    if (lane == laneEnd.size())
      laneEnd.push_back(bar->finish);
    else
      laneEnd[lane] = bar->finish;
    out.bars.push_back({bar, lane});
  }
  out.lanes = std::max<unsigned>(1, laneEnd.size());
  return out;
}

double getMakespan(const Chart &chart) {
  double makespan = 0;
  for (const Row &row : chart.rows)
    for (const Bar &bar : row.bars)
      makespan = std::max(makespan, bar.finish);
  return makespan;
}

/// The span of the time axis: the makespan, or 1 us when nothing takes time
/// (an empty chart, only zero-length bars) so that scaling never divides by
/// zero.
double getAxisSpan(double makespan) { return makespan > 0 ? makespan : 1e-6; }

} // namespace

void mlir::orchestra::gantt::writeSVG(const Chart &chart,
                                      llvm::raw_ostream &os) {
  double makespan = getMakespan(chart);
  double span = getAxisSpan(makespan);
  TimeUnit unit = pickUnit(span);
  size_t longestName = 0;
  for (const Row &row : chart.rows)
    longestName = std::max(longestName, row.name.size());
  double left = std::clamp(20 + kCharWidth * longestName, 140.0, 360.0);
  std::vector<LaidOutRow> rows;
  double height = kTop;
  for (const Row &row : chart.rows) {
    rows.push_back(layOut(row));
    height += rows.back().lanes * kLaneHeight + 2 * kRowPadding;
  }
  double plotBottom = height;
  height += kAxisHeight + 10;
  double width = left + kPlotWidth + 30;
  auto xOf = [&](double time) { return left + time / span * kPlotWidth; };

  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                      "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                      "font-family=\"sans-serif\" font-size=\"11\">\n",
                      width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::formatv("<text x=\"10\" y=\"20\" font-size=\"14\" "
                      "font-weight=\"bold\">{0}</text>\n",
                      escape(chart.title));
  os << llvm::formatv("<text x=\"10\" y=\"36\" fill=\"#555\">makespan {0}; "
                      "{1} row(s)</text>\n",
                      escape(formatTime(makespan, unit)), chart.rows.size());

  // Row backgrounds and names.
  double y = kTop;
  for (auto [i, laid] : llvm::enumerate(rows)) {
    double rowHeight = laid.lanes * kLaneHeight + 2 * kRowPadding;
    const char *fill = laid.row->kind == RowKind::Link
                           ? "#eef0f8"
                           : (i % 2 ? "#fafafa" : "#ffffff");
    os << llvm::formatv("<rect x=\"0\" y=\"{0}\" width=\"{1}\" "
                        "height=\"{2}\" fill=\"{3}\"/>\n",
                        y, width, rowHeight, fill);
    os << llvm::formatv("<line x1=\"0\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" "
                        "stroke=\"#e4e4e4\"/>\n",
                        y, width);
    os << llvm::formatv(
        "<text x=\"10\" y=\"{0}\"{1}>{2}</text>\n", y + rowHeight / 2 + 4,
        laid.row->kind == RowKind::Link ? " fill=\"#446\" font-style=\"italic\""
                                        : "",
        escape(laid.row->name));
    y += rowHeight;
  }

  // Time axis with grid lines.
  double step = niceStep(span);
  // Multiples of the step rather than a running sum, which drifts.
  for (unsigned i = 0; i * step <= span * (1 + 1e-9); ++i) {
    double tick = i * step;
    double x = xOf(tick);
    os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                        "stroke=\"#ddd\"/>\n",
                        x, kTop, plotBottom);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" "
                        "fill=\"#333\">{2}</text>\n",
                        x, plotBottom + 16, escape(formatTime(tick, unit)));
  }
  os << llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                      "stroke=\"#333\"/>\n",
                      left, plotBottom, left + kPlotWidth);

  // Bars.
  y = kTop;
  for (const LaidOutRow &laid : rows) {
    for (auto [bar, lane] : laid.bars) {
      double x = xOf(bar->start);
      double w = std::max(1.5, xOf(bar->finish) - x);
      double barY = y + kRowPadding + lane * kLaneHeight + 2;
      double barH = kLaneHeight - 4;
      bool transfer = bar->kind == BarKind::Transfer;
      BarColours colours =
          transfer ? BarColours{"#f28e2b", "black"} : taskColours(bar->label);
      std::string tooltip =
          llvm::formatv("{0}\n{1} - {2} ({3})", bar->label,
                        formatTime(bar->start, unit),
                        formatTime(bar->finish, unit),
                        formatTime(bar->finish - bar->start, unit))
              .str();
      if (!bar->detail.empty())
        tooltip += "\n" + bar->detail;
      os << llvm::formatv(
          "<g><title>{0}</title><rect x=\"{1}\" y=\"{2}\" width=\"{3}\" "
          "height=\"{4}\" rx=\"3\" fill=\"{5}\" stroke=\"{6}\"/>",
          escape(tooltip), x, barY, w, barH, colours.fill,
          transfer ? "#b35806" : "#2b2b2b");
      if (w > kCharWidth * bar->label.size() + 6)
        os << llvm::formatv("<text x=\"{0}\" y=\"{1}\" fill=\"{2}\">{3}"
                            "</text>",
                            x + 3, barY + barH / 2 + 4, colours.text,
                            escape(bar->label));
      os << "</g>\n";
    }
    y += laid.lanes * kLaneHeight + 2 * kRowPadding;
  }
  os << "</svg>\n";
}

void mlir::orchestra::gantt::writeHTML(const Chart &chart,
                                       llvm::raw_ostream &os) {
  TimeUnit unit = pickUnit(getAxisSpan(getMakespan(chart)));
  os << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
     << escape(chart.title)
     << "</title>\n<style>body{font-family:sans-serif;margin:16px}"
        "table{border-collapse:collapse;margin-top:16px}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
        "td.n{text-align:right}</style></head><body>\n";
  writeSVG(chart, os);
  os << "<table>\n<tr><th>row</th><th>name</th><th>kind</th><th>start</th>"
        "<th>finish</th><th>duration</th><th>detail</th></tr>\n";
  for (const Row &row : chart.rows)
    for (const Bar &bar : row.bars)
      os << llvm::formatv(
          "<tr><td>{0}</td><td>{1}</td><td>{2}</td><td class=\"n\">{3}</td>"
          "<td class=\"n\">{4}</td><td class=\"n\">{5}</td><td>{6}</td>"
          "</tr>\n",
          escape(row.name), escape(bar.label),
          bar.kind == BarKind::Transfer ? "transfer" : "task",
          escape(formatTime(bar.start, unit)),
          escape(formatTime(bar.finish, unit)),
          escape(formatTime(bar.finish - bar.start, unit)), escape(bar.detail));
  os << "</table>\n</body></html>\n";
}

llvm::Error mlir::orchestra::gantt::writeChartFile(const Chart &chart,
                                                   llvm::StringRef path) {
  llvm::StringRef extension = llvm::sys::path::extension(path);
  bool svg = extension.equals_insensitive(".svg");
  bool html = extension.equals_insensitive(".html") ||
              extension.equals_insensitive(".htm");
  if (!svg && !html)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "cannot write the schedule chart '" + path +
            "': the file name must end in .svg or .html");
  // A temporary file renamed over `path`: never half a chart.
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    if (svg)
      writeSVG(chart, os);
    else
      writeHTML(chart, os);
    return llvm::Error::success();
  });
}
