#include "tessera/format/parse_message.h"

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

}  // namespace tessera::format
