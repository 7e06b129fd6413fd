// What the script tests (test_script*.cpp) share: tests/data/script copied into a scratch folder, wafermd run
// on one or more ranks there, and texts compared with lmp's word by word.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace wmd::test {

inline const std::string kScriptData = std::string(WAFERMD_SOURCE_DIR) + "/tests/data/script/";

/// A scratch folder PREFIX_NAME holding copies of the named files of tests/data/script.
inline std::string script_dir(const std::string& prefix, const std::string& name,
                              const std::vector<std::string>& files) {
  const std::string dir = scratch_dir(prefix + "_" + name);
  for (const auto& f : files) std::filesystem::copy_file(kScriptData + f, dir + "/" + f);
  return dir;
}

/// `wafermd ARGS` in dir on `ranks` MPI ranks (1: without mpirun); status 0 and no output without MPI.
inline ProgramResult run_ranks(const std::string& dir, int ranks, const std::string& args) {
  if (ranks == 1) return run_wafermd_in(dir, args);
#ifdef WAFERMD_MPIEXEC
  return run_shell(dir, std::string("'") + WAFERMD_MPIEXEC + "' --oversubscribe --allow-run-as-root -np " +
                            std::to_string(ranks) + " '" + WAFERMD_EXE + "' " + args);
#else
  return ProgramResult{0, "", ""};
#endif
}

/// The lines of `text` that start with `prefix`.
inline std::string lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);)
    if (l.rfind(prefix, 0) == 0) out += l + "\n";
  return out;
}

/// Two texts word by word: equal words, or numbers within `tol` (relative to max(1, |lmp's|)).
inline void expect_same_words(const std::string& got, const std::string& want, double tol) {
  std::istringstream g(got), w(want);
  std::string a, b;
  size_t n = 0;
  while (w >> b) {
    ASSERT_TRUE(static_cast<bool>(g >> a)) << "wafermd's text ends early at word " << n << ":\n" << got;
    ++n;
    if (a == b) continue;
    char *ea = nullptr, *eb = nullptr;
    const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
    ASSERT_TRUE(*ea == 0 && *eb == 0) << "word " << n << ": '" << a << "' vs lmp's '" << b << "'\n" << got;
    ASSERT_NEAR(x, y, tol * std::max(1.0, std::fabs(y))) << "word " << n << "\n" << got;
  }
  EXPECT_FALSE(static_cast<bool>(g >> a)) << "wafermd's text is longer:\n" << got;
}

}  // namespace wmd::test
