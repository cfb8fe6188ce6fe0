// Decoding a protobuf message of the on-disk format (manifest, transaction, model record).
//
// libprotobuf logs to stderr when a string field holds invalid UTF-8; tessera reports every
// decoding failure itself, as Corrupt naming the file, so those lines would only be noise
// before the error (and on a server, in its log for every damaged file a client touches).
#pragma once

#include <google/protobuf/message_lite.h>

#include <string_view>

namespace tessera::format {

// Parses `bytes` into `message`, silencing libprotobuf's own logging; false if they do not
// decode.
bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message);

}  // namespace tessera::format
