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

// The PE table layouts wafermd model prices (fabric/schedules/md_step.hpp) hold less than LAMMPS's seven
// coefficients and form the rest: `spline4` the derivative cubic from the value cubic (c0, c1, c2 = 3 c3, 2
// c4, c5 over delta), `hermite2` the interval's cubic from the value and slope (c6, c5) of its two knots (c4
// = 3 df - 2 s0 - s1, c3 = s0 + s1 - 2 df). Both give LAMMPS's coefficients.
TEST(Spline, CompactLayoutsFormLammpsCoefficients) {
  const int n = 40;
  const double delta = 0.07;
  std::vector<double> f(n + 1), s(7 * (n + 1));
  for (int m = 1; m <= n; ++m) f[m] = std::exp(-0.15 * m) * std::sin(0.4 * m) + 0.01 * m;
  wmd::potentials::build_spline(n, delta, f.data(), s.data());
  for (int m = 1; m < n; ++m) {
    const double* c = &s[7 * m];
    const double* next = &s[7 * (m + 1)];
    EXPECT_NEAR(c[0], 3 * c[3] / delta, 1e-12 * (1 + std::fabs(c[0]))) << m;
    EXPECT_NEAR(c[1], 2 * c[4] / delta, 1e-12 * (1 + std::fabs(c[1]))) << m;
    EXPECT_NEAR(c[2], c[5] / delta, 1e-12 * (1 + std::fabs(c[2]))) << m;
    const double df = next[6] - c[6], s0 = c[5], s1 = next[5];
    EXPECT_NEAR(c[4], 3 * df - 2 * s0 - s1, 1e-12) << m;
    EXPECT_NEAR(c[3], s0 + s1 - 2 * df, 1e-12) << m;
  }
}

}  // namespace
