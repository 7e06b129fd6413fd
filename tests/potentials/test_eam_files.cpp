// EAM readers: real LAMMPS files load with the right grids; every malformed-file class is an InputError that
// names the file and the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "potentials/eam_file.hpp"
#include "potentials/eam_tables.hpp"

namespace {

using wmd::InputError;
using wmd::SourcePos;
namespace pot = wmd::potentials;

std::string scratch(const std::string& name, const std::string& text) {
  const std::string dir = std::string(WAFERMD_BINARY_DIR) + "/test_scratch/potentials";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// A valid funcfl file with n points per table, as text.
std::string funcfl_text(int n, double drho = 0.01, double dr = 0.01, const std::string& extra = "") {
  std::ostringstream s;
  s << "test funcfl\n29 63.55 3.615 FCC\n" << n << " " << drho << " " << n << " " << dr << " 4.0\n";
  for (int table = 0; table < 3; ++table) {
    // Five per line; `extra` tokens trail the array's last line.
    for (int k = 0; k < n; ++k) s << 0.5 + 0.001 * k << ((k % 5 == 4 && k + 1 < n) ? "\n" : " ");
    s << extra << "\n";
  }
  return s.str();
}

// Expects reading `path` to fail at `line` with a message containing `needle`.
void expect_error(const std::string& path, bool setfl, int line, const std::string& needle) {
  try {
    if (setfl)
      pot::read_setfl(path, false, SourcePos{"in.test", 3});
    else
      pot::read_funcfl(path, SourcePos{"in.test", 3});
    FAIL() << "no error for " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(EamFiles, ReadsLammpsFuncfl) {
  const auto f = pot::read_funcfl("Cu_u3.eam", SourcePos{});
  EXPECT_EQ(f.nrho, 500);
  EXPECT_EQ(f.nr, 500);
  EXPECT_DOUBLE_EQ(f.mass, 63.55);
  EXPECT_NEAR(f.cut, 4.95, 1e-12);
  EXPECT_EQ(f.frho.size(), 500u);
}

TEST(EamFiles, ReadsSetflAndFinnisSinclair) {
  const auto a = pot::read_setfl("CuNi.eam.alloy", false, SourcePos{});
  ASSERT_EQ(a.elements.size(), 2u);
  EXPECT_EQ(a.z2r.size(), 3u);
  EXPECT_EQ(a.rhor.size(), 2u);
  const auto fs = pot::read_setfl("AlFe_mm.eam.fs", true, SourcePos{});
  EXPECT_EQ(fs.rhor.size(), fs.elements.size() * fs.elements.size());
}

TEST(EamFiles, ExtraTokensAtTheEndOfAnArrayAreIgnored) {
  const auto f = pot::read_funcfl(scratch("extra.eam", funcfl_text(10, 0.01, 0.01, "99 98 97")), SourcePos{});
  EXPECT_DOUBLE_EQ(f.zr[0], 0.5);
}

TEST(EamFiles, MissingFileNamesTheCommand) {
  try {
    pot::read_funcfl("/nonexistent/x.eam", SourcePos{"in.test", 7});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "in.test");
    EXPECT_EQ(e.line(), 7);
  }
}

TEST(EamFiles, TruncatedFile) {
  // Keep the header, F(ρ) and half of Z(r): the reader runs out at line 7.
  std::istringstream in(funcfl_text(10));
  std::string t, line;
  for (int k = 0; k < 6 && std::getline(in, line); ++k) t += line + "\n";
  expect_error(scratch("trunc.eam", t), false, 7, "file ends early");
}

TEST(EamFiles, NonNumericToken) {
  std::string t = funcfl_text(10);
  t.replace(t.find("0.501"), 5, "0.5x1");
  expect_error(scratch("nonnum.eam", t), false, 4, "'0.5x1'");
}

TEST(EamFiles, NonPositiveSpacing) {
  expect_error(scratch("dr0.eam", funcfl_text(10, 0.01, 0.0)), false, 3, "dr must be positive");
  expect_error(scratch("drho.eam", funcfl_text(10, -0.01, 0.01)), false, 3, "drho must be positive");
}

TEST(EamFiles, WrongElementCount) {
  expect_error(scratch("count.eam.alloy", "c\nc\nc\n3 Cu Ni\n10 0.1 10 0.1 4.0\n"), true, 4,
               "expected 3 element names");
}

TEST(EamFiles, NonIntegerGridCount) {
  expect_error(scratch("grid.eam", "c\n29 63.55 3.6 FCC\n10.5 0.1 10 0.1 4.0\n"), false, 3, "Nrho");
}

TEST(EamFiles, UnknownElementInPairCoeff) {
  pot::EamBuilder b(pot::EamStyle::setfl, 2);
  try {
    b.set_elements("CuNi.eam.alloy", {"Cu", "Zr"}, SourcePos{"in.test", 9});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 9);
    EXPECT_NE(std::string(e.what()).find("'Zr'"), std::string::npos);
  }
}

TEST(EamTables, FuncflTableEndsOneKnotEarlyAndKeepsRhomax) {
  pot::EamBuilder b(pot::EamStyle::funcfl, 1);
  b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", SourcePos{});
  const auto t = b.build();
  EXPECT_EQ(t.nr, 499);
  EXPECT_EQ(t.nrho, 499);
  const auto f = pot::read_funcfl("Cu_u3.eam", SourcePos{});
  EXPECT_DOUBLE_EQ(t.rhomax, 499 * f.drho);
  EXPECT_DOUBLE_EQ(t.type_mass[1], 63.55);
}

TEST(EamTables, EmbeddingIsExtendedLinearlyAboveRhomax) {
  pot::EamBuilder b(pot::EamStyle::setfl, 1);
  b.set_elements("Cu_mishin1.eam.alloy", {"Cu"}, SourcePos{});
  const auto t = b.build();
  const double fp = t.embed_deriv(1, t.rhomax);
  EXPECT_DOUBLE_EQ(t.embed_deriv(1, t.rhomax * 1.5), fp);
  EXPECT_NEAR(t.embed(1, t.rhomax * 1.5) - t.embed(1, t.rhomax), fp * 0.5 * t.rhomax, 1e-9);
}

}  // namespace
