#include "support/writer_helper.h"

#include <sstream>
#include <stdexcept>

#include "support/child_process.h"

namespace tessera::testing {

const std::string& WriterEvent::Text(const std::string& key) const {
  auto found = fields.find(key);
  if (found == fields.end()) throw std::runtime_error("no " + key + " in event " + ToString());
  return found->second;
}

int64_t WriterEvent::Integer(const std::string& key) const { return std::stoll(Text(key)); }

std::string WriterEvent::ToString() const {
  std::string text = kind;
  for (const auto& [key, value] : fields) text += " " + key + "=" + value;
  return text;
}

std::vector<WriterEvent> ParseWriterEvents(const std::string& output) {
  std::vector<WriterEvent> events;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    WriterEvent event;
    if (!(words >> event.kind)) continue;
    std::string word;
    while (words >> word) {
      const size_t equals = word.find('=');
      if (equals == std::string::npos) throw std::runtime_error("bad writer output: " + line);
      event.fields[word.substr(0, equals)] = word.substr(equals + 1);
    }
    events.push_back(std::move(event));
  }
  return events;
}

std::string WriterProgram() { return HelperProgram("tessera_test_writer"); }

}  // namespace tessera::testing
