// gemm.cuh: tensor-core matrix multiplies through cuBLASLt, Y = X * A with
// X: M x K, A: K x N, Y: M x N. FLOP per call = 2 M N K; bytes (analytic) =
// (M K + K N) * sizeof(input) + M N * sizeof(output).
//
// Shapes: square n = 256 ... 8192, and the M sweep: N = K = 8192,
// M = 1, 2, 4 ... 2048 and 8192.
//
// cuBLAS is column-major; we compute Y^T (N x M) = A^T (N x K) * X^T (K x M),
// i.e. cuBLAS m = N, n = M, k = K, with the "TN" layout (first operand
// transposed) that FP8 requires, so every type runs the same layout and every
// leading dimension is K or N (multiples of 16 bytes).
#pragma once

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "common.cuh"

#define RT_CUBLAS(call)                                                               \
  do {                                                                                \
    cublasStatus_t rt_st_ = (call);                                                   \
    if (rt_st_ != CUBLAS_STATUS_SUCCESS) {                                            \
      std::fprintf(stderr, "rooftrace-harness: %s failed at %s:%d: status %d\n", #call, \
                   __FILE__, __LINE__, static_cast<int>(rt_st_));                     \
      std::exit(RT_EXIT_CUDA);                                                        \
    }                                                                                 \
  } while (0)

struct GemmType {
  const char* kernel;   // gemm_fp16 ...
  const char* dtype;    // fp16 ...
  cudaDataType_t in_type, out_type;
  cublasComputeType_t compute;
  cudaDataType_t scale_type;
  int in_bytes, out_bytes;
  int min_cc;           // 10 * major + minor
};

inline std::vector<GemmType> gemm_types() {
  return {
      {"gemm_fp16", "fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 70},
      {"gemm_bf16", "bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 80},
      {"gemm_tf32", "tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 4,
       4, 80},
      {"gemm_fp64", "fp64", CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, 8, 8, 80},
      // FP8 E4M3 inputs, BF16 output (an FP8 output needs a scale; BF16 does not).
      {"gemm_fp8_e4m3", "fp8_e4m3", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1,
       2, 89},
  };
}

struct GemmShape {
  const char* sweep;  // "square" or "m_sweep"
  long long m, n, k;
};

inline std::vector<GemmShape> gemm_shapes(const Options& opt) {
  std::vector<GemmShape> s;
  if (opt.quick) {
    s.push_back({"square", 8192, 8192, 8192});
    s.push_back({"m_sweep", 1, 8192, 8192});
    return s;
  }
  for (long long n = 256; n <= 8192; n *= 2) s.push_back({"square", n, n, n});
  for (long long m = 1; m <= 2048; m *= 2) s.push_back({"m_sweep", m, 8192, 8192});
  s.push_back({"m_sweep", 8192, 8192, 8192});
  return s;
}

inline int count_gemm(const DeviceInfo& dev, const Options& opt) {
  int types = 0;
  for (const GemmType& t : gemm_types()) types += (dev.cc_major * 10 + dev.cc_minor >= t.min_cc);
  return types * static_cast<int>(gemm_shapes(opt).size());
}

template <typename T>
void fill_as(void* p, size_t n, const DeviceInfo& dev) {
  rt_fill<T><<<grid_for(dev), 256>>>(static_cast<T*>(p), n, 1.0f);
}

inline void fill_typed(cudaDataType_t t, void* p, size_t n, const DeviceInfo& dev) {
  switch (t) {
    case CUDA_R_16F: fill_as<__half>(p, n, dev); break;
    case CUDA_R_16BF: fill_as<__nv_bfloat16>(p, n, dev); break;
    case CUDA_R_32F: fill_as<float>(p, n, dev); break;
    case CUDA_R_64F: fill_as<double>(p, n, dev); break;
    case CUDA_R_8F_E4M3: fill_as<__nv_fp8_e4m3>(p, n, dev); break;
    default: break;
  }
}

// Runs one shape of one type; returns false (and says why on stderr) when
// cuBLASLt has no algorithm for it.
inline bool run_gemm_point(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher,
                           cublasLtHandle_t lt, const GemmType& t, const GemmShape& s, void* a,
                           void* x, void* y, void* workspace, size_t workspace_bytes) {
  // cuBLAS view: C (m_ x n_) = op(A) (m_ x k) * B (k x n_), op(A) = A^T.
  const uint64_t m_ = s.n, n_ = s.m, k = s.k;
  cublasLtMatmulDesc_t desc;
  RT_CUBLAS(cublasLtMatmulDescCreate(&desc, t.compute, t.scale_type));
  cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
  RT_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT));
  RT_CUBLAS(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN));
  cublasLtMatrixLayout_t la, lb, lc;
  RT_CUBLAS(cublasLtMatrixLayoutCreate(&la, t.in_type, k, m_, k));
  RT_CUBLAS(cublasLtMatrixLayoutCreate(&lb, t.in_type, k, n_, k));
  RT_CUBLAS(cublasLtMatrixLayoutCreate(&lc, t.out_type, m_, n_, m_));
  cublasLtMatmulPreference_t pref;
  RT_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  RT_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspace_bytes, sizeof workspace_bytes));
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 1, &heur, &found);
  bool ok = st == CUBLAS_STATUS_SUCCESS && found > 0;
  if (!ok) {
    std::fprintf(stderr, "rooftrace-harness: skipped %s %s m=%lld n=%lld k=%lld: no cuBLASLt algorithm (status %d)\n",
                 t.kernel, s.sweep, s.m, s.n, s.k, static_cast<int>(st));
  } else {
    double alpha_d = 1.0, beta_d = 0.0;
    float alpha_f = 1.0f, beta_f = 0.0f;
    const void* alpha = t.scale_type == CUDA_R_64F ? static_cast<const void*>(&alpha_d) : &alpha_f;
    const void* beta = t.scale_type == CUDA_R_64F ? static_cast<const void*>(&beta_d) : &beta_f;
    int launches = 0;
    auto times = time_launches(
        [&] {
          RT_CUBLAS(cublasLtMatmul(lt, desc, alpha, a, la, x, lb, beta, y, lc, y, lc, &heur.algo,
                                   workspace, workspace_bytes, 0));
        },
        opt, flusher, &launches);
    char shape[160];
    std::snprintf(shape, sizeof shape, "\"sweep\":\"%s\",\"m\":%lld,\"n\":%lld,\"k\":%lld", s.sweep,
                  s.m, s.n, s.k);
    const double bytes = static_cast<double>(s.m * s.k + s.k * s.n) * t.in_bytes +
                         static_cast<double>(s.m * s.n) * t.out_bytes;
    emit(dev, opt, t.kernel, "gemm", t.dtype, shape, bytes, 2.0 * s.m * s.n * s.k, launches,
         times);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(desc);
  return ok;
}

inline void run_gemm(const DeviceInfo& dev, const Options& opt, L2Flusher* flusher) {
  cublasLtHandle_t lt;
  RT_CUBLAS(cublasLtCreate(&lt));
  const size_t workspace_bytes = size_t(32) << 20;
  void* workspace = nullptr;
  RT_CUDA(cudaMalloc(&workspace, workspace_bytes));
  const size_t max_elems = size_t(8192) * 8192;
  void *a = nullptr, *x = nullptr, *y = nullptr;
  RT_CUDA(cudaMalloc(&a, max_elems * 8));
  RT_CUDA(cudaMalloc(&x, max_elems * 8));
  RT_CUDA(cudaMalloc(&y, max_elems * 8));
  const int cc = dev.cc_major * 10 + dev.cc_minor;
  for (const GemmType& t : gemm_types()) {
    if (cc < t.min_cc) {
      std::fprintf(stderr, "rooftrace-harness: skipped %s: needs compute capability %d.%d\n",
                   t.kernel, t.min_cc / 10, t.min_cc % 10);
      continue;
    }
    fill_typed(t.in_type, a, max_elems, dev);
    fill_typed(t.in_type, x, max_elems, dev);
    RT_CUDA(cudaDeviceSynchronize());
    for (const GemmShape& s : gemm_shapes(opt)) {
      run_gemm_point(dev, opt, flusher, lt, t, s, a, x, y, workspace, workspace_bytes);
    }
  }
  cudaFree(a);
  cudaFree(x);
  cudaFree(y);
  cudaFree(workspace);
  cublasLtDestroy(lt);
}
