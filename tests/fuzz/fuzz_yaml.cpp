// Fuzzes the YAML input reader: yaml-cpp's parse, the document checks and the translation into commands.
// Leading comment lines "#set KEY=VALUE" become --set overrides, so those are fuzzed too.
#include <cstdint>
#include <sstream>

#include "harness.hpp"
#include "io/yaml_input.hpp"
#include "scratch_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = wmd::fuzz::scratch_input(data, size, "yaml.yaml");
  std::vector<std::pair<std::string, std::string>> sets;
  std::istringstream in(wmd::fuzz::as_text(data, size));
  for (std::string line; std::getline(in, line) && line.rfind("#set ", 0) == 0;) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) sets.emplace_back(line.substr(5, eq - 5), line.substr(eq + 1));
  }
  return wmd::fuzz::guarded([&] { (void)wmd::io::read_yaml_input(path, sets); });
}
