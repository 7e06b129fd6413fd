// Hostile EAM files (issue 29): counts no file could hold (Nr = 2e9), grids whose range or look-ups overflow
// (drho = 1e308, dr = 1e-300), values whose splines overflow, and files that are not files are InputErrors
// naming the file and line, before anything is sized by them; table look-ups stay inside the tables for NaN
// and out-of-table radii and densities.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "potentials/eam_file.hpp"
#include "potentials/eam_tables.hpp"
#include "tests/md/address_space_cap.hpp"

namespace {

using wmd::InputError;
using wmd::SourcePos;
namespace pot = wmd::potentials;

std::string scratch(const std::string& name, const std::string& text) {
  const std::string dir = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/potentials_hostile";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A funcfl file with the grid line `grid` and n values per table.
std::string funcfl(const std::string& grid, int n, const std::string& value = "0.5") {
  std::ostringstream s;
  s << "hostile funcfl\n29 63.55 3.615 FCC\n" << grid << "\n";
  for (int table = 0; table < 3; ++table) {
    for (int k = 0; k < n; ++k) s << value << ((k % 5 == 4) ? "\n" : " ");
    s << "\n";
  }
  return s.str();
}

// Expects read_funcfl of `text` to fail at `line` with `needle` in the message.
void expect_refused(const std::string& name, const std::string& text, int line, const std::string& needle) {
  const std::string path = scratch(name, text);
  try {
    pot::read_funcfl(path, SourcePos{"in.test", 3});
    FAIL() << name << " accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(e.message().find(needle), std::string::npos) << e.what();
  }
}

using wmd::test::AddressSpaceCap;

TEST(Hostile, EamCountLargerThanTheFileRefusedBeforeReserving) {
  // Nr = 2e9 as an integer: a 16 GB reservation for a file of a few hundred bytes.
  AddressSpaceCap cap(4.0);
  expect_refused("nr.eam", funcfl("10 0.01 2000000000 0.01 4.0", 10), 13,
                 "file ends early: expected 2000000000 values of Z(r)");
}

TEST(Hostile, EamGridRangesMustBeFinite) {
  expect_refused("drho.eam", funcfl("10 1e308 10 0.01 4.0", 10), 3, "is not a finite range");
  expect_refused("dr.eam", funcfl("10 0.01 10 1e-300 4.0", 10), 3, "distance table is out of range");
  expect_refused("cut.eam", funcfl("10 0.01 10 0.01 1e300", 10), 3, "distance table is out of range");
}

TEST(Hostile, EamValuesWhoseSplinesOverflowRefused) {
  // Alternating ±1e308: finite samples, infinite differences.
  std::ostringstream s;
  s << "hostile funcfl\n29 63.55 3.615 FCC\n10 0.01 10 0.01 0.08\n";
  for (int k = 0; k < 30; ++k) s << (k % 2 ? "1e308" : "-1e308") << "\n";
  pot::EamBuilder b(pot::EamStyle::funcfl, 1);
  b.add_funcfl(1, 1, 1, 1, scratch("overflow.eam", s.str()), SourcePos{"in.test", 4});
  try {
    b.build();
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "in.test");
    EXPECT_NE(e.message().find("not finite"), std::string::npos) << e.what();
  }
}

TEST(Hostile, PotentialFileThatIsNotARegularFileRefused) {
  // /dev/zero is one endless line.
  AddressSpaceCap cap(4.0);
  try {
    pot::read_funcfl("/dev/zero", SourcePos{"in.test", 3});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "in.test");
    EXPECT_NE(e.message().find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(Hostile, TableLookupsStayInsideTheTablesForNaNAndHugeValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double r : {nan, 1e300, 3e9, -1e300, std::numeric_limits<double>::infinity()}) {
    int m;
    double p;
    pot::locate_r(r, 100.0, 500, m, p);
    EXPECT_GE(m, 0) << r;
    EXPECT_LE(m, 499) << r;
    pot::locate_rho(r, 100.0, 500, m, p);
    EXPECT_GE(m, 1) << r;
    EXPECT_LE(m, 499) << r;
  }
  // In-table values give LAMMPS's knots unchanged.
  int m;
  double p;
  pot::locate_r(2.345, 100.0, 500, m, p);
  EXPECT_EQ(m, 235);
  pot::locate_rho(0.0, 100.0, 500, m, p);
  EXPECT_EQ(m, 1);
  EXPECT_EQ(p, 0.0);
}

TEST(Hostile, EamTablesEvaluateNaNDensityWithoutLeavingTheTable) {
  std::ostringstream s;
  s << "small funcfl\n29 63.55 3.615 FCC\n50 0.01 50 0.1 4.0\n";
  for (int k = 0; k < 150; ++k) s << 0.01 * (k % 50) << "\n";
  pot::EamBuilder b(pot::EamStyle::funcfl, 1);
  b.add_funcfl(1, 1, 1, 1, scratch("small.eam", s.str()), SourcePos{"in.test", 4});
  const pot::EamTables t = b.build();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // LAMMPS's arithmetic: a NaN density takes knot 1 at p = 1, a huge one the last knot (the run loop refuses
  // non-finite densities before this; here only the indexing matters).
  EXPECT_TRUE(std::isfinite(t.embed(1, nan)));
  EXPECT_FALSE(std::isnan(t.embed(1, 1e300)));
  double d = 0;
  EXPECT_TRUE(std::isfinite(t.density(1, 1, 1e300, &d)));
  EXPECT_TRUE(std::isfinite(t.pair(1, 1, 1e300, &d)));
}

}  // namespace
