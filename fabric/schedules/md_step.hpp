// The PE program of one molecular-dynamics step on the mesh (one atom per PE), built from counts alone:
// how many neighbour-list entries each PE holds and how many of them lie within the cutoff. fabric/ knows no
// physics; the instruction counts per entry are the EAM pair work the mesh backend's kernels do
// (docs/fabric.md).
#pragma once
#include <vector>

#include "fabric/hardware.hpp"
#include "fabric/pe_program.hpp"

namespace wmd::fabric {

/// Activities of the MD step program (PeProgram::activities, in this order).
enum MdActivity : int {
  ActPositions = 0,  // the positions window multicast
  ActFp,             // the F′ window multicast
  ActReductions,     // the rebuild vote (max-reduction)
  ActSwap,           // neighbour swaps (rebuild steps)
  ActDensity,        // density pass over the neighbour list
  ActEmbedding,      // F(ρ̄), F′(ρ̄) of the own atom
  ActForce,          // force pass over the neighbour list
  ActIntegration,    // velocity Verlet of the own atom
  ActRebuild,        // rebuild trigger, swap compares, the window scan
  ActReverse,        // Newton variant: the partial densities' and pair forces' sums back along the window
  MdActivities
};

/// How a PE keeps a potential's tabulated functions (each with `points` knots; a lookup finds the knot
/// interval of r or ρ̄ and evaluates a cubic there):
/// - Spline7: LAMMPS's layout, 7 coefficients per knot (the value cubic's 4 and the derivative's 3);
/// - Spline4: the value cubic's 4 coefficients, the derivative formed from them (3 multiplies more);
/// - Hermite2: the knot's value and slope, the interval's cubic formed from both ends' (6 operations more).
/// All three give LAMMPS's cubic on each interval (docs/fabric.md, "The PE's memory").
enum class TableLayout : int { Spline7 = 0, Spline4, Hermite2 };
/// Words per knot of a layout, and its name ("spline7", "spline4", "hermite2").
int table_words_per_point(TableLayout t);
const char* table_layout_name(TableLayout t);

/// The potential's tables as a PE holds them: functions of r (ρ(r) and z2r(r) per species and pair of
/// species) with `r_points` knots each, functions of ρ̄ (F per species) with `rho_points` each.
struct TableShape {
  int r_points = 0, rho_points = 0;
  int r_tables = 2, rho_tables = 1;
};

/// One MD step's work per PE.
struct MdStepSpec {
  Grid grid;
  bool wrap = false;
  int b = 1;
  int position_words = 3;       // fp32 position
  int fp_words = 1;             // fp32 F′
  int swap_words = 11;          // one atom record
  int scan_words = 5;           // position, type and id: the window a rebuild scans
  std::vector<int> candidates;  // per logical PE: neighbour-list entries (pairs within cutoff + skin)
  std::vector<int> in_cut;      // per logical PE: of those, pairs within the cutoff
  bool rebuild = false;         // a rebuild step: swaps and the whole-window scan
  bool vote = true;             // the rebuild trigger's global max every step (LAMMPS `check yes`)
  // The local rebuild criterion instead of the vote (docs/fabric.md): the positions carry one flag word per
  // PE, the density pass checks every window slot's flag as it lands, and a rescan step (`rebuild`) swaps
  // among flagged pairs and rescans the window from the references the PE keeps, with no scan multicast.
  bool local_trigger = false;
  bool streaming = true;  // passes consume words as they land; false: each waits for its exchange's end
  // Vector forms: the passes' per-entry work as one vector instruction per operation over groups of this
  // many entries (in landing order), used when the preset makes them cheaper than scalar forms (its
  // vector_issue and vector_elements_per_cycle); 0 or 1: scalar forms.
  int vector_group = 8;
  // Newton's third law: each pair is computed once, by the PE that has the other in its half window
  // (dy > 0, or dy == 0 and dx > 0); the neighbour's share (its density contribution, then the pair force
  // with the opposite sign) is summed back to it along the reverse path, one word before the embedding and
  // three after the force pass. The half-window multicast and the reverse sums are priced as window
  // multicasts of the same words (docs/fabric.md: what that stand-in does and does not capture).
  bool newton = false;
  TableLayout table_layout = TableLayout::Spline7;
  TableShape tables;        // sizes for the memory account (0 knots: tables not counted)
  bool one_species = true;  // ρ′ is one function for every pair (LAMMPS evaluates ρ′_i and ρ′_j)
  // The density pass keeps each in-cut pair's displacement, r and table interval (6 words); the force pass
  // reads them instead of recomputing the distance and the lookup, and skips entries outside the cutoff.
  bool keep_distances = false;
};

/// Bytes one PE holds for the step's program (docs/fabric.md, "The PE's memory"), by part.
struct PeMemory {
  long long code = 0;     // runtime reserve and the program's instructions
  long long tables = 0;   // the potential's tables in the spec's layout
  long long buffers = 0;  // receive buffers: the positions' (or the scan's) window, F′'s, the reverse sums'
  long long lists = 0;    // neighbour entries (and kept distances)
  long long atom = 0;     // the own atom's state
  long long total() const { return code + tables + buffers + lists + atom; }
};
/// The memory the program of `s` needs on the PE with the most entries.
PeMemory md_step_memory(const MdStepSpec& s, const HardwareSpec& hw);

/// Fills `s.candidates` and `s.in_cut` with a crystal-like neighbourhood: about `fraction` of the window
/// (the 801,792-atom Cu slab has 78 of 440) with a deterministic ±2 jitter per PE, `in_cut_fraction` of them
/// within the cutoff (Cu: 42 of 78); without wrap clipped to the slots a PE's window has on the mesh.
void synthetic_neighbours(MdStepSpec& s, double fraction = 0.18, double in_cut_fraction = 0.54);
/// Fills every PE with the same counts (without wrap clipped to the slots an edge PE's window has).
void uniform_neighbours(MdStepSpec& s, int candidates, int in_cut);

/// The step's program. Neighbour entries are the window slots nearest the PE (clipped to the slots that exist
/// at the mesh edge), visited in the order their words land. Throws std::logic_error on bad counts.
PeProgram build_md_step(const MdStepSpec& s, const HardwareSpec& hw);

}  // namespace wmd::fabric
