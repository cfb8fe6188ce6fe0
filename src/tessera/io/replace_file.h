// ReplaceFile: a local file written all at once. Readers, and a crash at any point, see the
// file as it was or complete with its new contents, never a part of them: the contents go to a
// temporary file beside it (".<name>.tmp-<uuid>", hidden, in the same directory so that
// rename(2) is atomic), which is fsynced and renamed over the file, and then the directory is
// fsynced. When anything fails the temporary is removed and the file is as it was.
//
// For files outside a dataset that other processes pick up: model files of the distributed
// index workflow, the CLI's generated data files. (Files inside a dataset go through
// io::Storage, whose commit protocol never replaces a file.) Failures follow the rule of
// io/write_errors.h and name the file, not its temporary; injected write errors
// (io/fault_injection.h) apply to the file's path.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/status.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace tessera::io {

// Streams the new contents into the given stream (which ReplaceFile closes afterwards).
using ContentsWriter = std::function<arrow::Status(std::shared_ptr<arrow::io::OutputStream>)>;

arrow::Status ReplaceFile(const std::string& path, const ContentsWriter& write);
arrow::Status ReplaceFile(const std::string& path, std::string_view contents);

}  // namespace tessera::io
