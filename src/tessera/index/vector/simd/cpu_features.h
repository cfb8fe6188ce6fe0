// What the running CPU (and the operating system) lets tessera's vector kernels use.
//
// Detection goes through the compiler's __builtin_cpu_supports, whose runtime (libgcc /
// compiler-rt) reports an AVX or AVX-512 feature only when XGETBV shows the operating system
// saves the YMM / ZMM and opmask state, so a feature reported here is safe to execute. On
// other architectures every feature is false and only the scalar kernels exist.
#pragma once

#include "tessera/index/vector/simd/kernels.h"

namespace tessera::index::vector::simd {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool popcnt = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool avx512dq = false;
  bool avx512vnni = false;
  // Not part of any level: the AVX-512 levels count bit planes with VPOPCNTQ where it is there.
  bool avx512vpopcntdq = false;
};

// The features of this CPU, queried once and cached.
const CpuFeatures& DetectCpuFeatures();

// The best kernel level `features` allow: AVX2 needs AVX2+FMA+F16C+POPCNT; AVX-512 also needs
// F+BW+VL+DQ; the VNNI level adds AVX512_VNNI on top of the AVX-512 level.
Level BestLevel(const CpuFeatures& features);

}  // namespace tessera::index::vector::simd
