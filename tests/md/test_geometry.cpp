// Lattices, regions, groups and atom editing against Debian lmp (references from
// validation/geometry/regenerate.sh): ids, types and coordinates bit for bit, vacancy and interstitial
// energies within 1e-8 eV, the mesh re-mapping edited atoms, and every bad use of the commands refused with
// one line `error: FILE:LINE: …`, exit 2 and nothing written. The 3-rank runs of the same cases are
// tests/md/mpi_cases.py geometry.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "program_harness.hpp"
#include "sim_harness.hpp"

namespace {

namespace fs = std::filesystem;
using wmd::test::run_wafermd_in;

const std::string kData = std::string(WAFERMD_SOURCE_DIR) + "/tests/data/geometry/";

struct Frame {
  int64_t step = 0;
  std::map<int64_t, std::vector<std::string>> rows;  // id → the other columns as written
};

std::vector<Frame> read_dump(const std::string& path) {
  std::ifstream in(path);
  std::vector<Frame> frames;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ITEM: TIMESTEP", 0) != 0) continue;
    Frame f;
    std::getline(in, line);
    f.step = std::stoll(line);
    std::getline(in, line);
    std::getline(in, line);
    const int n = std::stoi(line);
    for (int k = 0; k < 5; ++k) std::getline(in, line);
    for (int k = 0; k < n && std::getline(in, line); ++k) {
      std::istringstream w(line);
      int64_t id;
      w >> id;
      std::vector<std::string> cols;
      for (std::string c; w >> c;) cols.push_back(c);
      f.rows[id] = cols;
    }
    frames.push_back(f);
  }
  return frames;
}

class LammpsGeometry : public ::testing::TestWithParam<std::string> {};

TEST_P(LammpsGeometry, SameAtomsIdsAndTypesAsLammps) {
  const std::string name = GetParam();
  const std::string dir = wmd::test::scratch_dir("geometry_" + name);
  fs::copy_file(kData + "in." + name, dir + "/in." + name);
  const auto r = run_wafermd_in(dir, "run in." + name + " --output out");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ref = read_dump(kData + name + ".dump");
  const auto got = read_dump(dir + "/" + name + ".dump");
  ASSERT_EQ(got.size(), ref.size());
  // After 1100 steps of dynamics (sorted_compress) positions agree to round-off; everything else is exact.
  const double tol = name == "sorted_compress" ? 1e-8 : 0.0;
  for (size_t k = 0; k < ref.size(); ++k) {
    ASSERT_EQ(got[k].step, ref[k].step);
    ASSERT_EQ(got[k].rows.size(), ref[k].rows.size()) << "step " << ref[k].step;
    for (const auto& [id, cols] : ref[k].rows) {
      const auto it = got[k].rows.find(id);
      ASSERT_NE(it, got[k].rows.end()) << "LAMMPS has atom " << id << " at step " << ref[k].step;
      ASSERT_EQ(it->second.size(), cols.size());
      for (size_t c = 0; c < cols.size(); ++c) {
        if (tol == 0.0)
          ASSERT_EQ(std::stod(it->second[c]), std::stod(cols[c])) << "atom " << id << " column " << c + 1;
        else
          ASSERT_NEAR(std::stod(it->second[c]), std::stod(cols[c]), tol)
              << "atom " << id << " column " << c + 1;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lammps, LammpsGeometry,
                         ::testing::Values("lattice_fcc_orient", "lattice_fcc_111", "lattice_fcc_spacing",
                                           "lattice_bcc", "lattice_diamond", "lattice_hcp",
                                           "lattice_hcp_orient", "lattice_custom", "regions", "groups",
                                           "create_single_random", "replicate", "random_choices", "overlap",
                                           "change_box", "sorted_compress", "dynamic_group", "examples_shear",
                                           "examples_shear_void"));

// The last thermo row's energy before the last "Loop time" line.
double final_energy(const std::string& out) {
  std::istringstream in(out);
  std::string line, prev, last;
  while (std::getline(in, line)) {
    if (line.rfind("Loop time", 0) == 0) last = prev;
    prev = line;
  }
  std::istringstream w(last);
  int64_t step;
  double e = NAN;
  w >> step >> e;
  return e;
}

TEST(LammpsGeometry, VacancyAndInterstitialEnergiesWithinOneHundredthOfAMicroElectronVolt) {
  std::ifstream in(kData + "energies.txt");
  std::string name;
  double ref;
  int cases = 0;
  while (in >> name >> ref) {
    const std::string dir = wmd::test::scratch_dir("geometry_energy_" + name);
    fs::copy_file(kData + "in." + name, dir + "/in." + name);
    const auto r = run_wafermd_in(dir, "run in." + name + " --output out");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NEAR(final_energy(r.out), ref, 1e-8) << name;
    ++cases;
  }
  EXPECT_EQ(cases, 2);
}

TEST(LammpsGeometry, RegionSidesMovesAndExtentsFollowLammps) {
  // In-process: the handle's match() and the bounding box create_atoms narrows its loop to.
  wmd::test::ScriptRun run(
      "units metal\nlattice fcc 4.0\nregion box block 0 4 0 4 0 4\ncreate_box 1 box\n"
      "region s sphere 1 1 1 0.5\nregion o sphere 1 1 1 0.5 side out\nvariable dx equal 4.0\n"
      "region m sphere 1 1 1 0.5 move v_dx NULL NULL\nregion p plane 0 0 0 0 0 1 units box\n"
      "region u union 2 s m\nregion i intersect 2 s p\n",
      wmd::test::scratch_dir("geometry_regions"));
  const auto& r = run.sim->regions;
  EXPECT_TRUE(r.at("s").match(4.0, 4.0, 6.0));  // on the surface: inside
  EXPECT_FALSE(r.at("s").match(4.0, 4.0, 6.01));
  EXPECT_FALSE(r.at("o").match(4.0, 4.0, 4.0));
  r.at("m").prematch();
  EXPECT_TRUE(r.at("m").match(8.0, 4.0, 4.0));
  EXPECT_TRUE(r.at("u").match(8.0, 4.0, 4.0) && r.at("u").match(4.0, 4.0, 4.0));
  double lo[3], hi[3];
  ASSERT_TRUE(r.at("s").extent(lo, hi));
  EXPECT_EQ(lo[0], 2.0);
  EXPECT_EQ(hi[2], 6.0);
  EXPECT_FALSE(r.at("o").extent(lo, hi));  // side out: no bounding box
  EXPECT_FALSE(r.at("m").extent(lo, hi));  // moving
  EXPECT_FALSE(r.at("p").extent(lo, hi));  // a plane has none
  ASSERT_TRUE(r.at("i").extent(lo, hi));   // an intersection has its bounded part's
  EXPECT_EQ(hi[0], 6.0);
}

TEST(LammpsGeometry, CreateAtomsRandomOverlapKeepsItsDistance) {
  // Debian's lmp lacks `overlap` (newer LAMMPS has it): checked independently. Every new atom keeps at least
  // D from every other atom, periodic images included; atoms that find no place in maxtry tries are skipped.
  wmd::test::ScriptRun run(
      "units metal\nboundary p p f\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\ncreate_box 2 box\n"
      "create_atoms 1 box\ncreate_atoms 2 random 40 4242 NULL overlap 1.2 maxtry 50\n",
      wmd::test::scratch_dir("geometry_overlap"));
  const auto& s = run.state();
  const auto& a = s.atoms;
  int added = 0;
  double closest = 1e30;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.type[i] != 2) continue;
    ++added;
    for (size_t j = 0; j < a.size(); ++j) {
      if (j == i) continue;
      double r2 = 0.0;
      const double d[3] = {a.x[i] - a.x[j], a.y[i] - a.y[j], a.z[i] - a.z[j]};
      for (int k = 0; k < 3; ++k) {
        double dk = d[k];
        if (s.box.periodic(k)) dk -= s.box.prd(k) * std::round(dk / s.box.prd(k));
        r2 += dk * dk;
      }
      closest = std::min(closest, std::sqrt(r2));
    }
  }
  EXPECT_GT(added, 0);
  EXPECT_LE(added, 40);
  EXPECT_GE(closest, 1.2);
  // Ids continue after the lattice's, in creation order.
  EXPECT_EQ(a.max_id(), 108 + added);
}

TEST(LammpsGeometry, CreateAtomsRandomMaxtryCountsRegionMisses) {
  // Newer LAMMPS: maxtry bounds every try, a miss of the region too, with or without overlap; an atom out
  // of tries is skipped (two spheres of 1e-3 Å at opposite corners of their 8 Å bounding box are hit once in
  // ~10^10 tries).
  wmd::test::ScriptRun run(
      "units metal\nregion box block 0 10 0 10 0 10 units box\ncreate_box 1 box\n"
      "region a sphere 1 1 1 0.001 units box\nregion b sphere 9 9 9 0.001 units box\n"
      "region tiny union 2 a b\ncreate_atoms 1 random 20 5 tiny maxtry 7\n",
      wmd::test::scratch_dir("geometry_maxtry"));
  EXPECT_EQ(run.state().atoms.size(), 0u);
}

TEST(LammpsGeometry, ShearExamplesGetPastTheirGeometryLines) {
  // examples/shear/in.shear and in.shear.void, unchanged: their lattice, regions, groups, set and (void)
  // delete_atoms lines run (the scripts now run to the end; StylesLammps.examples_shear* compares them with
  // lmp), and should one stop, it is not before line 38.
  const std::string ex = "/usr/share/lammps/examples/shear/";
  if (!fs::exists(ex + "in.shear")) GTEST_SKIP() << "lammps-examples is not installed";
  for (const std::string name : {"in.shear", "in.shear.void"}) {
    const std::string dir = wmd::test::scratch_dir("geometry_" + name);
    fs::copy_file(ex + name, dir + "/" + name);
    fs::copy_file(ex + "Ni_u3.eam", dir + "/Ni_u3.eam");
    const auto r = run_wafermd_in(dir, "run " + name + " --output out");
    if (r.status == 0) continue;
    ASSERT_EQ(r.status, 2) << r.err;
    const size_t colon = r.err.find(':', r.err.find(name));
    const int line = std::stoi(r.err.substr(colon + 1));
    EXPECT_GE(line, 38) << r.err;
  }
}

TEST(MeshGeometry, AtomsEditedBetweenRunsAreRemappedAndCharged) {
  // delete_atoms, create_atoms and replicate between runs on the mesh: the PEs are re-mapped (report.json
  // fabric.remaps) and the run goes on with the edited atoms, as the cluster backend does.
  const std::string dir = wmd::test::scratch_dir("geometry_mesh_edit");
  std::ofstream(dir + "/in.edit")
      << "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 8 0 8 0 8\n"
         "create_box 1 box\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 "
         "Cu_u3.eam\nvelocity all create 300 4928 loop geom\nfix 1 all nve\n"
         "run 10\nregion v sphere 14.46 14.46 14.46 2.6 units box\ndelete_atoms region v\n"
         "create_atoms 1 single 1.0 1.0 1.0 units box\nrun 10\nreplicate 1 1 2\nrun 10\n"
         "write_data final.data\n";
  const auto mesh = run_wafermd_in(dir, "run in.edit --backend mesh --set mesh.precision=fp64 --output mesh");
  ASSERT_EQ(mesh.status, 0) << mesh.err;
  const auto rep = nlohmann::json::parse(wmd::test::slurp(dir + "/mesh/report.json"));
  EXPECT_EQ(rep["atoms"].get<int>(), 2 * (2048 - 13 + 1));  // the sphere holds a site and its 12 neighbours
  EXPECT_EQ(rep["fabric"]["remaps"].get<int>(), 2) << "one remap per edited run";
  EXPECT_GT(rep["fabric"]["cycles_per_step"]["swap"].get<double>(), 0.0);
  fs::rename(dir + "/final.data", dir + "/mesh.data");
  const auto cluster = run_wafermd_in(dir, "run in.edit --output cluster");
  ASSERT_EQ(cluster.status, 0) << cluster.err;
  // Same atoms and ids on both backends.
  auto ids = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line) && line.rfind("Atoms", 0) != 0) {
    }
    std::getline(in, line);
    std::vector<int64_t> out;
    while (std::getline(in, line) && !line.empty()) out.push_back(std::stoll(line));
    return out;
  };
  EXPECT_EQ(ids(dir + "/mesh.data"), ids(dir + "/final.data"));
}

struct BadCase {
  const char* name;
  std::string text;    // the input's lines after the head
  const char* needle;  // expected words
  int from_end = 0;    // the error's line counted back from the last line of `text`
};
void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

const std::string kHead =
    "units metal\natom_style atomic\nboundary p p p\nlattice fcc 3.615\nregion box block 0 3 0 3 0 3\n"
    "create_box 2 box\ncreate_atoms 1 box\npair_style eam\npair_coeff * * "
    "Cu_u3.eam\n";
constexpr int kHeadLines = 9;

class GeometryBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(GeometryBadInput, ExitsTwoWithFileAndLineAndWritesNothing) {
  const BadCase& c = GetParam();
  const std::string dir = wmd::test::scratch_dir(std::string("geometry_bad_") + c.name);
  // The bad command is the last line; a run after it must never start.
  std::ofstream(dir + "/in.bad") << kHead << c.text << "\nfix 1 all nve\nrun 5\n";
  const int line =
      kHeadLines + static_cast<int>(std::count(c.text.begin(), c.text.end(), '\n')) + 1 - c.from_end;
  const auto r = run_wafermd_in(dir, "run in.bad --output out");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("error: in.bad:" + std::to_string(line) + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out")) << "nothing may be written for bad input";
}

INSTANTIATE_TEST_SUITE_P(
    Commands, GeometryBadInput,
    ::testing::Values(
        BadCase{"orient_not_orthogonal", "lattice fcc 3.6 orient x 1 1 0 orient y 1 0 0 orient z 0 0 1",
                "not orthogonal"},
        BadCase{"orient_left_handed", "lattice fcc 3.6 orient x 1 0 0 orient y 0 1 0 orient z 0 0 -1",
                "not right-handed"},
        BadCase{"orient_zero", "lattice fcc 3.6 orient x 0 0 0", "right-handed"},
        BadCase{"origin_range", "lattice fcc 3.6 origin 0.5 1.0 0", "in [0, 1)"},
        BadCase{"lattice_2d", "lattice hex 3.6", "two-dimensional"},
        BadCase{"lattice_unknown", "lattice bct 3.6", "not supported"},
        BadCase{"basis_not_custom", "lattice fcc 3.6 basis 0 0 0", "needs style custom"},
        BadCase{"custom_no_basis", "lattice custom 3.6 a1 1 0 0", "at least one basis atom"},
        BadCase{"custom_collinear", "lattice custom 3.6 a1 1 0 0 a2 2 0 0 basis 0 0 0", "collinear"},
        BadCase{"spacing_negative", "lattice fcc 3.6 spacing 1 -1 1", "spacings must be > 0"},
        BadCase{"region_prism_flat", "region t prism 0 1 0 1 1 1 0.5 0 0", "zlo must be less than zhi"},
        BadCase{"region_unknown", "region t ellipsoid 0 0 0 1 1 1", "not supported"},
        BadCase{"region_reused", "region box block 0 1 0 1 0 1", "already in use"},
        BadCase{"region_too_few", "region s sphere 0 0 0", "needs 4 arguments"},
        BadCase{"region_bad_bound", "region b block 0 1 0 INFINITE 0 1", "INF or EDGE"},
        BadCase{"region_block_inverted", "region b block 2 1 0 1 0 1", "xlo exceeds xhi"},
        BadCase{"region_sphere_negative", "region s sphere 0 0 0 -1", "radius must be >= 0"},
        BadCase{"region_cylinder_zero", "region c cylinder z 0 0 0 INF INF", "radius must be > 0"},
        BadCase{"region_cone_flat", "region c cone z 0 0 1 1 2 2", "length is 0"},
        BadCase{"region_plane_zero", "region p plane 0 0 0 0 0 0", "normal is zero"},
        BadCase{"region_union_unknown", "region u union 2 box nowhere", "unknown region 'nowhere'"},
        BadCase{"region_move_number", "region s sphere 0 0 0 1 move 1 0 0", "v_name or NULL"},
        BadCase{"region_move_union",
                "region s sphere 0 0 0 1\nvariable d equal 1\nregion u union 2 box s move v_d NULL NULL",
                "cannot move"},
        // Evaluated where the region is used, reported at the region's line.
        BadCase{"region_move_undefined", "region s sphere 0 0 0 1 move v_nope NULL NULL\ngroup g region s",
                "undefined variable 'nope'", 1},
        BadCase{"region_open", "region c cylinder z 0 0 1 0 1 open 1", "fix wall/region"},
        BadCase{"region_delete_unknown", "region nowhere delete", "unknown region"},
        BadCase{"group_variable", "variable v equal 1\ngroup g variable v", "not atom-style"},
        BadCase{"group_subtract_one", "group g subtract all", "at least 2 groups"},
        BadCase{"group_clear_all", "group all clear", "cannot clear group all"},
        BadCase{"group_unknown_op", "group g id =< 5", "integer or a range"},
        BadCase{"group_delete_used", "group g id 1\nfix 2 g nve\ngroup g delete", "fix 2 uses it"},
        BadCase{"group_dynamic_self", "group g dynamic g", "its own parent"},
        BadCase{"group_dynamic_add", "group g dynamic all region box\ngroup g id 1", "dynamic group g"},
        BadCase{"group_dynamic_var", "variable v equal 1\ngroup g dynamic all var v", "not atom-style"},
        BadCase{"group_molecule", "group g molecule 1", "molecules"},
        BadCase{"set_mass", "set group all mass 2.0", "per-atom masses"},
        BadCase{"set_unknown", "set group all charge 1.0", "not supported"},
        BadCase{"set_type_range", "set group all type 3", "outside 1..2"},
        BadCase{"set_subset_too_many", "set group all type/subset 2 1000 5", "exceeds the 108"},
        BadCase{"set_fraction_range", "set group all type/fraction 2 1.5 5", "in [0, 1]"},
        BadCase{"set_image_fixed", "change_box all boundary p f p\nset atom 1 image 0 1 0", "periodic y"},
        BadCase{"set_bad_range", "set atom 5*2 type 2", "range"},
        BadCase{"delete_no_style", "delete_atoms everything", "delete_atoms style"},
        BadCase{"delete_unknown_region", "delete_atoms region nowhere", "unknown region"},
        BadCase{"delete_overlap_cutoff", "delete_atoms overlap 9.0 all all", "exceeds the neighbour cutoff"},
        BadCase{"delete_mol", "delete_atoms group all mol yes", "molecules"},
        BadCase{"delete_compress_value", "delete_atoms group all compress maybe", "yes|no"},
        BadCase{"create_no_lattice", "lattice none 1.0\ncreate_atoms 1 box", "needs a lattice"},
        BadCase{"create_bad_type", "create_atoms 3 single 0 0 0", "in [1, 2]"},
        BadCase{"create_random_outside",
                "region far sphere 100 100 100 1 units box\ncreate_atoms 1 random 5 7 far",
                "does not overlap the box"},
        BadCase{"create_overlap_single", "create_atoms 1 single 0 0 0 overlap 1.0", "random only"},
        BadCase{"create_mol", "create_atoms 1 box mol m 5", "not supported"},
        BadCase{"replicate_zero", "replicate 2 0 1", "in [1,"},
        BadCase{"replicate_bondlist", "replicate 2 2 2 bondlist", "bonds"},
        BadCase{"change_box_skew", "change_box all triclinic xy final 100 units box", "skew is too large"},
        BadCase{"change_box_tilt", "change_box all xy final 0.5", "tilt factors for orthogonal box"},
        BadCase{"change_box_ortho_tilted", "change_box all triclinic xy final 1 ortho units box",
                "orthogonal when tilt is non-zero"},
        BadCase{"change_box_triclinic_dump", "dump d all atom 1 d.txt\nchange_box all triclinic",
                "with dumps defined"},
        BadCase{"change_box_volume_first", "change_box all x volume", "volume must follow"},
        BadCase{"change_box_empty", "change_box all x final 2 1 units box", "empty along x"},
        BadCase{"change_box_unknown", "change_box all shift 1", "unknown change_box operation"},
        BadCase{"change_box_no_op", "change_box all", "needs an operation"},
        BadCase{"change_box_boundary", "change_box all boundary p pf p", "p must be on both faces"}),
    [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

}  // namespace
