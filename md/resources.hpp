// Process resource figures for logs and report.json.
#pragma once
#include <fstream>
#include <string>

namespace wmd::md {

/// Peak resident memory of this process in MB (VmHWM), 0 if unknown.
inline double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

/// Current resident memory of this process in MB (VmRSS), 0 if unknown.
inline double current_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0.0;
}

}  // namespace wmd::md
