/*===- kernels.c - Kernels for the runtime unit tests -----------*- C -*-===*\
|*                                                                          *|
|* Part of OrchestraOS.                                                     *|
|*                                                                          *|
\*===--------------------------------------------------------------------===*/
/* Built into a shared object whose bytes the tests embed in artifacts. Every
 * kernel follows the runtime's ABI: args[i] points at the i-th value's slot,
 * inputs first. The vectors have 16 floats. */

#include <time.h>

#define N 16

/* c = a + b */
void add_f32(void **args) {
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *c = (float *)args[2];
  for (int i = 0; i < N; ++i)
    c[i] = a[i] + b[i];
}

/* y = 2 * x */
void scale2(void **args) {
  const float *x = (const float *)args[0];
  float *y = (float *)args[1];
  for (int i = 0; i < N; ++i)
    y[i] = 2.0f * x[i];
}

/* Sleeps 50 ms, then y = x. */
void sleep_copy(void **args) {
  struct timespec delay = {0, 50 * 1000 * 1000};
  while (nanosleep(&delay, &delay) != 0) {
  }
  const float *x = (const float *)args[0];
  float *y = (float *)args[1];
  for (int i = 0; i < N; ++i)
    y[i] = x[i];
}
