// create_atoms coordinates and `velocity create` velocities equal LAMMPS's bit for bit
// (references from validation/lattice_velocity/regenerate.sh).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "md/core/velocity.hpp"
#include "sim_harness.hpp"

namespace {

struct Row {
  int type;
  double v[6];
};

std::map<int64_t, Row> read_dump(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int k = 0; k < 9; ++k) std::getline(in, line);
  std::map<int64_t, Row> rows;
  int64_t id;
  Row r;
  while (in >> id >> r.type >> r.v[0] >> r.v[1] >> r.v[2] >> r.v[3] >> r.v[4] >> r.v[5]) rows[id] = r;
  return rows;
}

// The stored input without its dump/run lines: we inspect the state directly.
std::string script_of(const std::string& name) {
  std::ifstream in(std::string(WAFERMD_SOURCE_DIR) + "/tests/data/lattice_velocity/in." + name);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("dump", 0) == 0 || line.rfind("run", 0) == 0) continue;
    out += line + "\n";
  }
  return out;
}

class LatticeVelocity : public ::testing::TestWithParam<std::string> {};

TEST_P(LatticeVelocity, BitIdenticalToLammps) {
  const std::string name = GetParam();
  const auto ref =
      read_dump(std::string(WAFERMD_SOURCE_DIR) + "/tests/data/lattice_velocity/" + name + ".dump");
  wmd::test::ScriptRun run(script_of(name), wmd::test::scratch_dir("lv_" + name));
  const auto& a = run.state().atoms;
  ASSERT_EQ(a.size(), ref.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const Row& r = ref.at(a.id[i]);
    ASSERT_EQ(a.type[i], r.type) << "id " << a.id[i];
    ASSERT_EQ(a.x[i], r.v[0]) << "id " << a.id[i];
    ASSERT_EQ(a.y[i], r.v[1]) << "id " << a.id[i];
    ASSERT_EQ(a.z[i], r.v[2]) << "id " << a.id[i];
    ASSERT_EQ(a.vx[i], r.v[3]) << "id " << a.id[i];
    ASSERT_EQ(a.vy[i], r.v[4]) << "id " << a.id[i];
    ASSERT_EQ(a.vz[i], r.v[5]) << "id " << a.id[i];
  }
}

INSTANTIATE_TEST_SUITE_P(Lammps, LatticeVelocity,
                         ::testing::Values("fcc_geom", "bcc_all_gauss", "sc_geom_gauss"));

TEST(Velocity, CreateHitsTheRequestedTemperatureWithZeroMomentum) {
  wmd::test::ScriptRun run(script_of("fcc_geom"), wmd::test::scratch_dir("lv_temp"));
  EXPECT_NEAR(wmd::md::group_temperature(run.state(), run.sim->comm, 1u), 300.0, 1e-9);
  const auto& a = run.state().atoms;
  double p[3] = {0, 0, 0};
  for (size_t i = 0; i < a.size(); ++i) {
    const double m = run.state().mass[a.type[i]];
    p[0] += m * a.vx[i], p[1] += m * a.vy[i], p[2] += m * a.vz[i];
  }
  for (double c : p) EXPECT_NEAR(c, 0.0, 1e-10);
}

}  // namespace
