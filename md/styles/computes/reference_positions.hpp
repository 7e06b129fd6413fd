// The unwrapped positions (or the velocities) of a group's atoms when a compute or fix was defined (LAMMPS
// keeps them in a fix STORE that migrates with the atoms): here every rank keeps them all, by atom id
// (gathered once at the command), so any rank finds the reference of any atom that migrates to it. Saved in
// checkpoints.
#pragma once
#include <array>
#include <unordered_map>
#include <vector>

#include "md/core/comm.hpp"
#include "md/core/state.hpp"
#include "md/core/unwrapped_position.hpp"
#include "md/force/backend.hpp"
#include "md/styles/fix_state_reader.hpp"

namespace wmd::md {

class ReferencePositions {
 public:
  /// Gathers the group's unwrapped positions from all ranks (collective).
  void take(const State& s, const Comm& comm, uint32_t group) {
    const Atoms& a = s.atoms;
    std::vector<double> mine;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a.mask[i] & group)) continue;
      const auto u = unwrapped(s, i);
      mine.insert(mine.end(), {static_cast<double>(a.id[i]), u[0], u[1], u[2]});
    }
    set(comm.allgather(mine));
  }
  /// Gathers the group's velocities instead (compute vacf).
  void take_velocities(const State& s, const Comm& comm, uint32_t group) {
    const Atoms& a = s.atoms;
    std::vector<double> mine;
    for (size_t i = 0; i < a.size(); ++i)
      if (a.mask[i] & group)
        mine.insert(mine.end(), {static_cast<double>(a.id[i]), a.vx[i], a.vy[i], a.vz[i]});
    set(comm.allgather(mine));
  }
  /// The reference of atom `id`, or null if it was not in the group.
  const std::array<double, 3>* find(int64_t id) const {
    const auto it = ref_.find(id);
    return it == ref_.end() ? nullptr : &it->second;
  }
  /// LAMMPS's domain->unmap (x + image·L on an orthogonal box, along the edge vectors on a triclinic one).
  static std::array<double, 3> unwrapped(const State& s, size_t i) { return unwrapped_position(s, i); }
  void save(NamedArrays& out) const {
    std::vector<double>& v = out["reference"];
    v.clear();
    for (const auto& [id, x] : ref_) v.insert(v.end(), {static_cast<double>(id), x[0], x[1], x[2]});
  }
  /// Checked before use (issue 46): whole (id, x, y, z) records, distinct positive integer ids, finite
  /// values.
  void restore(const FixStateReader& r) {
    if (const std::vector<double>* v = r.id_records("reference", 4, true)) set(*v);
  }

 private:
  void set(const std::vector<double>& flat) {
    ref_.clear();
    for (size_t k = 0; k + 3 < flat.size(); k += 4)
      ref_[static_cast<int64_t>(flat[k])] = {flat[k + 1], flat[k + 2], flat[k + 3]};
  }
  std::unordered_map<int64_t, std::array<double, 3>> ref_;
};

}  // namespace wmd::md
