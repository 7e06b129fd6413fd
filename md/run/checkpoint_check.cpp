#include "md/run/checkpoint_check.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "md/core/box.hpp"

namespace wmd::md {
namespace {

class Checker {
 public:
  Checker(const io::CheckpointData& d, const std::string& what, const SourcePos& at)
      : d_(d), what_(what), at_(at) {}

  [[noreturn]] void fail(const std::string& msg) const { fail_input(at_, what_ + " is invalid: " + msg); }

  const std::vector<int64_t>& ints(const std::string& k, int64_t n = -1) const {
    const auto it = d_.ints.find(k);
    if (it == d_.ints.end()) fail("it lacks " + k);
    if (n >= 0 && static_cast<int64_t>(it->second.size()) != n)
      fail(k + " holds " + std::to_string(it->second.size()) + " values, not " + std::to_string(n));
    return it->second;
  }
  const std::vector<double>& reals(const std::string& k, int64_t n = -1) const {
    const auto it = d_.reals.find(k);
    if (it == d_.reals.end()) fail("it lacks " + k);
    if (n >= 0 && static_cast<int64_t>(it->second.size()) != n)
      fail(k + " holds " + std::to_string(it->second.size()) + " values, not " + std::to_string(n));
    return it->second;
  }
  int64_t scalar(const std::string& k, int64_t lo, int64_t hi) const {
    const int64_t v = ints(k, 1)[0];
    if (v < lo || v > hi)
      fail(k + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
           "]");
    return v;
  }
  void finite(const std::string& k, const std::vector<double>& v) const {
    for (size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i])) fail(k + "[" + std::to_string(i) + "] is not finite");
  }
  void range(const std::string& k, const std::vector<int64_t>& v, int64_t lo, int64_t hi) const {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < lo || v[i] > hi)
        fail(k + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) + " is outside [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  // Per-rank arrays (put_ranked): `key` split by `key`.counts into one part per rank.
  void ranked(const std::string& key, int64_t ranks) const {
    const auto& counts = ints(key + ".counts", ranks);
    range(key + ".counts", counts, 0, INT64_MAX / 4);
    int64_t sum = 0;
    for (int64_t c : counts) sum += c;
    if (sum != static_cast<int64_t>(reals(key).size()))
      fail(key + ".counts add up to " + std::to_string(sum) + ", but " + key + " holds " +
           std::to_string(reals(key).size()) + " values");
  }

  void run() const {
    const int64_t ranks = scalar("meta/ranks", 1, 1 << 24);
    const int64_t ntypes = scalar("meta/ntypes", 1, 1 << 20);
    const int64_t natoms = scalar("meta/natoms", 0, INT_MAX);
    scalar("meta/step", 0, INT64_MAX / 2);
    if (d_.ints.count("meta/run_index")) scalar("meta/run_index", 0, INT_MAX);
    finite("meta/time", reals("meta/time", 1));
    const double dt = reals("meta/dt", 1)[0];
    if (!(std::isfinite(dt) && dt > 0.0)) fail("the timestep meta/dt is not a positive finite number");
    const auto& mass = reals("types/mass", ntypes + 1);
    for (int64_t t = 1; t <= ntypes; ++t)
      if (!(std::isfinite(mass[t]) && mass[t] > 0.0))
        fail("the mass of atom type " + std::to_string(t) + " is not a positive finite number");
    const auto &lo = reals("box/lo", 3), &hi = reals("box/hi", 3);
    finite("box/min_lo", reals("box/min_lo", 3));
    finite("box/min_hi", reals("box/min_hi", 3));
    for (int k = 0; k < 3; ++k)
      if (!box_interval_ok(lo[k], hi[k]))
        fail(std::string("the box along ") + "xyz"[k] + " is not a finite interval lo < hi within ±1e20");
    if (d_.reals.count("box/tilt")) {  // xy xz yz, triclinic, tilt large
      const auto& t = reals("box/tilt", 5);
      for (int k = 0; k < 3; ++k)
        if (!(std::fabs(t[k]) < kMaxBoxCoordinate))
          fail("a tilt factor in box/tilt is not finite within ±1e20");
      if ((t[3] != 0.0 && t[3] != 1.0) || (t[4] != 0.0 && t[4] != 1.0))
        fail("box/tilt's triclinic and tilt-large flags are not 0 or 1");
      if (t[3] == 0.0 && (t[0] != 0.0 || t[1] != 0.0 || t[2] != 0.0))
        fail("box/tilt holds tilt factors for an orthogonal box");
    }
    const auto& counts = ints("atoms/rank_counts", ranks);
    range("atoms/rank_counts", counts, 0, natoms);
    int64_t sum = 0;
    for (int64_t c : counts) sum += c;
    if (sum != natoms) fail("atoms/rank_counts add up to " + std::to_string(sum) + ", not meta/natoms");
    for (const char* k : {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"})
      finite(std::string("atoms/") + k, reals(std::string("atoms/") + k, natoms));
    std::vector<int64_t> ids = ints("atoms/id", natoms);
    range("atoms/id", ids, 1, INT64_MAX / 2);
    std::sort(ids.begin(), ids.end());
    const auto dup = std::adjacent_find(ids.begin(), ids.end());
    if (dup != ids.end()) fail("atom id " + std::to_string(*dup) + " appears twice");
    range("atoms/type", ints("atoms/type", natoms), 1, ntypes);
    for (const char* k : {"atoms/ix", "atoms/iy", "atoms/iz"}) range(k, ints(k, natoms), INT_MIN, INT_MAX);
    range("atoms/mask", ints("atoms/mask", natoms), 0, UINT32_MAX);
    if (d_.ints.count("atoms/order")) range("atoms/order", ints("atoms/order", natoms), -1, INT64_MAX / 2);
    // Per-rank arrays of the backend and the fixes: each with counts that split it exactly.
    for (const auto& [key, v] : d_.ints) {
      const std::string tail = ".counts";
      if (key.size() > tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0)
        ranked(key.substr(0, key.size() - tail.size()), ranks);
    }
    for (const auto& [key, v] : d_.reals) {
      if (key.rfind("backend/", 0) == 0 || key.rfind("fixes/", 0) == 0) {
        if (!d_.ints.count(key + ".counts")) fail("it lacks " + key + ".counts");
      }
    }
    for (int k = 0; k < 3; ++k) {
      const std::string key = std::string("decomposition/cuts_") + "xyz"[k];
      const auto it = d_.reals.find(key);
      if (it == d_.reals.end()) continue;
      const auto& c = it->second;
      finite(key, c);
      if (c.size() < 2 || c.size() > (1u << 20) || !std::is_sorted(c.begin(), c.end()))
        fail(key + " is not an increasing list of at least two cuts");
    }
    if (d_.reals.count("cascade/stop_time")) finite("cascade/stop_time", reals("cascade/stop_time", 1));
    const auto report = d_.texts.find("cascade/report");
    if (report != d_.texts.end() && !nlohmann::json::accept(report->second))
      fail("cascade/report is not JSON");
  }

 private:
  const io::CheckpointData& d_;
  const std::string& what_;
  const SourcePos& at_;
};

}  // namespace

void check_checkpoint(const io::CheckpointData& d, const std::string& what, const SourcePos& at) {
  Checker(d, what, at).run();
}

}  // namespace wmd::md
