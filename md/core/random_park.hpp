// LAMMPS's Park–Miller minimal-standard generator (RanPark), reproduced so velocities match LAMMPS bit for
// bit.
#pragma once
#include <cmath>

namespace wmd::md {

class RandomPark {
 public:
  /// Seeds the generator; seed must be positive.
  explicit RandomPark(int seed) : seed_(seed) {}

  /// Uniform deviate in (0, 1).
  double uniform() {
    const int k = seed_ / kQ;
    seed_ = kA * (seed_ - k * kQ) - kR * k;
    if (seed_ < 0) seed_ += kM;
    return kAM * seed_;
  }

  /// Gaussian deviate with zero mean and unit variance (polar Box–Muller, pairs cached as LAMMPS does).
  double gaussian() {
    if (have_second_) {
      have_second_ = false;
      return second_;
    }
    double v1, v2, rsq;
    do {
      v1 = 2.0 * uniform() - 1.0;
      v2 = 2.0 * uniform() - 1.0;
      rsq = v1 * v1 + v2 * v2;
    } while (rsq >= 1.0 || rsq == 0.0);
    const double fac = std::sqrt(-2.0 * std::log(rsq) / rsq);
    second_ = v1 * fac;
    have_second_ = true;
    return v2 * fac;
  }

  /// Reseeds from a hash of `base` and a position, as LAMMPS's RanPark::reset(int, double*) does.
  void reset(int base, const double coord[3]) {
    unsigned int hash = 0;
    auto mix = [&hash](const unsigned char* bytes, int n) {
      for (int i = 0; i < n; ++i) {
        // LAMMPS hashes through a plain (signed on x86) char pointer: bytes ≥ 128 add as negative values.
        hash += static_cast<unsigned int>(static_cast<int>(static_cast<signed char>(bytes[i])));
        hash += (hash << 10);
        hash ^= (hash >> 6);
      }
    };
    mix(reinterpret_cast<const unsigned char*>(&base), sizeof(int));
    mix(reinterpret_cast<const unsigned char*>(coord), 3 * sizeof(double));
    hash += (hash << 3);
    hash ^= (hash >> 11);
    hash += (hash << 15);
    seed_ = static_cast<int>(hash & 0x7ffffff);
    if (seed_ == 0) seed_ = 1;
    for (int i = 0; i < 5; ++i) uniform();
    have_second_ = false;
  }

  /// Current internal state (for checkpoints).
  int state() const { return seed_; }

 private:
  static constexpr int kA = 16807, kM = 2147483647, kQ = 127773, kR = 2836;
  static constexpr double kAM = 1.0 / kM;
  int seed_;
  bool have_second_ = false;
  double second_ = 0.0;
};

}  // namespace wmd::md
