// compute chunk/atom: assigns each atom of the group a chunk index 1…Nchunk (0: in no chunk), as LAMMPS
// compute chunk/atom — spatial bins (bin/1d, bin/2d, bin/3d) or the atom type — for fix ave/chunk and as a
// per-atom vector (c_ID in dumps; its scalar is Nchunk). Declared here because fix ave/chunk reads its
// chunks, coordinates and bin volume.
#pragma once
#include <string>
#include <vector>

#include "md/styles/compute.hpp"

namespace wmd::md {

class ComputeChunkAtom : public Compute {
 public:
  enum class Style { bin, type };
  enum class Origin { lower, center, upper, value };
  enum class Units { box, lattice, reduced };
  enum class Discard { no, mixed, yes };
  struct Settings {
    Style style = Style::type;
    int ndim = 0;            // bins: 1, 2 or 3 dimensions
    int dim[3] = {0, 0, 0};  // box direction of each bin dimension
    Origin origin_flag[3] = {Origin::lower, Origin::lower, Origin::lower};
    double origin[3] = {0.0, 0.0, 0.0};  // the value origin (scaled)
    double delta[3] = {0.0, 0.0, 0.0};   // bin widths (scaled)
    Units units = Units::lattice;
    Discard discard = Discard::mixed;
    bool nchunk_once = false;
    bool min_set[3] = {false, false, false}, max_set[3] = {false, false, false};  // bound per box direction
    double minvalue[3] = {0.0, 0.0, 0.0}, maxvalue[3] = {0.0, 0.0, 0.0};
    bool has_region = false;
    Region region;
  };

  ComputeChunkAtom(const ComputeArgs& c, Settings s);
  OutputShape shape() const override;
  void init(const ComputeContext& c) override;
  double compute_scalar(const ComputeContext& c) override;
  void compute_peratom(const ComputeContext& c) override;

  /// LAMMPS's setup_chunks: the bins for the present box (unless locked or set up once), the chunk count.
  int setup_chunks(const State& s);
  /// LAMMPS's compute_ichunk: each local atom's chunk index (state order; 0 outside every chunk).
  const std::vector<int>& compute_ichunk(const State& s);
  /// While a fix averages over several steps its chunks stay as they are (LAMMPS's lock and unlock); a lock
  /// whose fix is gone is released at the next run's set-up (LAMMPS's fix destructor unlocks).
  void lock(const std::string& fix_id, const void* fix) { lock_id_ = fix_id, lock_owner_ = fix; }
  void unlock(const void* fix) {
    if (fix == lock_owner_) lock_owner_ = nullptr;
  }

  int nchunk() const { return nchunk_; }
  /// Coordinates per chunk: bins have ndim (their centres), types none.
  int ncoord() const { return s_.style == Style::bin ? s_.ndim : 0; }
  /// Bin centre k of a chunk (0-based), the last dimension varying fastest; computed, not stored, so the
  /// bins cost no memory here.
  double coord(int chunk, int k) const {
    int rest = chunk;
    for (int m = s_.ndim - 1; m > k; --m) rest /= nlayers_[m];
    return offset_[k] + (rest % nlayers_[k] + 0.5) * s_.delta[k];
  }
  /// The volume of one bin (Å³); the box volume for types.
  double chunk_volume() const { return volume_; }

 private:
  int setup_bins(const State& s);
  void bin_volume(const State& s);
  // The box bounds the bins are cut from (0…1 in reduced units).
  void bounds(const State& s, int d, double& lo, double& hi) const;

  Settings s_;
  int nchunk_ = 0;
  bool setup_done_ = false;
  std::string lock_id_;
  const void* lock_owner_ = nullptr;  // the fix holding the lock (compared, never dereferenced)
  double offset_[3] = {0.0, 0.0, 0.0}, invdelta_[3] = {1.0, 1.0, 1.0};
  int nlayers_[3] = {1, 1, 1};
  double volume_ = 1.0;
  std::vector<int> ichunk_;
  SourcePos pos_;
};

}  // namespace wmd::md
