// A table from names to factories, filled at start-up by the styles' own files (as LAMMPS registers its
// styles): adding a fix, compute, region, command, dump style or backend touches its own file and nothing
// else. The program and the tests link md/ as a whole archive (md/CMakeLists.txt), so no registering file is
// dropped by the linker. It lives in md/core so that every layer that registers something (the backends in
// md/cluster and md/mesh, the styles, the run layer's dumps, the commands) can reach it.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace wmd::md {

/// Names → entries of one kind of style (Entry holds the factory and what the style declares about itself).
template <class Entry>
class Registry {
 public:
  static Registry& get() {
    static Registry r;
    return r;
  }
  /// Registers `name`. Two files registering one name is a programming error, caught at start-up.
  bool add(const char* name, Entry entry) {
    if (!entries_.emplace(name, std::move(entry)).second) {
      std::fprintf(stderr, "wafermd: internal error: style '%s' is registered twice\n", name);
      std::abort();
    }
    return true;
  }
  /// The entry of `name`, or null.
  const Entry* find(const std::string& name) const {
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// Every registered name, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& kv : entries_) out.push_back(kv.first);
    return out;
  }
  /// "a, b, c": the registered names for error messages.
  std::string name_list() const {
    std::string s;
    for (const auto& kv : entries_) s += (s.empty() ? "" : ", ") + kv.first;
    return s;
  }

 private:
  Registry() = default;
  std::map<std::string, Entry> entries_;
};

}  // namespace wmd::md

#define WMD_REGISTRY_CONCAT2(a, b) a##b
#define WMD_REGISTRY_CONCAT(a, b) WMD_REGISTRY_CONCAT2(a, b)
/// Registers ENTRY under NAME in REGISTRY when the program starts (one line next to the style's code).
#define WMD_REGISTER(REGISTRY, NAME, ...)                                                             \
  namespace {                                                                                         \
  [[maybe_unused]] const bool WMD_REGISTRY_CONCAT(wmd_registered_,                                    \
                                                  __LINE__) = REGISTRY::get().add(NAME, __VA_ARGS__); \
  }
