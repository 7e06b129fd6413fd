// Per-process scratch files for harnesses whose parser reads a path (in memory when /dev/shm exists),
// removed when the process exits: the fuzz input is written there and nowhere else.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace wmd::fuzz {

inline std::vector<std::string>& scratch_files() {
  static std::vector<std::string> files;
  return files;
}

/// "/dev/shm/wafermd_fuzz_<pid>_<name>" (or under /tmp); the file is removed at exit.
inline std::string scratch_file(const std::string& name) {
  const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                           "/wafermd_fuzz_" + std::to_string(getpid()) + "_" + name;
  if (scratch_files().empty())
    std::atexit([] {
      for (const auto& f : scratch_files()) {
        std::remove(f.c_str());
        std::remove((f + ".tmp").c_str());
      }
    });
  scratch_files().push_back(path);
  return path;
}

/// Writes the input to the scratch file `name` (overwritten each time) and returns its path.
inline std::string scratch_input(const uint8_t* data, size_t size, const std::string& name) {
  static std::vector<std::pair<std::string, std::string>> paths;  // one scratch file per name
  std::string path;
  for (const auto& [n, p] : paths)
    if (n == name) path = p;
  if (path.empty()) paths.emplace_back(name, path = scratch_file(name));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace wmd::fuzz
