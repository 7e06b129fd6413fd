// Test helper: writes a named text file under the build tree's scratch folder for io tests.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

namespace wmd::test {

/// Writes `text` to test_scratch/io/NAME and returns the path.
inline std::string write_scratch(const std::string& name, const std::string& text) {
  const std::string dir = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/io";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace wmd::test
