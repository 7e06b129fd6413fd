// fix ttm seed C_e rho_e kappa_e gamma_p gamma_s v_0 Nx Ny Nz [set T] [infile F] [outfile N F]: LAMMPS's
// two-temperature model (EXTRA-FIX, the 29 Sep 2021 form). An electron temperature T_e lives on an Nx×Ny×Nz
// grid of cells over the (periodic, orthogonal) box, and every atom of the group gets, after the forces, a
// Langevin force from the electrons of its cell (the cell whose lower-left corner it lies above):
//   F = −γ·v + √(24 kB T_e γ/dt)·(u − ½)   per component, γ = γ_p, or γ_p + γ_s for |v| > v_0 in the drag,
// with γ_p alone in the noise. At the end of each step the power the Langevin forces put into each cell's
// atoms, P_c = Σ F·v (velocities at the step's end), leaves that cell's electrons, and T_e follows the
// explicit finite-difference heat equation on the periodic grid
//   C_e ρ_e (T_e' − T_e)/δt = κ_e ∇²_h T_e − P_c/V_cell
// in as many equal sub-steps δt as keep the explicit scheme stable (LAMMPS's rule: one when
// 1 − 2δt κ_e Σ 1/h²/(C_e ρ_e) ≥ 0, else ⌊dt/δt_max⌋ + 1 with δt_max = ½ C_e ρ_e/(κ_e Σ 1/h²)).
// f_ID[1] = Σ_c C_e ρ_e V_cell T_e (the electrons' energy), f_ID[2] = Σ_c P_c·dt (the energy the atoms took
// from the electrons on the last step), both extensive.
//
// Numbers as LAMMPS: the noise is one-rank LAMMPS's RanMars(seed) stream in its atom order, drawn in full by
// every rank as fix langevin does (md/styles/fixes/fix_langevin.cpp), so the forces do not depend on the rank
// count; the per-cell powers are one TermSum of Nx·Ny·Nz components (one reduction per step, exact — so
// bit-identical at any rank count — in deterministic mode; on the mesh it is charged as a fabric reduction of
// that many words like every style's sum). Every rank keeps the whole grid and updates it alike (LAMMPS's fix
// ttm; `ttm/grid`, LAMMPS's distributed-grid form with the same physics, is the same code here).
//
// State: the grid, the last step's powers, the random stream and the last Langevin force of every group atom
// (re-applied at the next run's set-up, LAMMPS's post_force_setup) go into checkpoints (a continued run is
// bit-identical) and into write_restart files, from which a fix of the same ID defined after read_restart
// takes the grid and forces back and, as LAMMPS, starts a new stream from seed + 1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "base/memory_budget.hpp"
#include "base/root_read.hpp"
#include "base/units.hpp"
#include "io/command.hpp"
#include "io/text_file.hpp"
#include "md/core/random_mars.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/fix_state_reader.hpp"
#include "md/styles/fixes/one_rank_order.hpp"
#include "potentials/potential_path.hpp"

namespace wmd::md {
namespace {

struct TtmParams {
  int seed = 1;
  double ce = 0.0, rho = 0.0, kappa = 0.0, gamma_p = 0.0, gamma_s = 0.0, v0 = 0.0;
  int n[3] = {1, 1, 1};
  double tinit = 0.0;
  std::string infile, outfile;
  int64_t out_every = 0;
  SourcePos at;
};

// A group atom as every rank sees it when the places are gathered (trivially copyable for allgather).
class FixTtm : public Fix {
 public:
  FixTtm(const FixArgs& f, TtmParams p, std::vector<double> te)
      : Fix(f.id, f.style, f.group), p_(std::move(p)), rng_(p_.seed), te_(std::move(te)), state_(&f.ctx.s) {
    transfer_.assign(te_.size(), 0.0);
  }

  bool reads_energy() const override { return false; }
  OutputShape shape() const override { return {false, 2, -1, true}; }
  bool keeps_restart_state() const override { return true; }  // LAMMPS's restart_global and restart_peratom

  void init(FixContext& c) override {
    for (int d = 0; d < 3; ++d)
      if (!c.s.box.periodic(d))
        fail_input(p_.at, "fix " + style_ + ": the box must be periodic in x, y and z");
    // LAMMPS 29 Sep 2021 refuses it at the run's init: its grid cells are the box's orthogonal slabs.
    if (c.s.box.triclinic)
      fail_input(p_.at, "fix " + style_ +
                            ": the box is triclinic (LAMMPS: \"Cannot use fix ttm with triclinic box\")");
  }

  // LAMMPS's post_force_setup: the forces of the last step of the previous run (zero at the first), by atom.
  void setup(FixContext& c) override {
    state_ = &c.s;
    const Atoms& a = c.s.atoms;
    std::vector<double> mine;
    for (size_t k = 0; k < fl_id_.size(); ++k)
      mine.insert(mine.end(), {static_cast<double>(fl_id_[k]), fl_[3 * k], fl_[3 * k + 1], fl_[3 * k + 2]});
    const std::vector<double> all = c.comm.allgather(mine);
    std::unordered_map<int64_t, size_t> at;
    for (size_t k = 0; k + 3 < all.size(); k += 4) at[static_cast<int64_t>(all[k])] = k;
    fl_.assign(3 * a.size(), 0.0), fl_id_.assign(a.id.begin(), a.id.end());
    for (size_t i = 0; i < a.size(); ++i) {
      if (!selected(c.s, i)) continue;
      const auto it = at.find(a.id[i]);
      if (it == at.end()) continue;
      for (int d = 0; d < 3; ++d) fl_[3 * i + d] = all[it->second + 1 + d];
    }
    Atoms& w = c.s.atoms;
    for (size_t i = 0; i < w.size(); ++i)
      if (selected(c.s, i)) w.fx[i] += fl_[3 * i], w.fy[i] += fl_[3 * i + 1], w.fz[i] += fl_[3 * i + 2];
    gather_places(c);
  }

  void post_force(FixContext& c) override {
    Atoms& a = c.s.atoms;
    const size_t n = a.size();
    if (!places_current(c)) gather_places(c);
    draws_.resize(3 * places_.size());
    rng_.uniforms(draws_.data(), draws_.size());
    // LAMMPS's gfactor1, gfactor2 at the current timestep (its init and reset_dt).
    const double g1 = -p_.gamma_p / units::ftm2v;
    const double g2 = std::sqrt(24.0 * units::boltz * p_.gamma_p / c.s.dt / units::mvv2e) / units::ftm2v;
    const double boost = (p_.gamma_p + p_.gamma_s) / p_.gamma_p, v0sq = p_.v0 * p_.v0;
    fl_.assign(3 * n, 0.0), fl_id_.assign(a.id.begin(), a.id.end());
    for (size_t i = 0; i < n; ++i) {
      if (!selected(c.s, i)) continue;
      const double t = te_[cell_of(c.s.box, a.x[i], a.y[i], a.z[i])];
      if (t < 0.0)
        throw RunError("fix " + style_ + " " + id_ + ": electronic temperature dropped below zero");
      const double vsq = a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i];
      const double gamma1 = vsq > v0sq ? g1 * boost : g1;
      const double gamma2 = g2 * std::sqrt(t);
      const double* u = &draws_[3 * static_cast<size_t>(places_.slot(a.id[i]))];
      double* f = &fl_[3 * i];
      f[0] = gamma1 * a.vx[i] + gamma2 * (u[0] - 0.5);
      f[1] = gamma1 * a.vy[i] + gamma2 * (u[1] - 0.5);
      f[2] = gamma1 * a.vz[i] + gamma2 * (u[2] - 0.5);
      a.fx[i] += f[0], a.fy[i] += f[1], a.fz[i] += f[2];
    }
  }

  void end_of_step(FixContext& c) override {
    const Atoms& a = c.s.atoms;
    const Box& b = c.s.box;
    const int ncell = static_cast<int>(te_.size());
    TermSum power(c.comm, ncell);
    for (size_t i = 0; i < a.size() && 3 * i < fl_.size(); ++i)
      if (selected(c.s, i))
        power.add(cell_of(b, a.x[i], a.y[i], a.z[i]),
                  fl_[3 * i] * a.vx[i] + fl_[3 * i + 1] * a.vy[i] + fl_[3 * i + 2] * a.vz[i]);
    transfer_ = power.total();
    diffuse(b, c.s.dt);
    if (!p_.outfile.empty() && c.s.step % p_.out_every == 0 && c.comm.root()) write_grid(c.s.step);
  }

  double vector_value(int i) const override {
    if (!state_) return 0.0;
    const Box& b = state_->box;
    const double vol = b.prd(0) / p_.n[0] * (b.prd(1) / p_.n[1]) * (b.prd(2) / p_.n[2]);
    double e = 0.0, t = 0.0;
    for (size_t k = 0; k < te_.size(); ++k)
      e += te_[k] * p_.ce * p_.rho * vol, t += transfer_[k] * state_->dt;
    return i == 0 ? e : i == 1 ? t : 0.0;
  }

  void save_state(FixStateMap& out) const override {
    out["grid"] = {static_cast<double>(p_.n[0]), static_cast<double>(p_.n[1]), static_cast<double>(p_.n[2]),
                   static_cast<double>(p_.seed)};
    out["temperature"] = te_;
    out["transfer"] = transfer_;
    out["random"] = rng_.state();
    std::vector<double>& fl = out["langevin"];
    fl.clear();
    for (size_t k = 0; k < fl_id_.size() && 3 * k + 2 < fl_.size(); ++k)
      fl.insert(fl.end(), {static_cast<double>(fl_id_[k]), fl_[3 * k], fl_[3 * k + 1], fl_[3 * k + 2]});
  }
  // A checkpoint continues the interrupted run: the stream goes on where it stood.
  void restore_state(const FixStateMap& in) override {
    // The generator's state must be one it could have written (finite, indices in 1..97).
    const FixStateReader r(in, *this);
    RandomMars rng = rng_;
    if (const std::vector<double>* rs = r.sized_finite("random", {RandomMars::kStateSize})) {
      r.integer(*rs, 97, "random", 1, 97), r.integer(*rs, 98, "random", 1, 97);
      if (!rng.set_state(*rs)) r.fail("random", "is not a RanMars state");
    }
    const std::vector<double>* t = r.sized_finite("transfer", {transfer_.size()});
    check_grid(r);
    restore_grid(in);
    rng_ = rng;
    if (t) transfer_ = *t;
  }
  // LAMMPS's FixTTM::restart: the grid and the per-atom forces come back, the stream restarts from the
  // saved seed + 1 ("to avoid same Langevin factors"); the powers start at zero.
  void restore_restart_state(const FixStateMap& in) override {
    const FixStateReader r(in, *this);
    check_grid(r);
    restore_grid(in);
    const auto g = in.find("grid");
    if (g != in.end()) rng_ = RandomMars(static_cast<int>(g->second[3]) + 1);
  }

 private:
  // Checked before use (issue 46): the grid is 3 integer sizes and a seed in 1..900000000 (the fix's own
  // range); the electron temperatures one finite non-negative value per cell of this fix's grid; the
  // Langevin forces whole finite (id, fx, fy, fz) records with distinct positive integer ids.
  void check_grid(const FixStateReader& r) const {
    if (const std::vector<double>* g = r.sized("grid", {4})) {
      int n[3];
      for (int d = 0; d < 3; ++d) n[d] = static_cast<int>(r.integer(*g, d, "grid", 1, 1 << 30));
      r.integer(*g, 3, "grid", 1, 900000000);
      if (n[0] != p_.n[0] || n[1] != p_.n[1] || n[2] != p_.n[2])
        fail_input(p_.at, "fix " + style_ + " " + id_ + ": must restart with the same grid size (saved " +
                              std::to_string(n[0]) + " " + std::to_string(n[1]) + " " + std::to_string(n[2]) +
                              ")");
    }
    if (const std::vector<double>* t = r.sized_finite("temperature", {te_.size()}))
      for (size_t k = 0; k < t->size(); ++k) r.at_least(*t, k, "temperature", 0.0);
    r.id_records("langevin", 4, true);
  }
  // Assigns what check_grid passed.
  void restore_grid(const FixStateMap& in) {
    const auto t = in.find("temperature");
    if (t != in.end()) te_ = t->second;
    const auto f = in.find("langevin");
    if (f != in.end()) {
      fl_.clear(), fl_id_.clear();
      for (size_t k = 0; k + 3 < f->second.size(); k += 4) {
        fl_id_.push_back(static_cast<int64_t>(f->second[k]));
        fl_.insert(fl_.end(), {f->second[k + 1], f->second[k + 2], f->second[k + 3]});
      }
    }
  }

  // The cell of a point: LAMMPS's lower-left grid point, with its offset so that points slightly below the
  // box (between re-neighbourings) round down, and periodic wrap-around.
  int cell_of(const Box& b, double x, double y, double z) const {
    constexpr int kOffset = 16384;
    const double r[3] = {x, y, z};
    int k[3];
    for (int d = 0; d < 3; ++d) {
      const double inv = p_.n[d] / b.prd(d);
      k[d] = static_cast<int>((r[d] - b.lo[d]) * inv + kOffset) - kOffset;
      if (k[d] < 0) k[d] += p_.n[d];
      if (k[d] >= p_.n[d]) k[d] -= p_.n[d];
    }
    return (k[2] * p_.n[1] + k[1]) * p_.n[0] + k[0];
  }

  // LAMMPS's explicit solve of one MD step, sub-steps and arithmetic order included.
  void diffuse(const Box& b, double dt) {
    const int nx = p_.n[0], ny = p_.n[1], nz = p_.n[2];
    const double dx = b.prd(0) / nx, dy = b.prd(1) / ny, dz = b.prd(2) / nz;
    const double vol = dx * dy * dz;
    const double cr = p_.ce * p_.rho;
    const double sum_inv = 1.0 / dx / dx + 1.0 / dy / dy + 1.0 / dz / dz;
    int inner = 1;
    double idt = dt;
    if (1.0 - 2.0 * idt / cr * (p_.kappa * sum_inv) < 0.0) {
      idt = 0.5 * cr / (p_.kappa * sum_inv);
      inner = static_cast<int>(dt / idt) + 1;
      idt = dt / static_cast<double>(inner);
    }
    old_.resize(te_.size());
    for (int s = 0; s < inner; ++s) {
      old_.swap(te_);
      for (int iz = 0; iz < nz; ++iz) {
        const int zr = iz + 1 == nz ? 0 : iz + 1, zl = iz == 0 ? nz - 1 : iz - 1;
        for (int iy = 0; iy < ny; ++iy) {
          const int yr = iy + 1 == ny ? 0 : iy + 1, yl = iy == 0 ? ny - 1 : iy - 1;
          for (int ix = 0; ix < nx; ++ix) {
            const int xr = ix + 1 == nx ? 0 : ix + 1, xl = ix == 0 ? nx - 1 : ix - 1;
            auto at = [&](int x, int y, int z) { return old_[(static_cast<size_t>(z) * ny + y) * nx + x]; };
            const double c = at(ix, iy, iz);
            const size_t k = (static_cast<size_t>(iz) * ny + iy) * nx + ix;
            te_[k] = c + idt / cr *
                             (p_.kappa * ((at(xr, iy, iz) + at(xl, iy, iz) - 2.0 * c) / dx / dx +
                                          (at(ix, yr, iz) + at(ix, yl, iz) - 2.0 * c) / dy / dy +
                                          (at(ix, iy, zr) + at(ix, iy, zl) - 2.0 * c) / dz / dz) -
                              transfer_[k] / vol);
          }
        }
      }
    }
  }

  // The outfile FILE.STEP, in the infile's format (LAMMPS's write_electron_temperatures).
  void write_grid(int64_t step) const {
    const std::string name = p_.outfile + "." + std::to_string(step);
    std::FILE* fp = std::fopen(name.c_str(), "w");
    if (!fp) throw RunError("fix " + style_ + " " + id_ + ": cannot open output file '" + name + "'");
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
    std::fprintf(fp,
                 "# DATE: %s UNITS: metal COMMENT: Electron temperature on %dx%dx%d grid at step %lld - "
                 "created by fix %s\n",
                 date, p_.n[0], p_.n[1], p_.n[2], static_cast<long long>(step), style_.c_str());
    for (int iz = 0; iz < p_.n[2]; ++iz)
      for (int iy = 0; iy < p_.n[1]; ++iy)
        for (int ix = 0; ix < p_.n[0]; ++ix)
          std::fprintf(fp, "%d %d %d %20.16g\n", ix, iy, iz,
                       te_[(static_cast<size_t>(iz) * p_.n[1] + iy) * p_.n[0] + ix]);
    if (std::fclose(fp) != 0) throw RunError("fix " + style_ + " " + id_ + ": cannot write '" + name + "'");
  }

  // Every rank's copy of the group's atoms in one-rank LAMMPS's order (the random stream's order).
  void gather_places(FixContext& c) {
    places_.gather(c.s.atoms, c.comm, [&](size_t i) { return selected(c.s, i); });
  }
  bool places_current(FixContext& c) const {
    return places_.current(c.s.atoms, c.comm, [&](size_t i) { return selected(c.s, i); });
  }

  TtmParams p_;
  RandomMars rng_;
  std::vector<double> te_, old_, transfer_;  // per cell: T_e (K), Σ F·v of the last step (eV/ps)
  std::vector<double> fl_;                   // the last Langevin force of each local atom (3 per atom)
  std::vector<int64_t> fl_id_;               // the atoms fl_ belongs to
  OneRankOrder places_;                      // the group's atoms in one-rank LAMMPS's order
  std::vector<double> draws_;
  const State* state_ = nullptr;
};

// LAMMPS's read_electron_temperatures: comment (#) and blank lines skipped, then Nx·Ny·Nz lines
// "ix iy iz T" (indices from 0, any order); an optional "UNITS:" tag on the first line must say metal.
std::vector<double> read_grid(io::ArgCursor& a, const TtmParams& p) {
  // Rank 0 finds and reads it (base/root_read.hpp), whole through the bounded reader: a device (/dev/zero has
  // no line end) or a FIFO is refused instead of one line growing without end. Every rank parses that text.
  std::istringstream in(read_on_root("fix ttm infile '" + p.infile + "'", [&] {
    const std::string path = potentials::find_potential_file(p.infile, a.pos());
    return io::read_plain_file(path, "fix ttm infile", a.pos(), io::kMaxTextFileBytes);
  }));
  const int64_t ncell = static_cast<int64_t>(p.n[0]) * p.n[1] * p.n[2];
  std::vector<double> te(ncell, 0.0);
  std::vector<char> set(ncell, 0);
  std::string line;
  int lineno = 0;
  int64_t nread = 0;
  while (nread < ncell && std::getline(in, line)) {
    ++lineno;
    const std::string where = p.infile + ":" + std::to_string(lineno) + ": ";
    const auto hash = line.find('#');
    if (lineno == 1 && hash != std::string::npos) {
      const auto u = line.find("UNITS:", hash);
      if (u != std::string::npos) {
        std::istringstream w(line.substr(u + 6));
        std::string units;
        w >> units;
        if (units != "metal") a.fail(where + "the file's units are '" + units + "', the script's metal");
      }
    }
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    if (w.size() < 4) a.fail(where + "expected 4 columns: ix iy iz T_e");
    long long idx[3];
    for (int d = 0; d < 3; ++d) {
      double v;
      if (!io::parse_double(w[d], v) || v != std::floor(v))
        a.fail(where + "'" + w[d] + "' is not a grid index");
      if (v < 0 || v >= p.n[d])
        a.fail(where + "grid index " + w[d] + " is outside 0.." + std::to_string(p.n[d] - 1));
      idx[d] = static_cast<long long>(v);
    }
    double t;
    if (!io::parse_double(w[3], t)) a.fail(where + "'" + w[3] + "' is not a temperature");
    if (t < 0.0) a.fail(where + "electron temperatures must be >= 0");
    const size_t k = static_cast<size_t>((idx[2] * p.n[1] + idx[1]) * p.n[0] + idx[0]);
    te[k] = t, set[k] = 1;
    ++nread;
  }
  if (nread < ncell)
    a.fail("fix ttm infile '" + p.infile + "' ends after " + std::to_string(nread) + " of the " +
           std::to_string(ncell) + " grid points");
  if (std::count(set.begin(), set.end(), 0) > 0)
    a.fail("fix ttm infile '" + p.infile + "' did not set all temperatures (a grid point repeats)");
  return te;
}

std::unique_ptr<Fix> make(const FixArgs& f) {
  io::ArgCursor& a = f.a;
  TtmParams p;
  p.at = a.pos();
  p.seed = static_cast<int>(a.integer("the random seed", 1, 900000000));
  p.ce = a.positive("C_e (eV/K/electron)");
  p.rho = a.positive("rho_e (electrons/Å³)");
  p.kappa = a.non_negative("kappa_e (eV/ps/Å/K)");
  p.gamma_p = a.positive("gamma_p (amu/ps)");
  p.gamma_s = a.non_negative("gamma_s (amu/ps)");
  p.v0 = a.non_negative("v_0 (Å/ps)");
  const char* names[3] = {"Nx (grid points)", "Ny (grid points)", "Nz (grid points)"};
  for (int d = 0; d < 3; ++d) p.n[d] = static_cast<int>(a.integer(names[d], 1, 2147483647));
  if (static_cast<int64_t>(p.n[0]) * p.n[1] * p.n[2] > 2147483647) a.fail("too many grid points in fix ttm");
  // The grid is sized from input: T_e, its previous step and the energy transfer per cell (three doubles),
  // and an infile's flags; the budget is asked before anything is allocated.
  const double ncell = static_cast<double>(p.n[0]) * p.n[1] * p.n[2];
  memory::check_allocation("fix ttm with " + std::to_string(static_cast<int64_t>(ncell)) + " grid points",
                           25.0 * ncell, a.pos());
  while (!a.done()) {
    const std::string k = a.choice("a fix ttm keyword", {"set", "infile", "outfile"});
    if (k == "set") {
      p.tinit = a.positive("set Tinit (K)");
    } else if (k == "infile") {
      p.infile = a.word("the infile name");
    } else {
      p.out_every = a.integer("outfile Nout (steps)", 1, INT64_MAX);
      p.outfile = a.word("the outfile name");
    }
  }
  // As LAMMPS: the grid starts at Tinit (0 without set), then the infile's values replace it.
  std::vector<double> te(static_cast<size_t>(p.n[0]) * p.n[1] * p.n[2], p.tinit);
  if (!p.infile.empty()) te = read_grid(a, p);
  return std::make_unique<FixTtm>(f, std::move(p), std::move(te));
}

}  // namespace

WMD_FIX_STYLE("ttm", make)
WMD_FIX_STYLE("ttm/grid", make)

}  // namespace wmd::md
