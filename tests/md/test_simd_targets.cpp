// Every SIMD target of this build that this CPU runs (base/simd.hpp), one instance of each test per target
// (their names end in the target): LAMMPS's step-100 digits of in.eam, cluster forces equal between targets
// to 1e-12 of the largest force, the fp32 PE kernels and the fp32 mesh within 1e-5 of the fp64 reference,
// deterministic mode's bits, the half list and the fast transport's deliveries identical to the scalar
// target's. Also: forcing a target the CPU lacks, or one this build does not have, is an input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "base/simd.hpp"
#include "fabric/fast_transport.hpp"
#include "fabric/hardware.hpp"
#include "md/cluster/cluster_backend.hpp"
#include "md/cluster/half_neighbor_list.hpp"
#include "md/core/lattice.hpp"
#include "md/force/eam_atom_kernels.hpp"
#include "md/mesh/pe_kernels32.hpp"
#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

using namespace wmd;
namespace pot = wmd::potentials;

// Names the CPU and the targets that run, once, before the tests.
class ListTargets : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string names;
    for (const std::string& t : simd::available_targets()) names += " " + t;
    std::printf("SIMD targets on this CPU (%s):%s\n", simd::cpu_model().c_str(), names.c_str());
  }
};
const auto* const kListTargets = ::testing::AddGlobalTestEnvironment(new ListTargets);

// Runs `f` on target `name`, then returns to the test's own.
template <class F>
auto on_target(const std::string& name, const std::string& back, F f) {
  simd::use(name, SourcePos{"test", 0});
  auto r = f();
  simd::use(back, SourcePos{"test", 0});
  return r;
}

class Targets : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { simd::use(GetParam(), SourcePos{"test", 0}); }
  void TearDown() override { simd::use("auto", SourcePos{}); }
};

pot::EamTables tables(bool alloy) {
  pot::EamBuilder b(alloy ? pot::EamStyle::setfl : pot::EamStyle::funcfl, alloy ? 2 : 1);
  if (alloy)
    b.set_elements("CuNi.eam.alloy", {"Cu", "Ni"}, {});
  else
    b.add_funcfl(1, 1, 1, 1, "Cu_u3.eam", {});
  return b.build();
}

// A cells³ fcc crystal with ±0.2 Å displacements, types alternating over ntypes.
md::State crystal(int cells, int ntypes) {
  md::State s;
  s.ntypes = ntypes;
  s.mass.assign(ntypes + 1, 63.55);
  md::Lattice lat;
  md::make_lattice("fcc", 3.615, lat);
  for (int d = 0; d < 3; ++d) s.box.lo[d] = 0.0, s.box.hi[d] = cells * 3.615;
  s.box.defined = true;
  md::create_lattice_atoms(s, lat, std::vector<int>(lat.basis.size(), 1), nullptr);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.2, 0.2);
  for (size_t i = 0; i < s.atoms.size(); ++i) {
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
    s.atoms.type[i] = 1 + static_cast<int>(i % ntypes);
  }
  return s;
}

struct Forces {
  double energy = 0.0, virial[6] = {0, 0, 0, 0, 0, 0};
  std::vector<double> f;  // by id
};

// The cluster backend's forces at set-up (density, embedding and force passes over the half list).
Forces cluster_forces(bool alloy, double skin, md::PairPrecision prec) {
  md::State s = crystal(5, alloy ? 2 : 1);
  md::ClusterBackend b(prec);
  md::NeighborSettings nb;
  nb.skin = skin;
  const pot::EamTables t = tables(alloy);
  b.setup(s, t, nb, false);
  Forces out;
  out.energy = b.result().energy;
  std::copy(b.result().virial, b.result().virial + 6, out.virial);
  out.f.resize(3 * s.atoms.size());
  for (size_t i = 0; i < s.atoms.size(); ++i) {
    const size_t k = static_cast<size_t>(s.atoms.id[i] - 1);
    out.f[3 * k] = s.atoms.fx[i], out.f[3 * k + 1] = s.atoms.fy[i], out.f[3 * k + 2] = s.atoms.fz[i];
  }
  return out;
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// max|a − b| / max|b|.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d / max_abs(b);
}

// LAMMPS's in.eam prints LAMMPS's step-100 thermo row on this target, and the log and report.json name it.
TEST_P(Targets, LammpsDigitsOfInEam) {
  const std::string dir = test::scratch_dir("simd_digits_" + GetParam());
  const test::ProgramResult r =
      test::run_wafermd_in(dir, "run " + std::string(WAFERMD_SOURCE_DIR) +
                                    "/inputs/lammps/in.eam --set simd=" + GetParam() + " --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n     100      801.832    -109957.3            0   -106640.77    51322.821 \n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SIMD: " + GetParam() + " on "), std::string::npos);
  const std::string report = test::slurp(dir + "/out/report.json");
  EXPECT_NE(report.find("\"simd_target\": \"" + GetParam() + "\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"cpu\": "), std::string::npos);
}

// fp64 cluster forces, energy and virial on this target against the scalar target's: within 1e-12 of the
// largest, for one and two atom types and list lengths through every path of the kernels (in-cut-off masks,
// lists past them, lists past the stack buffers). The reduced-precision mode stays within 1e-5 of fp64.
TEST_P(Targets, ClusterForcesAgreeWithTheScalarTarget) {
  static std::map<std::pair<bool, double>, Forces> reference;
  for (const bool alloy : {false, true}) {
    for (const double skin : {1.0, 2.0, 5.0, 10.0}) {
      const auto key = std::make_pair(alloy, skin);
      if (!reference.count(key))
        reference[key] = on_target("scalar", GetParam(),
                                   [&] { return cluster_forces(alloy, skin, md::PairPrecision::fp64); });
      const Forces& ref = reference[key];
      const Forces a = cluster_forces(alloy, skin, md::PairPrecision::fp64);
      EXPECT_LE(rel_diff(a.f, ref.f), 1e-12) << "alloy " << alloy << " skin " << skin;
      EXPECT_NEAR(a.energy, ref.energy, 1e-12 * std::fabs(ref.energy));
      for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.virial[k], ref.virial[k], 1e-12 * std::fabs(ref.virial[0]));
      const Forces m = cluster_forces(alloy, skin, md::PairPrecision::mixed);
      EXPECT_LE(rel_diff(m.f, a.f), 1e-5) << "mixed, alloy " << alloy << " skin " << skin;
      EXPECT_NEAR(m.energy, a.energy, 2e-7 * std::fabs(a.energy));
    }
  }
}

// The binned half list is the same list, entry for entry, on every target.
TEST_P(Targets, HalfListIsTheScalarTargetsList) {
  const md::State s = crystal(6, 1);
  const auto build = [&] {
    md::GhostImages g;
    const md::Atoms& a = s.atoms;
    md::build_ghost_images(s.box, a.x.data(), a.y.data(), a.z.data(), a.type.data(),
                           static_cast<int>(a.size()), 5.95, g);
    md::HalfNeighborList list;
    md::build_half_list(g, 5.95, list);
    return list;
  };
  const md::HalfNeighborList ref = on_target("scalar", GetParam(), build), list = build();
  EXPECT_GT(ref.size(), 0);
  EXPECT_EQ(list.offset, ref.offset);
  EXPECT_EQ(list.nbr, ref.nbr);
}

// One PE's slots around an atom at xi: n neighbours between 1.8 Å and the cut-off + 1 Å, each behind a random
// periodic image of a 40 Å box.
struct Hood {
  float xi[3];
  std::vector<float> x, y, z, fp;
  std::vector<int8_t> shift, type;
  int ti = 1;
};

Hood make_hood(int n, int ntypes, double cut, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), rad(1.8, cut + 1.0), fpd(-3.0, -1.0);
  Hood h;
  for (float& c : h.xi) c = static_cast<float>(20.0 + 5.0 * u(rng));
  h.ti = 1 + static_cast<int>(rng() % ntypes);
  for (int k = 0; k < n; ++k) {
    double d[3], norm = 0;
    for (double& c : d) c = u(rng), norm += c * c;
    const double r = rad(rng) / std::sqrt(norm);
    const int code = static_cast<int>(rng() % 27);
    const int sh[3] = {code % 3 - 1, (code / 3) % 3 - 1, code / 9 - 1};
    h.x.push_back(static_cast<float>(h.xi[0] - d[0] * r - sh[0] * 40.0));
    h.y.push_back(static_cast<float>(h.xi[1] - d[1] * r - sh[1] * 40.0));
    h.z.push_back(static_cast<float>(h.xi[2] - d[2] * r - sh[2] * 40.0));
    h.shift.push_back(static_cast<int8_t>(code));
    h.type.push_back(static_cast<int8_t>(1 + rng() % ntypes));
    h.fp.push_back(static_cast<float>(fpd(rng)));
  }
  return h;
}

// The fp32 PE kernels on this target against the fp64 atom kernels on the same fp32 displacements, over
// neighbourhoods shorter than a vector and longer than a block of slots: max|Δf| / max|f| ≤ 1e-5 over all
// PEs, the same for ρ̄ and the energy, and the in-cut-off counts exact.
TEST_P(Targets, PeKernels32MatchTheFp64Reference) {
  for (const bool alloy : {false, true}) {
    pot::EamTables t;
    if (alloy) {
      pot::EamBuilder b(pot::EamStyle::setfl, 2);
      b.set_elements("CuTa.eam.alloy", {"Cu", "Ta"}, {});
      t = b.build();
    } else {
      t = tables(false);
    }
    const md::mesh::PeTables32 pt = md::mesh::make_pe_tables32(t);
    const double L[3] = {40.0, 40.0, 40.0};
    const md::mesh::ShiftOffsets32 so = md::mesh::make_shift_offsets32(L);
    std::vector<double> f32, f64, rho32, rho64, e32, e64;
    for (const int n : {1, 7, 16, 78, 300}) {
      for (unsigned seed = 1; seed <= 10; ++seed) {
        const Hood h = make_hood(n, t.ntypes, t.cutmax, seed);
        md::mesh::PeSlots32 in;
        in.n = n, in.x = h.x.data(), in.y = h.y.data(), in.z = h.z.data();
        in.shift = h.shift.data(), in.type = h.type.data(), in.fp = h.fp.data();
        std::vector<double> dx(n), dy(n), dz(n), fpj(n);
        std::vector<int> tj(n);
        int in_cut_ref = 0;
        for (int k = 0; k < n; ++k) {
          const int code = h.shift[k];
          dx[k] = md::mesh::pe_delta(h.xi[0], h.x[k], code % 3 - 1, 40.0f);
          dy[k] = md::mesh::pe_delta(h.xi[1], h.y[k], (code / 3) % 3 - 1, 40.0f);
          dz[k] = md::mesh::pe_delta(h.xi[2], h.z[k], code / 9 - 1, 40.0f);
          const float rsq = static_cast<float>(dx[k]) * static_cast<float>(dx[k]) +
                            static_cast<float>(dy[k]) * static_cast<float>(dy[k]) +
                            static_cast<float>(dz[k]) * static_cast<float>(dz[k]);
          in_cut_ref += rsq < pt.cutsq;
          tj[k] = h.type[k], fpj[k] = h.fp[k];
        }
        int in_cut = -1;
        rho32.push_back(md::mesh::pe_density32(pt, so, h.ti, h.xi, in, in_cut));
        rho64.push_back(md::atom_density(t, h.ti, n, dx.data(), dy.data(), dz.data(), tj.data()));
        EXPECT_EQ(in_cut, in_cut_ref) << "n " << n << " seed " << seed;
        double fr[3] = {0, 0, 0}, vr[6] = {0, 0, 0, 0, 0, 0};
        e64.push_back(
            md::atom_force(t, h.ti, -2.1, n, dx.data(), dy.data(), dz.data(), tj.data(), fpj.data(), fr, vr));
        float f[3], v[6] = {0, 0, 0, 0, 0, 0};
        e32.push_back(md::mesh::pe_force32(pt, so, h.ti, -2.1f, h.xi, in, f, v));
        for (int c = 0; c < 3; ++c) f32.push_back(f[c]), f64.push_back(fr[c]);
      }
    }
    EXPECT_LE(rel_diff(f32, f64), 1e-5) << "alloy " << alloy;
    EXPECT_LE(rel_diff(rho32, rho64), 1e-5) << "alloy " << alloy;
    EXPECT_LE(rel_diff(e32, e64), 1e-5) << "alloy " << alloy;
  }
}

// The mesh backend in fp32 (PE passes, fast transport) against its fp64 path on a perturbed crystal: forces
// within 1e-5 of the largest.
TEST_P(Targets, MeshFp32ForcesMatchFp64) {
  const std::string script =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\n"
      "create_box 1 box\ncreate_atoms 1 box\ndisplace_atoms all random 0.1 0.1 0.1 4711\npair_style eam\n"
      "pair_coeff 1 1 Cu_u3.eam\nrun 0\n";
  auto forces = [&](const std::string& precision) {
    io::RunSettings set;
    set.backend = "mesh";
    set.mesh_precision = precision;
    const test::ScriptRun run(script, test::scratch_dir("simd_mesh_" + precision + "_" + GetParam()), set);
    const md::Atoms& a = run.state().atoms;
    std::vector<double> f(3 * a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const size_t k = static_cast<size_t>(a.id[i] - 1);
      f[3 * k] = a.fx[i], f[3 * k + 1] = a.fy[i], f[3 * k + 2] = a.fz[i];
    }
    return f;
  };
  const std::vector<double> f32 = forces("fp32"), f64 = forces("fp64");
  ASSERT_EQ(f32.size(), 3u * 2048u);
  EXPECT_LE(rel_diff(f32, f64), 1e-5);
}

// pair_style hybrid/overlay eam/alloy zbl on a Cu-Ni crystal with three close pairs (about 0.65, 0.8 and
// 0.95 Å): on this target the cluster's vector force pass, its per-atom-energy loop, deterministic mode and
// the mesh with fp64 PEs give the scalar target's cluster forces, energy and virial to 1e-12 (of the largest
// force, of |E|, of the largest virial component); cluster.precision mixed and the mesh's fp32 PEs agree
// within 1e-5 — every pair kernel's ZBL variant, on every target.
TEST_P(Targets, ZblOverlayAgreesAcrossPathsAndTargets) {
  const std::string head =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.52\nregion box block 0 6 0 6 0 8\n"
      "create_box 2 box\ncreate_atoms 1 box\nset type 1 type/fraction 2 0.4 8472\n"
      "displace_atoms all random 0.05 0.05 0.05 4711\n"
      "pair_style hybrid/overlay eam/alloy zbl 1.0 2.0\n"
      "pair_coeff * * eam/alloy CuNi.eam.alloy Cu Ni\n"
      "pair_coeff 1 1 zbl 29 29\npair_coeff 1 2 zbl 29 28\npair_coeff 2 2 zbl 28 28\nneighbor 1.0 bin\n"
      "region r1 sphere 0 0 0 0.3 units box\nregion r2 sphere 7.04 7.04 7.04 0.3 units box\n"
      "region r3 sphere 14.08 3.52 10.56 0.3 units box\n"
      "group g1 region r1\ngroup g2 region r2\ngroup g3 region r3\n"
      "displace_atoms g1 move 1.3 1.3 0 units box\ndisplace_atoms g2 move 1.2 0 1.2 units box\n"
      "displace_atoms g3 move 0 -1.1 -1.1 units box\n";
  struct Result {
    double energy = 0.0, virial[6] = {0, 0, 0, 0, 0, 0};
    std::vector<double> f;
  };
  auto run = [&](const std::string& name, const io::RunSettings& set, const std::string& extra) {
    const test::ScriptRun r(head + extra + "run 0\n",
                            test::scratch_dir("simd_zbl_" + name + "_" + GetParam()), set);
    Result out;
    out.energy = r.sim->backend->result().energy;
    std::copy(r.sim->backend->result().virial, r.sim->backend->result().virial + 6, out.virial);
    const md::Atoms& a = r.state().atoms;
    out.f.resize(3 * a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      const size_t k = static_cast<size_t>(a.id[i] - 1);
      out.f[3 * k] = a.fx[i], out.f[3 * k + 1] = a.fy[i], out.f[3 * k + 2] = a.fz[i];
    }
    return out;
  };
  static Result
      reference;  // the scalar target's cluster run (ctest runs each target's test in its own process)
  if (reference.f.empty())
    reference = on_target("scalar", GetParam(), [&] { return run("reference", {}, ""); });
  ASSERT_EQ(reference.f.size(), 3u * 1152u);
  ASSERT_GT(max_abs(reference.f), 100.0) << "the close pairs' ZBL forces";
  const double vmax = max_abs(std::vector<double>(reference.virial, reference.virial + 6));
  auto expect_near = [&](const Result& r, double tol, const std::string& what) {
    EXPECT_LE(rel_diff(r.f, reference.f), tol) << what;
    EXPECT_LE(std::fabs(r.energy - reference.energy), tol * std::fabs(reference.energy)) << what;
    for (int c = 0; c < 6; ++c)
      EXPECT_LE(std::fabs(r.virial[c] - reference.virial[c]), tol * vmax) << what << " virial " << c;
  };
  io::RunSettings set;
  expect_near(run("cluster", set, ""), 1e-12, "cluster");
  // A 4 Å skin: half lists longer than the in-cut-off masks cover, taken in blocks by the force pass.
  expect_near(run("longlists", set, "neighbor 4.0 bin\n"), 1e-12, "cluster with long lists");
  expect_near(
      run("eatom", set,
          "compute pea all pe/atom\ncompute s all reduce sum c_pea\nthermo_style custom step pe c_s\n"),
      1e-12, "cluster with per-atom energies");
  set.cluster_precision = "mixed";
  expect_near(run("mixed", set, ""), 1e-5, "cluster.precision mixed");
  set = io::RunSettings{};
  set.deterministic = true;
  expect_near(run("deterministic", set, ""), 1e-12, "deterministic");
  set = io::RunSettings{};
  set.backend = "mesh";
  set.mesh_precision = "fp64";
  expect_near(run("mesh64", set, ""), 1e-12, "mesh fp64");
  set.mesh_precision = "fp32";
  expect_near(run("mesh32", set, ""), 1e-5, "mesh fp32");
}

// deterministic: true writes the same bytes on every target (thermo.csv at full precision, the final data
// file), with the cluster backend (neighbour rebuilds included) and the mesh backend in fp64.
TEST_P(Targets, DeterministicRunsHaveTheScalarTargetsBits) {
  const std::string input =
      "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 7 0 7 0 7\n"
      "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
      "Cu_u3.eam\nvelocity all create 3000.0 4928459 loop all\n"
      "neigh_modify every 1 delay 0 check yes\nfix 1 all nve\ntimestep 0.005\nthermo 10\nrun 40\n"
      "write_data final.data\n";
  static std::map<std::string, std::string> reference;  // backend → thermo.csv and data file of scalar
  for (const std::string backend : {"cluster", "mesh"}) {
    auto run = [&](const std::string& target) {
      // Named after the test's own target too: ctest runs the targets' tests in parallel processes, and
      // each runs the scalar reference.
      const std::string dir = test::scratch_dir("simd_det_" + backend + "_" + target + "_for_" + GetParam());
      std::ofstream(dir + "/in.det") << input;
      const test::ProgramResult r = test::run_wafermd_in(
          dir, "run in.det --backend " + backend + " --set deterministic=true --set mesh.precision=fp64 " +
                   "--set simd=" + target + " --output out");
      EXPECT_EQ(r.status, 0) << r.err;
      return test::slurp(dir + "/out/thermo.csv") + test::slurp(dir + "/final.data");
    };
    if (!reference.count(backend)) reference[backend] = run("scalar");
    const std::string bytes = run(GetParam());
    EXPECT_GT(bytes.size(), 1000u);
    EXPECT_TRUE(bytes == reference[backend]) << backend << " on " << GetParam() << " differs from scalar";
  }
}

// The fast transport's approved deliveries (positions as planes, one-word F') equal requested delivery's,
// including requests for the last PE, whose row ends the payload.
TEST_P(Targets, FastTransportDeliveriesMatchRequestedDelivery) {
  const fabric::HardwareSpec hw = fabric::preset("wse2");
  for (const int words : {3, 1}) {
    const fabric::ScheduleSpec spec{fabric::ScheduleKind::WindowMulticast, fabric::Grid{13, 11}, 2, words,
                                    true};
    fabric::FastTransport t(spec, hw);
    const int n = spec.grid.size();
    std::mt19937 rng(3);
    std::vector<std::uint32_t> payload(static_cast<size_t>(n) * words);
    for (auto& w : payload) w = rng();
    std::vector<std::int32_t> off(n + 1), src;
    std::uniform_int_distribution<int> o(-2, 2);
    for (int dst = 0; dst < n; ++dst) {
      off[dst] = static_cast<std::int32_t>(src.size());
      for (int k = 0; k < 3 + dst % 23; ++k) {
        int dx = o(rng), dy = o(rng);
        if (dx == 0 && dy == 0) dx = 1;
        src.push_back(t.offset_pe(dst, dx, dy));
      }
    }
    off[n] = static_cast<std::int32_t>(src.size());
    ASSERT_NE(std::find(src.begin(), src.end(), n - 1), src.end());
    std::vector<std::uint32_t> whole(src.size() * words);
    t.deliver_requested(off.data(), src.data(), payload.data(), whole.data());
    t.approve_requests(0, n, off.data(), src.data());
    const size_t nreq = src.size();
    std::vector<std::uint32_t> planes(nreq * words, 0u);
    t.deliver_approved_range(0, n, off.data(), src.data(), payload.data(), planes.data(),
                             words > 1 ? nreq : 0);
    for (size_t k = 0; k < nreq; ++k)
      for (int w = 0; w < words; ++w) ASSERT_EQ(planes[w * nreq + k], whole[k * words + w]) << k;
  }
}

std::string target_name(const ::testing::TestParamInfo<std::string>& i) {
  return i.param;
}

INSTANTIATE_TEST_SUITE_P(SimdTargets, Targets, ::testing::ValuesIn(simd::available_targets()), target_name);

// A target this build lacks, or one this CPU cannot run, is an input error naming what it could run; auto
// returns to the best.
TEST(SimdChoice, UnknownAndUnsupportedTargetsAreInputErrors) {
  EXPECT_THROW(simd::use("avx1024", SourcePos{"--set", 0}), InputError);
  const std::vector<std::string> built = simd::compiled_targets();
  if (std::find(built.begin(), built.end(), "avx512") != built.end() &&
      std::find(built.begin(), built.end(), "avx2") != built.end()) {
    // A CPU with AVX2 but no AVX-512, as Highway's test hook pretends.
    hwy::SetSupportedTargetsForTest(HWY_AVX2 | HWY_SSE4 | HWY_SCALAR);
    try {
      simd::use("avx512", SourcePos{"--set", 0});
      ADD_FAILURE() << "avx512 accepted on a CPU without it";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot run it; it runs avx2"), std::string::npos) << e.what();
    }
    simd::use("auto", SourcePos{});
    EXPECT_EQ(simd::active_target(), "avx2");
    hwy::SetSupportedTargetsForTest(0);
  }
  simd::use("auto", SourcePos{});
  EXPECT_EQ(simd::active_target(), simd::available_targets().front());
}

// The program: an unknown target in --set or WAFERMD_SIMD is exit 2 with an error line; the report names the
// CPU and the target it ran.
TEST(SimdChoice, ProgramRefusesATargetItCannotRun) {
  const std::string dir = test::scratch_dir("simd_refuse");
  std::ofstream(dir + "/in.small") << "units metal\natom_style atomic\nlattice fcc 3.615\n"
                                      "region box block 0 4 0 4 0 4\ncreate_box 1 box\ncreate_atoms 1 box\n"
                                      "pair_style eam\npair_coeff 1 1 Cu_u3.eam\n"
                                      "run 0\n";
  test::ProgramResult r = test::run_wafermd_in(dir, "run in.small --set simd=avx1024 --output out");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  r = test::run_shell(dir,
                      std::string("WAFERMD_SIMD=avx1024 '") + WAFERMD_EXE + "' run in.small --output out");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: WAFERMD_SIMD"), std::string::npos) << r.err;
  r = test::run_shell(dir,
                      std::string("WAFERMD_SIMD=scalar '") + WAFERMD_EXE + "' run in.small --output out");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(test::slurp(dir + "/out/report.json").find("\"simd_target\": \"scalar\""), std::string::npos);
}

}  // namespace
