// `wafermd scaling` end to end on a small input at one rank: scaling.csv columns and values, a PNG,
// report.json phases, LAMMPS beside it (--lammps), the GPU projection's projection.json (--gpu); bad rank
// lists,
// --lammps without a LAMMPS script or a LAMMPS executable and an unknown --gpu preset exit 2. The
// projection's fit (validation/scaling/gpu_projection.py): it reproduces its training rows and never reads
// the held-out ones. (Runs at k > 1 need the MPI decomposition; its tests live with it.)
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "md/programs/scaling_command.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;

// The plotter runs under $WAFERMD_PYTHON (python3 from PATH when unset): Debian's, which has matplotlib,
// whatever python3 comes first on this machine's PATH.
int run(const std::string& dir, const std::string& args,
        const std::string& env = "WAFERMD_PYTHON=/usr/bin/python3") {
  const std::string cmd =
      "cd '" + dir + "' && " + env + " '" + WAFERMD_EXE + "' " + args + " >stdout.txt 2>stderr.txt";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The header and the cells of the first data row of a CSV file; `rows` gets the number of data rows.
std::vector<std::string> first_row(const std::string& path, std::string& header, int* rows = nullptr) {
  std::istringstream lines(slurp(path));
  std::getline(lines, header);
  std::vector<std::string> cells;
  int n = 0;
  for (std::string row; std::getline(lines, row);) {
    if (row.empty()) continue;
    if (n++ > 0) continue;
    std::istringstream r(row);
    for (std::string c; std::getline(r, c, ',');) cells.push_back(c);
  }
  if (rows) *rows = n;
  return cells;
}

const char* kScript =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 5 0 5 0 5\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
    "Cu_u3.eam\nvelocity all create 300.0 4928 loop geom\n"
    "neighbor 1.0 bin\nfix 1 all nve\ntimestep 0.001\nrun 1000\n";

TEST(ScalingCommand, OneRankWritesCsvPngAndPhases) {
  const std::string dir = wmd::test::scratch_dir("scaling_one_rank");
  std::ofstream(dir + "/in.small") << kScript;
  ASSERT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --output study"), 0) << slurp(dir + "/stderr.txt");
  std::string header;
  int rows = 0;
  const std::vector<std::string> cells = first_row(dir + "/study/scaling.csv", header, &rows);
  EXPECT_EQ(rows, 1);
  EXPECT_EQ(
      header,
      "ranks,atoms,steps,steps_per_second,atom_steps_per_second,force_s,neighbor_s,comm_s,other_s,"
      "peak_rss_mb,efficiency,repeats,steps_per_second_min,steps_per_second_max,comm_wait_s,host_steal");
  ASSERT_EQ(cells.size(), 16u);
  EXPECT_EQ(cells[14], "0");          // one rank waits for nobody
  if (std::ifstream("/proc/stat")) {  // the hypervisor's share of the loop's CPU time, where Linux tells it
    EXPECT_GE(std::stod(cells[15]), 0.0);
    EXPECT_LE(std::stod(cells[15]), 1.0);
  }
  EXPECT_EQ(cells[11], "1");
  EXPECT_EQ(cells[12], cells[3]);  // one run: it is the slowest and the fastest
  EXPECT_EQ(cells[13], cells[3]);
  EXPECT_EQ(cells[0], "1");
  EXPECT_EQ(cells[1], "500");
  EXPECT_EQ(cells[2], "4");  // --steps replaced the script's `run 1000`
  EXPECT_GT(std::stod(cells[3]), 0.0);
  EXPECT_NEAR(std::stod(cells[4]), 500 * std::stod(cells[3]), 1e-3 * std::stod(cells[4]));
  EXPECT_GT(std::stod(cells[5]), 0.0);  // force seconds
  EXPECT_EQ(cells[10], "1.0000");
  // A PNG (signature bytes) of some size.
  const std::string png = slurp(dir + "/study/scaling.png");
  ASSERT_GT(png.size(), 10000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // The phases in report.json add up to the loop time.
  const auto rep = nlohmann::json::parse(slurp(dir + "/study/ranks_1/report.json"));
  const auto& ph = rep.at("phases");
  const double sum = ph.at("force").get<double>() + ph.at("neighbor").get<double>() +
                     ph.at("comm").get<double>() + ph.at("other").get<double>();
  EXPECT_NEAR(sum, rep.at("wall_seconds").get<double>(), 1e-9 + 1e-6 * sum);
}

// --lammps: LAMMPS (`lmp`) runs the same script after ours at each rank count, into lammps.csv and the plot.
TEST(ScalingCommand, LammpsRunsTheSameScriptIntoItsOwnCsv) {
  if (std::system("command -v lmp >/dev/null 2>&1") != 0) GTEST_SKIP() << "lmp not installed";
  const std::string dir = wmd::test::scratch_dir("scaling_lammps");
  std::ofstream(dir + "/in.small") << kScript;
  ASSERT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --output study --lammps"), 0)
      << slurp(dir + "/stderr.txt");
  std::string header;
  const std::vector<std::string> cells = first_row(dir + "/study/lammps.csv", header);
  EXPECT_EQ(header,
            "ranks,atoms,steps,steps_per_second,atom_steps_per_second,efficiency,wafermd_over_lammps,repeats,"
            "steps_per_second_min,steps_per_second_max");
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[0], "1");
  EXPECT_EQ(cells[1], "500");  // LAMMPS's own atom count from its Loop line
  EXPECT_EQ(cells[2], "4");    // the same `run` override as ours
  EXPECT_GT(std::stod(cells[3]), 0.0);
  EXPECT_NEAR(std::stod(cells[4]), 500 * std::stod(cells[3]), 1e-3 * std::stod(cells[4]));
  EXPECT_EQ(cells[5], "1.0000");
  EXPECT_GT(std::stod(cells[6]), 0.0);
  EXPECT_NE(slurp(dir + "/stdout.txt").find("LAMMPS"), std::string::npos);
  EXPECT_GT(slurp(dir + "/study/scaling.png").size(), 10000u);
}

// --repeat 3: three runs per rank count; the CSV row is the median run, with the slowest and fastest.
TEST(ScalingCommand, RepeatsGiveTheMedianRunAndTheSpread) {
  const std::string dir = wmd::test::scratch_dir("scaling_repeat");
  std::ofstream(dir + "/in.small") << kScript;
  ASSERT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --repeat 3 --output study"), 0)
      << slurp(dir + "/stderr.txt");
  std::string header;
  const std::vector<std::string> cells = first_row(dir + "/study/scaling.csv", header);
  ASSERT_EQ(cells.size(), 16u);
  EXPECT_EQ(cells[11], "3");
  const double med = std::stod(cells[3]), lo = std::stod(cells[12]), hi = std::stod(cells[13]);
  EXPECT_LE(lo, med);
  EXPECT_LE(med, hi);
  // The median is one of the three runs: its report's rate, to the CSV's six digits.
  bool found = false;
  for (int rep = 1; rep <= 3; ++rep) {
    const auto rj =
        nlohmann::json::parse(slurp(dir + "/study/ranks_1_rep" + std::to_string(rep) + "/report.json"));
    found = found || std::fabs(rj.at("steps_per_second").get<double>() - med) <= 1e-5 * med;
  }
  EXPECT_TRUE(found) << cells[3];
  EXPECT_NE(slurp(dir + "/stdout.txt").find("median of 3"), std::string::npos);
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --repeat 0"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("--repeat"), std::string::npos);
}

TEST(ScalingCommand, LammpsNeedsALammpsScriptAndLmp) {
  const std::string dir = wmd::test::scratch_dir("scaling_lammps_errors");
  std::ofstream(dir + "/in.yaml") << "units: metal\n";
  EXPECT_EQ(run(dir, "scaling in.yaml --ranks 1 --lammps"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("YAML input"), std::string::npos) << slurp(dir + "/stderr.txt");
  std::ofstream(dir + "/in.small") << kScript;
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --lammps --lmp lmp_not_installed"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("lmp_not_installed is not an executable"), std::string::npos)
      << slurp(dir + "/stderr.txt");
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --lammps --lmp ./in.small"), 2);  // not executable
}

TEST(ScalingCommand, BadRankListsAreInputErrors) {
  const std::string dir = wmd::test::scratch_dir("scaling_bad_ranks");
  std::ofstream(dir + "/in.small") << kScript;
  for (const char* ranks : {"0", "1,x", "2,2", ""}) {
    EXPECT_EQ(run(dir, std::string("scaling in.small --ranks '") + ranks + "'"), 2) << ranks;
    EXPECT_NE(slurp(dir + "/stderr.txt").find("--ranks"), std::string::npos) << ranks;
  }
  EXPECT_EQ(wmd::md::parse_rank_list("4,1,2"), (std::vector<int>{1, 2, 4}));
}

// The plot labels a run that the hypervisor disturbed (scaling.csv's host_steal over 5 %) with its steal, and
// says so; a CSV from before the host_steal column still plots.
TEST(ScalingCommand, PlotLabelsRunsTheHostDisturbed) {
  const std::string dir = wmd::test::scratch_dir("scaling_plot_steal");
  const std::string head =
      "ranks,atoms,steps,steps_per_second,atom_steps_per_second,force_s,neighbor_s,comm_s,other_s,peak_rss_"
      "mb,"
      "efficiency,repeats,steps_per_second_min,steps_per_second_max,comm_wait_s";
  std::ofstream(dir + "/stolen.csv")
      << head << ",host_steal\n"
      << "1,500,4,100,50000,0.03,0.005,0.001,0.001,30,1.0000,1,100,100,0,0.01\n"
      << "2,500,4,120,60000,0.02,0.004,0.004,0.001,50,0.6000,1,120,120,0.01,0.42\n";
  std::ofstream(dir + "/old.csv") << head << "\n"
                                  << "1,500,4,100,50000,0.03,0.005,0.001,0.001,30,1.0000,1,100,100,0\n";
  auto plot = [&](const std::string& csv) {
    const std::string cmd = "cd '" + dir + "' && /usr/bin/python3 '" + std::string(WAFERMD_SOURCE_DIR) +
                            "/validation/scaling/plot_scaling.py' --csv " + csv + " --out " + csv +
                            ".png >plot.txt 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  ASSERT_EQ(plot("stolen.csv"), 0) << slurp(dir + "/plot.txt");
  EXPECT_NE(slurp(dir + "/plot.txt").find("1 of the 2 runs lost more than 5%"), std::string::npos)
      << slurp(dir + "/plot.txt");
  EXPECT_GT(slurp(dir + "/stolen.csv.png").size(), 10000u);
  ASSERT_EQ(plot("old.csv"), 0) << slurp(dir + "/plot.txt");
  EXPECT_EQ(slurp(dir + "/plot.txt").find("lost more than"), std::string::npos) << slurp(dir + "/plot.txt");
  EXPECT_GT(slurp(dir + "/old.csv.png").size(), 10000u);
}

// --gpu: projection.json holds the projection's best point and band (band_low <= best <= band_high) for the
// study's atom count, and the console says the same.
TEST(ScalingCommand, GpuProjectionJsonHasTheBestPointAndItsBand) {
  const std::string dir = wmd::test::scratch_dir("scaling_gpu_projection");
  std::ofstream(dir + "/in.small") << kScript;
  ASSERT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --output study --gpu h100"), 0)
      << slurp(dir + "/stderr.txt");
  const auto pj = nlohmann::json::parse(slurp(dir + "/study/projection.json"));
  for (const char* key :
       {"best_steps_per_second", "best_devices", "band_low", "band_high", "atoms", "preset"})
    EXPECT_TRUE(pj.contains(key)) << key;
  EXPECT_EQ(pj.at("preset"), "h100");
  EXPECT_EQ(pj.at("atoms"), 500);
  const double best = pj.at("best_steps_per_second"), lo = pj.at("band_low"), hi = pj.at("band_high");
  EXPECT_GT(best, 0.0);
  EXPECT_LE(lo, best);
  EXPECT_LE(best, hi);
  EXPECT_GE(pj.at("best_devices").get<int>(), 1);
  // The best rate is the central curve's maximum, reached at best_devices within 1 %.
  const auto& d = pj.at("devices");
  const auto& s = pj.at("steps_per_second");
  ASSERT_EQ(d.size(), s.size());
  double top = 0;
  for (const auto& v : s) top = std::max(top, v.get<double>());
  EXPECT_NEAR(top, best, 1e-9 * best);
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] == pj.at("best_devices")) {
      EXPECT_GE(s[i].get<double>(), 0.99 * best);
    }
  }
  const std::string console = slurp(dir + "/stdout.txt");
  EXPECT_NE(console.find("GPU-cluster projection (h100"), std::string::npos) << console;
  EXPECT_NE(console.find("projection.json"), std::string::npos) << console;
}

TEST(ScalingCommand, UnknownGpuPresetIsAnInputError) {
  const std::string dir = wmd::test::scratch_dir("scaling_gpu_bad");
  std::ofstream(dir + "/in.small") << kScript;
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --gpu nope --output study"), 2);
  const std::string err = slurp(dir + "/stderr.txt");
  EXPECT_EQ(err.rfind("error:", 0), 0u) << err;
  EXPECT_NE(err.find("unknown GPU preset 'nope'"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir + "/study/ranks_1")) << "the preset is checked before any run";
  EXPECT_EQ(wmd::md::gpu_presets(std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling"),
            (std::vector<std::string>{"frontier", "h100"}));
}

// The program has no interpreter and no path of the source tree compiled in: it finds the plotter beside
// itself (share/wafermd/scaling, copied there by the build) and runs it with python3 from PATH;
// WAFERMD_SCALING_DIR and WAFERMD_PYTHON override both, and a missing one is an input error before any run.
TEST(ScalingCommand, NoInterpreterOrSourcePathInTheProgram) {
  const std::string program = slurp(WAFERMD_EXE);
  ASSERT_GT(program.size(), 100000u);
  EXPECT_EQ(program.find("/usr/bin/python3"), std::string::npos);
  EXPECT_EQ(program.find(WAFERMD_SOURCE_DIR), std::string::npos);
  const fs::path beside = fs::path(WAFERMD_EXE).parent_path() / "share/wafermd/scaling";
  for (const char* f :
       {"plot_scaling.py", "gpu_projection.py", "gpu_projection.yaml", "gpu_measurements.yaml"})
    EXPECT_EQ(slurp((beside / f).string()),
              slurp(std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling/" + f))
        << f;
  EXPECT_EQ(wmd::md::find_scaling_dir(WAFERMD_EXE), beside.string());

  const std::string dir = wmd::test::scratch_dir("scaling_no_paths");
  std::ofstream(dir + "/in.small") << kScript;
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --output study"), 0) << slurp(dir + "/stderr.txt");
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --output bad", "WAFERMD_PYTHON=no_such_python3"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("no_such_python3 is not an executable"), std::string::npos)
      << slurp(dir + "/stderr.txt");
  std::ofstream(dir + "/fake_python") << "#!/bin/sh\nexit 1\n";  // an interpreter without matplotlib
  fs::permissions(dir + "/fake_python", fs::perms::owner_all);
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --output bad", "WAFERMD_PYTHON=./fake_python"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("cannot import numpy, matplotlib and yaml"), std::string::npos)
      << slurp(dir + "/stderr.txt");
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --output bad",
                "WAFERMD_PYTHON=/usr/bin/python3 WAFERMD_SCALING_DIR=/nonexistent"),
            2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("holds no plot_scaling.py"), std::string::npos)
      << slurp(dir + "/stderr.txt");
  EXPECT_FALSE(fs::exists(dir + "/bad")) << "checked before any run";
  // The source tree's own copy serves as well (WAFERMD_SCALING_DIR).
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --steps 4 --output study2",
                "WAFERMD_PYTHON=/usr/bin/python3 WAFERMD_SCALING_DIR='" + std::string(WAFERMD_SOURCE_DIR) +
                    "/validation/scaling'"),
            0)
      << slurp(dir + "/stderr.txt");
}

// The projection module, run as `wafermd scaling` runs it.
const std::string kProjection = std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling/gpu_projection.py";

int python(const std::string& dir, const std::string& args) {
  const std::string cmd =
      "cd '" + dir + "' && /usr/bin/python3 '" + kProjection + "' " + args + " >out.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The fit reproduces the rows it was fitted to: every training row within 35 %, the EAM/LJ ratio's ends
// exactly the two published pairs.
TEST(GpuProjection, FitReproducesTheTrainingRows) {
  const std::string dir = wmd::test::scratch_dir("gpu_projection_train");
  ASSERT_EQ(python(dir, "train --json train.json"), 0) << slurp(dir + "/out.txt");
  const auto rows = nlohmann::json::parse(slurp(dir + "/train.json"));
  ASSERT_GE(rows.size(), 30u);
  for (const auto& r : rows) {
    const double ratio = r.at("ratio");
    EXPECT_GT(ratio, 0.74) << r.at("id");
    EXPECT_LT(ratio, 1.35) << r.at("id");
  }
  ASSERT_EQ(python(dir, "fit --preset frontier"), 0) << slurp(dir + "/out.txt");
  const auto fit = nlohmann::json::parse(slurp(dir + "/out.txt"));
  EXPECT_NEAR(fit.at("c_low").get<double>(), 1747.041 / 1251.671, 1e-9);
  EXPECT_NEAR(fit.at("c_high").get<double>(), 1741.857 / 451.350, 1e-9);
  EXPECT_EQ(fit.at("training_rows").at("device_curve"), 9);
}

// Rewrites the table with every held-out (or, for the control, every training) row's rate multiplied by 10.
void scale_rows(const std::string& in, const std::string& out, const std::string& split) {
  YAML::Node doc = YAML::LoadFile(in);
  for (auto row : doc["rows"]) {
    if (row["split"].as<std::string>() != split) continue;
    for (const char* k : {"steps_per_second", "matom_steps_per_second"})
      if (row[k]) row[k] = row[k].as<double>() * 10;
  }
  YAML::Emitter e;
  e << doc;
  std::ofstream(out) << e.c_str();
}

// The split is honoured: changing every held-out row leaves the fitted parameters exactly as they were, while
// changing the training rows moves them.
TEST(GpuProjection, HeldOutRowsDoNotMoveTheFit) {
  const std::string dir = wmd::test::scratch_dir("gpu_projection_split");
  const std::string table = std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling/gpu_measurements.yaml";
  scale_rows(table, dir + "/heldout_x10.yaml", "heldout");
  scale_rows(table, dir + "/train_x10.yaml", "train");
  for (const char* preset : {"frontier", "h100"}) {
    const std::string fit = std::string("fit --preset ") + preset;
    ASSERT_EQ(python(dir, "--measurements '" + table + "' " + fit), 0) << slurp(dir + "/out.txt");
    const std::string original = slurp(dir + "/out.txt");
    ASSERT_EQ(python(dir, "--measurements heldout_x10.yaml " + fit), 0) << slurp(dir + "/out.txt");
    EXPECT_EQ(slurp(dir + "/out.txt"), original) << preset;
    ASSERT_EQ(python(dir, "--measurements train_x10.yaml " + fit), 0) << slurp(dir + "/out.txt");
    EXPECT_NE(slurp(dir + "/out.txt"), original) << preset;
  }
  // ... and the held-out check does read them: it sees the changed rates.
  ASSERT_EQ(python(dir, "--measurements heldout_x10.yaml check"), 0) << slurp(dir + "/out.txt");
  EXPECT_NE(slurp(dir + "/out.txt").find("0 of "), std::string::npos) << slurp(dir + "/out.txt");
}

}  // namespace
