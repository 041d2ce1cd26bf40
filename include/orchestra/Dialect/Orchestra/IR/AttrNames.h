//===- AttrNames.h - Names of the discardable attributes --------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The discardable attributes through which the passes, the artifact builder
// and the tools hand information along the pipeline. Each name is spelled
// here once; code uses these constants, never the string. A backend's own
// attributes are named in include/orchestra/Target/<Name>/AttrNames.h;
// test/attr-names.test checks that no other file spells one.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ATTRNAMES_H
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::attr {

// The module after scheduling (orchestra-schedule).
/// The topology the program was scheduled for (an #orchestra.topology:
/// TopologyAttr::lookup and TopologyAttr::require read it).
inline constexpr llvm::StringLiteral kTopology = "orchestra.topology";
/// The scheduling algorithm that made the schedule.
inline constexpr llvm::StringLiteral kAlgorithm = "orchestra.algorithm";
/// The makespan the scheduler predicts for a schedule, in seconds.
inline constexpr llvm::StringLiteral kPredictedMakespan =
    "orchestra.predicted_makespan";
/// The entry function's name.
inline constexpr llvm::StringLiteral kEntry = "orchestra.entry";
/// On a task whose branch the scheduler found worth speculating
/// (design/0019): `{then = <target>, else = <target>, else_start = <s>,
/// else_finish = <s>}`, the targets of the two side tasks
/// divergence-to-speculation makes of it and the else side's predicted
/// times (the then side's are the task's).
inline constexpr llvm::StringLiteral kSpeculate = "orchestra.speculate";

// Dynamic dimensions (orchestra-bind-dims, design/0017).
/// On the entry function: its named dims and their ranges,
/// `{name = array<i64: min, max, opt>}`; symbol i of a size expression is
/// the i-th name.
inline constexpr llvm::StringLiteral kDims = "orchestra.dims";
/// On an entry argument: the name of each of its dimensions ("" for a
/// static one).
inline constexpr llvm::StringLiteral kDimNames = "orchestra.dim_names";
/// The sizes of dynamically shaped values in the plan: one
/// `affine_map<()[dims] -> (sizes)>` per result (per argument on the
/// entry function's `orchestra.arg_shapes`).
inline constexpr llvm::StringLiteral kShapes = "orchestra.shapes";
inline constexpr llvm::StringLiteral kArgShapes = "orchestra.arg_shapes";
/// Inside the ONNX importer only: a placeholder for a dynamic size that is
/// derived from the consuming op's operands once the graph is imported.
inline constexpr llvm::StringLiteral kUnresolvedSize =
    "orchestra.unresolved_size";

// The host plan (orchestra-plan-buffers).
/// The plan: memory spaces and their arena sizes.
inline constexpr llvm::StringLiteral kPlan = "orchestra.plan";
/// A value's memory space, and its offset in the space's arena.
inline constexpr llvm::StringLiteral kSpace = "orchestra.space";
inline constexpr llvm::StringLiteral kOffsets = "orchestra.offsets";
/// The arena offsets of the entry function's arguments.
inline constexpr llvm::StringLiteral kArgOffsets = "orchestra.arg_offsets";

// Kernel modules (orchestra-outline-tasks and the backends).
/// The arch of a kernel module, and the `target` dictionary of its tasks.
inline constexpr llvm::StringLiteral kArch = "orchestra.arch";
inline constexpr llvm::StringLiteral kTarget = "orchestra.target";
/// The calling convention of a kernel function.
inline constexpr llvm::StringLiteral kAbi = "orchestra.abi";
/// A `linalg.pack` of a kernel argument that asks for the argument in the
/// packed layout when the plan holds it as a constant
/// (orchestra-hoist-constant-layouts).
inline constexpr llvm::StringLiteral kConstantLayout =
    "orchestra.constant_layout";
/// The op a kernel's tiling is rooted at, and the ops fused into it.
inline constexpr llvm::StringLiteral kFusionRoot = "orchestra.fusion_root";
inline constexpr llvm::StringLiteral kFusionProducer =
    "orchestra.fusion_producer";
/// What a backend's emit pass leaves on a compiled kernel module: the
/// binary, its format, the kernels in it and the CPU features it needs.
inline constexpr llvm::StringLiteral kBinary = "orchestra.binary";
inline constexpr llvm::StringLiteral kBinaryFormat = "orchestra.binary_format";
inline constexpr llvm::StringLiteral kKernels = "orchestra.kernels";
inline constexpr llvm::StringLiteral kRequiredFeatures =
    "orchestra.required_features";
/// How often an scf.if went each way (an scf.while: next iterations and
/// exits), from a branch profile (orchestra-apply-branch-profile):
/// `array<i64: true, false>`.
inline constexpr llvm::StringLiteral kBranchWeights =
    "orchestra.branch_weights";
/// The share of warps whose lanes disagreed on an scf.if, from a GPU's
/// branch profile (orchestra-apply-branch-profile): f64 in [0, 1].
inline constexpr llvm::StringLiteral kBranchDivergence =
    "orchestra.branch_divergence";
/// An scf.if that the profiled plan speculated (its select step counted it;
/// orchestra-apply-branch-profile): orchestra-schedule{replay-speculation}
/// speculates exactly these, to predict the running plan under a profile.
inline constexpr llvm::StringLiteral kSpeculatedWhenProfiled =
    "orchestra.speculated_when_profiled";
/// A compile that profiles branches (orchestra-lower-kernels
/// {profile-branches}, on the top-level module): the artifact's select steps
/// record their branch's location.
inline constexpr llvm::StringLiteral kProfileBranches =
    "orchestra.profile_branches";
/// The branches of each profiled kernel of a kernel module
/// (orchestra-branch-profiler): `{kernel = [loc, ...]}`, the location of
/// branch i at index i; the artifact's branch table (design/0019).
inline constexpr llvm::StringLiteral kBranches = "orchestra.branches";
/// The global through which a CPU kernel's branch probes reach the counters
/// the runtime passes after its buffers: `<prefix><kernel>`.
inline constexpr llvm::StringLiteral kBranchCountersGlobalPrefix =
    "__orx_branch_counters_";
/// A kernel function whose code is the Python source of a Neuron Kernel
/// Interface kernel (a task's `nki_source`, orchestra-outline-tasks).
inline constexpr llvm::StringLiteral kNkiSource = "orchestra.nki_source";
/// A kernel function (a task's `asm_kernel`, orchestra-outline-tasks), then
/// the device module of its assembly (orchestra-gpu-lower-asm-kernels): the
/// expert escape hatch of GPU archs.
inline constexpr llvm::StringLiteral kAsmKernel = "orchestra.asm_kernel";
/// What a backend's vendor compiler made of a kernel function ahead of time
/// (its format, and the bytes), which orchestra-stablehlo-emit-binary packs
/// beside the kernel's program (orx::PjrtKernelDesc::aotFormat).
inline constexpr llvm::StringLiteral kAotFormat = "orchestra.aot_format";
inline constexpr llvm::StringLiteral kAotBinary = "orchestra.aot_binary";
/// What a host of a kernel module's arch needs to run its binary, in words
/// (orx::PjrtBundle::requirements), set by the arch's backend.
inline constexpr llvm::StringLiteral kHostRequirements =
    "orchestra.host_requirements";
/// A kernel function written as a StableHLO module
/// (orchestra-lower-to-stablehlo).
inline constexpr llvm::StringLiteral kStableHLO = "orchestra.stablehlo";
/// Where a backend also writes its device code (orchestra-compile
/// --dump-device-code).
inline constexpr llvm::StringLiteral kDeviceCodeDir =
    "orchestra.device_code_dir";
/// The strategy variant a tuning cache chose for a kernel op, and the kernel
/// ops a tuning cache changed (orchestra-apply-tuning-cache).
inline constexpr llvm::StringLiteral kTileVariant = "orchestra.tile_variant";
inline constexpr llvm::StringLiteral kTunedOps = "orchestra.tuned_ops";

// The importer.
/// The ONNX name of an entry argument or result.
inline constexpr llvm::StringLiteral kName = "orchestra.name";
/// An entry argument or result of an unsigned ONNX type.
inline constexpr llvm::StringLiteral kUnsigned = "orchestra.unsigned";

} // namespace mlir::orchestra::attr

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ATTRNAMES_H
