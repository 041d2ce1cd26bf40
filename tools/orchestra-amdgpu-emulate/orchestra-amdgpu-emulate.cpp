//===- orchestra-amdgpu-emulate.cpp - An AMD GPU kernel on the CPU --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Runs one launch of a kernel of an AMD device module on the CPU:
//
//   orchestra-amdgpu-emulate MODULE.rocdl.mlir --kernel NAME
//       --grid X,Y,Z --block X,Y,Z --arg buffer:FILE --arg imm4:BITS ...
//
// MODULE.rocdl.mlir is the device module as orchestra-amd-emit-binary
// compiles it (after convert-gpu-to-rocdl; `--dump-device-code` writes it
// beside the code object): the exact IR LLVM's AMDGPU backend receives. The
// tool rewrites its ROCDL ops into calls into the emulator (work-item and
// workgroup ids, barriers, MFMAs with the CDNA3 lane layouts; the device
// libraries' math functions become the host's), compiles it for the host
// with MLIR's execution engine, and runs every workgroup, each work-item a
// fiber (LaneScheduler.h). Buffers are read from their files, placed right
// before a guard page (an access past the end stops the run), and written
// back after the launch. A barrier or MFMA not every thread reaches is an
// error. What this checks and what it cannot: docs/Passes/AMD.md.
//
//===----------------------------------------------------------------------===//

#include "LaneScheduler.h"
#include "orchestra/Support/AtomicFile.h"
#include "orchestra/Support/CrashMessage.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <csignal>
#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;
using namespace amdgpu_emulate;

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional, llvm::cl::desc("<module.rocdl.mlir>"),
              llvm::cl::Required);
static llvm::cl::opt<std::string>
    kernelName("kernel", llvm::cl::Required,
               llvm::cl::desc("The kernel to run"));
static llvm::cl::opt<std::string>
    gridOption("grid", llvm::cl::Required,
               llvm::cl::desc("Workgroups of the launch: X,Y,Z"));
static llvm::cl::opt<std::string>
    blockOption("block", llvm::cl::Required,
                llvm::cl::desc("Work-items of a workgroup: X,Y,Z"));
static llvm::cl::opt<unsigned> optLevel(
    "O", llvm::cl::init(1),
    llvm::cl::desc("Optimization level of the host code (0-3; default 1: "
                   "compiles fast, runs fast enough for tests)"));
static llvm::cl::list<std::string> argOptions(
    "arg",
    llvm::cl::desc("A kernel parameter, in order: buffer:FILE (read, passed as "
                   "a device pointer, written back), imm4:BITS or imm8:BITS "
                   "(an immediate's little-endian bits, as unsigned)"));

namespace {
[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << "orchestra-amdgpu-emulate: error: " << message << "\n";
  std::exit(1);
}

bool parseDims(StringRef text, std::array<uint32_t, 3> &dims) {
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return false;
  dims = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(10, dims[i]) || dims[i] == 0)
      return false;
  return true;
}

/// A buffer placed right before a PROT_NONE page.
struct GuardedBuffer {
  std::string path;
  char *mapping = nullptr;
  size_t mappingBytes = 0;
  char *data = nullptr;
  size_t bytes = 0;
};

GuardedBuffer readBuffer(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file)
    fail("cannot read '" + path + "': " + file.getError().message());
  GuardedBuffer buffer;
  buffer.path = path;
  buffer.bytes = (*file)->getBufferSize();
  size_t page = sysconf(_SC_PAGESIZE);
  // Kernels rely on 64-byte aligned buffers (orchestra-gpu-kernel-argument-
  // alignment): the end of the data is within 63 bytes of the guard page.
  size_t padded = (buffer.bytes + 63) / 64 * 64;
  size_t dataPages = (padded + page - 1) / page;
  buffer.mappingBytes = (dataPages + 1) * page;
  void *mapping = mmap(nullptr, buffer.mappingBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    fail("cannot map " + llvm::Twine(buffer.mappingBytes) + " bytes");
  buffer.mapping = static_cast<char *>(mapping);
  mprotect(buffer.mapping + dataPages * page, page, PROT_NONE);
  buffer.data = buffer.mapping + dataPages * page - padded;
  std::memcpy(buffer.data, (*file)->getBufferStart(), buffer.bytes);
  return buffer;
}

void onSegfault(int) {
  const char message[] =
      "orchestra-amdgpu-emulate: error: the kernel accessed memory outside "
      "its buffers (past the end of a buffer, or a wild address)\n";
  (void)!write(2, message, sizeof(message) - 1);
  _exit(1);
}

/// The device libraries' functions without a C library namesake.
float ocmlRsqrt(float x) { return 1.0f / std::sqrt(x); }
double ocmlRsqrtF64(double x) { return 1.0 / std::sqrt(x); }

/// The host function that computes the device libraries' `name`
/// (`__ocml_<f>_f32` is the C library's `<f>f`, `__ocml_<f>_f64` its
/// `<f>`), or null.
void *findHostMath(StringRef name) {
  if (name == "__ocml_rsqrt_f32")
    return reinterpret_cast<void *>(&ocmlRsqrt);
  if (name == "__ocml_rsqrt_f64")
    return reinterpret_cast<void *>(&ocmlRsqrtF64);
  StringRef base = name;
  if (!base.consume_front("__ocml_"))
    return nullptr;
  std::string host;
  if (base.consume_back("_f32"))
    host = (base + "f").str();
  else if (base.consume_back("_f64"))
    host = base.str();
  else
    return nullptr;
  return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(host);
}

/// Calls `name` (a function of the emulator) with `args`, returning
/// `result` (or nothing).
Value callRuntime(OpBuilder &builder, Location loc, ModuleOp module,
                  StringRef name, Type result, ValueRange args) {
  auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  MLIRContext *ctx = builder.getContext();
  if (!func) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    SmallVector<Type> argTypes(args.getTypes());
    Type resultType = result ? result : LLVM::LLVMVoidType::get(ctx);
    func = LLVM::LLVMFuncOp::create(
        builder, loc, name, LLVM::LLVMFunctionType::get(resultType, argTypes));
  }
  auto call = LLVM::CallOp::create(builder, loc, func, args);
  return result ? call.getResult() : Value();
}

/// Calls to the device libraries' f16 functions (`__ocml_<f>_f16`) become
/// their f32 namesakes on operands extended to f32, rounded back to f16 (as
/// the device libraries compute most of them).
void widenHalfMath(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type f16 = Float16Type::get(ctx), f32 = Float32Type::get(ctx);
  SmallVector<LLVM::CallOp> calls;
  module.walk([&](LLVM::CallOp call) {
    std::optional<StringRef> callee = call.getCallee();
    if (callee && callee->starts_with("__ocml_") && callee->ends_with("_f16") &&
        call.getNumResults() == 1 && call.getResult().getType() == f16 &&
        llvm::all_of(call.getArgOperands().getTypes(),
                     [&](Type t) { return t == f16; }))
      calls.push_back(call);
  });
  for (LLVM::CallOp call : calls) {
    OpBuilder builder(call);
    std::string name = (call.getCallee()->drop_back(4) + "_f32").str();
    SmallVector<Value> args;
    for (Value arg : call.getArgOperands())
      args.push_back(LLVM::FPExtOp::create(builder, call.getLoc(), f32, arg));
    Value wide = callRuntime(builder, call.getLoc(), module, name, f32, args);
    Value narrow = LLVM::FPTruncOp::create(builder, call.getLoc(), f16, wide);
    call.getResult().replaceAllUsesWith(narrow);
    call.erase();
  }
  for (auto func :
       llvm::make_early_inc_range(module.getOps<LLVM::LLVMFuncOp>()))
    if (func.isExternal() && func.getName().starts_with("__ocml_") &&
        func.getName().ends_with("_f16") && func.symbolKnownUseEmpty(module))
      func.erase();
}

/// Rewrites the ROCDL ops of `module` into calls into the emulator; fails
/// on one it does not emulate.
LogicalResult rewriteDeviceOps(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  auto i32 = IntegerType::get(ctx, 32);
  auto i64 = IntegerType::get(ctx, 64);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  int32_t ballotSites = 0;
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<ROCDL::ROCDLDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    StringRef name = op->getName().getStringRef();
    auto dimOf = [&](StringRef prefix) -> std::optional<int32_t> {
      if (!name.consume_front(prefix))
        return std::nullopt;
      return name == "x" ? 0 : name == "y" ? 1 : name == "z" ? 2 : -1;
    };
    std::optional<std::pair<StringRef, int32_t>> idCall;
    for (auto [prefix, function] :
         {std::pair<StringRef, StringRef>{"rocdl.workitem.id.",
                                          "__emu_workitem_id"},
          {"rocdl.workgroup.id.", "__emu_workgroup_id"},
          {"rocdl.workgroup.dim.", "__emu_workgroup_dim"},
          {"rocdl.grid.dim.", "__emu_grid_dim"}}) {
      name = op->getName().getStringRef();
      if (std::optional<int32_t> dim = dimOf(prefix); dim && *dim >= 0)
        idCall = {function, *dim};
    }
    name = op->getName().getStringRef();
    if (idCall) {
      Value dim = LLVM::ConstantOp::create(builder, loc, i32, idCall->second);
      Value value = callRuntime(builder, loc, module, idCall->first, i64, dim);
      Type type = op->getResult(0).getType();
      if (type != i64)
        value = LLVM::TruncOp::create(builder, loc, type, value);
      op->getResult(0).replaceAllUsesWith(value);
      op->erase();
      continue;
    }
    if (name == "rocdl.barrier" || name == "rocdl.s.barrier") {
      callRuntime(builder, loc, module, "__emu_barrier", nullptr, {});
      op->erase();
      continue;
    }
    // Waits on outstanding memory operations: the emulator's memory
    // accesses complete in order.
    if (name == "rocdl.s.waitcnt" || name == "rocdl.s.setprio" ||
        name == "rocdl.sched.barrier") {
      op->erase();
      continue;
    }
    // A wave vote (the branch probes): each ballot op is a site of its own.
    if (name == "rocdl.ballot") {
      Value site = LLVM::ConstantOp::create(builder, loc, i32, ballotSites++);
      Value vote = LLVM::ZExtOp::create(builder, loc, i32, op->getOperand(0));
      Value mask =
          callRuntime(builder, loc, module, "__emu_ballot", i64, {site, vote});
      Type type = op->getResult(0).getType();
      if (type != i64)
        mask = LLVM::TruncOp::create(builder, loc, type, mask);
      op->getResult(0).replaceAllUsesWith(mask);
      op->erase();
      continue;
    }
    if (name == "rocdl.mbcnt.lo" || name == "rocdl.mbcnt.hi") {
      Value count = callRuntime(builder, loc, module,
                                name == "rocdl.mbcnt.lo" ? "__emu_mbcnt_lo"
                                                         : "__emu_mbcnt_hi",
                                i32, op->getOperands());
      op->getResult(0).replaceAllUsesWith(count);
      op->erase();
      continue;
    }
    int32_t mfma = getMfmaId(name.str());
    if (mfma >= 0) {
      // A, B, C in memory of the lane's stack, D back from it.
      Value one = LLVM::ConstantOp::create(builder, loc, i64, 1);
      SmallVector<Value> slots;
      for (Value operand : op->getOperands().take_front(3)) {
        Value slot =
            LLVM::AllocaOp::create(builder, loc, ptr, operand.getType(), one);
        LLVM::StoreOp::create(builder, loc, operand, slot);
        slots.push_back(slot);
      }
      Type resultType = op->getResult(0).getType();
      Value d = LLVM::AllocaOp::create(builder, loc, ptr, resultType, one);
      Value id = LLVM::ConstantOp::create(builder, loc, i32, mfma);
      callRuntime(builder, loc, module, "__emu_mfma", nullptr,
                  {id, slots[0], slots[1], slots[2], d});
      Value result = LLVM::LoadOp::create(builder, loc, resultType, d);
      op->getResult(0).replaceAllUsesWith(result);
      op->erase();
      continue;
    }
    return op->emitError() << "the emulator does not execute '" << name << "'";
  }
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::orchestra::setCrashMessage("orchestra-amdgpu-emulate");
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS: run one launch of an AMD GPU kernel on the CPU\n");
  std::array<uint32_t, 3> grid, block;
  if (!parseDims(gridOption, grid) || !parseDims(blockOption, block))
    fail("--grid and --block take X[,Y[,Z]] of positive integers");

  DialectRegistry registry;
  registry.insert<LLVM::LLVMDialect, ROCDL::ROCDLDialect, gpu::GPUDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext ctx(registry);
  ctx.allowUnregisteredDialects(false);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &ctx);
  if (!parsed)
    fail("cannot parse '" + inputFile + "'");

  // The device module's functions and globals become the host module's.
  gpu::GPUModuleOp device;
  parsed->walk([&](gpu::GPUModuleOp module) { device = module; });
  if (!device)
    fail("'" + inputFile + "' holds no gpu.module");
  OwningOpRef<ModuleOp> host = ModuleOp::create(UnknownLoc::get(&ctx));
  OpBuilder builder(&ctx);
  builder.setInsertionPointToEnd(host->getBody());
  for (Operation &op : device.getBody()->without_terminator())
    builder.clone(op);
  SmallVector<std::string> sharedGlobals;
  host->walk([&](Operation *op) {
    // The device's calling conventions and launch bounds mean nothing on
    // the host.
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (attr.getName().getValue().starts_with("rocdl.") ||
          attr.getName().getValue().starts_with("gpu."))
        op->removeDiscardableAttr(attr.getName());
    if (auto global = dyn_cast<LLVM::GlobalOp>(op))
      if (global.getAddrSpace() == 3)
        sharedGlobals.push_back(global.getSymName().str());
  });
  // LDS: one copy of each workgroup-memory global, refilled for each
  // workgroup; the emulator finds it through a function that returns its
  // address (the global itself stays internal, as a definition).
  for (auto [i, name] : llvm::enumerate(sharedGlobals)) {
    auto global = host->lookupSymbol<LLVM::GlobalOp>(name);
    auto ptr3 = LLVM::LLVMPointerType::get(&ctx, 3);
    builder.setInsertionPointToEnd(host->getBody());
    auto accessor = LLVM::LLVMFuncOp::create(
        builder, global.getLoc(), "__emu_lds_" + std::to_string(i),
        LLVM::LLVMFunctionType::get(ptr3, {}));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(accessor.addEntryBlock(builder));
    Value address = LLVM::AddressOfOp::create(builder, global.getLoc(), global);
    LLVM::ReturnOp::create(builder, global.getLoc(), address);
  }
  builder.setInsertionPointToEnd(host->getBody());
  if (failed(rewriteDeviceOps(*host)))
    return 1;
  widenHalfMath(*host);
  auto kernel = host->lookupSymbol<LLVM::LLVMFuncOp>(kernelName);
  if (!kernel || kernel.isExternal())
    fail("'" + inputFile + "' has no kernel named '" + kernelName + "'");

  // The entry: every parameter loaded from an 8-byte slot of an array.
  auto ptr = LLVM::LLVMPointerType::get(&ctx);
  auto entry = LLVM::LLVMFuncOp::create(
      builder, kernel.getLoc(), "__emu_entry",
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(&ctx), {ptr}));
  Block *body = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  SmallVector<Value> params;
  auto paramTypes = kernel.getFunctionType().getParams();
  if (paramTypes.size() != argOptions.size())
    fail("kernel '" + kernelName + "' takes " + llvm::Twine(paramTypes.size()) +
         " parameters, got " + llvm::Twine(argOptions.size()) + " --arg");
  for (auto [i, type] : llvm::enumerate(paramTypes)) {
    Value slot = LLVM::GEPOp::create(builder, kernel.getLoc(), ptr,
                                     builder.getI64Type(), body->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    params.push_back(
        LLVM::LoadOp::create(builder, kernel.getLoc(), type, slot));
  }
  LLVM::CallOp::create(builder, kernel.getLoc(), kernel, params);
  LLVM::ReturnOp::create(builder, kernel.getLoc(), ValueRange());

  // The device libraries' functions the kernel calls, as the host's.
  llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  std::vector<std::pair<std::string, void *>> hostMath;
  for (auto func : host->getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = func.getName();
    if (!func.isExternal() || name.starts_with("__emu_"))
      continue;
    void *address = findHostMath(name);
    if (!address)
      fail("the kernel calls '" + name +
           "', which the emulator has no host function for");
    hostMath.push_back({name.str(), address});
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  ExecutionEngineOptions options;
  // (The options hold a reference: the transformer must outlive them.)
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, 0, nullptr);
  options.transformer = optimize;
  options.jitCodeGenOptLevel =
      optLevel ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None;
  auto engine = ExecutionEngine::create(*host, options);
  if (!engine)
    fail("cannot compile the kernel for the host: " +
         llvm::toString(engine.takeError()));
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    auto add = [&](StringRef name, auto *function) {
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                             llvm::JITSymbolFlags::Exported};
    };
    add("__emu_workitem_id", &__emu_workitem_id);
    add("__emu_workgroup_id", &__emu_workgroup_id);
    add("__emu_workgroup_dim", &__emu_workgroup_dim);
    add("__emu_grid_dim", &__emu_grid_dim);
    add("__emu_barrier", &__emu_barrier);
    add("__emu_mfma", &__emu_mfma);
    add("__emu_ballot", &__emu_ballot);
    add("__emu_mbcnt_lo", &__emu_mbcnt_lo);
    add("__emu_mbcnt_hi", &__emu_mbcnt_hi);
    for (auto [name, address] : hostMath)
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
    return map;
  });
  auto entryFn = (*engine)->lookup("__emu_entry");
  if (!entryFn)
    fail("cannot find the entry: " + llvm::toString(entryFn.takeError()));
  std::vector<std::pair<void *, size_t>> shared;
  for (auto [i, name] : llvm::enumerate(sharedGlobals)) {
    auto accessor = (*engine)->lookup("__emu_lds_" + std::to_string(i));
    if (!accessor)
      fail("cannot find LDS '" + name +
           "': " + llvm::toString(accessor.takeError()));
    auto global = host->lookupSymbol<LLVM::GlobalOp>(name);
    DataLayout layout(*host);
    void *address = reinterpret_cast<void *(*)()>(*accessor)();
    shared.push_back({address, layout.getTypeSize(global.getGlobalType())});
  }

  // The parameters.
  std::vector<GuardedBuffer> buffers;
  std::vector<uint64_t> slots(argOptions.size());
  for (auto [i, arg] : llvm::enumerate(argOptions)) {
    StringRef text(arg);
    if (text.consume_front("buffer:")) {
      buffers.push_back(readBuffer(text.str()));
      slots[i] = reinterpret_cast<uint64_t>(buffers.back().data);
    } else if (text.consume_front("imm4:") || text.consume_front("imm8:")) {
      if (text.getAsInteger(10, slots[i]))
        fail("--arg '" + arg + "': the bits must be an unsigned integer");
    } else {
      fail("--arg '" + arg + "' is not buffer:FILE, imm4:BITS or imm8:BITS");
    }
  }
  std::vector<void *> argv_(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    argv_[i] = reinterpret_cast<void *>(slots[i]);

  struct sigaction action = {};
  action.sa_handler = onSegfault;
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
  auto run = reinterpret_cast<void (*)(void **)>(*entryFn);
  std::string error;
  for (uint32_t z = 0; z < grid[2]; ++z)
    for (uint32_t y = 0; y < grid[1]; ++y)
      for (uint32_t x = 0; x < grid[0]; ++x)
        if (!runWorkgroup(run, argv_.data(), grid, block, {x, y, z}, shared,
                          error))
          fail("workgroup (" + llvm::Twine(x) + ", " + llvm::Twine(y) + ", " +
               llvm::Twine(z) + "): " + error);

  for (const GuardedBuffer &buffer : buffers) {
    std::string error;
    if (!::orchestra::writeFileAtomically(buffer.path, buffer.data,
                                          buffer.bytes, error))
      fail(error);
  }
  return 0;
}
