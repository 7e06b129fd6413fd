// compute ID group voronoi/atom [keywords]: LAMMPS's compute voronoi/atom (VORONOI package, voro++), in two
// forms.
//
// Without `occupation`: each group atom's Voronoi cell, every step it is invoked — a per-atom array of its
// volume (Å³) and number of faces (3 columns with `surface`: the area its cell shares with atoms of a group,
// or its whole surface with `surface all`). One-rank LAMMPS tessellates in a voro++ container without
// periodicity: the box, widened by the ghost cutoff (pair cutoff + skin, or comm_modify cutoff when
// larger) + 0.01 Å along periodic directions,
// holding the atoms and the periodic images within the ghost cutoff of the box. A cell is that container
// box cut by the bisector planes of the other points (md/styles/computes/voronoi_cell.hpp, voro++'s cutting
// and tolerance): in a dense solid only the neighbours matter, next to a free surface the cell reaches the
// box face (a non-periodic direction) or the container wall (a periodic one with vacuum) as in lmp. We give
// one-rank lmp's cells at any rank count: every rank gathers the atoms and builds the images (O(N) memory
// per rank at the steps it is invoked), and cuts each of its atoms' cells by the points within a search
// radius sorted by distance, the radius grown until it exceeds twice the cell's farthest vertex (no point
// beyond can cut it). Keywords as LAMMPS 2021: `only_group` (only the group's atoms are points), `radius
// v_name` (an atom-style variable: the radical tessellation), `surface ID|all`, `face_threshold A` (faces of
// area <= A not counted), `edge_histo N` (global vector of N+1: faces by edge count, the last bin N+1 edges
// or more), `edge_threshold L` (edges <= L not counted there), `neighbors yes` (local array: atom ID, the
// neighbour's ID or 0 for a wall, the face's area, for faces above the threshold), `peratom no`.
// Differences from lmp: the local rows are ordered by atom and then neighbour ID (lmp: voro++'s internal
// order); an atom that gets no cell (outside the container, or a vanished radical cell) keeps its previous
// values by ID (lmp: by local index, the same at one rank between sorts); images are chosen from the present
// positions (lmp: those at the last re-neighbouring, which matters only for a cell reaching the ghost
// cutoff's edge); edge_histo together with face_threshold (without edge_threshold) is refused: lmp 2021 then
// histograms the first n faces in voro++'s internal order. A triclinic box: the images lie along the edge
// vectors within the ghost cutoff in fractional units, and the container is LAMMPS's embedding of the tilted
// box (the fractional box widened by that cutoff + 0.01, its two corners taken to box coordinates).
//
// With `occupation [only_group]`: Wigner–Seitz occupation against the atoms' positions at the compute's
// first invocation, as LAMMPS compute voronoi/atom occupation (a per-atom array of 2 columns).
// The reference positions are the sites, each site's Voronoi cell the points nearer to it than to any other
// site (minimum image); column 1 is the number of atoms now in the cell of the site that has the atom's own
// id (0 for an id newer than the reference, so vacancies read 0), column 2 the number of atoms now in the
// cell the atom is in (2 or more: an interstitial shares it). With `only_group` only the group's atoms are
// sites; every atom is counted.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "md/cascade/wigner_seitz.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/computes/voronoi_cell.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {
namespace {

class ComputeVoronoiAtom : public Compute {
 public:
  ComputeVoronoiAtom(const ComputeArgs& c, bool only_group)
      : Compute(c.id, c.style, c.group), only_group_(only_group) {}
  OutputShape shape() const override { return {false, 0, 2, false}; }

  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    const Atoms& a = c.s.atoms;
    if (!taken_) take_reference(c);
    for (int d = 0; d < 3; ++d)
      ref_box_.face[d][0] = c.s.box.face[d][0], ref_box_.face[d][1] = c.s.box.face[d][1];
    std::vector<double> pos(3 * a.size());
    for (size_t i = 0; i < a.size(); ++i)
      pos[3 * i] = a.x[i], pos[3 * i + 1] = a.y[i], pos[3 * i + 2] = a.z[i];
    const std::vector<int> cell = nearest_sites(ref_box_, sites_, pos);
    // Every site's count over all ranks: one global sum of a value per site.
    std::vector<int64_t> occ(site_id_.size(), 0);
    for (const int k : cell)
      if (k >= 0) ++occ[k];
    if (!occ.empty()) c.comm.sum(occ.data(), static_cast<int>(occ.size()));
    peratom_.assign(2 * a.size(), 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
      const auto it = std::lower_bound(site_id_.begin(), site_id_.end(), a.id[i]);
      if (it != site_id_.end() && *it == a.id[i])
        peratom_[2 * i] = static_cast<double>(occ[it - site_id_.begin()]);
      if (cell[i] >= 0) peratom_[2 * i + 1] = static_cast<double>(occ[cell[i]]);
    }
  }

  void save_state(NamedArrays& out) const override {
    if (!taken_) return;
    std::vector<double>& v = out["sites"];
    v.clear();
    for (size_t k = 0; k < site_id_.size(); ++k)
      v.insert(v.end(),
               {static_cast<double>(site_id_[k]), sites_[3 * k], sites_[3 * k + 1], sites_[3 * k + 2]});
    out["box"] = {ref_box_.lo[0], ref_box_.lo[1], ref_box_.lo[2],
                  ref_box_.hi[0], ref_box_.hi[1], ref_box_.hi[2]};
    out["tilt"] = {ref_box_.xy, ref_box_.xz, ref_box_.yz, ref_box_.triclinic ? 1.0 : 0.0};
  }
  void restore_state(const NamedArrays& in) override {
    // Checked before use (issue 46): whole finite (id, x, y, z) site records in ascending id order (the
    // lookup bisects them), a finite reference box with lo < hi, a finite tilt and a triclinic flag.
    const FixStateReader r(in, *this);
    const std::vector<double>* s = r.id_records("sites", 4, true);
    const std::vector<double>* b = r.sized_finite("box", {6});
    if (!s || !b) return;
    for (size_t k = 4; k < s->size(); k += 4)
      if (!((*s)[k] > (*s)[k - 4])) r.fail("sites", "value " + std::to_string(k) + " is out of id order");
    for (int d = 0; d < 3; ++d)
      if (!((*b)[d] < (*b)[3 + d])) r.fail("box", "value " + std::to_string(d) + " is not below its hi");
    const std::vector<double>* t = r.sized_finite("tilt", {4});  // absent before triclinic boxes
    if (t) r.integer(*t, 3, "tilt", 0, 1);
    site_id_.clear(), sites_.clear();
    for (size_t k = 0; k + 3 < s->size(); k += 4) {
      site_id_.push_back(static_cast<int64_t>((*s)[k]));
      sites_.insert(sites_.end(), {(*s)[k + 1], (*s)[k + 2], (*s)[k + 3]});
    }
    for (int d = 0; d < 3; ++d) ref_box_.lo[d] = (*b)[d], ref_box_.hi[d] = (*b)[3 + d];
    if (t)
      ref_box_.xy = (*t)[0], ref_box_.xz = (*t)[1], ref_box_.yz = (*t)[2],
      ref_box_.triclinic = (*t)[3] != 0.0;
    taken_ = true;
  }

 private:
  // The sites: every rank keeps all of them, ordered by atom id (so the same on any rank count), and the box
  // of that moment (LAMMPS builds its Voronoi container once, at the first invocation).
  void take_reference(const ComputeContext& c) {
    const Atoms& a = c.s.atoms;
    struct Site {
      int64_t id;
      double x, y, z;
    };
    std::vector<Site> mine;
    for (size_t i = 0; i < a.size(); ++i)
      if (!only_group_ || in_group(a, i)) mine.push_back({a.id[i], a.x[i], a.y[i], a.z[i]});
    std::vector<Site> all = c.comm.allgather(mine);
    std::sort(all.begin(), all.end(), [](const Site& p, const Site& q) { return p.id < q.id; });
    site_id_.clear(), sites_.clear();
    for (const Site& p : all) site_id_.push_back(p.id), sites_.insert(sites_.end(), {p.x, p.y, p.z});
    ref_box_ = c.s.box;
    taken_ = true;
  }

  bool only_group_;
  bool taken_ = false;
  Box ref_box_;
  std::vector<int64_t> site_id_;
  std::vector<double> sites_;
};

struct TessellationSettings {
  bool only_group = false, peratom = true, neighbors = false;
  std::string radius;   // atom-style variable name (empty: no radii)
  SourcePos radius_at;  // where it was named
  int surface = 0;      // 0: none, 1: all, 2: a group
  uint32_t surface_bit = 0;
  int maxedge = 0;
  double fthresh = 0.0, ethresh = 0.0;
};

class ComputeVoronoiCells : public Compute {
 public:
  ComputeVoronoiCells(const ComputeArgs& c, const TessellationSettings& t)
      : Compute(c.id, c.style, c.group), t_(t) {}
  OutputShape shape() const override {
    OutputShape o;
    o.peratom_cols = t_.peratom ? (t_.surface ? 3 : 2) : -1;
    o.vector = t_.maxedge > 0 ? t_.maxedge + 1 : 0;
    o.extensive = true;  // counts of faces (lmp leaves extvector unset; thermo_modify norm is off in metal)
    o.local_cols = t_.neighbors ? 3 : -1;
    return o;
  }

  void compute_peratom(const ComputeContext& c) override {
    invoked_peratom = c.s.step;
    tessellate(c);
  }
  void compute_vector(const ComputeContext& c) override {
    invoked_vector = c.s.step;
    if (invoked_peratom < invoked_vector) compute_peratom(c);
    // Counts of faces: an exact integer sum, the same at any rank count.
    std::vector<int64_t> counts(edge_.begin(), edge_.end());
    if (!counts.empty()) c.comm.sum(counts.data(), static_cast<int>(counts.size()));
    vector_.assign(counts.begin(), counts.end());
  }
  void compute_local(const ComputeContext& c) override {
    invoked_local = c.s.step;
    if (invoked_peratom < invoked_local) compute_peratom(c);
    local_ = faces_;
  }

 private:
  struct Raw {
    double x[3];
    double radius;
    int64_t id;
    uint32_t mask;
  };
  struct Site {
    double x[3];
    double radius;
    int64_t id;
    uint32_t mask;
    bool self;  // the atom at its own position (not a periodic image)
  };

  // One-rank LAMMPS's points: every atom (of the group with only_group) and its periodic images within the
  // ghost cutoff of the box; the container: the box, widened by cutoff + 0.01 along periodic directions.
  void gather(const ComputeContext& c) {
    const Atoms& a = c.s.atoms;
    const Box& b = c.s.box;
    std::vector<double>& radius = local_radius_;
    radius.clear();
    if (!t_.radius.empty()) {
      if (!c.styles || !c.styles->has_atom_variable(t_.radius))
        fail_input(t_.radius_at, "compute voronoi/atom: variable " + t_.radius +
                                     " does not exist or is not atom-style (LAMMPS: \"Variable for voronoi "
                                     "radius is not atom style\")");
      c.styles->atom_variable(t_.radius, t_.radius_at, radius);
    }
    std::vector<Raw> mine;
    for (size_t i = 0; i < a.size(); ++i) {
      if (t_.only_group && !in_group(a, i)) continue;
      mine.push_back({{a.x[i], a.y[i], a.z[i]}, radius.empty() ? 0.0 : radius[i], a.id[i], a.mask[i]});
    }
    const std::vector<Raw> all = c.comm.allgather(mine);
    const double cut = c.styles ? c.styles->ghost_cutoff() : 0.0;
    int reach[3];
    double lcut[3] = {0.0, 0.0, 0.0};  // a triclinic box's ghost cutoff in fractional units
    if (b.triclinic) {
      // LAMMPS embeds the tilted box in an orthogonal voro++ container: the fractional box widened by the
      // ghost cutoff + 0.01 along periodic directions, its lower and upper corners taken to box coordinates.
      double llo[3], lhi[3];
      for (int d = 0; d < 3; ++d) {
        const bool p = b.periodic(d);
        lcut[d] = p ? cut / b.plane_spacing(d) : 0.0;
        llo[d] = p ? -lcut[d] - 0.01 : 0.0, lhi[d] = p ? 1.0 + lcut[d] + 0.01 : 1.0;
        reach[d] = p ? static_cast<int>(std::ceil(lcut[d])) + 1 : 0;
      }
      b.from_lamda(llo, clo_);
      b.from_lamda(lhi, chi_);
    }
    for (int d = 0; d < 3 && !b.triclinic; ++d) {
      const bool p = b.periodic(d);
      clo_[d] = p ? b.lo[d] - cut - 0.01 : b.lo[d];
      chi_[d] = p ? b.hi[d] + cut + 0.01 : b.hi[d];
      reach[d] = p ? static_cast<int>(std::ceil(cut / b.prd(d))) + 1 : 0;
    }
    sites_.clear();
    max_radius_ = 0.0;
    for (const Raw& r : all) {
      max_radius_ = std::max(max_radius_, std::fabs(r.radius));
      double l[3] = {0.0, 0.0, 0.0};
      if (b.triclinic) b.to_lamda(r.x, l);
      for (int sx = -reach[0]; sx <= reach[0]; ++sx)
        for (int sy = -reach[1]; sy <= reach[1]; ++sy)
          for (int sz = -reach[2]; sz <= reach[2]; ++sz) {
            const int s[3] = {sx, sy, sz};
            Site p{{0, 0, 0}, r.radius, r.id, r.mask, sx == 0 && sy == 0 && sz == 0};
            bool inside = true;
            if (b.triclinic) {
              // The ghosts: images along the edge vectors within the fractional ghost cutoff of the box.
              b.unwrap(r.x, sx, sy, sz, p.x);
              for (int d = 0; d < 3; ++d)
                if (s[d] != 0 && (l[d] + s[d] < -lcut[d] || l[d] + s[d] > 1.0 + lcut[d])) inside = false;
            }
            for (int d = 0; d < 3 && !b.triclinic; ++d) {
              p.x[d] = s[d] == 0 ? r.x[d] : r.x[d] + s[d] * b.prd(d);
              if (s[d] != 0 && (p.x[d] < b.lo[d] - cut || p.x[d] > b.hi[d] + cut)) inside = false;
            }
            if (inside && in_container(p.x)) sites_.push_back(p);
          }
    }
    // Bins of about the mean spacing over the container.
    const double vol = (chi_[0] - clo_[0]) * (chi_[1] - clo_[1]) * (chi_[2] - clo_[2]);
    spacing_ = sites_.empty() ? 1.0 : std::cbrt(vol / static_cast<double>(sites_.size()));
    for (int d = 0; d < 3; ++d) {
      nbin_[d] = std::max(1, std::min(200, static_cast<int>((chi_[d] - clo_[d]) / spacing_)));
      width_[d] = (chi_[d] - clo_[d]) / nbin_[d];
    }
    head_.assign(static_cast<size_t>(nbin_[0]) * nbin_[1] * nbin_[2], -1);
    next_.assign(sites_.size(), -1);
    for (size_t k = sites_.size(); k-- > 0;) {  // each bin lists its sites in gathered order
      const size_t bin = bin_of(sites_[k].x);
      next_[k] = head_[bin];
      head_[bin] = static_cast<int32_t>(k);
    }
  }

  // voro++'s put(): a point outside a non-periodic container (an atom that crossed a shrink-wrapped face
  // since the box was last fitted to the atoms) is left out of the tessellation.
  bool in_container(const double* x) const {
    for (int d = 0; d < 3; ++d)
      if (x[d] < clo_[d] || x[d] >= chi_[d]) return false;
    return true;
  }

  int bin_coord(double x, int d) const {
    const int k = static_cast<int>(std::floor((x - clo_[d]) / width_[d]));
    return k < 0 ? 0 : k >= nbin_[d] ? nbin_[d] - 1 : k;
  }
  size_t bin_of(const double* x) const {
    return (static_cast<size_t>(bin_coord(x[0], 0)) * nbin_[1] + bin_coord(x[1], 1)) * nbin_[2] +
           bin_coord(x[2], 2);
  }

  // The radius a point must lie within to cut a cell whose farthest vertex is at √rmax_sq from its atom (of
  // radius ri): the bisector of a point at |d| lies at |d|/2; the radical plane no nearer than
  // (|d|² + ri² − R²)/(2|d|), R the largest radius.
  double reach_needed(double rmax_sq, double ri) const {
    const double rmax = std::sqrt(rmax_sq);
    if (t_.radius.empty()) return 2.0 * rmax;
    return rmax + std::sqrt(std::max(0.0, rmax_sq + max_radius_ * max_radius_ - ri * ri));
  }

  // The cell of local atom i: the container box cut by the points within R, R grown until it is enough.
  bool build_cell(const ComputeContext& c, size_t i, double ri, VoronoiCell& cell) {
    const Atoms& a = c.s.atoms;
    const double xi[3] = {a.x[i], a.y[i], a.z[i]};
    double lo[3], hi[3];
    for (int d = 0; d < 3; ++d) lo[d] = clo_[d] - xi[d], hi[d] = chi_[d] - xi[d];
    double span = 0.0;
    for (int d = 0; d < 3; ++d) span += (chi_[d] - clo_[d]) * (chi_[d] - clo_[d]);
    span = std::sqrt(span);
    double R = 2.5 * spacing_;
    while (true) {
      cell.init_box(lo, hi);
      cand_.clear();
      int b0[3], b1[3];
      for (int d = 0; d < 3; ++d) b0[d] = bin_coord(xi[d] - R, d), b1[d] = bin_coord(xi[d] + R, d);
      const double r2 = R * R;
      for (int bx = b0[0]; bx <= b1[0]; ++bx)
        for (int by = b0[1]; by <= b1[1]; ++by)
          for (int bz = b0[2]; bz <= b1[2]; ++bz)
            for (int32_t k = head_[(static_cast<size_t>(bx) * nbin_[1] + by) * nbin_[2] + bz]; k >= 0;
                 k = next_[k]) {
              const Site& p = sites_[k];
              if (p.self && p.id == a.id[i]) continue;
              const double dx = p.x[0] - xi[0], dy = p.x[1] - xi[1], dz = p.x[2] - xi[2];
              const double d2 = dx * dx + dy * dy + dz * dz;
              if (d2 < r2) cand_.push_back({d2, k});
            }
      std::sort(cand_.begin(), cand_.end());
      for (const auto& [d2, k] : cand_) {
        if (cell.empty()) break;
        const double rmax_sq = cell.max_radius_sq();
        if (d2 > rmax_sq && std::sqrt(d2) > reach_needed(rmax_sq, ri) + 1e-9) break;
        const Site& p = sites_[k];
        const double d[3] = {p.x[0] - xi[0], p.x[1] - xi[1], p.x[2] - xi[2]};
        const double rsq = t_.radius.empty() ? d2 : d2 + ri * ri - p.radius * p.radius;
        cell.cut(d, rsq, k);
      }
      if (cell.empty()) return false;
      if (reach_needed(cell.max_radius_sq(), ri) + 1e-9 < R || R > span) return true;
      R = std::max(2.0 * R, reach_needed(cell.max_radius_sq(), ri) * 1.01 + 1e-6);
    }
  }

  void tessellate(const ComputeContext& c) {
    gather(c);
    const Atoms& a = c.s.atoms;
    const int cols = t_.surface ? 3 : 2;
    peratom_.assign(cols * a.size(), 0.0);
    edge_.assign(t_.maxedge > 0 ? t_.maxedge + 1 : 0, 0.0);
    faces_.clear();
    const std::vector<double>& radius = local_radius_;
    VoronoiCell cell;
    std::vector<std::pair<int64_t, double>> rows;
    for (size_t i = 0; i < a.size(); ++i) {
      double* out = &peratom_[cols * i];
      const double xi[3] = {a.x[i], a.y[i], a.z[i]};
      // Not in voro++'s container, or a radical cell that vanishes: lmp computes no cell and its per-atom
      // array keeps the atom's last values (only_group zeroes the whole array first).
      auto keep_last = [&] {
        const auto it = last_.find(a.id[i]);
        if (!t_.only_group && it != last_.end()) std::copy(it->second.begin(), it->second.end(), out);
      };
      if (!in_container(xi)) {
        keep_last();
        continue;
      }
      if (!in_group(a, i)) continue;  // atoms outside the group read 0 (and only_group: they are no points)
      if (!build_cell(c, i, radius.empty() ? 0.0 : radius[i], cell)) {
        keep_last();
        continue;
      }
      const auto& faces = cell.faces();
      out[0] = cell.volume();
      std::vector<double> area(faces.size());
      for (size_t f = 0; f < faces.size(); ++f) area[f] = VoronoiCell::area(faces[f]);
      if (t_.fthresh > 0.0) {
        for (size_t f = 0; f < faces.size(); ++f) out[1] += area[f] > t_.fthresh ? 1.0 : 0.0;
      } else {
        out[1] = static_cast<double>(faces.size());
      }
      if (t_.surface == 1) {
        out[2] = cell.surface_area();
      } else if (t_.surface == 2) {
        for (size_t f = 0; f < faces.size(); ++f)
          if (faces[f].neighbor >= 0 && (sites_[faces[f].neighbor].mask & t_.surface_bit)) out[2] += area[f];
      }
      if (t_.maxedge > 0) {
        for (const VoronoiCell::Face& f : faces) {
          int nedge = static_cast<int>(f.v.size());
          if (t_.ethresh > 0.0) {
            nedge = 0;
            for (size_t k = 0; k < f.v.size(); ++k) {
              const auto& p = f.v[k];
              const auto& q = f.v[(k + 1) % f.v.size()];
              const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
              if (dx * dx + dy * dy + dz * dz > t_.ethresh * t_.ethresh) ++nedge;
            }
          }
          if (nedge > 0) edge_[nedge <= t_.maxedge ? nedge - 1 : t_.maxedge] += 1.0;
        }
      }
      if (t_.neighbors) {
        rows.clear();
        for (size_t f = 0; f < faces.size(); ++f)
          if (area[f] > t_.fthresh)
            rows.push_back({faces[f].neighbor >= 0 ? sites_[faces[f].neighbor].id : 0, area[f]});
        std::sort(rows.begin(), rows.end());
        for (const auto& [j, ar] : rows)
          faces_.insert(faces_.end(), {static_cast<double>(a.id[i]), double(j), ar});
      }
    }
    last_.clear();
    for (size_t i = 0; i < a.size(); ++i)
      last_[a.id[i]].assign(peratom_.begin() + cols * i, peratom_.begin() + cols * (i + 1));
    if (!t_.peratom) peratom_.clear();
  }

  TessellationSettings t_;
  std::vector<Site> sites_;
  std::vector<int32_t> head_, next_;
  std::vector<std::pair<double, int32_t>> cand_;
  std::vector<double> edge_, faces_, local_radius_;
  std::unordered_map<int64_t, std::vector<double>> last_;  // each atom's last values (lmp's stale rows)
  double clo_[3] = {0, 0, 0}, chi_[3] = {0, 0, 0}, width_[3] = {1, 1, 1}, spacing_ = 1.0, max_radius_ = 0.0;
  int nbin_[3] = {1, 1, 1};
};

std::unique_ptr<Compute> make(const ComputeArgs& c) {
  bool occupation = false;
  TessellationSettings t;
  while (!c.a.done()) {
    const std::string k = c.a.choice("a compute voronoi/atom keyword",
                                     {"occupation", "only_group", "radius", "surface", "edge_histo",
                                      "face_threshold", "edge_threshold", "neighbors", "peratom"});
    if (k == "occupation") {
      occupation = true;
    } else if (k == "only_group") {
      t.only_group = true;
    } else if (k == "radius") {
      const std::string v = c.a.word("v_name (an atom-style variable)");
      if (v.rfind("v_", 0) != 0) c.a.fail("compute voronoi/atom: radius takes v_name (LAMMPS)");
      t.radius = v.substr(2), t.radius_at = c.a.pos();
    } else if (k == "surface") {
      const std::string g = c.a.word("a group ID");
      if (g == "all") {
        t.surface = 1;
      } else {
        t.surface = 2, t.surface_bit = c.ctx.s.group_bit(g);
        if (!t.surface_bit) c.a.fail("compute voronoi/atom: could not find surface group ID " + g);
      }
    } else if (k == "edge_histo") {
      t.maxedge = static_cast<int>(c.a.integer("maxedge", 0, 1000000));
    } else if (k == "face_threshold") {
      t.fthresh = c.a.real("the face area threshold (Å²)");
    } else if (k == "edge_threshold") {
      t.ethresh = c.a.real("the edge length threshold (Å)");
    } else if (k == "neighbors") {
      t.neighbors = c.a.yes_no("neighbors");
    } else {
      t.peratom = c.a.yes_no("peratom");
    }
  }
  if (occupation && (t.surface || t.maxedge > 0))
    c.a.fail("compute voronoi/atom: occupation together with surface or edge_histo (LAMMPS: illegal)");
  if (occupation) {
    if (!t.radius.empty() || t.neighbors || t.fthresh != 0.0 || t.ethresh != 0.0 || !t.peratom)
      c.a.fail(
          "compute voronoi/atom occupation takes only only_group here (radius, neighbors, thresholds and "
          "peratom no are not supported with it)");
    return std::make_unique<ComputeVoronoiAtom>(c, t.only_group);
  }
  if (t.maxedge > 0 && t.fthresh > 0.0 && t.ethresh <= 0.0)
    c.a.fail(
        "compute voronoi/atom: edge_histo with face_threshold (and no edge_threshold) is not supported: "
        "lmp 2021 then histograms the first n faces in voro++'s internal order");
  return std::make_unique<ComputeVoronoiCells>(c, t);
}

}  // namespace

WMD_COMPUTE_STYLE("voronoi/atom", make)

}  // namespace wmd::md
