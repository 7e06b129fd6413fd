// The PE passes of one force step over the band: each PE's position out through the window multicast (and
// the halo rows to the bands around), the density pass (ρ̄, F(ρ̄), F′), the F′ multicast, the force pass over
// the PE's full neighbourhood (no Newton scatter), then the energy and virial sums. fp32 (the hardware's
// arithmetic; pe_passes32.cpp) streams the band in chunks as a wavefront; fp64 (comparison mode;
// pe_passes64.cpp) runs the cluster's deterministic per-atom arithmetic over each PE's slots.
#pragma once
#include <cstdint>
#include <vector>

#include "md/core/box.hpp"
#include "md/force/backend.hpp"
#include "md/mesh/band_transport.hpp"
#include "md/mesh/pe_kernels32.hpp"
#include "md/mesh/pe_memory.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md::mesh {

/// What a force step learns on the way: the busiest PE's neighbour slots, pairs within the cutoff and pairs
/// within the ZBL term's outer cut-off (they price the step; over every rank once the step returns), and the
/// seconds its halo exchanges took (comm, not pair time).
struct StepLoad {
  int busiest_cand = 0, busiest_cut = 0, busiest_zbl = 0;
  double halo_seconds = 0.0;
};

class PePasses {
 public:
  /// The passes over the band of `t`, whose PEs are `pes` (both outlive this object).
  PePasses(BandTransport& t, const BandPes& pes) : t_(t), pes_(pes) {}
  /// A run's tables (fp32 PEs round them once), precision and streaming chunk (PEs at once).
  void configure(const potentials::EamTables& tables, bool fp64, int chunk_pes);
  /// One force step with window radius b: forces into `a`, energy and virial into `result` (with tally
  /// false, fp32 skips the virial and the global energy sum; fp64 always tallies), per-atom energies when
  /// `eatom`.
  StepLoad step(const Box& box, Atoms& a, int b, bool tally, bool eatom, ForceResult& result);

 private:
  struct Hood64;  // an fp64 PE's neighbourhood reader (pe_passes64.cpp)
  template <class Real>
  void multicast_positions(const Atoms& a, StepLoad& load);
  std::vector<int> chunk_bounds(int pw) const;
  void pe_passes_fp32(const Box& box, Atoms& a, int b, bool tally, StepLoad& load);
  void receive_positions_fp32(int d0, int d1, std::vector<uint32_t>& planes);
  PeBand32 band32(int d0, const std::vector<uint32_t>& planes, const float* fp) const;
  void density_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts, std::vector<uint32_t>& planes,
                          StepLoad& load);
  void force_chunk_fp32(int d0, int d1, const ShiftOffsets32& shifts, const std::vector<uint32_t>& planes,
                        bool tally, Atoms& a, StepLoad& load);
  void pe_passes_fp64(const Box& box, Atoms& a, StepLoad& load);
  void density_chunk_fp64(int d0, int d1, const Hood64& hood, StepLoad& load);
  void force_chunk_fp64(int d0, int d1, const Hood64& hood, Atoms& a, StepLoad& load);
  void sum_energy_virial_fp64(ForceResult& result);
  void sum_energy_virial_fp32(ForceResult& result);

  BandTransport& t_;
  const BandPes& pes_;
  const potentials::EamTables* tables_ = nullptr;
  bool fp64_ = false;
  int chunk_pes_ = 1024;
  PeTables32 pt_;  // fp32 PE tables (fp32 mode)
  std::vector<uint32_t> pos_payload_, fp_payload_;
  std::vector<std::vector<uint32_t>> ring_;  // fp32: received positions of chunks awaiting their force pass
  std::vector<double> rho_, fp_;             // ρ̄ and F'(ρ̄) of each band PE's atom
  std::vector<double> epe_;                  // per-PE energy of the last force pass (band)
  std::vector<double> vpe_;                  // per-PE virial (6) (band)
};

}  // namespace wmd::md::mesh
