// A per-process scratch file for harnesses whose parser reads a path (in memory when /dev/shm exists),
// removed when the process exits.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
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

}  // namespace wmd::fuzz
