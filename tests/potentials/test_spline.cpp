// The seven-coefficient spline: passes through its knots, reproduces cubics between interior knots, and its
// derivative coefficients are the derivative of its value polynomial.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "potentials/eam_tables.hpp"

namespace {

double value(const double* c, double p) {
  return ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
}
double deriv(const double* c, double p) {
  return (c[0] * p + c[1]) * p + c[2];
}

TEST(Spline, PassesThroughKnots) {
  const int n = 40;
  const double delta = 0.1;
  std::vector<double> f(n + 1), s(7 * (n + 1));
  for (int m = 1; m <= n; ++m) f[m] = std::sin(0.37 * m) + 0.01 * m * m;
  wmd::potentials::build_spline(n, delta, f.data(), s.data());
  for (int m = 1; m < n; ++m) {
    EXPECT_DOUBLE_EQ(value(&s[7 * m], 0.0), f[m]);
    EXPECT_NEAR(value(&s[7 * m], 1.0), f[m + 1], 1e-12);
  }
}

TEST(Spline, ReproducesCubicBetweenInteriorKnots) {
  const int n = 30;
  const double delta = 0.25;
  auto g = [](double x) { return 2.0 - 0.5 * x + 0.3 * x * x - 0.05 * x * x * x; };
  auto dg = [](double x) { return -0.5 + 0.6 * x - 0.15 * x * x; };
  std::vector<double> f(n + 1), s(7 * (n + 1));
  for (int m = 1; m <= n; ++m) f[m] = g((m - 1) * delta);
  wmd::potentials::build_spline(n, delta, f.data(), s.data());
  for (int m = 3; m <= n - 3; ++m) {
    for (double p : {0.1, 0.5, 0.9}) {
      const double x = (m - 1 + p) * delta;
      EXPECT_NEAR(value(&s[7 * m], p), g(x), 1e-10) << "knot " << m;
      EXPECT_NEAR(deriv(&s[7 * m], p), dg(x), 1e-9) << "knot " << m;
    }
  }
}

TEST(Spline, DerivativeCoefficientsMatchValueSlope) {
  const int n = 25;
  const double delta = 0.05;
  std::vector<double> f(n + 1), s(7 * (n + 1));
  for (int m = 1; m <= n; ++m) f[m] = std::exp(-0.2 * m) * std::cos(0.5 * m);
  wmd::potentials::build_spline(n, delta, f.data(), s.data());
  const double h = 1e-6;
  for (int m = 1; m < n; ++m) {
    const double fd = (value(&s[7 * m], 0.5 + h) - value(&s[7 * m], 0.5 - h)) / (2 * h) / delta;
    EXPECT_NEAR(deriv(&s[7 * m], 0.5), fd, 1e-7);
  }
}

}  // namespace
