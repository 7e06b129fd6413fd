#include "potentials/potential_path.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace wmd::potentials {
namespace {

namespace fs = std::filesystem;

// The candidates in search order; duplicates are harmless (the first that exists wins).
std::vector<std::string> candidates(const std::string& name, const SourcePos& from) {
  std::vector<std::string> out = {name};
  const fs::path written(name);
  if (written.is_relative()) {
    std::error_code ec;
    const fs::path script(from.file);
    // "<input>", "<test>" and the like name no file: no directory to look in.
    if (fs::is_regular_file(script, ec) && script.has_parent_path())
      out.push_back((script.parent_path() / written).string());
  }
  const std::string base = written.filename().string();
  if (base.empty()) return out;
  if (const char* env = std::getenv("LAMMPS_POTENTIALS"); env && *env)
    out.push_back((fs::path(env) / base).string());
  out.push_back((fs::path(default_potentials_dir()) / base).string());
  return out;
}

}  // namespace

const std::string& default_potentials_dir() {
  static const std::string dir = WAFERMD_POTENTIALS_DIR;
  return dir;
}

std::string find_potential_file(const std::string& name, const SourcePos& from) {
  for (const std::string& path : candidates(name, from)) {
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
  }
  return name;
}

std::string potential_search_places(const std::string& name, const SourcePos& from) {
  std::string places;
  for (const std::string& path : candidates(name, from)) places += (places.empty() ? "" : ", ") + path;
  return places;
}

}  // namespace wmd::potentials
