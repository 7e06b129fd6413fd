// The fp32 PE kernels the emulator runs for every PE: one atom's density and force over the neighbour slots
// the fabric delivered (positions in planes, one per coordinate), with each slot's periodic image, the
// in-cut-off compaction and per-knot spline records. AVX-512 over 16 slots at a time where the build targets
// it (records loaded whole and transposed in registers: no hardware gathers), scalar (md/mesh/pe_kernels.hpp)
// otherwise. Either way a PE's sums run in a fixed order given its slots, so runs and restarts repeat to the
// bit.
#pragma once
#include <cstdint>
#include <vector>

#include "md/mesh/pe_kernels.hpp"
#include "potentials/eam_tables.hpp"

namespace wmd::md::mesh {

/// The fp32 tables a PE holds, per (type i, type j) pair and knot m of the r grid:
/// dens: 4 floats, ρ contributed by j at i (coefficients c3..c6);
/// force: 16 floats, r·φ c0..c6, ρ_{i→j}' c0..c2 (rho_array(i, j)), ρ_{j→i}' c0..c2 (rho_array(j, i)), 3
/// zero. The scalar FloatTables (embedding, and the portable kernels) ride along.
struct PeTables32 {
  int ntypes = 0, nr = 0;
  float rdr = 0, cutsq = 0;
  std::vector<float> dens, force;
  FloatTables scalar;
};

/// Rounds and packs the tables for the PE kernels.
PeTables32 make_pe_tables32(const potentials::EamTables& t);

/// Periodic image offsets of the 27 packed shift codes ((sx+1) + 3(sy+1) + 9(sz+1)): shift·L per axis in
/// fp32, padded to 32 entries.
struct ShiftOffsets32 {
  alignas(64) float v[3][32];
};

/// The offsets for a box of edge lengths L.
ShiftOffsets32 make_shift_offsets32(const double L[3]);

/// One PE's received slots: n neighbours' positions (planes), packed periodic shift codes and types; F' of
/// each neighbour for the force pass.
struct PeSlots32 {
  int n = 0;
  const float *x = nullptr, *y = nullptr, *z = nullptr;
  const std::int8_t* shift = nullptr;
  const std::int8_t* type = nullptr;
  const float* fp = nullptr;
};

/// ρ̄ of the PE's atom (type ti, position xi) from its slots; in_cut gets how many lie inside the cut-off.
float pe_density32(const PeTables32& t, const ShiftOffsets32& s, int ti, const float xi[3],
                   const PeSlots32& in, int& in_cut);

/// Force on the PE's atom (type ti, F' fpi) into f[3] (set), half its pairs' virial added into vir[6] (none
/// when vir is null: steps that do not report pressure); returns half its pair energy.
float pe_force32(const PeTables32& t, const ShiftOffsets32& s, int ti, float fpi, const float xi[3],
                 const PeSlots32& in, float f[3], float vir[6]);

/// True when the build runs the AVX-512 kernels.
bool pe_kernels32_simd();

}  // namespace wmd::md::mesh
