// Decoding and encoding a protobuf message of the on-disk format (manifest, transaction, model
// record).
//
// libprotobuf logs to stderr when a string field holds invalid UTF-8; tessera reports every
// decoding failure itself, as Corrupt naming the file, so those lines would only be noise
// before the error (and on a server, in its log for every damaged file a client touches).
#pragma once

#include <google/protobuf/message_lite.h>

#include <string>
#include <string_view>

namespace tessera::format {

// Parses `bytes` into `message`, silencing libprotobuf's own logging; false if they do not
// decode.
bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message);

// The encoding of `message` with map fields in key order: libprotobuf otherwise writes maps in
// an order that varies between map instances, so equal messages would encode to different
// bytes. For records whose bytes are compared (a model's bytes are equal exactly when the model
// and its parameters are).
std::string SerializeDeterministically(const google::protobuf::MessageLite& message);

}  // namespace tessera::format
