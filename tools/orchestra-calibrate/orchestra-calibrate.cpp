//===- orchestra-calibrate.cpp - Measure the host for its topology --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Measures the running machine's CPU and writes its topology entry, so that
// the scheduler's cost model uses measured figures instead of the template's
// placeholders and its predictions can be checked against measurements
// (orchestra-run --trace shows both):
//
//   - peak f32 and f64 FLOP/s: fused multiply-adds on independent vector
//     accumulators (AVX-512 where the CPU has it, else AVX2/FMA, else
//     generic), one thread per usable core;
//   - memory bandwidth: a STREAM-style triad over arrays far larger than the
//     caches, on all cores (STREAM's byte count: three arrays per pass);
//   - launch overhead: handing a task to a worker thread waiting on another
//     CPU and waiting for its completion (the runtime's CPU queue does the
//     same), the median of many;
//   - memory capacity: the physical memory.
//
// 16-bit floats get the f32 figure (the CPU path computes them in f32) and
// i32 half of it.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Topology/Topology.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mlir::orchestra;
namespace cl = llvm::cl;

static cl::OptionCategory category("orchestra-calibrate options");
static cl::opt<std::string> outputFile("o",
                                       cl::desc("Output topology JSON file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<std::string> topologyName("name",
                                         cl::desc("Name of the topology"),
                                         cl::init("calibrated-host"),
                                         cl::cat(category));
static cl::opt<bool> quick("quick",
                           cl::desc("Short measurements (about a second)"),
                           cl::init(false), cl::cat(category));
static cl::opt<unsigned>
    bandwidthMiB("bandwidth-mib",
                 cl::desc("Size of each triad array in MiB (default 128, 64 "
                          "with --quick)"),
                 cl::init(128), cl::cat(category));

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point begin) {
  return std::chrono::duration<double>(Clock::now() - begin).count();
}

unsigned getUsableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Returns the CPUs this process may run on (empty if unknown).
std::vector<int> getUsableCPUs() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set))
        cpus.push_back(cpu);
  return cpus;
}

/// Restricts the calling thread to `cpu`; a failure only makes the
/// measurement noisier.
void pinCurrentThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// FMA kernels: 12 independent accumulators hide the FMA latency. The
// accumulator update `acc * a + b` is contracted to a fused multiply-add.
template <typename Vector, typename Scalar>
__attribute__((always_inline)) inline double
fmaLoop(uint64_t iterations, Scalar scale, Scalar offset) {
  constexpr int kAccumulators = 12;
  constexpr unsigned kLanes = sizeof(Vector) / sizeof(Scalar);
  Vector a = Vector{} + scale, b = Vector{} + offset;
  Vector acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = b + static_cast<Scalar>(i);
  for (uint64_t n = 0; n < iterations; ++n) {
#pragma clang loop unroll(full)
    for (int i = 0; i < kAccumulators; ++i)
      acc[i] = acc[i] * a + b;
  }
  double sum = 0;
  for (int i = 0; i < kAccumulators; ++i)
    for (unsigned lane = 0; lane < kLanes; ++lane)
      sum += acc[i][lane];
  return sum;
}

typedef float F32x16 __attribute__((vector_size(64)));
typedef double F64x8 __attribute__((vector_size(64)));
typedef float F32x8 __attribute__((vector_size(32)));
typedef double F64x4 __attribute__((vector_size(32)));

__attribute__((target("avx512f,fma"))) double fmaF32Avx512(uint64_t n) {
  return fmaLoop<F32x16>(n, 0.999999f, 1e-7f);
}
__attribute__((target("avx512f,fma"))) double fmaF64Avx512(uint64_t n) {
  return fmaLoop<F64x8>(n, 0.999999, 1e-12);
}
__attribute__((target("avx2,fma"))) double fmaF32Avx2(uint64_t n) {
  return fmaLoop<F32x8>(n, 0.999999f, 1e-7f);
}
__attribute__((target("avx2,fma"))) double fmaF64Avx2(uint64_t n) {
  return fmaLoop<F64x4>(n, 0.999999, 1e-12);
}
double fmaF32Generic(uint64_t n) { return fmaLoop<F32x8>(n, 0.999999f, 1e-7f); }
double fmaF64Generic(uint64_t n) { return fmaLoop<F64x4>(n, 0.999999, 1e-12); }

struct FmaKernel {
  double (*run)(uint64_t);
  /// FLOPs per iteration: accumulators x lanes x 2.
  double flopsPerIteration;
  const char *isa;
};

FmaKernel pickKernel(bool f64) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return f64 ? FmaKernel{fmaF64Avx512, 12 * 8 * 2, "AVX-512"}
               : FmaKernel{fmaF32Avx512, 12 * 16 * 2, "AVX-512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return f64 ? FmaKernel{fmaF64Avx2, 12 * 4 * 2, "AVX2"}
               : FmaKernel{fmaF32Avx2, 12 * 8 * 2, "AVX2"};
  return f64 ? FmaKernel{fmaF64Generic, 12 * 4 * 2, "generic"}
             : FmaKernel{fmaF32Generic, 12 * 8 * 2, "generic"};
}

/// Runs `body(thread)` on `threads` threads at once; returns the wall time.
template <typename Fn>
double runParallel(unsigned threads, Fn body) {
  std::vector<std::thread> workers;
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      ++ready;
      while (!go.load())
        std::this_thread::yield();
      body(t);
    });
  while (ready.load() != threads)
    std::this_thread::yield();
  auto begin = Clock::now();
  go = true;
  for (std::thread &worker : workers)
    worker.join();
  return secondsSince(begin);
}

/// Best FLOP/s of `threads` threads over a few repetitions. The sums the
/// loops return are kept, so the loops cannot be dropped.
double measurePeak(const FmaKernel &kernel, unsigned threads) {
  uint64_t iterations = quick ? 4'000'000 : 20'000'000;
  double best = 0;
  std::vector<double> sink(threads);
  for (int rep = 0; rep < (quick ? 2 : 5); ++rep) {
    double time = runParallel(
        threads, [&](unsigned t) { sink[t] = kernel.run(iterations); });
    best =
        std::max(best, threads * iterations * kernel.flopsPerIteration / time);
  }
  // The sums are used, so the loops cannot be dropped.
  if (std::find(sink.begin(), sink.end(), -1.0) != sink.end())
    llvm::errs() << "";
  return best;
}

/// Best triad bandwidth (bytes/s) over `threads` threads.
double measureBandwidth(unsigned threads) {
  // --quick halves the arrays unless --bandwidth-mib is given; three 64 MiB
  // arrays still far exceed the last-level cache of most machines.
  uint64_t mib = quick && bandwidthMiB.getNumOccurrences() == 0
                     ? 64
                     : std::max(1u, bandwidthMiB.getValue());
  size_t n = mib * (1 << 20) / sizeof(float);
  std::unique_ptr<float[]> a(new float[n]), b(new float[n]), c(new float[n]);
  // First touch on the threads that use the data.
  runParallel(threads, [&](unsigned t) {
    size_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (size_t i = begin; i < end; ++i) {
      a[i] = 0;
      b[i] = 1;
      c[i] = 2;
    }
  });
  double best = 0;
  for (int rep = 0; rep < (quick ? 3 : 8); ++rep) {
    double time = runParallel(threads, [&](unsigned t) {
      size_t begin = n * t / threads, end = n * (t + 1) / threads;
      float *pa = a.get(), *pb = b.get(), *pc = c.get();
      for (size_t i = begin; i < end; ++i)
        pa[i] = pb[i] + 3.0f * pc[i];
    });
    best = std::max(best, 3.0 * n * sizeof(float) / time);
  }
  if (a[n / 2] != 7.0f)
    llvm::errs() << "orchestra-calibrate: warning: unexpected triad result\n";
  return best;
}

/// Median time to hand an empty task to a waiting worker (on `workerCPU`, if
/// given) and see it done.
double measureHandoffs(std::optional<int> workerCPU) {
  std::mutex mutex;
  std::condition_variable wake, done;
  bool pending = false, finished = false, stop = false;
  std::thread worker([&] {
    if (workerCPU)
      pinCurrentThread(*workerCPU);
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      wake.wait(lock, [&] { return pending || stop; });
      if (stop)
        return;
      pending = false;
      finished = true;
      done.notify_one();
    }
  });
  std::vector<double> samples;
  for (int i = 0; i < (quick ? 500 : 5000); ++i) {
    auto begin = Clock::now();
    {
      std::unique_lock<std::mutex> lock(mutex);
      pending = true;
      finished = false;
      wake.notify_one();
      done.wait(lock, [&] { return finished; });
    }
    samples.push_back(secondsSince(begin));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;
  }
  wake.notify_one();
  worker.join();
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                   samples.end());
  return samples[samples.size() / 2];
}

/// Median time to hand an empty task to a worker thread waiting on another
/// CPU, as the runtime hands a task to a device queue's worker, and see it
/// done. Left to the OS, the two threads sometimes share a CPU and the figure
/// drops to that of two context switches.
double measureLaunchOverhead() {
  std::vector<int> cpus = getUsableCPUs();
  if (cpus.size() < 2)
    return measureHandoffs(std::nullopt);
  double median = 0;
  std::thread dispatcher([&] {
    pinCurrentThread(cpus[0]);
    median = measureHandoffs(cpus[1]);
  });
  dispatcher.join();
  return median;
}

} // namespace

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-calibrate");
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS host calibration: measures this machine's CPU (peak f32 "
      "and f64\nFLOP/s with FMA loops, STREAM-triad memory bandwidth, task "
      "launch overhead,\nphysical memory) and writes a topology JSON for "
      "--topology.\n\n"
      "f16 and bf16 get the f32 figure (the CPU computes them in f32); i32 "
      "gets half\nof it. Progress and a summary go to stderr.\n\n"
      "  orchestra-calibrate -o host-measured.json\n"
      "  orchestra-compile model.onnx --topology host-measured.json -o "
      "model.orcx\n");
  // An unwritable output fails before the measurements rather than after
  // them; the file itself is written at the end, whole (a temporary file
  // renamed over it), so an interrupted run leaves the old one.
  if (outputFile != "-") {
    llvm::SmallString<256> dir(outputFile);
    llvm::sys::path::remove_filename(dir);
    if (dir.empty())
      dir = ".";
    if (std::error_code ec =
            llvm::sys::fs::access(dir, llvm::sys::fs::AccessMode::Write)) {
      llvm::errs() << "orchestra-calibrate: error: cannot write '" << outputFile
                   << "': " << ec.message() << "\n";
      return 1;
    }
  }

  unsigned cores = getUsableCores();
  std::string coresText =
      llvm::formatv("{0} core{1}", cores, cores == 1 ? "" : "s").str();
  // Prints "orchestra-calibrate: measuring <what>... <result>" on one line.
  auto measure = [](const llvm::Twine &what, auto run, double scale,
                    const char *unit) {
    llvm::errs() << "orchestra-calibrate: measuring " << what << "... ";
    llvm::errs().flush();
    double value = run();
    llvm::errs() << llvm::formatv("{0:f1} {1}\n", value * scale, unit);
    return value;
  };

  FmaKernel f32 = pickKernel(false), f64 = pickKernel(true);
  double f32One = measure(
      llvm::formatv("f32 peak ({0}) on 1 core", f32.isa),
      [&] { return measurePeak(f32, 1); }, 1e-9, "GFLOP/s");
  double f32All =
      cores == 1
          ? f32One
          : measure(
                llvm::formatv("f32 peak ({0}) on {1}", f32.isa, coresText),
                [&] { return measurePeak(f32, cores); }, 1e-9, "GFLOP/s");
  double f64One = measure(
      llvm::formatv("f64 peak ({0}) on 1 core", f64.isa),
      [&] { return measurePeak(f64, 1); }, 1e-9, "GFLOP/s");
  double f64All =
      cores == 1
          ? f64One
          : measure(
                llvm::formatv("f64 peak ({0}) on {1}", f64.isa, coresText),
                [&] { return measurePeak(f64, cores); }, 1e-9, "GFLOP/s");
  double bandwidth = measure(
      "memory bandwidth (triad)", [&] { return measureBandwidth(cores); }, 1e-9,
      "GB/s");
  double launch = measure(
      "task launch overhead", [] { return measureLaunchOverhead(); }, 1e6,
      "us");
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  int64_t capacity = pages > 0 && pageSize > 0
                         ? static_cast<int64_t>(pages) * pageSize
                         : int64_t(8) << 30;

  llvm::errs() << llvm::formatv(
      "  cores                {0}\n"
      "  f32 peak             {1:f1} GFLOP/s ({2:f1} per core, {3})\n"
      "  f64 peak             {4:f1} GFLOP/s ({5:f1} per core)\n"
      "  f16, bf16 peak       {1:f1} GFLOP/s (the f32 figure)\n"
      "  i32 peak             {6:f1} GOP/s (half the f32 figure)\n"
      "  memory bandwidth     {7:f1} GB/s (triad)\n"
      "  launch overhead      {8:f2} us\n"
      "  memory               {9:f1} GiB\n",
      cores, f32All / 1e9, f32One / 1e9, f32.isa, f64All / 1e9, f64One / 1e9,
      f32All / 2e9, bandwidth / 1e9, launch * 1e6, capacity / double(1 << 30));

  Topology topology;
  topology.name = topologyName.getValue();
  TopologyDevice &cpu = topology.devices.emplace_back();
  cpu.name = "cpu0";
  cpu.arch = "x86_64";
  cpu.computeUnits = static_cast<int64_t>(cores);
  cpu.peakFlops["f64"] = f64All;
  cpu.peakFlops["f32"] = f32All;
  cpu.peakFlops["bf16"] = f32All;
  cpu.peakFlops["f16"] = f32All;
  cpu.peakFlops["i32"] = f32All / 2;
  cpu.memoryBandwidth = bandwidth;
  cpu.launchOverhead = launch;
  cpu.target["num_threads"] = static_cast<int64_t>(cores);
  topology.memorySpaces.push_back(
      {"cpu0_dram", cpu.name, "dram", static_cast<int64_t>(capacity)});
  std::string text = llvm::formatv("{0:2}\n", topology.toJSON()).str();
  llvm::Expected<Topology> parsed = Topology::parse(text, getTargetRegistry());
  if (!parsed) {
    llvm::errs() << "orchestra-calibrate: error: the measured topology does "
                    "not validate: "
                 << llvm::toString(parsed.takeError()) << "\n";
    return 1;
  }
  if (llvm::Error error =
          llvm::writeToOutput(outputFile, [&](llvm::raw_ostream &os) {
            os << text;
            return llvm::Error::success();
          })) {
    llvm::errs() << "orchestra-calibrate: error: "
                 << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
