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
#include <unordered_set>
#include <vector>

#include "base/error.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/fix.hpp"

namespace wmd::md {

class FixStateReader {
 public:
  FixStateReader(const FixStateMap& in, const Fix& f)
      : in_(in), what_("fix " + f.id() + " (" + f.style() + ")") {}
  /// A compute's state (the same checks; the message names the compute).
  FixStateReader(const NamedArrays& in, const Compute& c)
      : in_(in), what_("compute " + c.id() + " (" + c.style() + ")") {}

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
  /// Value i of `v`: finite and at least `lo`.
  double at_least(const std::vector<double>& v, size_t i, const std::string& key, double lo) const {
    const double x = finite(v, i, key);
    if (!(x >= lo)) fail(key, "value " + std::to_string(i) + " (" + number(x) + ") is below " + number(lo));
    return x;
  }
  /// The array at `key` (null when absent) as whole records of `width` values, each led by a distinct atom
  /// id (a positive integer); the other values of each record finite when `finite_values`.
  const std::vector<double>* id_records(const std::string& key, size_t width, bool finite_values) const {
    const std::vector<double>* v = find(key);
    if (!v) return nullptr;
    if (v->size() % width != 0)
      fail(key,
           "has " + std::to_string(v->size()) + " values, not whole records of " + std::to_string(width));
    std::unordered_set<int64_t> seen;
    seen.reserve(v->size() / width);
    for (size_t k = 0; k < v->size(); k += width) {
      if (!seen.insert(integer(*v, k, key, 1, kMaxStep)).second)
        fail(key, "value " + std::to_string(k) + " repeats atom id " + number((*v)[k]));
      if (finite_values)
        for (size_t j = 1; j < width; ++j) finite(*v, k + j, key);
    }
    return v;
  }
  /// Refuses the state at `key` with `problem`.
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    fail_input(SourcePos{"checkpoint", 0}, what_ + ": state '" + key + "' " + problem);
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
  std::string what_;  // "fix ID (STYLE)" or "compute ID (STYLE)"
};

}  // namespace wmd::md
