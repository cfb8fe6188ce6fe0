// S3Store: a dataset root on S3-compatible object storage (docs/objstore.md). Arrow's S3
// filesystem reads, lists, writes and deletes; this class adds what the commit protocol needs
// and Arrow lacks:
//
// - PutIfAbsent: a PUT with `If-None-Match: *` (http_request.h, signed by sigv4.h), which the
//   store applies atomically: of racing writers of one manifest name, exactly one gets 200 and
//   the others 412. A request whose response was lost (a broken connection, a timeout, a 5xx)
//   may have been applied, so it is retried, and a 412 (or a failure) that follows such a
//   request is resolved by reading the object back: the writer's own bytes (every manifest
//   holds a fresh transaction uuid) mean its put succeeded, another writer's a conflict, none a
//   failure that committed nothing. When even that read fails the outcome is Indeterminate.
// - The check that the store honours the condition: before the first commit of a process to a
//   bucket, a probe object (`_versions/.conditional-put-probe`, ignored by everything that lists
//   `_versions/`) is put conditionally twice; a store that accepts the second put ignores
//   If-None-Match, and writes are refused (Unsupported, naming the store and the way out:
//   TESSERA_S3_SINGLE_WRITER=1) rather than letting racing commits overwrite each other.
// - Typed errors: Arrow reports every S3 failure as IOError with the SDK's error name in the
//   message; Typed() maps them to PermissionDenied, NotFound (a missing bucket) and Unavailable
//   (unreachable, throttled or timed out after the retries), naming the dataset URI.
//
// - Objects outside the dataset (external Parquet files, docs/external.md): ForBucket() is the
//   process's store for a bucket; Head() says an object's version (size, ETag, time), and
//   OpenPinned() reads that version through the ObjectCache with ranged GETs carrying
//   `If-Match: <ETag>`, so that bytes of another version are never returned: an object
//   rewritten since is Stale at the first fetch, without a HEAD before each read. (Arrow's S3
//   files cannot send the condition.)
//
// Retries: Arrow's requests retry with RetryBackoff through its retry strategy; the
// conditional put retries with the same backoff within the same deadline.
#pragma once

#include <arrow/filesystem/filesystem.h>
#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/io/http_request.h"
#include "tessera/io/s3_settings.h"

namespace tessera::io {

// One version of an object, as a HEAD describes it.
struct ObjectVersion {
  int64_t size = 0;
  std::string etag;            // as the store quotes it
  int64_t modified_nanos = 0;  // Last-Modified, whole seconds
};

class S3Store : public std::enable_shared_from_this<S3Store> {
 public:
  // Parses the URI, reads the settings, and checks that the bucket exists (NotFound naming it
  // otherwise, PermissionDenied when the credentials are refused).
  static arrow::Result<std::shared_ptr<S3Store>> Open(std::string_view uri);

  // The store of bucket `bucket_uri` ("s3://bucket"), for objects that belong to no dataset;
  // one per store and bucket for the process (opened once: Open checks the bucket).
  static arrow::Result<std::shared_ptr<S3Store>> ForBucket(std::string_view bucket_uri);

  const std::shared_ptr<arrow::fs::FileSystem>& filesystem() const { return filesystem_; }
  const S3Location& location() const { return location_; }
  const S3Settings& settings() const { return settings_; }

  // `status` (of an Arrow call on this store) with its kind; OK stays OK.
  arrow::Status Typed(const arrow::Status& status) const;

  // Creates the object at `relative` (to the dataset root) iff none exists; false when one
  // does. Unsupported when the store ignores conditional puts (unless single-writer mode).
  arrow::Result<bool> PutIfAbsent(std::string_view relative, std::string_view contents);

  // The whole object at `relative`, in one GET (no HEAD first); NotFound when missing.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadObject(std::string_view relative);
  // ReadObject through the process's ObjectCache.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadWhole(std::string_view relative);
  // The object as a CachedObjectFile (cached_object_file.h); its size is `expected_size`, or
  // the cached one, or asked with a HEAD. NotFound when missing.
  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenForRead(
      std::string_view relative, std::optional<int64_t> expected_size);

  // The object's current version; NotFound when there is none.
  arrow::Result<ObjectVersion> Head(std::string_view relative);
  // Bytes [begin, begin + length) of version `etag` of the object (If-Match): Stale when the
  // object has another version now, NotFound when it is gone.
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadPinnedRange(std::string_view relative,
                                                                const std::string& etag,
                                                                int64_t begin, int64_t length);
  // `version` of the object as a CachedObjectFile whose fetches are ReadPinnedRange, cached
  // under its ETag (so a rewrite never mixes the bytes of two versions).
  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenPinned(
      std::string_view relative, const ObjectVersion& version);

 private:
  S3Store(S3Location location, S3Settings settings,
          std::shared_ptr<arrow::fs::FileSystem> filesystem, std::string region);
  static arrow::Result<std::shared_ptr<S3Store>> OpenAs(std::string_view uri, std::string subject);

  // One signed request for the object `relative`, retried through transient failures (no
  // answer, 409 ConditionalRequestConflict, 429, 5xx) until the deadline, then Unavailable.
  // Returns the first other response; sets `maybe_applied` (when given) if an attempt's
  // outcome was lost.
  arrow::Result<HttpResponse> Send(const std::string& method, const std::string& relative,
                                   std::vector<std::pair<std::string, std::string>> headers,
                                   std::string_view body, bool* maybe_applied);
  // The error of a final response other than success.
  arrow::Status Refused(const HttpResponse& response, std::string_view action,
                        const std::string& relative) const;

  enum class PutOutcome { kCreated, kExists };
  // One conditional put; `maybe_applied` is set when an attempt's outcome was lost.
  arrow::Result<PutOutcome> ConditionalPut(const std::string& relative, std::string_view contents,
                                           bool* maybe_applied);
  arrow::Status CheckConditionalPutsHonoured();
  // "dataset s3://b/p at <store>" ("bucket s3://b at <store>" for ForBucket's), as typed
  // errors name it, and the retry deadline in seconds.
  std::string Where() const;
  double DeadlineSeconds() const;
  // The object's name in the ObjectCache: store, bucket and key.
  std::string CacheKey(std::string_view relative) const;

  S3Location location_;
  S3Settings settings_;
  std::shared_ptr<arrow::fs::FileSystem> filesystem_;
  std::string region_;
  std::string subject_ = "dataset";  // what location_ is, in messages
};

}  // namespace tessera::io
