// Parity with LAMMPS: runs the wafermd executable on the stored `run 0` cases in tests/data/parity
// (inputs, data files and LAMMPS 29 Sep 2021 results, made by validation/lammps/parity.py) and
// requires the energy, virial and per-atom forces to agree to a relative 1e-10.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr double kNktv2p = 1.6021765e6;  // eV/Å^3 -> bar (LAMMPS units metal)
constexpr double kTolerance = 1e-10;
const std::array<std::string, 6> kPressureKeys = {"pxx", "pyy", "pzz", "pxy", "pxz", "pyz"};
const char* const kInputName = "in.parity";
const char* const kDataName = "atoms.data";
const char* const kDumpName = "forces.dump";  // named by the stored input script

using Force = std::array<double, 3>;

// What one `run 0` produced: energy (eV), volume (Å^3), pressure tensor (bar), forces by atom id.
struct RunResult {
  double pe = 0.0;
  double vol = 0.0;
  std::array<double, 6> pressure{};
  std::map<long, Force> forces;
};

// The three relative errors the parity criterion bounds.
struct ParityErrors {
  double energy = 0.0;
  double force = 0.0;
  double virial = 0.0;
};

// Folder holding a stored case.
fs::path caseDir(const std::string& name) {
  return fs::path(WAFERMD_SOURCE_DIR) / "tests" / "data" / "parity" / name;
}

// Whole file as a string (empty if it cannot be read), for parsing and failure messages.
std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parse lammps_reference.txt: `key value` lines, then `forces`, then `id fx fy fz` lines.
RunResult readReference(const fs::path& path) {
  std::istringstream in(readText(path));
  if (in.str().empty()) throw std::runtime_error("cannot read " + path.string());
  std::map<std::string, double> values;
  RunResult result;
  std::string line;
  bool inForces = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    if (inForces) {
      long id = 0;
      Force f{};
      fields >> id >> f[0] >> f[1] >> f[2];
      result.forces[id] = f;
      continue;
    }
    std::string key;
    fields >> key;
    if (key == "forces") {
      inForces = true;
      continue;
    }
    fields >> values[key];
  }
  result.pe = values.at("pe");
  result.vol = values.at("vol");
  for (size_t k = 0; k < kPressureKeys.size(); ++k) result.pressure[k] = values.at(kPressureKeys[k]);
  if (result.forces.size() != static_cast<size_t>(values.at("natoms")))
    throw std::runtime_error("force count differs from natoms in " + path.string());
  return result;
}

// Split one CSV line at commas.
std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

// The first data row of wafermd's thermo.csv (step 0 of `run 0`), keyed by the header's names.
std::map<std::string, double> readThermoCsv(const fs::path& path) {
  std::ifstream in(path);
  std::string header, row;
  if (!std::getline(in, header) || !std::getline(in, row))
    throw std::runtime_error("no thermo rows in " + path.string());
  const auto names = splitCsv(header), cells = splitCsv(row);
  if (names.size() != cells.size()) throw std::runtime_error("ragged thermo row in " + path.string());
  std::map<std::string, double> values;
  for (size_t i = 0; i < names.size(); ++i) values[names[i]] = std::stod(cells[i]);
  return values;
}

// Forces by id from a LAMMPS-style `dump custom ... id fx fy fz` file (one snapshot).
std::map<long, Force> readDumpForces(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.rfind("ITEM: ATOMS", 0) != 0) {
  }
  if (!in) throw std::runtime_error("no ITEM: ATOMS section in " + path.string());
  std::map<long, Force> forces;
  while (std::getline(in, line)) {
    if (line.rfind("ITEM:", 0) == 0) break;  // a second snapshot would start here
    std::istringstream fields(line);
    long id = 0;
    Force f{};
    if (fields >> id >> f[0] >> f[1] >> f[2]) forces[id] = f;
  }
  return forces;
}

// Virial (eV) from a zero-velocity pressure tensor: W = P V / nktv2p.
std::array<double, 6> virialOf(const RunResult& r) {
  std::array<double, 6> w{};
  for (size_t k = 0; k < w.size(); ++k) w[k] = r.pressure[k] * r.vol / kNktv2p;
  return w;
}

// Relative errors of `ours` against `reference`; a missing or extra atom makes the force error infinite.
ParityErrors compareRuns(const RunResult& ours, const RunResult& reference) {
  ParityErrors e;
  e.energy = std::abs(ours.pe - reference.pe) / std::abs(reference.pe);

  double maxRef = 0.0, maxDiff = 0.0;
  for (const auto& [id, fRef] : reference.forces) {
    const auto it = ours.forces.find(id);
    if (it == ours.forces.end()) maxDiff = std::numeric_limits<double>::infinity();
    for (int c = 0; c < 3; ++c) {
      maxRef = std::max(maxRef, std::abs(fRef[c]));
      if (it != ours.forces.end()) maxDiff = std::max(maxDiff, std::abs(it->second[c] - fRef[c]));
    }
  }
  if (ours.forces.size() != reference.forces.size()) maxDiff = std::numeric_limits<double>::infinity();
  e.force = maxDiff / maxRef;

  const auto wOurs = virialOf(ours), wRef = virialOf(reference);
  double maxW = 0.0, maxWDiff = 0.0;
  for (size_t k = 0; k < wRef.size(); ++k) {
    maxW = std::max(maxW, std::abs(wRef[k]));
    maxWDiff = std::max(maxWDiff, std::abs(wOurs[k] - wRef[k]));
  }
  e.virial = maxWDiff / maxW;
  return e;
}

// The parity criterion: every relative error at most 1e-10 (NaN fails too).
bool withinTolerance(const ParityErrors& e) {
  return e.energy <= kTolerance && e.force <= kTolerance && e.virial <= kTolerance;
}

// Runs stored cases in a private scratch folder, removed afterwards unless the test failed.
class LammpsParity : public ::testing::Test {
 protected:
  // Make a fresh scratch folder named after the test and this process.
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = fs::temp_directory_path() /
            ("wafermd_parity_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(work_);
    fs::create_directories(work_);
  }

  // Keep the folder for inspection when something failed.
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(work_);
  }

  // Copy the case's input and data into the scratch folder, run wafermd there, read its results.
  RunResult runWafermd(const std::string& name) {
    fs::copy_file(caseDir(name) / kInputName, work_ / kInputName);
    fs::copy_file(caseDir(name) / kDataName, work_ / kDataName);
    const fs::path log = work_ / "wafermd.log";
    const std::string command = "cd '" + work_.string() + "' && '" + std::string(WAFERMD_EXE) + "' run " +
                                kInputName + " --output '" + (work_ / "out").string() + "' > '" +
                                log.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0)
      throw std::runtime_error("wafermd exited with status " + std::to_string(status) + ":\n" +
                               readText(log));

    const auto thermo = readThermoCsv(work_ / "out" / "thermo.csv");
    RunResult r;
    r.pe = thermo.at("pe");
    r.vol = thermo.at("vol");
    for (size_t k = 0; k < kPressureKeys.size(); ++k) r.pressure[k] = thermo.at(kPressureKeys[k]);
    r.forces = readDumpForces(work_ / kDumpName);
    return r;
  }

  // Run one stored case and require parity with its LAMMPS reference.
  void expectParity(const std::string& name) {
    const RunResult reference = readReference(caseDir(name) / "lammps_reference.txt");
    const RunResult ours = runWafermd(name);
    ASSERT_EQ(ours.forces.size(), reference.forces.size()) << "atom count differs";
    const ParityErrors e = compareRuns(ours, reference);
    EXPECT_LE(e.energy, kTolerance) << "energy " << ours.pe << " vs LAMMPS " << reference.pe;
    EXPECT_LE(e.force, kTolerance) << "max force difference relative to max |f_LAMMPS|";
    EXPECT_LE(e.virial, kTolerance) << "max virial-component difference relative to max |W_LAMMPS|";
    EXPECT_TRUE(withinTolerance(e));
  }

  fs::path work_;
};

TEST_F(LammpsParity, CuU3Funcfl) {
  expectParity("cu_u3_funcfl");
}

TEST_F(LammpsParity, AlJnpCuU3MixedFuncfl) {
  expectParity("al_jnp_cu_u3_funcfl");
}

TEST_F(LammpsParity, CuMishin1Alloy) {
  expectParity("cu_mishin1_alloy");
}

TEST_F(LammpsParity, CuNiTwoTypeAlloy) {
  expectParity("cuni_alloy");
}

TEST_F(LammpsParity, AlFeTwoTypeFinnisSinclair) {
  expectParity("alfe_mm_fs");
}

// The criterion must be able to fail: a reference nudged by 1e-9 (relative) in any one of the
// three quantities, or missing an atom, is rejected, while the unmodified reference passes.
TEST(LammpsParityCriterion, PerturbedReferenceFails) {
  const RunResult reference = readReference(caseDir("cu_u3_funcfl") / "lammps_reference.txt");
  ASSERT_TRUE(withinTolerance(compareRuns(reference, reference)));

  RunResult energy = reference;
  energy.pe *= 1.0 + 1e-9;
  EXPECT_FALSE(withinTolerance(compareRuns(energy, reference)));

  double maxForce = 0.0;
  for (const auto& [id, f] : reference.forces)
    for (double c : f) maxForce = std::max(maxForce, std::abs(c));
  RunResult force = reference;
  force.forces.begin()->second[1] += 1e-9 * maxForce;
  EXPECT_GT(compareRuns(force, reference).force, kTolerance);
  EXPECT_FALSE(withinTolerance(compareRuns(force, reference)));

  double maxPressure = 0.0;
  for (double p : reference.pressure) maxPressure = std::max(maxPressure, std::abs(p));
  RunResult virial = reference;
  virial.pressure[3] += 1e-9 * maxPressure;
  EXPECT_FALSE(withinTolerance(compareRuns(virial, reference)));

  RunResult missing = reference;
  missing.forces.erase(missing.forces.begin());
  EXPECT_FALSE(withinTolerance(compareRuns(missing, reference)));
}

}  // namespace
