//===- conv-peers.cpp - Convolution latency of oneDNN ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The peer of the convolution benchmark (bench/conv/conv_bench.py): times
// one f32 2-D convolution (forward inference, batch N) with oneDNN on the
// given thread count and prints the median of the repetitions after a
// warm-up, in seconds:
//
//   conv-peers N C H W K R STRIDE PAD GROUPS THREADS REPEAT
//   onednn <seconds>
//
// oneDNN picks its own layouts (format_tag::any, usually channel-blocked);
// the reorders into them are done once, outside the timing, as a framework
// that keeps its weights in oneDNN's layout would.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

int main(int argc, char **argv) {
  if (argc != 12) {
    std::fprintf(stderr, "usage: conv-peers N C H W K R STRIDE PAD GROUPS "
                         "THREADS REPEAT\n");
    return 2;
  }
  long n = std::atol(argv[1]), c = std::atol(argv[2]), h = std::atol(argv[3]),
       w = std::atol(argv[4]), k = std::atol(argv[5]), r = std::atol(argv[6]),
       stride = std::atol(argv[7]), pad = std::atol(argv[8]),
       groups = std::atol(argv[9]);
  int threads = std::atoi(argv[10]), repeat = std::atoi(argv[11]);
  if (n <= 0 || c <= 0 || h <= 0 || w <= 0 || k <= 0 || r <= 0 || stride <= 0 ||
      pad < 0 || groups <= 0 || c % groups || k % groups || threads <= 0 ||
      repeat <= 0) {
    std::fprintf(stderr, "conv-peers: invalid arguments\n");
    return 2;
  }
  omp_set_num_threads(threads);
  long oh = (h + 2 * pad - r) / stride + 1, ow = (w + 2 * pad - r) / stride + 1;

  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::dims src{n, c, h, w}, dst{n, k, oh, ow};
  memory::dims weights =
      groups == 1 ? memory::dims{k, c, r, r}
                  : memory::dims{groups, k / groups, c / groups, r, r};
  memory::desc srcAny(src, dt::f32, tag::any), dstAny(dst, dt::f32, tag::any),
      weightsAny(weights, dt::f32, tag::any);
  convolution_forward::desc desc(
      prop_kind::forward_inference, algorithm::convolution_direct, srcAny,
      weightsAny, dstAny, {stride, stride}, {pad, pad}, {pad, pad});
  convolution_forward::primitive_desc pd(desc, eng);
  memory srcMem(pd.src_desc(), eng), weightsMem(pd.weights_desc(), eng),
      dstMem(pd.dst_desc(), eng);
  std::mt19937 generator(1);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (memory *mem : {&srcMem, &weightsMem}) {
    float *data = static_cast<float *>(mem->get_data_handle());
    size_t count = mem->get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < count; ++i)
      data[i] = uniform(generator);
  }
  convolution_forward conv(pd);
  auto run = [&] {
    conv.execute(strm, {{DNNL_ARG_SRC, srcMem},
                        {DNNL_ARG_WEIGHTS, weightsMem},
                        {DNNL_ARG_DST, dstMem}});
    strm.wait();
  };
  run();
  std::vector<double> samples;
  for (int i = 0; i < repeat; ++i) {
    auto begin = std::chrono::steady_clock::now();
    run();
    samples.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count());
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                   samples.end());
  std::printf("onednn %.9f\n", samples[samples.size() / 2]);
  return 0;
}
