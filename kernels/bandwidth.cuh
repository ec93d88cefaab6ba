// bandwidth.cuh: data-moving reference kernels (read-only sum, copy, triad)
// over a working set swept from far below to far above the L2 size.
// Bytes moved per launch = working set (every array read or written once).
#pragma once

#include "common.cuh"

constexpr int RT_BW_THREADS = 256;
constexpr int RT_BW_UNROLL = 4;  // independent 16-byte loads in flight per thread

__device__ __forceinline__ float rt_sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Sums n float4 into *out: one atomic per block, so that at small (L2-sized)
// working sets the same-address atomics do not set the time instead of the
// reads. Launched with RT_BW_THREADS threads per block.
__global__ void __launch_bounds__(RT_BW_THREADS) read_sum_kernel(const float4* __restrict__ in,
                                                                 size_t n, float* out) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  float acc = 0.0f;
  for (; i + (RT_BW_UNROLL - 1) * stride < n; i += RT_BW_UNROLL * stride) {
    float4 v[RT_BW_UNROLL];
#pragma unroll
    for (int u = 0; u < RT_BW_UNROLL; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < RT_BW_UNROLL; ++u) acc += rt_sum4(v[u]);
  }
  for (; i < n; i += stride) acc += rt_sum4(in[i]);
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  __shared__ float warp_sums[RT_BW_THREADS / 32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    acc = threadIdx.x < RT_BW_THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) atomicAdd(out, acc);
  }
}

__global__ void __launch_bounds__(RT_BW_THREADS) copy_kernel(const float4* __restrict__ in,
                                                             float4* __restrict__ out, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (; i + (RT_BW_UNROLL - 1) * stride < n; i += RT_BW_UNROLL * stride) {
    float4 v[RT_BW_UNROLL];
#pragma unroll
    for (int u = 0; u < RT_BW_UNROLL; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < RT_BW_UNROLL; ++u) out[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) out[i] = in[i];
}

// a = b + s * c (STREAM triad).
__global__ void __launch_bounds__(RT_BW_THREADS) triad_kernel(float4* __restrict__ a,
                                                              const float4* __restrict__ b,
                                                              const float4* __restrict__ c,
                                                              float s, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

// Working sets, in bytes: powers of two from 1 MiB up to the larger of
// 8 x L2 and 1 GiB (DRAM figures come only from >= 4 x L2), capped at a
// quarter of free memory.
inline std::vector<size_t> bandwidth_working_sets(const DeviceInfo& dev, const Options& opt) {
  size_t free_b = 0, total_b = 0;
  RT_CUDA(cudaMemGetInfo(&free_b, &total_b));
  size_t top = size_t(1) << 30;
  while (top < static_cast<size_t>(dev.l2_bytes) * 8) top <<= 1;
  while (top > free_b / 4 && top > (size_t(1) << 20)) top >>= 1;
  std::vector<size_t> ws;
  if (opt.quick) {
    size_t small = size_t(1) << 20;
    while (small * 2 <= static_cast<size_t>(dev.l2_bytes) / 2) small <<= 1;
    ws.push_back(small);
    ws.push_back(top);
    return ws;
  }
  for (size_t w = size_t(1) << 20; w <= top; w <<= 1) ws.push_back(w);
  return ws;
}

inline int count_bandwidth(const DeviceInfo& dev, const Options& opt) {
  return 3 * static_cast<int>(bandwidth_working_sets(dev, opt).size());
}

inline void run_bandwidth(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher) {
  const std::vector<size_t> sets = bandwidth_working_sets(dev, opt);
  const size_t top = sets.back();
  float4 *a = nullptr, *b = nullptr, *c = nullptr;
  float* sum = nullptr;
  // a holds the largest read set (top bytes); b and c half of it, enough for
  // copy (2 arrays) and triad (3 arrays) at the same working set.
  const size_t cap = top / 2 / sizeof(float4);
  RT_CUDA(cudaMalloc(&a, 2 * cap * sizeof(float4)));
  RT_CUDA(cudaMalloc(&b, cap * sizeof(float4)));
  RT_CUDA(cudaMalloc(&c, cap * sizeof(float4)));
  RT_CUDA(cudaMalloc(&sum, sizeof(float)));
  rt_fill<float><<<grid_for(dev), 256>>>(reinterpret_cast<float*>(a), 2 * cap * 4, 1.0f);
  rt_fill<float><<<grid_for(dev), 256>>>(reinterpret_cast<float*>(b), cap * 4, 1.0f);
  rt_fill<float><<<grid_for(dev), 256>>>(reinterpret_cast<float*>(c), cap * 4, 1.0f);
  RT_CUDA(cudaDeviceSynchronize());
  const int grid = grid_for(dev, 2048 / RT_BW_THREADS);
  char shape[128];
  for (size_t ws : sets) {
    int launches = 0;
    {
      size_t n = ws / sizeof(float4);
      double bytes = static_cast<double>(n * sizeof(float4));
      auto t = time_launches([&] { read_sum_kernel<<<grid, RT_BW_THREADS>>>(a, n, sum); }, opt,
                             flusher, &launches);
      std::snprintf(shape, sizeof shape, "\"working_set_bytes\":%.0f", bytes);
      emit(dev, opt, "read_sum", "bandwidth", "fp32", shape, bytes, n * 4.0, launches, t);
    }
    {
      size_t n = std::min(ws / 2 / sizeof(float4), cap);
      double bytes = 2.0 * n * sizeof(float4);
      auto t = time_launches([&] { copy_kernel<<<grid, RT_BW_THREADS>>>(a, b, n); }, opt, flusher,
                             &launches);
      std::snprintf(shape, sizeof shape, "\"working_set_bytes\":%.0f", bytes);
      emit(dev, opt, "copy", "bandwidth", "fp32", shape, bytes, 0.0, launches, t);
    }
    {
      size_t n = std::min(ws / 3 / sizeof(float4), cap);
      double bytes = 3.0 * n * sizeof(float4);
      auto t = time_launches([&] { triad_kernel<<<grid, RT_BW_THREADS>>>(c, a, b, 0.5f, n); },
                             opt, flusher, &launches);
      std::snprintf(shape, sizeof shape, "\"working_set_bytes\":%.0f", bytes);
      emit(dev, opt, "triad", "bandwidth", "fp32", shape, bytes, n * 8.0, launches, t);
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(sum);
}
