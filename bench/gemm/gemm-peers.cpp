//===- gemm-peers.cpp - SGEMM throughput of oneDNN and OpenBLAS -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The peers of the GEMM benchmark (bench/gemm/gemm_bench.py): times
// C = A * B (f32, row-major, no transposes) with oneDNN's dnnl_sgemm and
// OpenBLAS's cblas_sgemm, on the given thread count, and prints the median
// of the repetitions after a warm-up as one line per library:
//
//   gemm-peers M N K THREADS REPEAT
//   onednn <seconds>
//   openblas <seconds>
//
// Thread counts are set with omp_set_num_threads (oneDNN's OpenMP runtime)
// and openblas_set_num_threads.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

extern "C" void openblas_set_num_threads(int);

namespace {

template <typename Fn>
double median(int repeat, Fn fn) {
  fn();
  std::vector<double> samples;
  for (int i = 0; i < repeat; ++i) {
    auto begin = std::chrono::steady_clock::now();
    fn();
    samples.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count());
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                   samples.end());
  return samples[samples.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: gemm-peers M N K THREADS REPEAT\n");
    return 2;
  }
  long m = std::atol(argv[1]), n = std::atol(argv[2]), k = std::atol(argv[3]);
  int threads = std::atoi(argv[4]), repeat = std::atoi(argv[5]);
  if (m <= 0 || n <= 0 || k <= 0 || threads <= 0 || repeat <= 0) {
    std::fprintf(stderr, "gemm-peers: sizes, threads and repeat must be "
                         "positive\n");
    return 2;
  }
  std::vector<float> a(m * k), b(k * n), c(m * n);
  std::mt19937 random(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float &x : a)
    x = uniform(random);
  for (float &x : b)
    x = uniform(random);

  omp_set_num_threads(threads);
  double onednn = median(repeat, [&] {
    dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
               c.data(), n);
  });
  openblas_set_num_threads(threads);
  double openblas = median(repeat, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                a.data(), k, b.data(), n, 0.0f, c.data(), n);
  });
  std::printf("onednn %.9f\nopenblas %.9f\n", onednn, openblas);
  return 0;
}
