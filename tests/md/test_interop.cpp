// LAMMPS and ASE interoperability: Debian's `lmp` reads our write_data (with Velocities) and we read its
// write_data, exactly; YAML system.read_data; ASE reads our `dump custom`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/lammps_data.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_shell;
using wmd::test::run_wafermd_in;

bool have_lmp() {
  return run_shell(fs::temp_directory_path().string(), "command -v lmp").status == 0;
}

wmd::io::DataFile read_data(const std::string& path) {
  return wmd::io::read_lammps_data(path, wmd::SourcePos{"test", 0});
}

// Two data files describe the same atoms to the bit (sorted by id in both).
void expect_same_data(const wmd::io::DataFile& a, const wmd::io::DataFile& b) {
  ASSERT_EQ(a.id.size(), b.id.size());
  EXPECT_EQ(a.ntypes, b.ntypes);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(a.lo[k], b.lo[k]);
    EXPECT_EQ(a.hi[k], b.hi[k]);
  }
  EXPECT_EQ(a.mass, b.mass);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.z, b.z);
  EXPECT_EQ(a.ix, b.ix);
  EXPECT_EQ(a.iy, b.iy);
  EXPECT_EQ(a.iz, b.iz);
  ASSERT_TRUE(a.has_velocities && b.has_velocities);
  EXPECT_EQ(a.vx, b.vx);
  EXPECT_EQ(a.vy, b.vy);
  EXPECT_EQ(a.vz, b.vz);
}

const std::string kSystem =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 2 box\ncreate_atoms 1 box\nmass 1 63.546\nmass 2 58.69\nset atom 5 type 2\n"
    "velocity all create 900 4711 loop geom\n";

TEST(Interop, LammpsReadsOurWriteData) {
  if (!have_lmp()) GTEST_SKIP() << "LAMMPS (lmp) is not installed";
  const std::string dir = wmd::test::scratch_dir("interop_ours_to_lmp");
  // Atoms that moved (wrapped positions, image flags) and have velocities.
  std::ofstream(dir + "/in.md") << kSystem
                                << "pair_style eam/alloy\npair_coeff * * "
                                   "CuNi.eam.alloy Cu Ni\nneighbor 0.3 bin\n"
                                   "timestep 0.004\nfix 1 all nve\nrun 60\nwrite_data ours.data\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --output out").status, 0);
  std::ofstream(dir + "/in.lmp")
      << "units metal\natom_style atomic\nread_data ours.data\nwrite_data back.data\n";
  const auto r = run_shell(dir, "lmp -in in.lmp -log none");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto ours = read_data(dir + "/ours.data");
  EXPECT_NE(std::count(ours.ix.begin(), ours.ix.end(), 0), static_cast<long>(ours.ix.size()))
      << "some atoms should have crossed a face";
  expect_same_data(ours, read_data(dir + "/back.data"));
}

TEST(Interop, WeReadLammpsWriteDataAlsoThroughYaml) {
  if (!have_lmp()) GTEST_SKIP() << "LAMMPS (lmp) is not installed";
  const std::string dir = wmd::test::scratch_dir("interop_lmp_to_ours");
  std::ofstream(dir + "/in.lmp") << kSystem
                                 << "displace_atoms all random 0.4 0.4 0.4 99\nwrite_data lmp.data\n";
  const auto r = run_shell(dir, "lmp -in in.lmp -log none");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ofstream(dir + "/in.md")
      << "units metal\natom_style atomic\nread_data lmp.data\nwrite_data ours.data\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --output out").status, 0);
  const auto lmp = read_data(dir + "/lmp.data");
  expect_same_data(lmp, read_data(dir + "/ours.data"));
  // YAML system.read_data keeps the velocities: the step-0 temperature is LAMMPS's 900 K.
  std::ofstream(dir + "/in.yaml") << "system: {read_data: lmp.data}\npotential: {style: eam/alloy, file: "
                                     "CuNi.eam.alloy, elements: [Cu, Ni]}\n"
                                     "output: {thermo: [step, temp, atoms]}\nrun: 0\n";
  const auto y = run_wafermd_in(dir, "run in.yaml --output yout");
  ASSERT_EQ(y.status, 0) << y.err;
  const std::string csv = wmd::test::slurp(dir + "/yout/thermo.csv");
  const size_t row = csv.find("\n0,");
  ASSERT_NE(row, std::string::npos) << csv;
  EXPECT_NEAR(std::stod(csv.substr(row + 3)), 900.0, 1e-3) << csv;
  EXPECT_NE(csv.find(",108\n"), std::string::npos) << csv;
}

TEST(Interop, AseReadsOurDumpCustom) {
  const std::string dir = wmd::test::scratch_dir("interop_ase");
  std::ofstream(dir + "/in.md")
      << kSystem
      << "pair_style eam/alloy\npair_coeff * * "
         "CuNi.eam.alloy Cu Ni\n"
         "dump d all custom 10 run.dump id type x y z vx vy vz\ndump_modify d sort id\n"
         "fix 1 all nve\nrun 20\nwrite_data final.data\n";
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --output out").status, 0);
  std::ofstream(dir + "/check.py") << R"(
import ase.io, numpy as np
frames = ase.io.read('run.dump', format='lammps-dump-text', index=':')
assert len(frames) == 3, len(frames)
last = frames[-1]
assert len(last) == 108
assert np.allclose(last.cell.lengths(), [3 * 3.615] * 3)
# our last frame, parsed by hand: id type x y z vx vy vz
rows = open('run.dump').read().split('ITEM: ATOMS')[-1].split('\n')[1:]
ref = np.array([[float(w) for w in r.split()] for r in rows if r.strip()])
assert len(ref) == 108
assert np.allclose(last.get_positions(), ref[:, 2:5], atol=1e-9), 'positions'
assert not np.allclose(ref[:, 2:5], frames[0].get_positions()), 'the atoms moved'
assert sorted(set(last.get_atomic_numbers())) == [1, 2]
print('ok')
)";
  const auto r = run_shell(dir, "/usr/bin/python3 -W ignore check.py");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

}  // namespace
