// `wafermd scaling` end to end on a small input at one rank: scaling.csv columns and values, a PNG, the runs'
// timing lines (study.log), provenance.json, the best-points table, report.json phases, LAMMPS beside it
// (--lammps), --var, the GPU projection's projection.json (--gpu), the published points; bad rank lists,
// --lammps without a LAMMPS script or a LAMMPS executable and an unknown --gpu or --cpu preset exit 2. The
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
    // RFC 4180 cells: a quoted cell may hold commas (the best-points table's labels).
    std::string cell;
    bool quoted = false;
    for (const char ch : row) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        cells.push_back(cell), cell.clear();
      } else {
        cell += ch;
      }
    }
    cells.push_back(cell);
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
  // Each run's LAMMPS-style timing lines, for the usual log parsers: in study.log whole, on the console the
  // Loop time and Performance lines.
  const std::string study_log = slurp(dir + "/study/study.log");
  for (const char* line :
       {"# run 1: wafermd, 1 rank, round 1", "Loop time of ", "on 1 procs for 4 steps with 500 atoms",
        "Performance: ", "MPI task timing breakdown:", "\nPair    |", "\nOther   |"})
    EXPECT_NE(study_log.find(line), std::string::npos) << line << "\n" << study_log;
  const std::string console = slurp(dir + "/stdout.txt");
  EXPECT_NE(console.find("    Loop time of "), std::string::npos) << console;
  EXPECT_NE(console.find("    Performance: "), std::string::npos) << console;
  // The provenance: what the speeds are for and where they were measured.
  const auto prov = nlohmann::json::parse(slurp(dir + "/study/provenance.json"));
  const auto& st = prov.at("setup");
  EXPECT_EQ(st.at("pair_style"), "eam");
  EXPECT_EQ(st.at("potential_files"), nlohmann::json::array({"Cu_u3.eam"}));
  EXPECT_NEAR(st.at("cutoff_angstrom").get<double>(), 4.95, 1e-12);
  EXPECT_EQ(st.at("skin_angstrom").get<double>(), 1.0);
  EXPECT_EQ(st.at("timestep_ps").get<double>(), 0.001);
  EXPECT_EQ(st.at("boundary"), "p p p");
  EXPECT_NEAR(st.at("number_density_per_cubic_angstrom").get<double>(), 4 / (3.615 * 3.615 * 3.615), 1e-12);
  EXPECT_EQ(prov.at("atoms"), 500);
  EXPECT_GT(prov.at("neighbor_pairs_per_atom").get<double>(), 30.0);  // fcc within 5.95 A: 39 pairs per atom
  EXPECT_FALSE(prov.at("machine").at("simd_target").get<std::string>().empty());
  EXPECT_FALSE(prov.at("machine").at("cpu").get<std::string>().empty());
  EXPECT_NE(prov.at("command").get<std::string>().find("--ranks 1 --steps 4"), std::string::npos);
  // The best-points table, as CSV and Markdown (with the provenance), also on the console.
  std::string theader;
  const std::vector<std::string> best = first_row(dir + "/study/best_points.csv", theader);
  EXPECT_EQ(
      theader,
      "platform,source,hardware_count,unit,steps_per_second,atom_steps_per_second,atom_steps_per_second_"
      "per_device,parallel_efficiency,ns_per_day,wall_days_per_microsecond,note");
  ASSERT_GE(best.size(), 10u);
  EXPECT_EQ(best[0], "CPU cluster");
  EXPECT_EQ(best[2], "1");
  EXPECT_NEAR(std::stod(best[4]), std::stod(cells[3]), 1e-5 * std::stod(cells[3]));
  // 1 fs steps: ns/day = steps/s * 86400 / 1e6, and days per microsecond = 1e9 steps / (steps/s) / 86400.
  EXPECT_NEAR(std::stod(best[8]), std::stod(best[4]) * 0.0864, 1e-4 * std::stod(best[8]));
  EXPECT_NEAR(std::stod(best[9]), 1e9 / std::stod(best[4]) / 86400, 1e-4 * std::stod(best[9]));
  const std::string md = slurp(dir + "/study/best_points.md");
  for (const char* text : {"| platform | source | hardware count |", "CPU-cluster projection",
                           "GPU-cluster projection", "Provenance:", "Cu_u3.eam", "SIMD target"})
    EXPECT_NE(md.find(text), std::string::npos) << text << "\n" << md;
  EXPECT_NE(console.find("| platform | source | hardware count |"), std::string::npos) << console;
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
  // By default a study runs 1 and the powers of two up to the machine's logical CPUs: no rank shares a CPU.
  EXPECT_EQ(wmd::md::default_ranks(1), "1");
  EXPECT_EQ(wmd::md::default_ranks(2), "1,2");
  EXPECT_EQ(wmd::md::default_ranks(3), "1,2");
  EXPECT_EQ(wmd::md::default_ranks(16), "1,2,4,8,16");
}

// --var NAME VALUE reaches every run, LAMMPS's (-var) and the wafer model: a script sized by a variable runs
// at the size given.
TEST(ScalingCommand, VariablesReachEveryRunAndLammps) {
  const std::string dir = wmd::test::scratch_dir("scaling_vars");
  std::string script = kScript;
  script.replace(script.find("0 5 0 5 0 5"), 11, "0 ${n} 0 ${n} 0 ${n}");
  std::ofstream(dir + "/in.sized") << "variable n index 5\n" << script;
  const bool lmp = std::system("command -v lmp >/dev/null 2>&1") == 0;
  ASSERT_EQ(run(dir, std::string("scaling in.sized --ranks 1 --steps 4 --output study --var n 4") +
                         (lmp ? " --lammps" : "")),
            0)
      << slurp(dir + "/stderr.txt");
  std::string header;
  EXPECT_EQ(first_row(dir + "/study/scaling.csv", header)[1], "256");
  if (lmp) EXPECT_EQ(first_row(dir + "/study/lammps.csv", header)[1], "256");
  EXPECT_NE(slurp(dir + "/study/provenance.json").find("--var n 4"), std::string::npos);
  // `--var` takes exactly two words.
  EXPECT_EQ(run(dir, "scaling in.sized --ranks 1 --var n --output bad"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("--var takes NAME VALUE"), std::string::npos)
      << slurp(dir + "/stderr.txt");
}

// The table and the plot show the published benchmark's points only for that benchmark's systems (atom count
// and potential file), and the plot says why wherever a measured point is slower than the first.
TEST(ScalingCommand, PublishedPointsForTheBenchmarkSystemsOnly) {
  const std::string dir = wmd::test::scratch_dir("scaling_published");
  const std::string head =
      "ranks,atoms,steps,steps_per_second,atom_steps_per_second,force_s,neighbor_s,comm_s,other_s,peak_rss_"
      "mb,efficiency,repeats,steps_per_second_min,steps_per_second_max,comm_wait_s,host_steal\n";
  std::ofstream(dir + "/ta.csv") << head << "1,801792,20,6.5,5.2e6,3,0,0,0.1,300,1.0000,1,6.5,6.5,0,0\n"
                                 << "2,801792,20,6.0,4.8e6,1.5,0,0.4,0.1,320,0.4615,1,6.0,6.0,0.3,0\n";
  auto prov = [&](const std::string& name, const std::string& file) {
    std::ofstream(dir + "/" + name)
        << R"({"input": "sc24_ta_801792.lmp", "command": "wafermd scaling sc24_ta_801792.lmp", "atoms": 801792,
              "setup": {"pair_style": "eam/alloy", "potential_files": ["potentials/)"
        << file << R"("], "cutoff_angstrom": 3.98, "skin_angstrom": 0.5, "timestep_ps": 0.002,
              "boundary": "s s s", "box_angstrom": [845, 862, 20],
              "number_density_per_cubic_angstrom": 0.055}, "neighbor_pairs_per_atom": 6.8,
              "machine": {"cpu": "test CPU", "logical_cpus": 2, "simd_target": "avx2", "precision": "fp64"}})";
  };
  prov("ta.json", "Ta_Li_2003.eam.alloy");
  prov("other.json", "Ta1_Ravelo_2013.eam.alloy");
  const std::string scripts = std::string(WAFERMD_SOURCE_DIR) + "/validation/scaling/";
  auto py = [&](const std::string& script, const std::string& args) {
    const std::string cmd =
        "cd '" + dir + "' && /usr/bin/python3 '" + scripts + script + "' " + args + " >py.txt 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  const std::string common = "--csv ta.csv --gpu frontier --cpu quartz";
  ASSERT_EQ(py("scaling_table.py", common + " --provenance ta.json --out-csv t.csv --out-md t.md"), 0)
      << slurp(dir + "/py.txt");
  const std::string md = slurp(dir + "/t.md");
  EXPECT_NE(md.find("(Ta)"), std::string::npos) << md;
  EXPECT_NE(md.find("published: WSE-2, Ta (SC24): over 699k steps/s"), std::string::npos) << md;
  EXPECT_NE(md.find("inferred from published: Quartz"), std::string::npos) << md;
  EXPECT_NE(md.find("about 1,530 steps/s"), std::string::npos) << md;
  // 2 fs steps at 699,000 steps/s: 120,787 ns/day, and 0.0083 wall days per microsecond.
  EXPECT_NE(md.find("| 1.21e+05 | 0.00828 |"), std::string::npos) << md;
  ASSERT_EQ(py("scaling_table.py", common + " --provenance other.json --out-csv o.csv --out-md o.md"), 0)
      << slurp(dir + "/py.txt");
  EXPECT_EQ(slurp(dir + "/o.md").find("published"), std::string::npos) << slurp(dir + "/o.md");
  ASSERT_EQ(py("plot_scaling.py", common + " --provenance ta.json --out ta.png"), 0)
      << slurp(dir + "/py.txt");
  const std::string out = slurp(dir + "/py.txt");
  EXPECT_NE(out.find("2 ranks ran slower than 1 (6 < 6.5 steps/s): the host was busy"), std::string::npos)
      << out;
  EXPECT_GT(slurp(dir + "/ta.png").size(), 10000u);
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
  EXPECT_EQ(run(dir, "scaling in.small --ranks 1 --cpu nope --output study"), 2);
  EXPECT_NE(slurp(dir + "/stderr.txt").find("unknown CPU preset 'nope'"), std::string::npos)
      << slurp(dir + "/stderr.txt");
  EXPECT_FALSE(fs::exists(dir + "/study/ranks_1"));
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
       {"plot_scaling.py", "gpu_projection.py", "gpu_projection.yaml", "gpu_measurements.yaml",
        "cpu_projection.py", "cpu_projection.yaml", "cpu_measurements.yaml", "study_series.py",
        "scaling_table.py", "published_points.yaml", "published_table.py"})
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
  return wmd::test::python_script(dir, kProjection, args);
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
