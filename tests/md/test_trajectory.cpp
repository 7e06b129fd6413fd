// H5MD trajectories read by the tools scientists use: MDAnalysis (default settings) gets our positions, box
// and forces; h5py reads every observable; restarts drop frames past the checkpoint and append; the LAMMPS
// `dump … h5md` command; the progress line (terminal only).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "md/run/progress.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_shell;
using wmd::test::run_wafermd_in;

const std::string kInput =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 4 0 4 0 4\n"
    "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
    "Cu_u3.eam\n"
    "velocity all create 600 87287 loop geom\nneighbor 0.3 bin\ntimestep 0.002\nfix 1 all nve\n";

// Runs a Python check script with Debian's interpreter; returns its exit status and prints its output.
int python(const std::string& dir, const std::string& script) {
  std::ofstream(dir + "/check.py") << script;
  const auto r = run_shell(dir, "/usr/bin/python3 -W ignore check.py");
  if (r.status != 0) ADD_FAILURE() << "python check failed:\n" << r.out << r.err;
  return r.status;
}

TEST(Trajectory, MDAnalysisReadsOurPositionsBoxAndForces) {
  const std::string dir = wmd::test::scratch_dir("traj_mda");
  std::ofstream(dir + "/in.md") << kInput
                                << "write_data top.data\ndump d all custom 20 ref.dump id x y z fx fy fz\n"
                                   "dump_modify d sort id format float %.17g\nthermo 20\nrun 100\n";
  const auto r = run_wafermd_in(dir,
                                "run in.md --output out --set output.trajectory.every=20 "
                                "--set output.trajectory.fields=position,velocity,force,image,species,id");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(python(dir, R"(
import MDAnalysis as mda, numpy as np
u = mda.Universe('top.data', 'out/trajectory.h5', format='H5MD', atom_style='id type x y z')
lines = open('ref.dump').read().split('ITEM: TIMESTEP\n')[1:]
assert len(u.trajectory) == len(lines) == 6, (len(u.trajectory), len(lines))
for ts, frame in zip(u.trajectory, lines):
    rows = frame.split('\n')
    step = int(rows[0])
    ref = np.array([[float(w) for w in r.split()] for r in rows[8:] if r.strip()])
    assert ts.data['step'] == step
    assert abs(ts.time - 0.002 * step) < 1e-12, ts.time
    assert np.allclose(ts.positions, ref[:, 1:4], atol=2e-5), step
    assert np.allclose(ts.dimensions, [14.46, 14.46, 14.46, 90, 90, 90]), ts.dimensions
    # forces: eV/A in the dump, kJ/(mol A) in MDAnalysis's units
    assert np.allclose(ts.forces, ref[:, 4:7] * 96.48533212331002, rtol=1e-5, atol=1e-3), step
assert u.trajectory.units == {'time': 'ps', 'length': 'Angstrom', 'velocity': 'Angstrom/ps',
                              'force': 'kJ/(mol*Angstrom)'}, u.trajectory.units
print('ok')
)"),
            0);
}

TEST(Trajectory, H5pyReadsEveryObservableAndTheMetadata) {
  const std::string dir = wmd::test::scratch_dir("traj_h5py");
  std::ofstream(dir + "/in.md") << kInput
                                << "thermo_style custom step temp pe ke etotal press\nthermo 10\nrun 40\n";
  const auto r = run_wafermd_in(dir, "run in.md --output out --set output.trajectory.every=10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(python(dir, R"(
import h5py, numpy as np, csv
f = h5py.File('out/trajectory.h5', 'r')
rows = list(csv.DictReader(open('out/thermo.csv')))
want = {'temperature': ('temp', 'K'), 'potential_energy': ('pe', 'eV'), 'kinetic_energy': ('ke', 'eV'),
        'total_energy': ('etotal', 'eV'), 'pressure': ('press', 'bar')}
assert sorted(f['observables']) == sorted(want), list(f['observables'])
for name, (col, unit) in want.items():
    g = f['observables/' + name]
    assert list(g['step'][:]) == [0, 10, 20, 30, 40], g['step'][:]
    assert np.allclose(g['time'][:], 0.002 * g['step'][:], rtol=0, atol=1e-12)
    assert g['value'].attrs['unit'] == unit, g['value'].attrs['unit']
    assert np.allclose(g['value'][:], [float(r[col]) for r in rows], rtol=1e-12), name
assert list(f['h5md'].attrs['version']) == [1, 1]
assert f['h5md/author'].attrs['name'] and f['h5md/creator'].attrs['name'] == 'wafermd'
assert f['h5md/creator'].attrs['version']
assert 'velocity all create 600' in f['parameters/input'].asstr()[()]
assert f['parameters/wafermd_version'].asstr()[()]
p = f['particles/all']
assert sorted(p) == ['box', 'id', 'image', 'position', 'species', 'velocity'], list(p)
assert list(p['box'].attrs['boundary']) == ['periodic'] * 3 and p['box'].attrs['dimension'] == 3
assert p['position/value'].shape == (5, 256, 3) and p['position/value'].attrs['unit'] == 'Angstrom'
assert p['velocity/value'].attrs['unit'] == 'Angstrom ps-1' and p['position/time'].attrs['unit'] == 'ps'
assert list(p['id/value'][2]) == list(range(1, 257))
assert set(p['species/value'][0]) == {1}
assert p['box/edges/value'].shape == (5, 3, 3)
print('ok')
)"),
            0);
}

TEST(Trajectory, TriclinicEdgesAreTheBoxVectorsMDAnalysisReads) {
  // box/edges holds a triclinic box's edge vectors as rows: MDAnalysis's H5MD reader turns them into the
  // lengths and angles LAMMPS's cella … cellgamma print, and its wrapped positions lie inside the cell.
  const std::string dir = wmd::test::scratch_dir("traj_triclinic");
  std::string input = kInput;
  const std::string block = "region box block 0 4 0 4 0 4";
  input.replace(input.find(block), block.size(), "region box prism 0 4 0 3 0 3 1.1 0.6 -0.8");
  std::ofstream(dir + "/in.md")
      << input
      << "thermo_style custom step cella cellb cellc cellalpha cellbeta cellgamma xy "
         "xz yz\nthermo 10\nrun 20\n";
  const auto r = run_wafermd_in(dir, "run in.md --output out --set output.trajectory.every=10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(python(dir, R"(
import csv, numpy as np
from MDAnalysis.coordinates.H5MD import H5MDReader
rows = list(csv.DictReader(open('out/thermo.csv')))
r = H5MDReader('out/trajectory.h5')
for ts, row in zip(r, rows):
    want = [float(row[k]) for k in ['cella', 'cellb', 'cellc', 'cellalpha', 'cellbeta', 'cellgamma']]
    assert np.allclose(ts.dimensions, want, rtol=1e-6), (ts.dimensions, want)
import h5py
e = h5py.File('out/trajectory.h5', 'r')['particles/all/box/edges/value'][0]
row = rows[0]
assert np.allclose(e, [[14.46, 0, 0], [float(row['xy']), 10.845, 0], [float(row['xz']), float(row['yz']), 10.845]])
print('ok')
)"),
            0);
}

TEST(Trajectory, CodeCanAddObservables) {
  // The hook other components use (e.g. defect counts): sampled at every trajectory frame.
  const std::string dir = wmd::test::scratch_dir("traj_observable");
  wmd::io::RunSettings settings;
  settings.output_dir = dir;
  settings.trajectory_every = 5;
  wmd::io::Log log;
  wmd::md::Simulation sim(log, settings, false, nullptr);
  sim.add_observable("defect_count", "", [&sim]() { return 2.0 * static_cast<double>(sim.state.step); });
  std::ofstream(dir + "/in.md") << kInput << "run 10\n";
  wmd::io::Variables vars;
  wmd::io::LammpsScript script(dir + "/in.md", vars, wmd::SourcePos{"<test>", 0});
  wmd::md::replay_script(script, sim);
  EXPECT_EQ(python(dir, R"(
import h5py
g = h5py.File('trajectory.h5', 'r')['observables/defect_count']
assert list(g['step'][:]) == [0, 5, 10] and list(g['value'][:]) == [0.0, 10.0, 20.0], g['value'][:]
print('ok')
)"),
            0);
}

TEST(Trajectory, RestartDropsFramesPastTheCheckpointThenAppends) {
  const std::string dir = wmd::test::scratch_dir("traj_restart");
  std::ofstream(dir + "/in.md") << kInput << "run ${n}\n";
  const std::string set = " --set output.trajectory.every=20 --set output.checkpoint_every=100 --output out";
  ASSERT_EQ(run_wafermd_in(dir, "run in.md --var n 130" + set).status, 0);
  const auto r = run_wafermd_in(dir, "run in.md --var n 100 --restart out/checkpoint.h5" + set);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(python(dir, R"(
import h5py, numpy as np
f = h5py.File('out/trajectory.h5', 'r')
steps = list(f['particles/all/position/step'][:])
assert steps == list(range(0, 201, 20)), steps
assert f['particles/all/position/value'].shape[0] == 11
assert np.all(np.diff(f['particles/all/position/time'][:]) > 0)
for name in f['observables']:
    assert list(f['observables/' + name + '/step'][:]) == steps, name
print('ok')
)"),
            0);
}

TEST(Trajectory, LammpsDumpH5mdCommand) {
  const std::string dir = wmd::test::scratch_dir("traj_dump_h5md");
  std::ofstream(dir + "/in.md")
      << kInput << "dump 2 all h5md 25 traj.h5 position velocity species author Tester\nrun 50\n";
  const auto r = run_wafermd_in(dir, "run in.md --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out/trajectory.h5"));
  EXPECT_EQ(python(dir, R"(
import h5py
f = h5py.File('traj.h5', 'r')
assert sorted(f['particles/all']) == ['box', 'position', 'species', 'velocity'], list(f['particles/all'])
assert list(f['particles/all/velocity/step'][:]) == [0, 25, 50]
assert f['h5md/author'].attrs['name'] == 'Tester'
print('ok')
)"),
            0);
  std::ofstream(dir + "/in.bad") << kInput << "group one id 1\ndump 2 one h5md 25 traj.h5 position\nrun 5\n";
  auto b = run_wafermd_in(dir, "run in.bad --output bad");
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("group all only"), std::string::npos) << b.err;
  std::ofstream(dir + "/in.bad2") << kInput << "dump 2 all h5md 25 traj.h5 position 5\nrun 5\n";
  b = run_wafermd_in(dir, "run in.bad2 --output bad");
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("per-element intervals"), std::string::npos) << b.err;
}

TEST(Progress, NothingOnStderrWhenNotATerminal) {
  const std::string dir = wmd::test::scratch_dir("progress_pipe");
  std::ofstream(dir + "/in.md") << kInput << "run 300\n";
  const auto r = run_wafermd_in(dir, "run in.md --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Progress, OneLiveLineOnATerminal) {
  if (!fs::exists("/usr/bin/script"))
    GTEST_SKIP() << "util-linux 'script' (a pseudo-terminal) is not installed";
  const std::string dir = wmd::test::scratch_dir("progress_tty");
  // The run is ended by wall time (fix halt tlimit, 1.5 s), not by a step count, so the line is refreshed
  // several times (every 0.25 s) on a CPU of any speed.
  std::ofstream(dir + "/in.md")
      << "units metal\natom_style atomic\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam\n"
         "pair_coeff 1 1 Cu_u3.eam\n"
         "velocity all create 300 5 loop geom\nfix 1 all nve\n"
         "fix 2 all halt 100 tlimit > 1.5 error continue message no\nthermo 0\nrun 2000000000\n";
  // stdout to a file, stderr to the pseudo-terminal that `script` records.
  const auto r = run_shell(dir, std::string("/usr/bin/script -qec \"'") + WAFERMD_EXE +
                                    "' run in.md --output out >run.out\" typescript");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string tty = wmd::test::slurp(dir + "/typescript");
  EXPECT_NE(tty.find("\rstep "), std::string::npos) << tty;
  EXPECT_NE(tty.find("steps/s  ETA "), std::string::npos) << tty;
  const size_t first = tty.find("\rstep "), last = tty.rfind("\r\033[K");
  ASSERT_NE(last, std::string::npos) << "the line is erased at the end";
  EXPECT_EQ(tty.substr(first, last - first).find('\n'), std::string::npos)
      << "the line is rewritten in place";
  // The temperature shown is live (NVE at 300 K fluctuates), not the set-up thermo value repeated.
  std::set<std::string> temps;
  for (size_t p = tty.find("  T "); p != std::string::npos; p = tty.find("  T ", p + 1))
    temps.insert(tty.substr(p, tty.find(" K", p) - p));
  EXPECT_GE(temps.size(), 2u) << tty;
  EXPECT_EQ(wmd::test::slurp(dir + "/run.out").find("steps/s  ETA"), std::string::npos);
}

TEST(Progress, LineFormatNeverStartsWithANumber) {
  const std::string s = wmd::md::ProgressLine::format(1500, 1000, 3000, 250.0, 301.25, -3540.5);
  EXPECT_EQ(s, "step 1500/3000 (25.0%)  250 steps/s  ETA 0:00:06  T 301.2 K  Etot -3540.5 eV");
}

}  // namespace
