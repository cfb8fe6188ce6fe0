#include "tessera/format/parse_message.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include <climits>
#include <mutex>

namespace tessera::format {

bool ParseMessage(std::string_view bytes, google::protobuf::MessageLite* message) {
  static std::once_flag silenced;
  std::call_once(silenced, [] { google::protobuf::SetLogHandler(nullptr); });
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  return message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

std::string SerializeDeterministically(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }  // the coded stream flushes into `bytes` when it ends
  return bytes;
}

}  // namespace tessera::format
