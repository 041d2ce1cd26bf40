//===- GanttTest.cpp - Tests of the Gantt chart writer --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Scheduling/Gantt.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir::orchestra::gantt;

namespace {

Chart sampleChart() {
  Chart chart;
  chart.title = "main on topology 'x' (scheduler ils)";
  Row cpu{"cpu0 (x86_64)", RowKind::Device, {}};
  cpu.bars.push_back({"t0_matmul", 0, 4e-3, BarKind::Task, "target {}"});
  cpu.bars.push_back({"t2_add", 4e-3, 4e-3, BarKind::Task, ""});
  Row gpu{"gpu0 (nvidia_hopper)", RowKind::Device, {}};
  gpu.bars.push_back({"t1_conv_2d_nchw_fchw", 1e-3, 3e-3, BarKind::Task, ""});
  Row link{"cpu0_dram -> gpu0_hbm", RowKind::Link, {}};
  link.bars.push_back({"copy", 0, 1e-3, BarKind::Transfer, "tensor<4xf32>"});
  link.bars.push_back({"copy", 0.5e-3, 1e-3, BarKind::Transfer, ""});
  chart.rows = {cpu, gpu, link};
  return chart;
}

std::string svgOf(const Chart &chart) {
  std::string text;
  llvm::raw_string_ostream os(text);
  writeSVG(chart, os);
  return text;
}

} // namespace

TEST(Gantt, RowsBarsAndAxis) {
  std::string svg = svgOf(sampleChart());
  llvm::StringRef text(svg);
  EXPECT_TRUE(text.starts_with("<svg"));
  EXPECT_TRUE(text.ends_with("</svg>\n"));
  for (const char *needle :
       {"cpu0 (x86_64)", "gpu0 (nvidia_hopper)", "cpu0_dram -&gt; gpu0_hbm",
        ">t0_matmul</text>", "makespan 4 ms", ">2 ms</text>",
        "<title>t0_matmul\n0 ms - 4 ms (4 ms)\ntarget {}</title>"})
    EXPECT_TRUE(text.contains(needle)) << needle << "\n" << svg;
  // The zero-length task is still drawn (1.5 px wide).
  EXPECT_TRUE(text.contains("<title>t2_add")) << svg;
  EXPECT_TRUE(text.contains("width=\"1.50\"")) << svg;
}

TEST(Gantt, OverlappingTransfersGetTheirOwnLanes) {
  std::string svg = svgOf(sampleChart());
  // The two copies on the link overlap: their rectangles differ in y.
  size_t first = svg.find("<title>copy");
  size_t second = svg.find("<title>copy", first + 1);
  ASSERT_NE(second, std::string::npos);
  auto yOf = [&](size_t from) {
    size_t y = svg.find(" y=\"", from) + 4;
    return svg.substr(y, svg.find('"', y) - y);
  };
  EXPECT_NE(yOf(first), yOf(second));
}

TEST(Gantt, LinkRowsAreShadedDifferently) {
  Chart chart;
  chart.rows.push_back({"a -> b", RowKind::Link, {}});
  std::string link = svgOf(chart);
  chart.rows[0].kind = RowKind::Device;
  std::string device = svgOf(chart);
  EXPECT_TRUE(llvm::StringRef(link).contains("fill=\"#eef0f8\"")) << link;
  EXPECT_FALSE(llvm::StringRef(device).contains("fill=\"#eef0f8\"")) << device;
}

TEST(Gantt, EscapesText) {
  Chart chart;
  chart.title = "a<b&\"c\"";
  chart.rows.push_back({"row'1", RowKind::Device, {}});
  chart.rows[0].bars.push_back({"x<y", 0, 1, BarKind::Task, ""});
  std::string svg = svgOf(chart);
  EXPECT_TRUE(llvm::StringRef(svg).contains("a&lt;b&amp;&quot;c&quot;"));
  EXPECT_TRUE(llvm::StringRef(svg).contains("row&#39;1"));
  EXPECT_FALSE(llvm::StringRef(svg).contains("x<y"));
}

TEST(Gantt, EscapesBarLabelsAndTooltips) {
  Chart chart;
  chart.rows.push_back({"cpu0", RowKind::Device, {}});
  chart.rows[0].bars.push_back({"a<b&\"c\"", 0, 1, BarKind::Task, "d>e"});
  std::string text = svgOf(chart);
  llvm::StringRef svg(text);
  EXPECT_TRUE(svg.contains(">a&lt;b&amp;&quot;c&quot;</text>")) << text;
  EXPECT_TRUE(svg.contains("<title>a&lt;b&amp;&quot;c&quot;\n")) << text;
  EXPECT_TRUE(svg.contains("\nd&gt;e</title>")) << text;
  EXPECT_FALSE(svg.contains("a<b")) << text;
}

TEST(Gantt, LabelsOnlyWhenTheyFit) {
  Chart chart;
  chart.rows.push_back({"cpu0", RowKind::Device, {}});
  chart.rows[0].bars.push_back({"t0_wide", 0, 1, BarKind::Task, ""});
  chart.rows[0].bars.push_back(
      {"t1_narrow_with_a_long_name", 1, 1.001, BarKind::Task, ""});
  std::string svg = svgOf(chart);
  llvm::StringRef text(svg);
  EXPECT_TRUE(text.contains(">t0_wide</text>")) << svg;
  EXPECT_FALSE(text.contains(">t1_narrow_with_a_long_name</text>")) << svg;
  // The tooltip is there either way.
  EXPECT_TRUE(text.contains("<title>t1_narrow_with_a_long_name\n")) << svg;
}

TEST(Gantt, OnlyZeroLengthBars) {
  Chart chart;
  chart.rows.push_back({"cpu0", RowKind::Device, {}});
  chart.rows[0].bars.push_back({"t0_noop", 0, 0, BarKind::Task, ""});
  std::string svg = svgOf(chart);
  llvm::StringRef text(svg);
  EXPECT_TRUE(text.ends_with("</svg>\n"));
  EXPECT_TRUE(text.contains("<title>t0_noop")) << svg;
  EXPECT_TRUE(text.contains("width=\"1.50\"")) << svg;
  EXPECT_TRUE(text.contains("makespan 0 \u00b5s")) << svg;
  EXPECT_FALSE(text.contains_insensitive("nan")) << svg;
  EXPECT_FALSE(text.contains_insensitive("inf")) << svg;
}

TEST(Gantt, TickUnitsFollowTheMakespan) {
  auto chartOf = [](double finish) {
    Chart chart;
    chart.rows.push_back({"cpu0", RowKind::Device, {}});
    chart.rows[0].bars.push_back({"t0_x", 0, finish, BarKind::Task, ""});
    return svgOf(chart);
  };
  // 12.5 s: steps of 2 s.
  std::string seconds = chartOf(12.5);
  EXPECT_TRUE(llvm::StringRef(seconds).contains(">2 s</text>")) << seconds;
  EXPECT_TRUE(llvm::StringRef(seconds).contains(">12 s</text>")) << seconds;
  EXPECT_FALSE(llvm::StringRef(seconds).contains(">14 s</text>")) << seconds;
  // 40 us: steps of 5 us.
  std::string micro = chartOf(40e-6);
  EXPECT_TRUE(llvm::StringRef(micro).contains(">35 \u00b5s</text>")) << micro;
  // 30 ns: steps of 5 ns.
  std::string nano = chartOf(30e-9);
  EXPECT_TRUE(llvm::StringRef(nano).contains(">25 ns</text>")) << nano;
}

TEST(Gantt, DeterministicOutput) {
  EXPECT_EQ(svgOf(sampleChart()), svgOf(sampleChart()));
}

TEST(Gantt, EmptyChart) {
  std::string svg = svgOf(Chart{});
  EXPECT_TRUE(llvm::StringRef(svg).starts_with("<svg"));
  EXPECT_TRUE(llvm::StringRef(svg).ends_with("</svg>\n"));
}

TEST(Gantt, HTMLHasTheChartAndATableRowPerBar) {
  std::string html;
  llvm::raw_string_ostream os(html);
  writeHTML(sampleChart(), os);
  llvm::StringRef text(html);
  EXPECT_TRUE(text.contains("<svg"));
  size_t rows = 0;
  for (size_t at = text.find("<tr><td>"); at != llvm::StringRef::npos;
       at = text.find("<tr><td>", at + 1))
    ++rows;
  EXPECT_EQ(rows, 5u);
}

TEST(Gantt, RejectsUnknownExtensions) {
  llvm::Error error = writeChartFile(sampleChart(), "/tmp/chart.png");
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("/tmp/chart.png"), std::string::npos);
  EXPECT_NE(message.find(".svg or .html"), std::string::npos);
}

TEST(Gantt, WritesFilesByExtension) {
  for (const char *suffix : {"svg", "html"}) {
    llvm::SmallString<128> path;
    ASSERT_FALSE(
        llvm::sys::fs::createTemporaryFile("gantt-test", suffix, path));
    llvm::Error error = writeChartFile(sampleChart(), path);
    ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path);
    llvm::sys::fs::remove(path);
    ASSERT_TRUE(static_cast<bool>(buffer));
    llvm::StringRef text = (*buffer)->getBuffer();
    EXPECT_TRUE(llvm::StringRef(suffix) == "svg"
                    ? text.starts_with("<svg")
                    : text.starts_with("<!DOCTYPE html>"))
        << suffix;
  }
}
