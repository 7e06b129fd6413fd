// fix electron/stopping Ecut FILE [region ID] (LAMMPS semantics): every atom of the group with kinetic energy
// E ≥ Ecut feels F −= S_e(E)·v/|v|, S_e linearly interpolated in a table whose rows are "E S_e(type 1) ...
// S_e(type n)" (eV, eV/Å; '#' comments). An atom faster than the table's last energy is an error. The energy
// removed, Σ S_e·|v|·dt (LAMMPS's estimate), is the fix's scalar f_ID and is not returned to the lattice.
#include <cmath>
#include <sstream>

#include "base/root_read.hpp"
#include "base/units.hpp"
#include "io/text_file.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "potentials/potential_path.hpp"

namespace wmd::md {
namespace {

class FixElectronStopping : public Fix {
 public:
  FixElectronStopping(const std::string& id, uint32_t group, double ecut,
                      std::vector<std::vector<double>> table)
      : Fix(id, "electron/stopping", group), ecut_(ecut), table_(std::move(table)) {}

  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {true, 0, -1, true}; }  // energy lost: extensive

  void setup(FixContext& c) override { apply(c, false); }
  void post_force(FixContext& c) override { apply(c, true); }
  bool scalar(double& v) const override {
    v = loss_;
    return true;
  }
  void save_state(FixStateMap& out) const override { out["energy_removed"] = {loss_}; }
  void restore_state(const FixStateMap& in) override {
    // Checked before use: one finite value (the energy removed so far).
    if (const std::vector<double>* e = FixStateReader(in, *this).sized_finite("energy_removed", {1}))
      loss_ = (*e)[0];
  }

 private:
  // Adds the stopping force; tallies the removed energy when `tally` (not at setup, which is not a step).
  void apply(FixContext& c, bool tally) {
    Atoms& a = c.s.atoms;
    const std::vector<double>& e = table_[0];
    const size_t n = e.size();
    TermSum removed(c.comm, 1);  // Σ S_e·|v|·dt of this step
    bool too_fast = false;
    int64_t fast_id = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const double v2 = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
      const double energy = 0.5 * units::mvv2e * c.s.mass[a.type[i]] * v2;
      if (energy < ecut_ || energy < e[0]) continue;
      if (energy > e[n - 1]) {
        too_fast = true, fast_id = a.id[i];
        continue;
      }
      size_t lo = 0, hi = n - 1;
      while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        (e[mid] < energy ? lo : hi) = mid;
      }
      const std::vector<double>& s = table_[a.type[i]];
      const double se = (s[hi] - s[lo]) / (e[hi] - e[lo]) * (energy - e[lo]) + s[lo];
      const double v = std::sqrt(v2);
      const double factor = -se / v;
      a.fx[i] += a.vx[i] * factor, a.fy[i] += a.vy[i] * factor, a.fz[i] += a.vz[i] * factor;
      removed.add(0, se * v * c.s.dt);
    }
    if (c.comm.any(too_fast)) {
      throw RunError("fix electron/stopping " + id_ + ": atom " + std::to_string(fast_id) +
                     " has a kinetic energy above the table's last energy (extend the table)");
    }
    if (tally) loss_ += removed.total()[0];
  }

  double ecut_;
  std::vector<std::vector<double>> table_;  // [0] energies, [type] S_e
  double loss_ = 0.0;
};

}  // namespace

static std::unique_ptr<Fix> make_fix_electron_stopping(const FixArgs& f) {
  const std::string& id = f.id;
  const uint32_t group = f.group;
  io::ArgCursor& a = f.a;
  const FixBuildContext& ctx = f.ctx;
  const double ecut = a.non_negative("Ecut (eV)");
  const std::string file = a.word("the stopping table file");
  const Region* region = nullptr;
  while (!a.done()) {
    const std::string k = a.choice("a fix electron/stopping keyword", {"region", "minneigh"});
    if (k == "region") {
      const std::string rid = a.word("a region ID");
      auto it = ctx.regions.find(rid);
      if (it == ctx.regions.end()) a.fail("unknown region '" + rid + "'");
      region = &it->second;
    } else {
      a.fail("fix electron/stopping keyword 'minneigh' is not supported");
    }
  }
  // LAMMPS reads the table as a potential file: the same search (the name in $LAMMPS_POTENTIALS, ...).
  // Rank 0 finds and reads it (base/root_read.hpp), whole through the bounded reader: a device (/dev/zero has
  // no line end) or a FIFO is refused instead of one line growing without end. Every rank parses that text.
  std::istringstream in(read_on_root("stopping table '" + file + "'", [&] {
    return io::read_plain_file(potentials::find_potential_file(file, a.pos()), "fix electron/stopping table",
                               a.pos(), io::kMaxTextFileBytes);
  }));
  const int ntypes = ctx.s.ntypes;
  std::vector<std::vector<double>> table(ntypes + 1);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<double> row;
    for (std::string w; words >> w;) {
      double v;
      if (!io::parse_double(w, v))
        a.fail(file + ":" + std::to_string(lineno) + ": '" + w + "' is not a number");
      row.push_back(v);
    }
    if (row.empty()) continue;
    if (static_cast<int>(row.size()) != ntypes + 1) {
      a.fail(file + ":" + std::to_string(lineno) + ": expected " + std::to_string(ntypes + 1) +
             " columns (energy and S_e for each of " + std::to_string(ntypes) + " types)");
    }
    if (!table[0].empty() && row[0] <= table[0].back())
      a.fail(file + ":" + std::to_string(lineno) + ": energies must increase");
    for (int t = 0; t <= ntypes; ++t) table[t].push_back(row[t]);
  }
  if (table[0].size() < 2) a.fail("the stopping table '" + file + "' needs at least two rows");
  auto fix = std::make_unique<FixElectronStopping>(id, group, ecut, std::move(table));
  if (region) fix->set_region(*region);
  return fix;
}

WMD_FIX_STYLE("electron/stopping", make_fix_electron_stopping)

}  // namespace wmd::md
