// Checked reading of a fix's checkpointed state (issue 46): a checkpoint's checksum can be recomputed and
// format-1 files carry none, so each style's restore_state checks what it reads against its own definition
// (array lengths, indices in range, finite counts) before assigning anything. A value that fails is an
// InputError naming the fix, its style and the state's key; the caller adds the checkpoint's name.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {

class FixStateReader {
 public:
  FixStateReader(const FixStateMap& in, const Fix& f) : in_(in), id_(f.id()), style_(f.style()) {}

  bool has(const std::string& key) const { return in_.count(key) != 0; }
  /// The array at `key`, or null when the checkpoint has none.
  const std::vector<double>* find(const std::string& key) const {
    const auto it = in_.find(key);
    return it == in_.end() ? nullptr : &it->second;
  }
  /// The array at `key` (null when absent) holding exactly one of the lengths in `allowed`.
  const std::vector<double>* sized(const std::string& key, std::initializer_list<size_t> allowed) const {
    const std::vector<double>* v = find(key);
    if (!v) return nullptr;
    std::string expect;
    for (size_t n : allowed) {
      if (v->size() == n) return v;
      expect += (expect.empty() ? "" : " or ") + std::to_string(n);
    }
    fail(key, "has " + std::to_string(v->size()) + " values, expected " + expect);
  }
  /// Like sized(), and every value finite.
  const std::vector<double>* sized_finite(const std::string& key,
                                          std::initializer_list<size_t> allowed) const {
    const std::vector<double>* v = sized(key, allowed);
    if (v)
      for (size_t i = 0; i < v->size(); ++i)
        if (!std::isfinite((*v)[i])) fail(key, "value " + std::to_string(i) + " is not finite");
    return v;
  }
  /// Value i of `v` (the array at `key`): finite.
  double finite(const std::vector<double>& v, size_t i, const std::string& key) const {
    if (!std::isfinite(v.at(i))) fail(key, "value " + std::to_string(i) + " is not finite");
    return v[i];
  }
  /// Value i of `v` (the array at `key`): an integer in [lo, hi].
  int64_t integer(const std::vector<double>& v, size_t i, const std::string& key, int64_t lo,
                  int64_t hi) const {
    const double x = v.at(i);
    if (!(x >= static_cast<double>(lo) && x <= static_cast<double>(hi)) || x != std::floor(x))
      fail(key, "value " + std::to_string(i) + " (" + number(x) + ") is not an integer in [" +
                    std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return static_cast<int64_t>(x);
  }
  /// Refuses the state at `key` with `problem`.
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    fail_input(SourcePos{"checkpoint", 0},
               "fix " + id_ + " (" + style_ + "): state '" + key + "' " + problem);
  }

  /// Largest step a checkpoint's counters may name (well inside int64 and exact in a double).
  static constexpr int64_t kMaxStep = int64_t(1) << 52;

 private:
  static std::string number(double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", x);
    return b;
  }
  const FixStateMap& in_;
  std::string id_, style_;
};

}  // namespace wmd::md
