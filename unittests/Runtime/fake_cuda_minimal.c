/*===- fake_cuda_minimal.c - A CUDA driver with three entry points -*- C
-*-===*\
|*                                                                          *|
|* Part of OrchestraOS.                                                     *|
|*                                                                          *|
\*===--------------------------------------------------------------------===*/
/* Stands in for libcuda.so.1 in the runtime's tests (ORCHESTRA_CUDA_DRIVER):
 * it exports only cuInit, returning FAKE_INIT_RESULT (100 is
 * CUDA_ERROR_NO_DEVICE), and the error-message entry points. With
 * FAKE_INIT_RESULT 0 it is a driver that lacks everything else. */

#ifndef FAKE_INIT_RESULT
#define FAKE_INIT_RESULT 100
#endif

int cuInit(unsigned flags) {
  (void)flags;
  return FAKE_INIT_RESULT;
}

int cuGetErrorName(int error, const char **name) {
  if (error != 100)
    return 1;
  *name = "CUDA_ERROR_NO_DEVICE";
  return 0;
}

int cuGetErrorString(int error, const char **text) {
  if (error != 100)
    return 1;
  *text = "no CUDA-capable device is detected";
  return 0;
}
