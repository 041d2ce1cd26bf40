//===- CostModelTest.cpp - Tests of the scheduler's cost model ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/CostModel.h"
#include "orchestra/InitAll.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <limits>

using namespace mlir;
using namespace mlir::orchestra;

namespace {

/// A CPU (1 GFLOP/s f32, 1 GB/s), a GPU (1 TFLOP/s f32, 4 TFLOP/s f16,
/// 1 TB/s) and a TPU without f64, joined only through the CPU's memory.
const char *kTopology = R"json({
  "name": "test",
  "devices": [
    {"name": "cpu0", "arch": "x86_64", "device_id": 0,
     "peak_flops": {"f32": 1e9, "f64": 5e8}, "memory_bandwidth": 1e9,
     "launch_overhead": 1e-6},
    {"name": "gpu0", "arch": "nvidia_hopper", "device_id": 0,
     "peak_flops": {"f32": 1e12, "f16": 4e12, "i32": 5e11},
     "memory_bandwidth": 1e12, "launch_overhead": 5e-6},
    {"name": "tpu0", "arch": "google_tpu_v5e", "device_id": 0,
     "peak_flops": {"bf16": 2e12, "f32": 5e11}, "memory_bandwidth": 1e12}
  ],
  "memory_spaces": [
    {"name": "cpu0_dram", "device": "cpu0", "kind": "dram", "capacity": 1000000},
    {"name": "gpu0_hbm", "device": "gpu0", "kind": "hbm", "capacity": 1000000},
    {"name": "tpu0_hbm", "device": "tpu0", "kind": "hbm", "capacity": 1000000}
  ],
  "links": [
    {"from": "cpu0_dram", "to": "gpu0_hbm", "bandwidth": 1e10, "latency": 1e-5},
    {"from": "cpu0_dram", "to": "tpu0_hbm", "bandwidth": 5e9, "latency": 2e-5}
  ]
})json";

const char *kProgram = R"mlir(
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<64x16xf32>) outs(%e : tensor<64x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.erf %x : f32
    linalg.yield %r : f32
  } -> tensor<64x16xf32>
  return %g : tensor<64x16xf32>
}
)mlir";

class CostModelTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerAllDialectsAndExtensions(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kProgram, context.get());
    ASSERT_TRUE(module);
    llvm::Expected<Topology> parsed =
        Topology::parse(kTopology, getTargetRegistry());
    ASSERT_TRUE(static_cast<bool>(parsed))
        << llvm::toString(parsed.takeError());
    topology = std::make_unique<Topology>(std::move(*parsed));
    model = std::make_unique<CostModel>(*topology, getTargetRegistry());
    auto func = *module->getOps<func::FuncOp>().begin();
    for (Operation &op : func.getBody().front())
      if (op.getName().getStringRef() == "linalg.matmul")
        matmul = &op;
      else if (op.getName().getStringRef() == "linalg.generic")
        generic = &op;
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<Topology> topology;
  std::unique_ptr<CostModel> model;
  Operation *matmul = nullptr;
  Operation *generic = nullptr;
};

} // namespace

TEST_F(CostModelTest, WorkOfStructuredOps) {
  // 64 x 16 x 32 iterations of a multiply and an add.
  CostShapes shapes;
  EXPECT_DOUBLE_EQ(shapes.estimateFlops(matmul), 2.0 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(shapes.estimateBytes(matmul->getResult(0)), 64 * 16 * 4);
  EXPECT_EQ(getElementTypeName(matmul->getResult(0).getType()), "f32");
}

TEST_F(CostModelTest, RooflineAndLaunchOverhead) {
  Work compute{2e9, 1e3, "f32"};
  // CPU: compute-bound, 2 s + 1 us.
  EXPECT_DOUBLE_EQ(model->computeTime(topology->devices[0], compute),
                   2.0 + 1e-6);
  // GPU: 2 ms + 5 us.
  EXPECT_DOUBLE_EQ(model->computeTime(topology->devices[1], compute),
                   2e-3 + 5e-6);
  Work memory{1e3, 3e9, "f32"};
  // Memory-bound on the CPU: 3 GB over 1 GB/s.
  EXPECT_DOUBLE_EQ(model->computeTime(topology->devices[0], memory),
                   3.0 + 1e-6);
}

TEST_F(CostModelTest, ThroughputPerElementType) {
  const TopologyDevice &cpu = topology->devices[0];
  const TopologyDevice &gpu = topology->devices[1];
  const TopologyDevice &tpu = topology->devices[2];
  EXPECT_DOUBLE_EQ(model->getPeakFlops(gpu, "f16"), 4e12);
  // bf16 falls back to f32; integers to i32, then f32.
  EXPECT_DOUBLE_EQ(model->getPeakFlops(gpu, "bf16"), 1e12);
  EXPECT_DOUBLE_EQ(model->getPeakFlops(gpu, "i8"), 5e11);
  EXPECT_DOUBLE_EQ(model->getPeakFlops(cpu, "i32"), 1e9);
  // No f64 on the TPU: it cannot run f64 work.
  EXPECT_DOUBLE_EQ(model->getPeakFlops(tpu, "f64"), 0);
  EXPECT_EQ(model->computeTime(tpu, Work{1, 1, "f64"}),
            std::numeric_limits<double>::infinity());
}

// A per-element branch (its then side 3 ops, its else side 1) measured by
// a GPU's profile: taken by 1/4 of the lanes, with 1/2 of the warps
// divergent. Every device pays p T + (1 - p) E per element; a SIMT device
// also pays, for the divergent share, the side it would have skipped.
TEST_F(CostModelTest, DivergentBranchesCostSIMTDevicesBothSides) {
  const char *program = R"mlir(
func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %x, %zero : f32
    %r = scf.if %c -> f32 {
      %t0 = math.exp %x : f32
      %t1 = math.log %t0 : f32
      %t2 = math.sqrt %t1 : f32
      scf.yield %t2 : f32
    } else {
      %e0 = arith.negf %x : f32
      scf.yield %e0 : f32
    } {orchestra.branch_weights = array<i64: 1, 3>, orchestra.branch_divergence = 0.5 : f64}
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %g : tensor<64xf32>
}
)mlir";
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(program, context.get());
  ASSERT_TRUE(parsed);
  Operation *branchy = nullptr;
  parsed->walk([&](linalg::GenericOp op) { branchy = op; });
  ASSERT_TRUE(branchy);
  CostShapes shapes;
  // Per element: the constant, the compare, and 1/4 * 3 + 3/4 * 1 = 1.5.
  EXPECT_DOUBLE_EQ(shapes.estimateFlops(branchy), 64 * 3.5);
  // Divergent warps also run the other side: 1/2 (3/4 * 3 + 1/4 * 1) = 1.25.
  EXPECT_DOUBLE_EQ(shapes.estimateDivergenceFlops(branchy), 64 * 1.25);
  Work work{2e9, 1e3, "f32", 1e9};
  EXPECT_DOUBLE_EQ(model->computeTime(topology->devices[0], work), 2.0 + 1e-6);
  EXPECT_DOUBLE_EQ(model->computeTime(topology->devices[1], work), 3e-3 + 5e-6);
}

TEST_F(CostModelTest, SupportMask) {
  const TopologyDevice &cpu = topology->devices[0];
  const TopologyDevice &tpu = topology->devices[2];
  EXPECT_TRUE(model->supports(cpu, {matmul, generic}));
  EXPECT_TRUE(model->supports(tpu, {matmul}));
  // StableHLO has no erf (the mask is what orchestra-lower-to-stablehlo
  // converts).
  EXPECT_FALSE(model->supports(tpu, {generic}));
  EXPECT_FALSE(model->supports(tpu, {matmul, generic}));
}

TEST_F(CostModelTest, TransfersFollowTheFastestRoute) {
  // Direct link: 10 us + 1 MB / 10 GB/s.
  EXPECT_DOUBLE_EQ(model->transferTime(0, 1, 1e6), 1e-5 + 1e-4);
  // Same device: free.
  EXPECT_DOUBLE_EQ(model->transferTime(1, 1, 1e6), 0);
  // GPU to TPU through the CPU's memory: both hops.
  EXPECT_NEAR(model->transferTime(1, 2, 1e6), (1e-5 + 1e-4) + (2e-5 + 2e-4),
              1e-12);
  std::vector<std::string> route = model->getRoute(1, 2);
  ASSERT_EQ(route.size(), 3u);
  EXPECT_EQ(route[0], "gpu0_hbm");
  EXPECT_EQ(route[1], "cpu0_dram");
  EXPECT_EQ(route[2], "tpu0_hbm");
}

TEST_F(CostModelTest, DynamicSizesAtOptAndMax) {
  // A batch of 1..64 rows, costed at 8 (design/0017, decision 5); memory
  // at 64.
  const char *program = R"mlir(
    func.func @main(%a: tensor<?x16xf32> {orchestra.dim_names = ["batch", ""]},
                    %b: tensor<16x32xf32>) -> tensor<?x32xf32>
        attributes {orchestra.dims = {batch = array<i64: 1, 64, 8>}} {
      %c0 = arith.constant 0 : index
      %n = tensor.dim %a, %c0 : tensor<?x16xf32>
      %e = tensor.empty(%n) : tensor<?x32xf32>
      %m = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>)
                         outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
      return %m : tensor<?x32xf32>
    })mlir";
  OwningOpRef<ModuleOp> dynamic =
      parseSourceString<ModuleOp>(program, context.get());
  ASSERT_TRUE(dynamic);
  auto func = *dynamic->getOps<func::FuncOp>().begin();
  FailureOr<SmallVector<DynamicDim>> dims = getDynamicDims(func);
  ASSERT_TRUE(succeeded(dims));
  Operation *product = nullptr;
  func.walk([&](linalg::MatmulOp op) { product = op; });
  CostShapes atOpt(func, *dims, CostShapes::AtOpt);
  CostShapes atMax(func, *dims, CostShapes::AtMax);
  EXPECT_DOUBLE_EQ(atOpt.estimateFlops(product), 2.0 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(atOpt.estimateBytes(product->getResult(0)), 8 * 32 * 4);
  EXPECT_DOUBLE_EQ(atMax.estimateBytes(product->getResult(0)), 64 * 32 * 4);
  // Without the dims, a dynamic size costs 1.
  EXPECT_DOUBLE_EQ(CostShapes().estimateFlops(product), 2.0 * 32 * 16);
}
