// Dispatch: picks the kernel table of a level, clamped to what the CPU supports, and the
// process-wide active level (DetectedLevel lowered by TESSERA_SIMD), chosen once so that every
// search path of a process computes bit-equal distances.
#include "tessera/index/vector/simd/kernels.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "tessera/index/vector/simd/cpu_features.h"
#include "tessera/index/vector/simd/kernel_tables.h"

namespace tessera::index::vector::simd {

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kScalar:
      return "scalar";
    case Level::kAvx2:
      return "avx2";
    case Level::kAvx512:
      return "avx512";
    case Level::kAvx512Vnni:
      return "avx512_vnni";
  }
  return "scalar";
}

std::optional<Level> ParseLevel(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Level level : {Level::kScalar, Level::kAvx2, Level::kAvx512, Level::kAvx512Vnni}) {
    if (lower == LevelName(level)) return level;
  }
  return std::nullopt;
}

Level DetectedLevel() {
  static const Level level = BestLevel(DetectCpuFeatures());
  return level;
}

Level ChooseLevel(Level detected, const char* requested) {
  if (requested == nullptr) return detected;
  const std::optional<Level> parsed = ParseLevel(requested);
  if (!parsed) return detected;
  return std::min(detected, *parsed);
}

Level ActiveLevel() {
  static const Level level = ChooseLevel(DetectedLevel(), std::getenv("TESSERA_SIMD"));
  return level;
}

const Kernels& KernelsFor(Level level) {
  switch (std::min(level, DetectedLevel())) {
    case Level::kScalar:
      return ScalarKernels();
#if defined(TESSERA_SIMD_X86)
    case Level::kAvx2:
      return Avx2Kernels();
    case Level::kAvx512:
      return Avx512Kernels();
    case Level::kAvx512Vnni:
      return Avx512VnniKernels();
#else
    default:
      return ScalarKernels();
#endif
  }
  return ScalarKernels();
}

const Kernels& ActiveKernels() {
  static const Kernels& kernels = KernelsFor(ActiveLevel());
  return kernels;
}

}  // namespace tessera::index::vector::simd
