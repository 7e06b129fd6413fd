// The CPU-cluster projection (validation/scaling/cpu_projection.py, docs/scaling.md "The CPU-cluster
// projection"): its fit reproduces its training rows, its held-out rows lie within 2x, it never reads the
// held-out rows, its projection.json-style output has the best point inside its band, and the build copies it
// beside the program.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int python(const std::string& dir, const std::string& args) {
  return wmd::test::python_script(dir, kDir + "/cpu_projection.py", args);
}

// Every training row within 10 %; the 1-rank rows are the per-core costs themselves, so exact; the per-core
// band's ends are the fastest and slowest published 1-rank bench logs.
TEST(CpuProjection, FitReproducesTheTrainingRows) {
  const std::string dir = wmd::test::scratch_dir("cpu_projection_train");
  ASSERT_EQ(python(dir, "train --json train.json"), 0) << slurp(dir + "/out.txt");
  const auto rows = nlohmann::json::parse(slurp(dir + "/train.json"));
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) {
    const double ratio = r.at("ratio");
    EXPECT_GT(ratio, 0.9) << r.at("id");
    EXPECT_LT(ratio, 1.1) << r.at("id");
    if (r.at("ranks") == 1) EXPECT_NEAR(ratio, 1.0, 1e-9) << r.at("id");
  }
  ASSERT_EQ(python(dir, "fit --preset quartz"), 0) << slurp(dir + "/out.txt");
  const auto fit = nlohmann::json::parse(slurp(dir + "/out.txt"));
  EXPECT_NEAR(fit.at("c_low_s").get<double>(), 2.34899 / 100 / 32000, 1e-15);
  EXPECT_NEAR(fit.at("c_high_s").get<double>(), 11.4134 / 100 / 32000, 1e-15);
  EXPECT_EQ(fit.at("training_rows").at("machines"), 3);
  EXPECT_EQ(fit.at("training_rows").at("multi_rank"), 3);
  EXPECT_LE(fit.at("t_sync_low_s").get<double>(), fit.at("t_sync_mid_s").get<double>());
  EXPECT_LE(fit.at("t_sync_mid_s").get<double>(), fit.at("t_sync_high_s").get<double>());
}

// The acceptance of #47: every held-out row (larger problem, a machine the fit never saw, SC24 Quartz) within
// 2x.
TEST(CpuProjection, HeldOutRowsWithinTwoFold) {
  const std::string dir = wmd::test::scratch_dir("cpu_projection_check");
  ASSERT_EQ(python(dir, "check --json check.json"), 0) << slurp(dir + "/out.txt");
  const auto rows = nlohmann::json::parse(slurp(dir + "/check.json"));
  ASSERT_GE(rows.size(), 6u);
  bool quartz = false;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.at("within_2x").get<bool>()) << r.at("id") << " ratio " << r.at("ratio");
    quartz = quartz || r.at("machine") == "quartz";
  }
  EXPECT_TRUE(quartz) << "the SC24 Quartz figure is among the held-out rows";
  EXPECT_NE(slurp(dir + "/out.txt")
                .find(std::to_string(rows.size()) + " of " + std::to_string(rows.size()) +
                      " held-out rows within 2x"),
            std::string::npos)
      << slurp(dir + "/out.txt");
}

// Rewrites the table with every `split` row's rate multiplied by 10, in whichever form its source gave it.
void scale_rows(const std::string& in, const std::string& out, const std::string& split) {
  YAML::Node doc = YAML::LoadFile(in);
  for (auto row : doc["rows"]) {
    if (row["split"].as<std::string>() != split) continue;
    if (row["steps_per_second"]) row["steps_per_second"] = row["steps_per_second"].as<double>() * 10;
    for (const char* k : {"loop_seconds", "wall_seconds_at_most"})
      if (row[k]) row[k] = row[k].as<double>() / 10;
  }
  YAML::Emitter e;
  e << doc;
  std::ofstream(out) << e.c_str();
}

// The split is honoured: held-out rates x10 leave the fitted parameters exactly as they were, training rates
// x10 move them, and the held-out check does read the changed rates.
TEST(CpuProjection, HeldOutRowsDoNotMoveTheFit) {
  const std::string dir = wmd::test::scratch_dir("cpu_projection_split");
  const std::string table = kDir + "/cpu_measurements.yaml";
  scale_rows(table, dir + "/heldout_x10.yaml", "heldout");
  scale_rows(table, dir + "/train_x10.yaml", "train");
  ASSERT_EQ(python(dir, "--measurements '" + table + "' fit --preset quartz"), 0) << slurp(dir + "/out.txt");
  const std::string original = slurp(dir + "/out.txt");
  ASSERT_EQ(python(dir, "--measurements heldout_x10.yaml fit --preset quartz"), 0) << slurp(dir + "/out.txt");
  EXPECT_EQ(slurp(dir + "/out.txt"), original);
  ASSERT_EQ(python(dir, "--measurements train_x10.yaml fit --preset quartz"), 0) << slurp(dir + "/out.txt");
  EXPECT_NE(slurp(dir + "/out.txt"), original);
  ASSERT_EQ(python(dir, "--measurements heldout_x10.yaml check"), 0) << slurp(dir + "/out.txt");
  EXPECT_NE(slurp(dir + "/out.txt").find("0 of "), std::string::npos) << slurp(dir + "/out.txt");
}

// `project` writes the best point, its rank count and its band (band_low <= best <= band_high) over 1 to
// 100,000 ranks, for the default geometry (LAMMPS in.eam), a named SC24 slab and a geometry given by its
// numbers.
TEST(CpuProjection, ProjectJsonHasTheBestPointAndItsBand) {
  const std::string dir = wmd::test::scratch_dir("cpu_projection_project");
  for (const std::string extra :
       {"", " --geometry cu-sc24", " --cutoff 5.45 --density 0.0835 --pairs-per-atom 28"}) {
    ASSERT_EQ(python(dir, "project --preset quartz --atoms 801792 --json p.json" + extra), 0)
        << slurp(dir + "/out.txt");
    const auto pj = nlohmann::json::parse(slurp(dir + "/p.json"));
    for (const char* key :
         {"best_steps_per_second", "best_ranks", "best_nodes", "band_low", "band_high", "atoms", "preset",
          "ranks", "steps_per_second", "band_low_curve", "band_high_curve", "params"})
      EXPECT_TRUE(pj.contains(key)) << key << extra;
    EXPECT_EQ(pj.at("preset"), "quartz");
    EXPECT_EQ(pj.at("atoms"), 801792);
    const double best = pj.at("best_steps_per_second"), lo = pj.at("band_low"), hi = pj.at("band_high");
    EXPECT_GT(best, 0.0);
    EXPECT_LE(lo, best) << extra;
    EXPECT_LE(best, hi) << extra;
    const auto& ranks = pj.at("ranks");
    const auto& rate = pj.at("steps_per_second");
    ASSERT_EQ(ranks.size(), rate.size());
    EXPECT_EQ(ranks.front(), 1);
    EXPECT_EQ(ranks.back(), 100000);
    double top = 0;
    for (const auto& v : rate) top = std::max(top, v.get<double>());
    EXPECT_NEAR(top, best, 1e-9 * best);
    // best_ranks: the smallest count within 1 % of the maximum.
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i].get<int>() < pj.at("best_ranks").get<int>()) EXPECT_LT(rate[i].get<double>(), 0.99 * best);
      if (ranks[i] == pj.at("best_ranks")) EXPECT_GE(rate[i].get<double>(), 0.99 * best);
    }
  }
  EXPECT_NE(slurp(dir + "/out.txt").find("best"), std::string::npos);
}

// The build copies the projection beside the program (share/wafermd/scaling, as the GPU one), and an unknown
// preset is an input error.
TEST(CpuProjection, FilesBesideTheProgramAndUnknownPreset) {
  const fs::path beside = fs::path(WAFERMD_EXE).parent_path() / "share/wafermd/scaling";
  for (const char* f : {"cpu_projection.py", "cpu_projection.yaml", "cpu_measurements.yaml"})
    EXPECT_EQ(slurp((beside / f).string()), slurp(kDir + "/" + f)) << f;
  const std::string dir = wmd::test::scratch_dir("cpu_projection_bad");
  EXPECT_EQ(python(dir, "project --preset nope --atoms 1000"), 2);
  EXPECT_NE(slurp(dir + "/out.txt").find("unknown CPU preset 'nope'"), std::string::npos)
      << slurp(dir + "/out.txt");
}

}  // namespace
