// LAMMPS `units metal` constants: the one place in wafermd where physical units are defined.
// Lengths Å, energies eV, time ps, mass g/mol, velocity Å/ps, force eV/Å, temperature K, pressure bar.
#pragma once

namespace wmd::units {

inline constexpr double boltz = 8.617343e-5;         // Boltzmann constant, eV/K (LAMMPS metal)
inline constexpr double mvv2e = 1.0364269e-4;        // amu·Å²/ps² → eV
inline constexpr double ftm2v = 1.0 / 1.0364269e-4;  // (eV/Å)/amu → Å/ps²
inline constexpr double nktv2p = 1.6021765e6;        // eV/Å³ → bar
inline constexpr double mv2d = 1.0 / 0.602214129;    // amu/Å³ → g/cm³ (thermo density)
inline constexpr double default_dt = 0.001;          // ps (1 fs)
inline constexpr double default_skin = 2.0;          // Å, LAMMPS metal default neighbour skin
inline constexpr double funcfl_z2_factor =
    27.2 * 0.529;  // Hartree·Bohr as LAMMPS writes it: r·φ = 14.3888·Zi·Zj
inline constexpr double ps_per_fs = 1.0e-3;
// 1 eV per particle in kJ/mol (e·N_A/1000, CODATA 2018 exact), for H5MD forces in MDAnalysis's units.
inline constexpr double ev_to_kj_per_mol = 96.48533212331002;
// e²/(4πε0) in eV·Å, LAMMPS metal's qqr2e (qelectron = 1 e, angstrom = 1 Å): pair_style zbl's Zi·Zj·e².
inline constexpr double qqr2e = 14.399645;

}  // namespace wmd::units
