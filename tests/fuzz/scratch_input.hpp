// The fuzz input as a file: the readers under test open paths, so each input is written to one per-process
// file under $TMPDIR (or /tmp) and nowhere else.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace wmd::fuzz {

/// Writes the input to $TMPDIR/wafermd_fuzz_<tag>_<pid><suffix> (overwritten each time) and returns the path.
inline std::string scratch_input(const uint8_t* data, size_t size, const std::string& tag,
                                 const std::string& suffix) {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    return std::string(t && *t ? t : "/tmp");
  }();
  const std::string path = dir + "/wafermd_fuzz_" + tag + "_" + std::to_string(::getpid()) + suffix;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace wmd::fuzz
