// The part of object storage that needs Arrow's S3 library, in a module of its own
// (libtessera_arrow_s3.so, built from src/modules/arrow_s3_module.cc) opened on the first use
// of an s3:// dataset.
//
// Why a module: the pyarrow wheel ships Arrow's S3 filesystem as libarrow_s3, which carries the
// AWS SDK; linked into a binary, loading it costs every tessera process about 5 ms at start
// (measured: a program linking libarrow starts in 1.8 ms, with libarrow_s3 too in 6.8 ms),
// whether or not it ever touches object storage. So nothing in tessera links it: this header's
// loader dlopens the module, which links it, and the rest of tessera reaches Arrow's S3
// filesystem through the arrow::fs::FileSystem interface and the three functions below.
//
// The module is looked for at $TESSERA_ARROW_S3_MODULE, then next to the binary or library
// that holds this loader (the CLI in the build tree, the Python package's extension module),
// then in the build tree it was built in. Unsupported, naming the places tried, when absent.
#pragma once

#include <arrow/filesystem/filesystem.h>
#include <arrow/result.h>

#include <memory>
#include <string>

#include "tessera/io/s3_settings.h"
#include "tessera/io/sigv4.h"

namespace tessera::io {

struct ArrowS3Module {
  // kArrowS3ModuleVersion of the module's build; a mismatch is refused.
  int version = 0;
  // Arrow's S3 filesystem for `settings` in `region`, its requests retried with RetryBackoff
  // until settings.retry_deadline.
  arrow::Result<std::shared_ptr<arrow::fs::FileSystem>> (*make_filesystem)(
      const S3Settings& settings, const std::string& region) = nullptr;
  // The region of an AWS bucket.
  arrow::Result<std::string> (*resolve_region)(const std::string& bucket) = nullptr;
  // The credentials `filesystem` (one make_filesystem returned) signs with now.
  AwsCredentials (*credentials)(const arrow::fs::FileSystem& filesystem) = nullptr;
};

inline constexpr int kArrowS3ModuleVersion = 1;

// The module's symbol: extern "C" const ArrowS3Module* tessera_arrow_s3_module().
inline constexpr const char* kArrowS3ModuleSymbol = "tessera_arrow_s3_module";

// The module, loaded on the first call; the same error on every call when it cannot be.
arrow::Result<const ArrowS3Module*> LoadArrowS3Module();

}  // namespace tessera::io
