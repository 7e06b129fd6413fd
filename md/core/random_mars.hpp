// LAMMPS's Marsaglia generator (RanMars, after F. James, Comp. Phys. Comm. 60, 329 (1990)), reproduced so
// that `delete_atoms porosity` and `set type/ratio|type/subset` pick the atoms one-rank LAMMPS picks and
// `fix langevin` draws one-rank LAMMPS's noise.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wmd::md {

class RandomMars {
 public:
  /// Seeds as LAMMPS does (seed in 1..900000000), discarding the first deviate as LAMMPS 2021 does.
  explicit RandomMars(int seed) {
    int ij = (seed - 1) / 30082;
    int kl = (seed - 1) - 30082 * ij;
    int i = (ij / 177) % 177 + 2, j = ij % 177 + 2, k = (kl / 169) % 178 + 1, l = kl % 169;
    for (int ii = 1; ii <= 97; ++ii) {
      double s = 0.0, t = 0.5;
      for (int jj = 1; jj <= 24; ++jj) {
        const int m = ((i * j) % 179) * k % 179;
        i = j, j = k, k = m;
        l = (53 * l + 1) % 169;
        if ((l * m) % 64 >= 32) s = s + t;
        t = 0.5 * t;
      }
      u_[ii] = s;
    }
    c_ = 362436.0 / 16777216.0;
    cd_ = 7654321.0 / 16777216.0;
    cm_ = 16777213.0 / 16777216.0;
    uniform();
  }

  /// Uniform deviate in [0, 1).
  double uniform() {
    // LAMMPS's `if (x < 0) x += 1` written as selects: the same bits (x − y is never −0 here, and x + 0 == x
    // otherwise), without the unpredictable branches that cost ~2.5× the time (fix langevin draws 3 per
    // group atom and step on every rank).
    double uni = u_[i97_] - u_[j97_];
    uni += uni < 0.0 ? 1.0 : 0.0;
    u_[i97_] = uni;
    if (--i97_ == 0) i97_ = 97;
    if (--j97_ == 0) j97_ = 97;
    c_ -= cd_;
    c_ += c_ < 0.0 ? cm_ : 0.0;
    uni -= c_;
    uni += uni < 0.0 ? 1.0 : 0.0;
    return uni;
  }

  /// Fills out[0..n) with the next n uniform deviates (a caller's whole stream for one step): the bits and
  /// the state uniform() would leave, n times over. fix langevin draws 3 per group atom and step on every
  /// rank, so a long stream is made in two passes without uniform()'s serial chain through c: the lagged
  /// differences u_t = u_{t−97} − u_{t−33} (mod 1) depend on values 33 or more places back, and c, a
  /// multiple of 2^-24 stepped down by cd modulo cm, is that integer progression, kept in 8 independent
  /// lanes. Every operation is exact on multiples of 2^-24, as in uniform().
  void uniforms(double* out, size_t n) {
    constexpr double kScale = 16777216.0;  // 2^24
    constexpr int64_t kCd = 7654321, kCm = 16777213;
    const double c_scaled = c_ * kScale;
    const bool exact_c = c_scaled >= 0.0 && c_scaled < static_cast<double>(kCm) &&
                         c_scaled == static_cast<double>(static_cast<int64_t>(c_scaled));
    if (n < 4 * 97 || !exact_c) {  // short streams, or a state uniform() alone reproduces
      for (size_t k = 0; k < n; ++k) out[k] = uniform();
      return;
    }
    // The last 97 lagged values in order of making (h[96] the newest): the newest sits just above i97.
    double h[97];
    for (int age = 0; age < 97; ++age) {
      const int k = i97_ + 1 + age;
      h[96 - age] = u_[k > 97 ? k - 97 : k];
    }
    const auto mod1 = [](double x) { return x + (x < 0.0 ? 1.0 : 0.0); };
    for (size_t t = 0; t < 33; ++t) out[t] = mod1(h[t] - h[t + 64]);
    for (size_t t = 33; t < 97; ++t) out[t] = mod1(h[t] - out[t - 33]);
    for (size_t t = 97; t < n; ++t) out[t] = mod1(out[t - 97] - out[t - 33]);
    // The state uniform() would leave: value t went to slot i97 − t (1..97, cyclic).
    const auto slot = [](int64_t k) { return static_cast<int>(((k - 1) % 97 + 97) % 97 + 1); };
    for (size_t t = n - 97; t < n; ++t) u_[slot(i97_ - static_cast<int64_t>(t))] = out[t];
    i97_ = slot(i97_ - static_cast<int64_t>(n));
    j97_ = slot(j97_ - static_cast<int64_t>(n));
    // c after t + 1 steps: C0 − (t + 1)·cd modulo cm, lane l carrying t ≡ l (mod 8).
    constexpr int kLanes = 8;
    int64_t lane[kLanes];
    const int64_t c0 = static_cast<int64_t>(c_scaled);
    for (int l = 0; l < kLanes; ++l) lane[l] = ((c0 - (l + 1) * kCd) % kCm + kCm) % kCm;
    const int64_t step = (kLanes * kCd) % kCm;
    size_t t = 0;
    for (; t + kLanes <= n; t += kLanes) {
      for (int l = 0; l < kLanes; ++l) {
        out[t + l] = mod1(out[t + l] - static_cast<double>(lane[l]) / kScale);
        lane[l] -= step;
        lane[l] += lane[l] < 0 ? kCm : 0;
      }
    }
    for (int l = 0; t < n; ++t, ++l) out[t] = mod1(out[t] - static_cast<double>(lane[l]) / kScale);
    const int64_t last = ((c0 - static_cast<int64_t>(n % static_cast<size_t>(kCm)) * kCd) % kCm + kCm) % kCm;
    c_ = static_cast<double>(last) / kScale;
  }

  /// The generator's state as doubles (all exact: multiples of 2^-24 and small integers), for checkpoints.
  static constexpr size_t kStateSize = 100;
  std::vector<double> state() const {
    std::vector<double> s(u_ + 1, u_ + 98);
    s.push_back(i97_), s.push_back(j97_), s.push_back(c_);
    return s;
  }
  /// Puts back a state() (false, unchanged, if it has the wrong size or indices out of range).
  bool set_state(const std::vector<double>& s) {
    if (s.size() != kStateSize || !(s[97] >= 1 && s[97] <= 97 && s[98] >= 1 && s[98] <= 97)) return false;
    std::copy(s.begin(), s.begin() + 97, u_ + 1);
    i97_ = static_cast<int>(s[97]), j97_ = static_cast<int>(s[98]), c_ = s[99];
    return true;
  }

  /// LAMMPS's select_subset on one rank: marks exactly `target` of the n items, in rounds that flip each
  /// active item with probability (still to flip)/(active), clamped to [0.01, 0.99].
  std::vector<char> select_subset(int64_t target, int64_t n) {
    std::vector<char> mark(n, 0);
    std::vector<int64_t> next(n);
    for (int64_t i = 0; i < n; ++i) next[i] = i + 1;
    if (n > 0) next[n - 1] = -1;
    int64_t first[2] = {0, -1}, active_all[2] = {n, 0};
    int64_t nmark = 0;
    while (nmark != target) {
      const int mode = target - nmark > 0 ? 0 : 1;  // 0: add (flip 0 → 1), 1: subtract
      double thresh =
          mode == 0 ? 1.0 * (target - nmark) / active_all[0] : 1.0 * (nmark - target) / active_all[1];
      thresh = std::min(std::max(thresh, 0.01), 0.99);
      int64_t new_active[2] = {0, 0}, new_first[2] = {-1, -1}, new_last[2] = {-1, -1};
      const char value = mode == 0 ? 1 : 0;
      int64_t index = first[mode], nflip = 0;
      int64_t active[2] = {active_all[0], active_all[1]};
      while (n > 0 && index >= 0) {
        if (uniform() < thresh) {
          mark[index] = value;
          ++nflip;
        }
        const int64_t old = index;
        index = next[index];
        const int which = mark[old];
        ++new_active[which];
        if (new_first[which] < 0) new_first[which] = old;
        if (new_last[which] >= 0) next[new_last[which]] = old;
        new_last[which] = old;
        next[old] = -1;
        active[0] = new_active[0], active[1] = new_active[1];
        first[0] = new_first[0], first[1] = new_first[1];
      }
      active_all[0] = active[0], active_all[1] = active[1];
      nmark += mode == 0 ? nflip : -nflip;
    }
    return mark;
  }

 private:
  double u_[98] = {};
  int i97_ = 97, j97_ = 33;
  double c_ = 0.0, cd_ = 0.0, cm_ = 0.0;
};

}  // namespace wmd::md
