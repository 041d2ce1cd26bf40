//===- LaneScheduler.h - The lanes of an emulated AMD workgroup -*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Runs the threads of one workgroup of an emulated kernel as fibers
// (ucontext), one per work-item, so that a barrier is a point where every
// thread of the workgroup stops until all have reached it, and an MFMA is a
// point where the 64 lanes of a wave hand in their registers and get the
// wave's result back. The kernel code calls the __emu_* functions below
// (the tool rewrites the ROCDL ops into such calls).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_AMDGPU_EMULATE_LANESCHEDULER_H
#define ORCHESTRA_AMDGPU_EMULATE_LANESCHEDULER_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace amdgpu_emulate {

/// The MFMA instructions the emulator executes (the 32x32 variants of the
/// MFMA recipe), by the id the rewritten kernel passes to __emu_mfma.
enum class Mfma : int32_t {
  F32_32x32x2_F32 = 0,
  F32_32x32x8_F16 = 1,
  F32_32x32x8_BF16 = 2,
  I32_32x32x16_I8 = 3,
};

/// Returns the id of the ROCDL op `name` (e.g. "rocdl.mfma.f32.32x32x8f16"),
/// or -1.
int32_t getMfmaId(const std::string &name);

/// Runs `entry(args)` for every work-item of workgroup `block` of a launch
/// of `grid` x `blockDims`. `shared` lists the workgroup-memory buffers
/// (filled with 0xff before each workgroup, so that a read of LDS no thread
/// wrote reads NaN). Returns false with `error` set on a barrier or MFMA
/// that not every thread (lane) reaches.
bool runWorkgroup(void (*entry)(void **), void **args,
                  const std::array<uint32_t, 3> &grid,
                  const std::array<uint32_t, 3> &blockDims,
                  const std::array<uint32_t, 3> &block,
                  const std::vector<std::pair<void *, size_t>> &shared,
                  std::string &error);

} // namespace amdgpu_emulate

extern "C" {
int64_t __emu_workitem_id(int32_t dim);
int64_t __emu_workgroup_id(int32_t dim);
int64_t __emu_workgroup_dim(int32_t dim);
int64_t __emu_grid_dim(int32_t dim);
void __emu_barrier();
void __emu_mfma(int32_t id, const void *a, const void *b, const void *c,
                void *d);
/// rocdl.ballot: the mask of the votes of the wave's lanes that wait in the
/// same ballot `site`.
uint64_t __emu_ballot(int32_t site, int32_t vote);
/// rocdl.mbcnt.lo/hi: `base` plus the set bits of `mask` (the low/high half
/// of a wave mask) below the lane.
int32_t __emu_mbcnt_lo(int32_t mask, int32_t base);
int32_t __emu_mbcnt_hi(int32_t mask, int32_t base);
}

#endif // ORCHESTRA_AMDGPU_EMULATE_LANESCHEDULER_H
