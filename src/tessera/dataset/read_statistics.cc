#include "tessera/dataset/read_statistics.h"

namespace tessera::dataset {

ReadStatistics& GlobalReadStatistics() {
  static ReadStatistics statistics;
  return statistics;
}

}  // namespace tessera::dataset
