#include "md/cluster/cluster_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "base/error.hpp"
#include "md/cluster/eam_half_kernels.hpp"
#include "md/core/balance.hpp"
#include "md/core/boundaries.hpp"
#include "md/core/lammps_order.hpp"
#include "md/force/eam_atom_kernels.hpp"

namespace wmd::md {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Adds the seconds `work` takes to `phase`.
template <class Work>
void timed(double& phase, Work&& work) {
  const auto t = std::chrono::steady_clock::now();
  work();
  phase += seconds_since(t);
}

// The owned atoms [i0, i1) of hp: one piece of a pass.
HalfPairs piece(const HalfPairs& hp, int i0, int i1) {
  HalfPairs h = hp;
  h.atom_begin = i0, h.atom_end = i1;
  return h;
}

const char* axis_name(int d) {
  return d == 0 ? "x" : d == 1 ? "y" : "z";
}

// Applies periodic wrapping, shrink-wrapping (bounds over all ranks) and the fixed faces' loss check, as
// LAMMPS does at reneighbouring (pbc, reset_box, then exchange). An atom beyond a fixed face ends the run, or
// with `drop` is removed as LAMMPS's exchange removes it — direction by direction, each hole taking the last
// atom of one-rank LAMMPS's order — and counted in `lost` (collective).
// On a triclinic box the atoms come in fractional coordinates and `frame` is the box's lamda_frame().
void enforce_boundaries(State& s, const Box& frame, const Comm& comm, bool drop, int64_t& lost) {
  if (s.box.triclinic) {
    wrap_fractional(s.box, s.atoms, s.step);
    fit_triclinic_shrink(s.box, s.atoms, comm, s.step);
  } else
    wrap_and_fit_box(s, comm);
  Atoms& a = s.atoms;
  const size_t n = a.size();
  double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  int64_t beyond[3] = {0, 0, 0};  // atoms beyond the faces along x, y, z (all ranks)
  for (int d = 0; d < 3; ++d) {
    const Box& b = s.box.triclinic ? frame : s.box;
    if (b.periodic(d)) continue;
    for (size_t i = 0; i < n; ++i) {
      if (pos[d][i] >= b.lo[d] && pos[d][i] < b.hi[d]) continue;
      if (!drop)
        throw RunError("lost atom " + std::to_string(a.id[i]) +
                       ": it left the box through the non-periodic " + axis_name(d) + " boundary at step " +
                       std::to_string(s.step) + " (" + axis_name(d) + " = " + std::to_string(pos[d][i]) +
                       ")");
      ++beyond[d];
    }
  }
  if (!drop || s.box.periodic(0) + s.box.periodic(1) + s.box.periodic(2) == 3) return;
  int64_t counts[3] = {beyond[0], beyond[1], beyond[2]};
  comm.sum(counts, 3);
  for (int d = 0; d < 3; ++d) {
    if (counts[d] == 0) continue;
    const Box& b = s.box.triclinic ? frame : s.box;
    const double* p = d == 0 ? a.x.data() : d == 1 ? a.y.data() : a.z.data();
    std::vector<char> gone(a.size(), 0);
    for (size_t i = 0; i < a.size(); ++i) gone[i] = p[i] < b.lo[d] || p[i] >= b.hi[d];
    lost += delete_in_lammps_order(comm, a, gone);
  }
}

// The ghost budget's cutoff: on a triclinic box the ghost layer along d is cut·L_d/spacing_d thick (the
// fractional reach times the edge), more than cut when the box leans.
double ghost_budget_cut(const Box& b, double cut) {
  if (!b.triclinic) return cut;
  double most = cut;
  for (int d = 0; d < 3; ++d) most = std::max(most, cut * b.prd(d) / b.plane_spacing(d));
  return most;
}

}  // namespace

void ClusterBackend::setup(State& s, const potentials::EamTables& tables, const NeighborSettings& nb,
                           bool eatom) {
  ensure_kokkos();
  if (tables_ != &tables || pair_tables_.serial != tables.serial) {
    pair_tables_ = pack_pair_tables(tables, precision_ != PairPrecision::fp64);
  }
  tables_ = &tables;
  nb_ = nb;
  stats_ = NeighborStats{};
  times_ = PhaseTimes{};
  if (restored_)
    rebuild_restored(s);  // the checkpoint holds the cuts the saved run had
  else
    rebuild(s, true);
  if (deterministic_)
    forces_deterministic(s, eatom);
  else
    forces(s, eatom);
}

NamedArrays ClusterBackend::save_state() const {
  return {{"xhold", xhold_},
          {"box_hold", box_hold_},
          {"ago", {static_cast<double>(ago_)}},
          {"overlap_split", {static_cast<double>(inner_a_), static_cast<double>(inner_b_)}}};
}

void ClusterBackend::restore_state(const NamedArrays& state) {
  auto x = state.find("xhold"), a = state.find("ago");
  if (x == state.end() || a == state.end() || a->second.size() != 1)
    throw RunError("checkpoint lacks the cluster backend's neighbour state (xhold, ago)");
  xhold_ = x->second;
  ago_ = static_cast<int>(a->second[0]);
  // A checkpoint without the box of the last build: the box as it is restored (the full trigger).
  auto bh = state.find("box_hold");
  box_hold_ = bh != state.end() && (bh->second.size() == 6 || bh->second.size() == 9) ? bh->second
                                                                                      : std::vector<double>();
  if (box_hold_.size() == 6) box_hold_.insert(box_hold_.end(), {0.0, 0.0, 0.0});  // an orthogonal box's
  // The atoms come back in the saved order, already split; a checkpoint without the split runs unsplit.
  auto sp = state.find("overlap_split");
  const bool split = sp != state.end() && sp->second.size() == 2;
  inner_a_ = split ? static_cast<int>(sp->second[0]) : 0;
  inner_b_ = split ? static_cast<int>(sp->second[1]) : 0;
  restored_ = true;
}

void ClusterBackend::rebuild_restored(State& s) {
  restored_ = false;
  if (box_hold_.size() != 9) hold_box(s.box);
  const auto t0 = std::chrono::steady_clock::now();
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  if (xhold_.size() != 3 * static_cast<size_t>(n))
    throw RunError("checkpoint neighbour state holds " + std::to_string(xhold_.size() / 3) + " atoms, not " +
                   std::to_string(n));
  // The saved run built its ghosts and lists from the positions of its last build (atoms already wrapped and
  // on their ranks): rebuild from exactly those, then move the ghosts to the current positions as a step
  // between rebuilds does. No wrapping or migration here — that would change the bits.
  std::vector<double> cx(n), cy(n), cz(n);
  for (int i = 0; i < n; ++i) {
    cx[i] = a.x[i], cy[i] = a.y[i], cz[i] = a.z[i];
    a.x[i] = xhold_[3 * i], a.y[i] = xhold_[3 * i + 1], a.z[i] = xhold_[3 * i + 2];
  }
  const double cutneigh = tables_->cutmax + nb_.skin;
  check_ghost_budget(s.box, dec_->grid().data(), a.size(), ghost_budget_cut(s.box, cutneigh));
  // The box of the last build (a barostat or fix deform may have moved it since): that build's ghosts, in
  // that build's order, so the sums that follow repeat the uninterrupted run's bits.
  const Box built = held_box(s.box);
  if (s.box.triclinic) {
    double cutghost[3];
    for (int d = 0; d < 3; ++d) cutghost[d] = cutneigh / built.plane_spacing(d);
    atoms_to_lamda(built, a);
    exchange_.build(*comm_, *dec_, built.lamda_frame(), a, cutghost, images_);
    exchange_.to_cartesian(built, images_);
  } else {
    exchange_.build(*comm_, *dec_, built, a, cutneigh, images_);
  }
  if (deterministic_)
    build_full_list();
  else
    build_half_list(images_, cutneigh, list_);
  check_split();
  for (int i = 0; i < n; ++i) a.x[i] = cx[i], a.y[i] = cy[i], a.z[i] = cz[i];
  exchange_.forward_positions(*comm_, s.box, a, images_);
  ++stats_.builds;
  stats_.pairs = deterministic_ ? static_cast<int64_t>(full_nbr_.size()) : list_.size();
  stats_.ghosts = images_.nall() - images_.nlocal;
  times_.neigh += seconds_since(t0);
}

void ClusterBackend::compute(State& s, bool eatom, bool tally) {
  bool moved = false;
  // The overlapped path checks the displacements in the pass that copies the positions into the records.
  Due due = rebuild_due(s, deterministic_ ? &moved : nullptr);
  if (due == Due::vote && deterministic_) {
    const auto tv = std::chrono::steady_clock::now();
    due = comm_->any(moved) ? Due::yes : Due::no;
    times_.comm += seconds_since(tv);
    if (due == Due::yes) count_rebuild_after_vote();
  }
  if (due == Due::yes) {
    rebuild(s);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    if (deterministic_) {
      exchange_.forward_positions(*comm_, s.box, s.atoms, images_);
    } else {
      // The vote on a rebuild and the position exchange are in flight while inner half A's density runs
      // (forces() ends both there), so no rank waits for the other at this point; should the vote ask for
      // a rebuild, that density is dropped and the step starts again on the new lists.
      const bool vote = due == Due::vote;
      moved = exchange_.forward_records_begin(*comm_, s.box, s.atoms, images_, vote ? xhold_.data() : nullptr,
                                              rebuild_trigger(s.box));
      positions_pending_ = true;
      if (vote) {
        comm_->any_start(moved, vote_);
        vote_pending_ = true;
      }
    }
    times_.comm += seconds_since(t0);
  }
  if (deterministic_)
    forces_deterministic(s, eatom);  // always tallies: its fixed-order sums are the point of the mode
  else
    forces(s, eatom, tally);
}

ClusterBackend::Due ClusterBackend::rebuild_due(const State& s, bool* moved) {
  ++ago_;
  // fix balance forces a rebuild at its steps (LAMMPS's next_reneighbor), whatever the neighbour settings.
  if (controls_->balance.due(s.step)) return Due::yes;
  if (rebuild_forced_) {  // fix deposit inserted atoms (LAMMPS's next_reneighbor)
    rebuild_forced_ = false;
    return Due::yes;
  }
  if (nb_.once) return Due::no;
  if (ago_ < nb_.delay || ago_ % nb_.every != 0) return Due::no;
  if (!nb_.check) return Due::yes;
  if (!moved) return Due::vote;
  const double trigger = rebuild_trigger(s.box);
  const Atoms& a = s.atoms;
  *moved = false;
  for (size_t i = 0; i < a.size() && !*moved; ++i) {
    const double dx = a.x[i] - xhold_[3 * i], dy = a.y[i] - xhold_[3 * i + 1],
                 dz = a.z[i] - xhold_[3 * i + 2];
    *moved = dx * dx + dy * dy + dz * dz > trigger;
  }
  return Due::vote;  // every rank rebuilds together: the ranks' answers are combined
}

void ClusterBackend::corner_motion(const Box& b, double& d1, double& d2) const {
  const Box held = held_box(b);
  d1 = d2 = 0.0;
  for (int k = 0; k < 8; ++k) {  // LAMMPS's corner order and its largest / "else next" pick
    const double l[3] = {(k & 1) ? 1.0 : 0.0, (k & 2) ? 1.0 : 0.0, (k & 4) ? 1.0 : 0.0};
    double now[3], then[3];
    b.from_lamda(l, now);
    held.from_lamda(l, then);
    const double dx = now[0] - then[0], dy = now[1] - then[1], dz = now[2] - then[2];
    const double delta = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (delta > d1)
      d1 = delta;
    else if (delta > d2)
      d2 = delta;
  }
}

void ClusterBackend::count_rebuild_after_vote() {
  if (ago_ == std::max(nb_.every, nb_.delay)) ++stats_.dangerous;
}

void ClusterBackend::rebuild(State& s, bool at_setup) {
  const auto t0 = std::chrono::steady_clock::now();
  // A triclinic box: wrapping, migration and ghosts in fractional coordinates, the atoms and ghosts turned
  // back into box coordinates at the end (LAMMPS's x2lamda … lamda2x around pbc, exchange and borders).
  const bool tri = s.box.triclinic;
  if (tri) atoms_to_lamda(s.box, s.atoms);
  const Box frame = tri ? s.box.lamda_frame() : s.box;
  const double cutneigh = tables_->cutmax + nb_.skin;
  enforce_boundaries(s, frame, *comm_, controls_->drop_lost, lost_);
  double cutghost[3] = {cutneigh, cutneigh, cutneigh};  // of the box shrink-wrapping has just fitted
  if (tri)
    for (int d = 0; d < 3; ++d) cutghost[d] = cutneigh / s.box.plane_spacing(d);
  const LoadBalance& lb = controls_->balance;
  if (lb.active() && (at_setup || lb.due(s.step))) {
    // From wrapped positions alone, before the atoms move to their ranks: the same cuts on every run.
    const double reach = std::max({cutghost[0], cutghost[1], cutghost[2]});
    const BalanceReport r = balance_shift(*comm_, *dec_, frame, s.atoms, lb.shift, reach);
    stats_.imbalance = r.final;
    if (r.initial > lb.shift.thresh) ++stats_.balances;
  }
  // Migration, the overlap order and the ghost set-up count as comm, the list build as neigh: LAMMPS's split
  // (its exchange, sort and borders are Comm), so the two logs' breakdowns compare.
  const auto t1 = std::chrono::steady_clock::now();
  migrate_atoms(*comm_, *dec_, frame, s.atoms);
  if (deterministic_)
    inner_a_ = inner_b_ = 0;
  else
    split_for_overlap(s, frame, cutghost);
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  check_ghost_budget(s.box, dec_->grid().data(), a.size(), ghost_budget_cut(s.box, cutneigh));
  exchange_.build(*comm_, *dec_, frame, a, cutghost, images_);
  if (tri) {
    atoms_from_lamda(s.box, a);
    exchange_.to_cartesian(s.box, images_);
  }
  const double tcomm = seconds_since(t1);
  times_.comm += tcomm;
  if (deterministic_)
    build_full_list();
  else
    build_half_list(images_, cutneigh, list_);
  check_split();
  hold_box(s.box);
  xhold_.resize(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    xhold_[3 * i] = a.x[i], xhold_[3 * i + 1] = a.y[i], xhold_[3 * i + 2] = a.z[i];
  }
  ago_ = 0;
  ++stats_.builds;
  stats_.pairs = deterministic_ ? static_cast<int64_t>(full_nbr_.size()) : list_.size();
  stats_.ghosts = images_.nall() - images_.nlocal;
  times_.neigh += seconds_since(t0) - tcomm;
}

void ClusterBackend::split_for_overlap(State& s, const Box& frame, const double cutghost[3]) {
  Atoms& a = s.atoms;
  const int n = static_cast<int>(a.size());
  const double* pos[3] = {a.x.data(), a.y.data(), a.z.data()};
  double lo[3], hi[3], reach[3];
  bool shared[3];
  for (int d = 0; d < 3; ++d) {
    shared[d] = dec_->grid()[d] > 1;
    lo[d] = dec_->bound(frame, d, dec_->coord()[d]);
    hi[d] = dec_->bound(frame, d, dec_->coord()[d] + 1);
    reach[d] = cutghost[d] * (1.0 + 1e-12) + 1e-9;
  }
  // Ghosts from other ranks lie outside the sub-domain across a face shared with another rank, so an atom
  // this far inside every such face has none within the list cut-off; images this rank makes itself (its
  // periodic directions) are made before the first message and may be in any list. The margin covers
  // coordinates placed at x ± L in floating point.
  std::vector<int> inner, border;
  for (int i = 0; i < n; ++i) {
    bool in = true;
    for (int d = 0; d < 3 && in; ++d)
      in = !shared[d] || (pos[d][i] - lo[d] >= reach[d] && hi[d] - pos[d][i] >= reach[d]);
    (in ? inner : border).push_back(i);
  }
  const size_t half = (inner.size() + 1) / 2;
  std::vector<int> order(inner.begin(), inner.begin() + half);
  order.insert(order.end(), border.begin(), border.end());
  order.insert(order.end(), inner.begin() + half, inner.end());
  if (!border.empty()) a.reorder(order);  // on one rank every atom is inner: the order stays
  inner_a_ = static_cast<int>(half);
  inner_b_ = static_cast<int>(inner.size() - half);
}

void ClusterBackend::check_split() {
  if (deterministic_) return;
  const int nlocal = images_.nlocal;
  const int first_remote = exchange_.first_remote_record(*comm_, images_.nall());
  auto ghost_free = [&](int i0, int i1) {
    if (first_remote >= images_.nall()) return true;  // one rank: no list can hold a ghost from another
    for (int64_t k = list_.offset[i0]; k < list_.offset[i1]; ++k)
      if (list_.nbr[k] >= first_remote) return false;
    return true;
  };
  // By construction inner lists hold no ghost from another rank; should one ever, the passes run unsplit
  // rather than wrong.
  if (inner_a_ + inner_b_ > nlocal || !ghost_free(0, inner_a_) || !ghost_free(nlocal - inner_b_, nlocal))
    inner_a_ = inner_b_ = 0;
}

HalfPairs ClusterBackend::start_density_pass(bool eatom) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nall = images_.nall();
  if (rho_.extent(0) <= static_cast<size_t>(nall)) {  // cap > nall: f keeps the force pass's spare double
    // Grow with slack so small changes in the ghost count do not reallocate at every rebuild.
    const size_t cap = static_cast<size_t>(nall) + nall / 8 + 64;
    rho_ =
        Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("rho", Kokkos::WithoutInitializing), cap);
    fp_ =
        Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("fp", Kokkos::WithoutInitializing), cap);
    f_ = Kokkos::View<double*, Kokkos::HostSpace>(Kokkos::view_alloc("f", Kokkos::WithoutInitializing),
                                                  3 * cap);
    f_owned_zero_ = rho_owned_zero_ = -1;
  }
  const HostView<double> rho(rho_.data(), nall);
  if (eatom) eatom_.assign(nall, 0.0);
  const HalfPairs hp = half_pairs(images_, list_);
  times_.pair += seconds_since(t0);
  timed(times_.pair, [&] {
    if (rho_owned_zero_ == images_.nlocal) {
      // The owned densities were zeroed once the last step's embedding had read them: only the images'
      // remain.
      std::fill(rho.data() + images_.nlocal, rho.data() + nall, 0.0);
    } else {
      Kokkos::deep_copy(rho, 0.0);
    }
    rho_owned_zero_ = -1;
    eam_density_half(pair_tables_, piece(hp, 0, inner_a_), precision_, rho);
  });
  return hp;
}

bool ClusterBackend::finish_rebuild_vote(State& s) {
  if (!vote_pending_) return false;
  vote_pending_ = false;
  bool again = false;
  timed(times_.comm, [&] { again = comm_->any_finish(vote_); });
  if (!again) return false;
  timed(times_.comm, [&] { exchange_.forward_records_end(*comm_, s.box, images_); });
  positions_pending_ = false;
  count_rebuild_after_vote();
  rebuild(s);
  return true;
}

void ClusterBackend::forces(State& s, bool eatom, bool tally) {
  // Inner half A's density runs while the rebuild vote and the position exchange are in flight; a vote for
  // a rebuild drops it, and the passes start again on the new lists.
  HalfPairs hp = start_density_pass(eatom);
  if (finish_rebuild_vote(s)) hp = start_density_pass(eatom);
  if (positions_pending_) {
    timed(times_.comm, [&] { exchange_.forward_records_end(*comm_, s.box, images_); });
    positions_pending_ = false;
  }
  const int nall = images_.nall(), nlocal = images_.nlocal;
  const HostView<double> rho(rho_.data(), nall), fp(fp_.data(), nall),
      f(f_.data(), 3 * static_cast<size_t>(nall) + 1);  // the force pass's spare double (cap > nall)
  double* ea = eatom ? eatom_.data() : nullptr;
  // Each pass runs as inner half A, border, inner half B (split_for_overlap): the exchange with another rank
  // that a pass needs first (or feeds last) is in flight while an inner half, whose lists hold no ghost,
  // runs. The same order on every step, tallied or not, so the forces do not depend on output.
  const int a_end = inner_a_, b_begin = nlocal - inner_b_;
  timed(times_.pair, [&] { eam_density_half(pair_tables_, piece(hp, a_end, b_begin), precision_, rho); });
  timed(times_.comm, [&] { exchange_.reverse_begin(*comm_, rho_.data(), 1); });
  timed(times_.pair, [&] { eam_density_half(pair_tables_, piece(hp, b_begin, nlocal), precision_, rho); });
  timed(times_.comm, [&] { exchange_.reverse_end(*comm_); });
  result_ = ForceResult{};
  double energy = 0.0;
  timed(times_.pair, [&] {
    energy = eam_embed(*tables_, hp, rho, fp, ea, tally);
    // Zeroed while the lines are in cache, for the next step's density pass.
    std::fill(rho.data(), rho.data() + nlocal, 0.0);
    rho_owned_zero_ = nlocal;
  });
  timed(times_.comm, [&] { exchange_.forward_begin(*comm_, fp_.data(), 1); });
  timed(times_.pair, [&] {
    if (f_owned_zero_ == nlocal) {
      // The owned forces were zeroed as the last step copied them out: only the images' remain.
      std::fill(f.data() + 3 * static_cast<size_t>(nlocal), f.data() + f.extent(0), 0.0);
    } else {
      Kokkos::deep_copy(f, 0.0);
    }
    f_owned_zero_ = -1;
    energy += eam_force_half(pair_tables_, piece(hp, 0, a_end), precision_, fp, f, nullptr, ea);
  });
  timed(times_.comm, [&] { exchange_.forward_end(*comm_); });
  timed(times_.pair, [&] {
    energy += eam_force_half(pair_tables_, piece(hp, a_end, b_begin), precision_, fp, f, nullptr, ea);
  });
  timed(times_.comm, [&] { exchange_.reverse_begin(*comm_, f_.data(), 3); });
  timed(times_.pair, [&] {
    energy += eam_force_half(pair_tables_, piece(hp, b_begin, nlocal), precision_, fp, f, nullptr, ea);
    // The virial is Σ r ⊗ f before images are folded onto owners. reverse_begin has only posted the ghosts
    // from other ranks (shared directions come last, so no fold runs before that post): f still holds the
    // pair forces of every record.
    if (tally) add_virial_fdotr(hp, f, nall, result_.virial);
  });
  timed(times_.comm, [&] {
    exchange_.reverse_end(*comm_);
    if (ea) exchange_.reverse(*comm_, ea, 1);
  });
  result_.energy = energy;
  result_.tallied = tally;
  take_forces(s.atoms, eatom);
  // Steps nobody reads the energy of skip the one collective that only it needs.
  if (tally) sum_energy_virial();
}

void ClusterBackend::take_forces(Atoms& a, bool eatom) {
  const int nlocal = images_.nlocal;
  double* fo = f_.data();
  for (int i = 0; i < nlocal; ++i) {
    // Zeroed on the way out (the lines are in cache now): the next step's force pass starts from zero.
    a.fx[i] = fo[3 * i], a.fy[i] = fo[3 * i + 1], a.fz[i] = fo[3 * i + 2];
    fo[3 * i] = fo[3 * i + 1] = fo[3 * i + 2] = 0.0;
  }
  f_owned_zero_ = nlocal;
  if (eatom) result_.eatom.assign(eatom_.begin(), eatom_.begin() + nlocal);
}

void ClusterBackend::sum_energy_virial() {
  // This rank's share of the energy and virial; the totals are every rank's. The half-list pass (never in
  // deterministic mode, whose pass sums per-atom terms through TermSum) splits the pair terms between the
  // ranks by where their atoms sit, so its per-rank partials are shaped by the rank split anyway: they are
  // added in rank order, as LAMMPS's MPI_Allreduce of each rank's eng_vdwl and virial.
  const auto t3 = std::chrono::steady_clock::now();
  double sums[7] = {result_.energy};
  for (int k = 0; k < 6; ++k) sums[1 + k] = result_.virial[k];
  comm_->sum_in_rank_order(sums, 7);
  result_.energy = sums[0];
  for (int k = 0; k < 6; ++k) result_.virial[k] = sums[1 + k];
  times_.comm += seconds_since(t3);
}

void ClusterBackend::build_full_list() {
  const GhostImages& g = images_;
  const int nall = g.nall(), nlocal = g.nlocal;
  const double cut = tables_->cutmax + nb_.skin, cutsq = cut * cut;
  full_offset_.assign(nlocal + 1, 0);
  full_nbr_.clear();
  if (nall == 0) return;
  double lo[3] = {g.rec[0].x, g.rec[0].y, g.rec[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
  for (const PosRec& r : g.rec) {
    lo[0] = std::min(lo[0], r.x), hi[0] = std::max(hi[0], r.x);
    lo[1] = std::min(lo[1], r.y), hi[1] = std::max(hi[1], r.y);
    lo[2] = std::min(lo[2], r.z), hi[2] = std::max(hi[2], r.z);
  }
  int nb[3];
  double inv[3];
  for (int d = 0; d < 3; ++d) {
    nb[d] = std::max(1, std::min(1024, static_cast<int>((hi[d] - lo[d]) / cut)));
    inv[d] = hi[d] > lo[d] ? nb[d] / (hi[d] - lo[d]) : 0.0;
  }
  auto bin_of = [&](const PosRec& r, int c[3]) {
    const double p[3] = {r.x, r.y, r.z};
    for (int d = 0; d < 3; ++d)
      c[d] = std::min(nb[d] - 1, std::max(0, static_cast<int>((p[d] - lo[d]) * inv[d])));
  };
  std::vector<int> start(nb[0] * nb[1] * nb[2] + 1, 0), order(nall), binid(nall);
  for (int j = 0; j < nall; ++j) {
    int c[3];
    bin_of(g.rec[j], c);
    binid[j] = (c[2] * nb[1] + c[1]) * nb[0] + c[0];
    ++start[binid[j] + 1];
  }
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  {
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int j = 0; j < nall; ++j) order[fill[binid[j]]++] = j;
  }
  const std::vector<int64_t>& tag = exchange_.tag();
  auto key_less = [&](int p, int q) {
    // Global order of a neighbourhood: by atom id, then image shift, whatever the ranks and record indices.
    if (tag[p] != tag[q]) return tag[p] < tag[q];
    const int zero[3] = {0, 0, 0};
    const int* sp = p < nlocal ? zero : g.shift_of(p);
    const int* sq = q < nlocal ? zero : g.shift_of(q);
    return std::lexicographical_compare(sp, sp + 3, sq, sq + 3);
  };
  std::vector<int> mine;
  for (int i = 0; i < nlocal; ++i) {
    const PosRec& ri = g.rec[i];
    int c[3];
    bin_of(ri, c);
    mine.clear();
    for (int bz = std::max(0, c[2] - 1); bz <= std::min(nb[2] - 1, c[2] + 1); ++bz)
      for (int by = std::max(0, c[1] - 1); by <= std::min(nb[1] - 1, c[1] + 1); ++by)
        for (int bx = std::max(0, c[0] - 1); bx <= std::min(nb[0] - 1, c[0] + 1); ++bx) {
          const int b = (bz * nb[1] + by) * nb[0] + bx;
          for (int k = start[b]; k < start[b + 1]; ++k) {
            const int j = order[k];
            if (j == i) continue;
            const PosRec& rj = g.rec[j];
            const double dx = ri.x - rj.x, dy = ri.y - rj.y, dz = ri.z - rj.z;
            if (dx * dx + dy * dy + dz * dz < cutsq) mine.push_back(j);
          }
        }
    std::sort(mine.begin(), mine.end(), key_less);
    full_nbr_.insert(full_nbr_.end(), mine.begin(), mine.end());
    full_offset_[i + 1] = static_cast<int64_t>(full_nbr_.size());
  }
}

void ClusterBackend::forces_deterministic(State& s, bool eatom) {
  const auto t0 = std::chrono::steady_clock::now();
  const potentials::EamTables& t = *tables_;
  const GhostImages& g = images_;
  const int nall = g.nall(), nlocal = g.nlocal;
  const std::vector<double>& raw = exchange_.raw();
  const double L[3] = {s.box.prd(0), s.box.prd(1), s.box.prd(2)};
  const bool tri = s.box.triclinic;
  fp_det_.assign(nall, 0.0);
  rho_det_.assign(nlocal, 0.0);
  eatom_.assign(nlocal, 0.0);
  // Displacements x_i − (x_j + shift·L) with the shared formula, in the list's global order.
  auto neighbourhood = [&](int i) {
    const int64_t b = full_offset_[i], e = full_offset_[i + 1];
    const int n = static_cast<int>(e - b);
    dx_.resize(n), dy_.resize(n), dz_.resize(n), tj_.resize(n), fpj_.resize(n);
    for (int k = 0; k < n; ++k) {
      const int j = full_nbr_[b + k];
      const int zero[3] = {0, 0, 0};
      const int* sh = j < nlocal ? zero : g.shift_of(j);
      if (tri) {  // the image's displacement h·shift, one sum whatever path placed the ghost
        const Box& bx = s.box;
        dx_[k] = (raw[3 * i] - raw[3 * j]) - ((sh[0] * L[0] + sh[1] * bx.xy) + sh[2] * bx.xz);
        dy_[k] = (raw[3 * i + 1] - raw[3 * j + 1]) - (sh[1] * L[1] + sh[2] * bx.yz);
      } else {
        dx_[k] = periodic_delta(raw[3 * i], raw[3 * j], sh[0], L[0]);
        dy_[k] = periodic_delta(raw[3 * i + 1], raw[3 * j + 1], sh[1], L[1]);
      }
      dz_[k] = periodic_delta(raw[3 * i + 2], raw[3 * j + 2], sh[2], L[2]);
      tj_[k] = g.rec[j].type;
      fpj_[k] = fp_det_[j];
    }
    return n;
  };
  for (int i = 0; i < nlocal; ++i) {
    const int n = neighbourhood(i);
    rho_det_[i] = atom_density(t, g.rec[i].type, n, dx_.data(), dy_.data(), dz_.data(), tj_.data());
    eatom_[i] = atom_embed(t, g.rec[i].type, rho_det_[i], fp_det_[i]);
  }
  const auto tc = std::chrono::steady_clock::now();
  exchange_.forward(*comm_, fp_det_.data(), 1);
  double tcomm = seconds_since(tc);
  TermSum sums(*comm_, 8);
  Atoms& a = s.atoms;
  for (int i = 0; i < nlocal; ++i) {
    const int n = neighbourhood(i);
    double f[3] = {0.0, 0.0, 0.0}, vir[6] = {0, 0, 0, 0, 0, 0};
    const double ephalf = atom_force(t, g.rec[i].type, fp_det_[i], n, dx_.data(), dy_.data(), dz_.data(),
                                     tj_.data(), fpj_.data(), f, vir);
    a.fx[i] = f[0], a.fy[i] = f[1], a.fz[i] = f[2];
    sums.add(0, eatom_[i]);
    sums.add(1, ephalf);
    for (int k = 0; k < 6; ++k) sums.add(2 + k, vir[k]);
    eatom_[i] += ephalf;
  }
  const auto tc2 = std::chrono::steady_clock::now();
  const std::vector<double> tot = sums.total();
  tcomm += seconds_since(tc2);
  result_ = ForceResult{};
  result_.energy = tot[0] + tot[1];
  for (int k = 0; k < 6; ++k) result_.virial[k] = tot[2 + k];
  if (eatom) result_.eatom.assign(eatom_.begin(), eatom_.end());
  times_.comm += tcomm;
  times_.pair += seconds_since(t0) - tcomm;
}

WMD_BACKEND("cluster", kSubdomains | kDropsLostAtoms, [](const BackendArgs& a) -> std::unique_ptr<Backend> {
  return std::make_unique<ClusterBackend>(a.comm, a.decomp, a.settings.deterministic,
                                          parse_pair_precision(a.settings.cluster_precision), a.controls);
})

}  // namespace wmd::md
