#include "tessera/index/vector/simd/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tessera::index::vector::simd {

namespace {

CpuFeatures Query() {
  CpuFeatures features;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  features.avx2 = __builtin_cpu_supports("avx2");
  features.fma = __builtin_cpu_supports("fma");
  features.popcnt = __builtin_cpu_supports("popcnt");
  // CPUID leaf 1, ECX bit 29: clang before 16 rejects __builtin_cpu_supports("f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  features.f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  features.avx512f = __builtin_cpu_supports("avx512f");
  features.avx512bw = __builtin_cpu_supports("avx512bw");
  features.avx512vl = __builtin_cpu_supports("avx512vl");
  features.avx512dq = __builtin_cpu_supports("avx512dq");
  features.avx512vnni = __builtin_cpu_supports("avx512vnni");
  features.avx512vpopcntdq = __builtin_cpu_supports("avx512vpopcntdq");
#endif
  return features;
}

}  // namespace

const CpuFeatures& DetectCpuFeatures() {
  static const CpuFeatures features = Query();
  return features;
}

Level BestLevel(const CpuFeatures& features) {
  const bool avx2 = features.avx2 && features.fma && features.f16c && features.popcnt;
  if (!avx2) return Level::kScalar;
  const bool avx512 =
      features.avx512f && features.avx512bw && features.avx512vl && features.avx512dq;
  if (!avx512) return Level::kAvx2;
  return features.avx512vnni ? Level::kAvx512Vnni : Level::kAvx512;
}

}  // namespace tessera::index::vector::simd
