// bandwidth.cuh: data-moving reference kernels (read-only sum, copy, triad)
// over a working set swept from far below to far above the L2 size.
// Bytes moved per launch = working set x passes (every array read or
// written once per pass; one pass except for L2-resident working sets).
#pragma once

#include "common.cuh"

constexpr int RT_BW_THREADS = 256;
constexpr int RT_BW_UNROLL = 4;  // independent 16-byte loads in flight per thread

// An L2-resident working set is read `passes` times per launch, so that one
// launch moves at least this many bytes: ~50 us at 10 TB/s, against a few
// us of launch gap, block ramp-up and reduction tail that a single pass
// over 16 MiB (~2 us) would be measuring instead of L2.
constexpr size_t RT_L2_BYTES_PER_LAUNCH = size_t(512) << 20;

__device__ __forceinline__ float rt_sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Every pass hands each block the slice another block read in the previous
// pass (blocks run on different SMs), and the loads bypass L1 (ld.global.cg),
// so a repeated pass reads L2, never the SM's own L1.
__device__ __forceinline__ size_t rt_pass_start(int pass) {
  const size_t vb = (blockIdx.x + static_cast<unsigned>(pass)) % gridDim.x;
  return vb * blockDim.x + threadIdx.x;
}

// Sums n float4, `passes` times, into *out: one atomic per block, so that
// at small (L2-sized) working sets the same-address atomics do not set the
// time instead of the reads. Launched with RT_BW_THREADS threads per block.
__global__ void __launch_bounds__(RT_BW_THREADS) read_sum_kernel(const float4* __restrict__ in,
                                                                 size_t n, int passes,
                                                                 float* out) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  float acc = 0.0f;
  for (int p = 0; p < passes; ++p) {
    size_t i = rt_pass_start(p);
    for (; i + (RT_BW_UNROLL - 1) * stride < n; i += RT_BW_UNROLL * stride) {
      float4 v[RT_BW_UNROLL];
#pragma unroll
      for (int u = 0; u < RT_BW_UNROLL; ++u) v[u] = __ldcg(in + i + u * stride);
#pragma unroll
      for (int u = 0; u < RT_BW_UNROLL; ++u) acc += rt_sum4(v[u]);
    }
    for (; i < n; i += stride) acc += rt_sum4(__ldcg(in + i));
  }
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
                                                             float4* __restrict__ out, size_t n,
                                                             int passes) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    size_t i = rt_pass_start(p);
    for (; i + (RT_BW_UNROLL - 1) * stride < n; i += RT_BW_UNROLL * stride) {
      float4 v[RT_BW_UNROLL];
#pragma unroll
      for (int u = 0; u < RT_BW_UNROLL; ++u) v[u] = __ldcg(in + i + u * stride);
#pragma unroll
      for (int u = 0; u < RT_BW_UNROLL; ++u) __stcg(out + i + u * stride, v[u]);
    }
    for (; i < n; i += stride) __stcg(out + i, __ldcg(in + i));
  }
}

// a = b + s * c (STREAM triad).
__global__ void __launch_bounds__(RT_BW_THREADS) triad_kernel(float4* __restrict__ a,
                                                              const float4* __restrict__ b,
                                                              const float4* __restrict__ c,
                                                              float s, size_t n, int passes) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = rt_pass_start(p); i < n; i += stride) {
      float4 x = __ldcg(b + i), y = __ldcg(c + i);
      __stcg(a + i, make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w));
    }
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

// Passes over the working set per launch: many for an L2 candidate (working
// set <= L2/2, no flush), else 1.
inline int bandwidth_passes(const DeviceInfo& dev, const Options& opt, size_t ws) {
  if (opt.l2_flush || ws == 0 || ws > static_cast<size_t>(dev.l2_bytes) / 2) return 1;
  return static_cast<int>((RT_L2_BYTES_PER_LAUNCH + ws - 1) / ws);
}

inline int count_bandwidth(const DeviceInfo& dev, const Options& opt) {
  return 3 * static_cast<int>(bandwidth_working_sets(dev, opt).size());
}

inline void run_bandwidth(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher,
                          const Nvml* nvml) {
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
  const int g_sum = occupancy_grid(dev, read_sum_kernel, RT_BW_THREADS);
  const int g_copy = occupancy_grid(dev, copy_kernel, RT_BW_THREADS);
  const int g_triad = occupancy_grid(dev, triad_kernel, RT_BW_THREADS);
  char shape[128], extra[96];
  auto point = [&](const char* kernel, int grid, double ws_bytes, int passes, double flop,
                   const Timing& t) {
    std::snprintf(shape, sizeof shape, "\"working_set_bytes\":%.0f", ws_bytes);
    std::snprintf(extra, sizeof extra, "\"passes\":%d,\"grid\":%d", passes, grid);
    emit(dev, opt, kernel, "bandwidth", "fp32", shape, extra, ws_bytes * passes, flop * passes,
         t);
    if (!t.ok()) rt_stop_if_sticky(kernel);
  };
  for (size_t ws : sets) {
    {
      size_t n = ws / sizeof(float4);
      const double bytes = static_cast<double>(n * sizeof(float4));
      const int passes = bandwidth_passes(dev, opt, n * sizeof(float4));
      Timing t = time_launches(
          [&] {
            read_sum_kernel<<<g_sum, RT_BW_THREADS>>>(a, n, passes, sum);
            return rt_launch_error();
          },
          opt, flusher, nvml);
      point("read_sum", g_sum, bytes, passes, n * 4.0, t);
    }
    {
      size_t n = std::min(ws / 2 / sizeof(float4), cap);
      const double bytes = 2.0 * n * sizeof(float4);
      const int passes = bandwidth_passes(dev, opt, 2 * n * sizeof(float4));
      Timing t = time_launches(
          [&] {
            copy_kernel<<<g_copy, RT_BW_THREADS>>>(a, b, n, passes);
            return rt_launch_error();
          },
          opt, flusher, nvml);
      point("copy", g_copy, bytes, passes, 0.0, t);
    }
    {
      size_t n = std::min(ws / 3 / sizeof(float4), cap);
      const double bytes = 3.0 * n * sizeof(float4);
      const int passes = bandwidth_passes(dev, opt, 3 * n * sizeof(float4));
      Timing t = time_launches(
          [&] {
            triad_kernel<<<g_triad, RT_BW_THREADS>>>(c, a, b, 0.5f, n, passes);
            return rt_launch_error();
          },
          opt, flusher, nvml);
      point("triad", g_triad, bytes, passes, n * 8.0, t);
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(sum);
}
