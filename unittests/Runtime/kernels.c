/*===- kernels.c - Kernels for the runtime unit tests -----------*- C -*-===*\
|*                                                                          *|
|* Part of OrchestraOS.                                                     *|
|*                                                                          *|
\*===--------------------------------------------------------------------===*/
/* Built into a shared object whose bytes the tests embed in artifacts. Every
 * kernel follows the runtime's ABI: args[i] points at the i-th value's slot,
 * inputs first. The vectors have 16 floats. */

#include <stdint.h>
#include <time.h>

#define N 16

/* c = a + b */
void add_f32(void **args, const int64_t *sizes) {
  (void)sizes;
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *c = (float *)args[2];
  for (int i = 0; i < N; ++i)
    c[i] = a[i] + b[i];
}

/* y = 2 * x */
void scale2(void **args, const int64_t *sizes) {
  (void)sizes;
  const float *x = (const float *)args[0];
  float *y = (float *)args[1];
  for (int i = 0; i < N; ++i)
    y[i] = 2.0f * x[i];
}

/* Sleeps 50 ms, then y = x. */
void sleep_copy(void **args, const int64_t *sizes) {
  (void)sizes;
  struct timespec delay = {0, 50 * 1000 * 1000};
  while (nanosleep(&delay, &delay) != 0) {
  }
  const float *x = (const float *)args[0];
  float *y = (float *)args[1];
  for (int i = 0; i < N; ++i)
    y[i] = x[i];
}

/* The allocator hooks the compiler adds to kernel binaries that allocate
 * scratch buffers (orx_kernel_allocator: alloc, free); the runtime sets them
 * when it loads the binary. */
void *orx_kernel_allocator[2];

/* Reports on the hooks, in y (x is unused): y[0] = 1 if they are set,
 * y[1] = 1 if a 1 MiB block is 64-byte aligned and writable, y[2] = 1 if
 * the block freed first comes back for the same size, y[3] = 1 if a block
 * of another size is a different one. */
void scratch_reuse(void **args, const int64_t *sizes) {
  (void)sizes;
  float *y = (float *)args[1];
  for (int i = 0; i < N; ++i)
    y[i] = 0.0f;
  void *(*alloc)(unsigned long) =
      (void *(*)(unsigned long))orx_kernel_allocator[0];
  void (*release)(void *) = (void (*)(void *))orx_kernel_allocator[1];
  if (!alloc || !release)
    return;
  y[0] = 1.0f;
  unsigned long size = 1ul << 20;
  char *a = (char *)alloc(size);
  a[0] = 1;
  a[size - 1] = 2;
  y[1] = ((unsigned long)a % 64 == 0) ? 1.0f : 0.0f;
  release(a);
  char *b = (char *)alloc(size);
  y[2] = (a == b) ? 1.0f : 0.0f;
  char *c = (char *)alloc(size + 4096);
  y[3] = (c != b) ? 1.0f : 0.0f;
  release(c);
  release(b);
}

/* y = 2 * x for a vector of sizes[0] floats (a dynamic kernel: its size
 * comes from the step's size programs). */
void scale2_n(void **args, const int64_t *sizes) {
  const float *x = (const float *)args[0];
  float *y = (float *)args[1];
  for (int64_t i = 0; i < sizes[0]; ++i)
    y[i] = 2.0f * x[i];
}
