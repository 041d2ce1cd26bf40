//===- LaneScheduler.cpp - The lanes of an emulated AMD workgroup ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "LaneScheduler.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <sanitizer/asan_interface.h>
#include <ucontext.h>

using namespace amdgpu_emulate;

namespace {
/// The lanes of a CDNA3 wave.
constexpr unsigned kWaveLanes = 64;
/// Each work-item's stack (private arrays live there).
constexpr size_t kStackBytes = 256 * 1024;

enum class State { Ready, AtBarrier, AtMfma, AtBallot, Done };

struct Lane {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  State state = State::Ready;
  std::array<uint32_t, 3> id = {0, 0, 0};
  // The MFMA the lane waits in.
  int32_t mfma = -1;
  const void *a = nullptr, *b = nullptr, *c = nullptr;
  void *d = nullptr;
  // The ballot the lane waits in: its site, its vote, and the result.
  int32_t ballot = -1;
  bool vote = false;
  uint64_t ballotResult = 0;
};

/// The workgroup being run (the emulator is single-threaded).
struct Workgroup {
  ucontext_t scheduler;
  std::vector<Lane> lanes;
  Lane *current = nullptr;
  std::array<uint32_t, 3> grid, dims, block;
  void (*entry)(void **) = nullptr;
  void **args = nullptr;
};
Workgroup group;

/// The entry of `site` in a wave's ballots.
std::vector<std::pair<int32_t, uint64_t>>::iterator
findSite(std::vector<std::pair<int32_t, uint64_t>> &votes, int32_t site) {
  return std::find_if(votes.begin(), votes.end(),
                      [&](const auto &vote) { return vote.first == site; });
}

/// Switches to `to`, saving the running context in `from`, with libc's
/// swapcontext itself rather than a sanitizer's interceptor of it: ASan's
/// clears the shadow of the whole target stack on every switch (a 32 KiB
/// memset each time a lane resumes, which made the emulator seven times
/// slower in a sanitized build). A lane's stack is unpoisoned once instead,
/// when the lane starts (see runWorkgroup).
void switchTo(ucontext_t *from, const ucontext_t *to) {
  using SwapContext = int (*)(ucontext_t *, const ucontext_t *);
  static SwapContext libcSwapContext = []() -> SwapContext {
    if (void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD))
      if (void *symbol = dlsym(libc, "swapcontext"))
        return reinterpret_cast<SwapContext>(symbol);
    return &::swapcontext;
  }();
  libcSwapContext(from, to);
}

void laneMain() {
  group.entry(group.args);
  group.current->state = State::Done;
  // uc_link returns to the scheduler.
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f,
           mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign << 31;
    } else { // subnormal: normalize
      int shift = 0;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3ff;
      bits = (sign << 31) | ((127 - 15 - shift + 1) << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1f) {
    bits = (sign << 31) | 0x7f800000 | (mantissa << 13);
  } else {
    bits = (sign << 31) | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Element `i` (< P) of a lane's A or B operand, as a double (exact for
/// every operand type).
double operandElement(Mfma id, const void *operand, unsigned i) {
  switch (id) {
  case Mfma::F32_32x32x2_F32:
    return *static_cast<const float *>(operand);
  case Mfma::F32_32x32x8_F16:
    return halfToFloat(static_cast<const uint16_t *>(operand)[i]);
  case Mfma::F32_32x32x8_BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(operand)[i]);
  case Mfma::I32_32x32x16_I8:
    return static_cast<const int8_t *>(operand)[i];
  }
  return 0;
}

/// Executes the MFMA of one wave (`lanes`: its 64 lanes, all waiting in
/// it), in the CDNA3 register layouts of the 32x32 variants with K = 2P:
/// lane l holds A[l % 32][(l / 32) P + i] and B[(l / 32) P + i][l % 32]
/// (i < P), and accumulator register r of row 8 (r / 4) + 4 (l / 32) + r % 4,
/// column l % 32.
void executeMfma(Lane *const *lanes) {
  auto id = static_cast<Mfma>(lanes[0]->mfma);
  unsigned p = id == Mfma::F32_32x32x2_F32   ? 1
               : id == Mfma::I32_32x32x16_I8 ? 8
                                             : 4;
  unsigned k = 2 * p;
  double a[32][16], b[16][32];
  for (unsigned l = 0; l < kWaveLanes; ++l)
    for (unsigned i = 0; i < p; ++i) {
      a[l % 32][(l / 32) * p + i] = operandElement(id, lanes[l]->a, i);
      b[(l / 32) * p + i][l % 32] = operandElement(id, lanes[l]->b, i);
    }
  bool integer = id == Mfma::I32_32x32x16_I8;
  for (unsigned l = 0; l < kWaveLanes; ++l) {
    for (unsigned r = 0; r < 16; ++r) {
      unsigned row = 8 * (r / 4) + 4 * (l / 32) + r % 4, col = l % 32;
      if (integer) {
        int64_t sum = 0;
        for (unsigned kk = 0; kk < k; ++kk)
          sum += static_cast<int64_t>(a[row][kk]) *
                 static_cast<int64_t>(b[kk][col]);
        uint32_t acc = static_cast<const uint32_t *>(lanes[l]->c)[r] +
                       static_cast<uint32_t>(sum);
        static_cast<uint32_t *>(lanes[l]->d)[r] = acc;
      } else {
        float acc = static_cast<const float *>(lanes[l]->c)[r];
        for (unsigned kk = 0; kk < k; ++kk)
          acc += static_cast<float>(a[row][kk] * b[kk][col]);
        static_cast<float *>(lanes[l]->d)[r] = acc;
      }
    }
  }
}
} // namespace

int32_t amdgpu_emulate::getMfmaId(const std::string &name) {
  if (name == "rocdl.mfma.f32.32x32x2f32")
    return static_cast<int32_t>(Mfma::F32_32x32x2_F32);
  if (name == "rocdl.mfma.f32.32x32x8f16")
    return static_cast<int32_t>(Mfma::F32_32x32x8_F16);
  if (name == "rocdl.mfma.f32.32x32x8bf16.1k")
    return static_cast<int32_t>(Mfma::F32_32x32x8_BF16);
  if (name == "rocdl.mfma.i32.32x32x16.i8")
    return static_cast<int32_t>(Mfma::I32_32x32x16_I8);
  return -1;
}

bool amdgpu_emulate::runWorkgroup(
    void (*entry)(void **), void **args, const std::array<uint32_t, 3> &grid,
    const std::array<uint32_t, 3> &blockDims,
    const std::array<uint32_t, 3> &block,
    const std::vector<std::pair<void *, size_t>> &shared, std::string &error) {
  size_t threads = size_t(blockDims[0]) * blockDims[1] * blockDims[2];
  group.grid = grid;
  group.dims = blockDims;
  group.block = block;
  group.entry = entry;
  group.args = args;
  if (group.lanes.size() < threads)
    group.lanes.resize(threads);
  for (auto &[data, bytes] : shared)
    std::memset(data, 0xff, bytes);
  for (size_t t = 0; t < threads; ++t) {
    Lane &lane = group.lanes[t];
    if (!lane.stack)
      lane.stack.reset(new char[kStackBytes]); // (not zeroed: large)
    // Frames a lane left behind, if it ever stopped mid-run, leave no
    // poisoned redzones for the next one.
    ASAN_UNPOISON_MEMORY_REGION(lane.stack.get(), kStackBytes);
    lane.state = State::Ready;
    lane.id = {static_cast<uint32_t>(t % blockDims[0]),
               static_cast<uint32_t>(t / blockDims[0] % blockDims[1]),
               static_cast<uint32_t>(t / blockDims[0] / blockDims[1])};
    getcontext(&lane.context);
    lane.context.uc_stack.ss_sp = lane.stack.get();
    lane.context.uc_stack.ss_size = kStackBytes;
    lane.context.uc_link = &group.scheduler;
    makecontext(&lane.context, laneMain, 0);
  }
  size_t waves = (threads + kWaveLanes - 1) / kWaveLanes;
  while (true) {
    for (size_t t = 0; t < threads; ++t) {
      Lane &lane = group.lanes[t];
      if (lane.state != State::Ready)
        continue;
      group.current = &lane;
      switchTo(&group.scheduler, &lane.context);
    }
    size_t done = 0, atBarrier = 0;
    for (size_t t = 0; t < threads; ++t) {
      done += group.lanes[t].state == State::Done;
      atBarrier += group.lanes[t].state == State::AtBarrier;
    }
    if (done == threads)
      return true;
    // Ballots: the lanes of a wave that wait in the same ballot are the
    // ones that execute it (a wave's other lanes are on another path, at a
    // barrier or gone), as a GPU runs the paths of a divergent wave one
    // after the other; each gets the mask of their votes.
    bool progressed = false;
    for (size_t w = 0; w < waves; ++w) {
      size_t first = w * kWaveLanes,
             size = std::min<size_t>(kWaveLanes, threads - first);
      std::vector<std::pair<int32_t, uint64_t>> votes; // site -> mask
      for (size_t l = 0; l < size; ++l) {
        const Lane &lane = group.lanes[first + l];
        if (lane.state != State::AtBallot)
          continue;
        auto it = findSite(votes, lane.ballot);
        if (it == votes.end())
          it = votes.insert(votes.end(), {lane.ballot, 0});
        if (lane.vote)
          it->second |= uint64_t(1) << l;
      }
      for (size_t l = 0; l < size; ++l) {
        Lane &lane = group.lanes[first + l];
        if (lane.state != State::AtBallot)
          continue;
        lane.ballotResult = findSite(votes, lane.ballot)->second;
        lane.state = State::Ready;
        progressed = true;
      }
    }
    if (progressed)
      continue;
    // Waves whose lanes all wait in the same MFMA execute it.
    for (size_t w = 0; w < waves; ++w) {
      Lane *lanes[kWaveLanes];
      size_t inMfma = 0,
             size = std::min<size_t>(kWaveLanes, threads - w * kWaveLanes);
      for (size_t l = 0; l < size; ++l) {
        lanes[l] = &group.lanes[w * kWaveLanes + l];
        inMfma += lanes[l]->state == State::AtMfma;
      }
      if (inMfma == 0)
        continue;
      if (inMfma != kWaveLanes) {
        error = "an MFMA of wave " + std::to_string(w) + " is executed by " +
                std::to_string(inMfma) + " of its 64 lanes (the others " +
                (size < kWaveLanes
                     ? "do not exist: the workgroup is not whole waves"
                     : "wait at a barrier or have exited") +
                ")";
        return false;
      }
      for (size_t l = 1; l < kWaveLanes; ++l)
        if (lanes[l]->mfma != lanes[0]->mfma) {
          error = "the lanes of wave " + std::to_string(w) +
                  " wait in different MFMA instructions";
          return false;
        }
      executeMfma(lanes);
      for (size_t l = 0; l < kWaveLanes; ++l)
        lanes[l]->state = State::Ready;
      progressed = true;
    }
    if (progressed)
      continue;
    if (atBarrier + done == threads && done == 0) {
      for (size_t t = 0; t < threads; ++t)
        group.lanes[t].state = State::Ready;
      continue;
    }
    error = "a barrier is reached by " + std::to_string(atBarrier) +
            " of the " + std::to_string(threads) +
            " threads of the workgroup (" + std::to_string(done) +
            " exited without it)";
    return false;
  }
}

extern "C" {
int64_t __emu_workitem_id(int32_t dim) { return group.current->id[dim]; }
int64_t __emu_workgroup_id(int32_t dim) { return group.block[dim]; }
int64_t __emu_workgroup_dim(int32_t dim) { return group.dims[dim]; }
int64_t __emu_grid_dim(int32_t dim) { return group.grid[dim]; }
void __emu_barrier() {
  Lane *lane = group.current;
  lane->state = State::AtBarrier;
  switchTo(&lane->context, &group.scheduler);
}
uint64_t __emu_ballot(int32_t site, int32_t vote) {
  Lane *lane = group.current;
  lane->state = State::AtBallot;
  lane->ballot = site;
  lane->vote = vote != 0;
  switchTo(&lane->context, &group.scheduler);
  return lane->ballotResult;
}
/// The lane's position in its wave.
static unsigned currentLaneInWave() {
  return static_cast<unsigned>(group.current - group.lanes.data()) % kWaveLanes;
}
int32_t __emu_mbcnt_lo(int32_t mask, int32_t base) {
  unsigned below = std::min(currentLaneInWave(), 32u);
  uint32_t bits = static_cast<uint32_t>(mask);
  if (below < 32)
    bits &= (uint32_t(1) << below) - 1;
  return base + __builtin_popcount(bits);
}
int32_t __emu_mbcnt_hi(int32_t mask, int32_t base) {
  unsigned lane = currentLaneInWave();
  if (lane <= 32)
    return base;
  uint32_t bits =
      static_cast<uint32_t>(mask) & ((uint32_t(1) << (lane - 32)) - 1);
  return base + __builtin_popcount(bits);
}
void __emu_mfma(int32_t id, const void *a, const void *b, const void *c,
                void *d) {
  Lane *lane = group.current;
  lane->state = State::AtMfma;
  lane->mfma = id;
  lane->a = a;
  lane->b = b;
  lane->c = c;
  lane->d = d;
  switchTo(&lane->context, &group.scheduler);
}
}
