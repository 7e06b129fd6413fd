// Atom-style formulas parsed once and evaluated over all atoms (io::evaluate_atom_expression) against an
// independent calculation: the scalar evaluator (io::evaluate_expression) run atom by atom with each atom's
// values. Values must agree bit for bit; a refusal must carry the message the scalar evaluator gives for the
// first atom it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "io/expression.hpp"

namespace {

using namespace wmd;

const SourcePos kAt{"in.atoms", 7};

// Atoms with per-atom columns (attributes, per-atom references, a group mask) and global values.
struct Atoms {
  size_t n = 0;
  std::map<std::string, std::vector<double>> column;  // names and per-atom calls (gmask(g))
  std::map<std::string, double> global;               // names and global calls (count(all))
  io::RunClock clock;

  io::ClockResolver clock_resolver() const {
    return [this] { return clock; };
  }
  // The formula for all atoms at once.
  std::vector<double> all(const std::string& formula) const {
    const io::AtomNameResolver names = [&](const std::string& w, io::AtomValues& v) {
      if (const auto c = column.find(w); c != column.end()) return v.per_atom = c->second.data(), true;
      if (const auto g = global.find(w); g != global.end()) return v.all = g->second, true;
      return false;
    };
    const io::AtomCallResolver calls = [&](const std::string& f, const std::vector<std::string>& args,
                                           const SourcePos&, io::AtomValues& v) {
      return names(io::GroupCall{f, args}.key(), v);
    };
    const io::ClockResolver clk = clock_resolver();
    std::vector<double> out;
    io::evaluate_atom_expression(formula, n, names, kAt, &calls, &clk, out);
    return out;
  }
  // The formula for atom i alone, by the scalar evaluator.
  double one(const std::string& formula, size_t i) const {
    const io::NameResolver names = [&](const std::string& w, double& v) {
      if (const auto c = column.find(w); c != column.end()) return v = c->second[i], true;
      if (const auto g = global.find(w); g != global.end()) return v = g->second, true;
      return false;
    };
    const io::CallResolver calls = [&](const std::string& f, const std::vector<std::string>& args,
                                       const SourcePos&, double& v) {
      return names(io::GroupCall{f, args}.key(), v);
    };
    const io::ClockResolver clk = clock_resolver();
    return io::evaluate_expression(formula, names, kAt, &calls, &clk);
  }
  // The message the scalar evaluator refuses the first refused atom with ("" when none is).
  std::string first_refusal(const std::string& formula) const {
    for (size_t i = 0; i < n; ++i) {
      try {
        one(formula, i);
      } catch (const InputError& e) {
        return e.what();
      }
    }
    return "";
  }
};

Atoms sample(size_t n) {
  Atoms a;
  a.n = n;
  std::mt19937_64 rng(20210929);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (const char* name : {"x", "y", "z", "vx", "fz", "c_pe", "c_ke", "f_a[2]", "v_other"}) {
    std::vector<double>& c = a.column[name];
    c.resize(n);
    for (double& v : c) v = u(rng);
  }
  std::vector<double>&id = a.column["id"], &type = a.column["type"], &mass = a.column["mass"],
  &mask = a.column["gmask(g)"];
  for (size_t i = 0; i < n; ++i) {
    id.push_back(static_cast<double>(i + 1));
    type.push_back(static_cast<double>(1 + i % 3));
    mass.push_back(type.back() == 2 ? 26.98 : 63.546);
    mask.push_back(i % 4 == 1 ? 1.0 : 0.0);
  }
  // Exact values for the comparisons, halves for round(), a zero for ! and the logic operators.
  a.column["x"][0] = 0.0;
  a.column["x"][1] = 2.5;
  a.column["y"][1] = 2.5;
  a.column["z"][2] = -1.25;
  a.global = {{"v_g", 1.75}, {"v_h", -0.5}, {"temp", 300.0}, {"count(all)", static_cast<double>(n)}};
  a.clock.step = 7;
  a.clock.begin = 0;
  a.clock.end = 20;
  a.clock.dt = 0.001;
  a.clock.running = true;
  return a;
}

uint64_t bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

TEST(AtomExpression, EqualsTheScalarEvaluatorAtomByAtomBitForBit) {
  const Atoms a = sample(203);
  const std::vector<std::string> formulas = {
      // The cascade benchmark's distance and vacancy formulas.
      "(x-v_g)^2+(y-v_g)^2+(z-v_h)^2",
      "c_pe==0",
      // Every operator class, per-atom and global operands on either side.
      "(x+v_g)*(y-2)/(abs(z)+1) % 1.7 + (x^2)^0.5 - -y + !(x>0) + !v_h + +z - v_g*2^3^0.5",
      "(x<y) + (x<=2.5) + (y>=z) + (z>-1.25) + (type==2) + (type!=1) + (v_g<x) + (v_g==v_g)",
      "(x>0 && y>0) + 2*(x>0 || z<0) + 4*(x>0 |^ y>0) + 8*(v_g && x) + 16*(0 || y<0) + 32*(v_h |^ z)",
      "x/y + y/v_g + v_h/z + x%y + y%v_g + v_g%z + (abs(x)+1)^y^2/(1+x^2) + x^2 + (-2)^round(z)",
      // The math functions.
      "sqrt(abs(c_pe)) + exp(-abs(x)) + ln(1+abs(y)) + log(2+abs(z)) + abs(fz)",
      "sin(x)*cos(y)*tan(z/4) + asin(x/(abs(x)+1)) + acos(y/(abs(y)+1)) + atan(z) + atan2(y, x) + "
      "atan2(v_g, z) + atan2(x, v_h)",
      "ceil(x) + floor(y) + round(z*2) + round(x) + round(-2.5) + round(v_g)",
      "ramp(x, 10) + ramp(0, y) + vdisplace(z, vx) + swiggle(x, 2, 0.01) + cwiggle(1, y, 0.02) + "
      "stagger(10, 3) + logfreq(1, 2, 10) + stride(0, 100, 10) + stride2(0, 100, 10, 5, 9, 2)",
      // References, the group mask, group and special functions, constants and thermo keywords.
      "gmask(g)*c_ke + count(all)/v_h + PI*version*1e-8 + f_a[2]*id + mass + v_other*temp + true - off",
      "mass*(vx^2) + type*id - x*count(all)*gmask(g)",
      // Global only: one value for every atom.
      "v_g*2 + count(all) - PI",
      "7",
  };
  for (const std::string& f : formulas) {
    const std::vector<double> all = a.all(f);
    ASSERT_EQ(all.size(), a.n) << f;
    for (size_t i = 0; i < a.n; ++i) {
      const double one = a.one(f, i);
      ASSERT_EQ(bits(all[i]), bits(one)) << f << " at atom " << i << ": " << all[i] << " vs " << one;
    }
  }
  // The inputs give both outcomes of the comparisons and logic (not a constant 0 or 1).
  const std::vector<double> logic = a.all("(x>0 && y>0) + 2*(x>0 || z<0) + 4*(x>0 |^ y>0)");
  std::map<double, int> seen;
  for (double v : logic) ++seen[v];
  EXPECT_GE(seen.size(), 4u);
}

TEST(AtomExpression, ARefusalForOneAtomCarriesTheScalarMessage) {
  Atoms a = sample(50);
  for (double& x : a.column["x"]) x = std::fabs(x) + 0.5;
  for (double& z : a.column["z"]) z = std::fmod(z, 1.0);
  for (double& v : a.column["vx"]) v = 1.0;
  a.column["x"][17] = -1.0;    // sqrt and log of a negative value here only
  a.column["y"][23] = 0.0;     // division and modulo by zero here only
  a.column["z"][31] = 2.0;     // asin out of range here only
  a.column["vx"][41] = 800.0;  // exp() overflows here only
  const std::map<std::string, std::string> cases = {
      {"sqrt(x)", "sqrt of a negative value (LAMMPS: \"Sqrt of negative value in variable formula\")"},
      {"1/y", "division by zero"},
      {"x%y", "modulo by zero"},
      {"ln(y*y)", "ln of a zero or negative value"},
      {"log(x)+ln(1)", "log of a zero or negative value"},
      {"asin(z)", "asin of a value outside [-1, 1]"},
      {"exp(vx)", "is not finite"},
      // Atom by atom, atom 17 is refused first, for its sqrt — though all atoms at once meet 1/y first.
      {"1/y + sqrt(x)", "sqrt of a negative value"},
      // And atom 23 before atom 31, for its division.
      {"asin(z) + 1/y", "division by zero"},
      {"1/(y*0)", "division by zero"},
  };
  for (const auto& [f, needle] : cases) {
    const std::string want = a.first_refusal(f);
    ASSERT_NE(want.find(needle), std::string::npos) << f << ": " << want;
    try {
      a.all(f);
      ADD_FAILURE() << f << " was not refused";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), want) << f;
      EXPECT_EQ(e.line(), kAt.line);
    }
  }
  // The other atoms alone are fine: the refusal is per atom.
  EXPECT_NO_THROW(a.all("sqrt(x*(id!=18) + (id==18))"));
  // Without atoms nothing is evaluated.
  a.n = 0;
  EXPECT_TRUE(a.all("sqrt(-1) + 1/0").empty());
}

TEST(AtomExpression, NestingIsBoundedAsForOneValue) {
  const Atoms a = sample(3);
  const std::string deep =
      std::string(io::kMaxExpressionDepth + 1, '(') + "x" + std::string(io::kMaxExpressionDepth + 1, ')');
  const std::string want = a.first_refusal(deep);
  ASSERT_NE(want.find("nested more than 200 levels deep"), std::string::npos) << want;
  try {
    a.all(deep);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), want);
  }
  const std::string fits =
      std::string(io::kMaxExpressionDepth - 1, '(') + "x" + std::string(io::kMaxExpressionDepth - 1, ')');
  EXPECT_EQ(bits(a.all(fits)[2]), bits(a.column.at("x")[2]));
}

// Under the dry run's stand-in values a division or modulo by zero is NaN and the rest of the formula is
// still read (it was left unread, and refused as unexpected text).
TEST(AtomExpression, StandInDivisionByZeroIsNaNAndTheFormulaGoesOn) {
  io::RunClock stand_in;
  stand_in.stand_in_values = true;
  const io::ClockResolver clock = [&] { return stand_in; };
  EXPECT_TRUE(std::isnan(io::evaluate_expression("1/0*2+1", nullptr, kAt, nullptr, &clock)));
  EXPECT_TRUE(std::isnan(io::evaluate_expression("3%0/4 - 1", nullptr, kAt, nullptr, &clock)));
  EXPECT_THROW(io::evaluate_expression("1/0*2+1", nullptr, kAt, nullptr, nullptr), InputError);

  Atoms a = sample(9);
  a.clock.stand_in_values = true;
  a.column["y"][4] = 0.0;
  const std::vector<double> v = a.all("1/y*2+x");
  for (size_t i = 0; i < a.n; ++i) {
    if (i == 4)
      EXPECT_TRUE(std::isnan(v[i]));
    else
      EXPECT_EQ(bits(v[i]), bits(a.one("1/y*2+x", i)));
  }
}

}  // namespace
