/*===- kernels_swap.c - Another version of a test kernel --------*- C -*-===*\
|*                                                                          *|
|* Part of OrchestraOS.                                                     *|
|*                                                                          *|
\*===--------------------------------------------------------------------===*/
/* A second binary with a kernel of the name kernels.c has, computing
 * something else, so that the tests see a hot swap take effect
 * (orx_session_replace_kernel). */

#include <stdint.h>

#define N 16

/* c = a - b (kernels.c's add_f32: a + b) */
void add_f32(void **args, const int64_t *sizes) {
  (void)sizes;
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *c = (float *)args[2];
  for (int i = 0; i < N; ++i)
    c[i] = a[i] - b[i];
}
