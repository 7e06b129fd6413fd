// What a fix or compute may reach by name while it runs, as LAMMPS styles reach modify->compute[],
// modify->fix[] and input->variable: the other computes and fixes, and the script's variables. The
// Simulation implements it (md/run/), so styles stay below the run layer.
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"

namespace wmd::md {

class Compute;
class Fix;

class StyleLookup {
 public:
  virtual ~StyleLookup() = default;
  /// A compute by ID, or null.
  virtual Compute* compute(const std::string& id) const = 0;
  /// A fix by ID, or null.
  virtual Fix* fix(const std::string& id) const = 0;
  /// True when an equal-style (or numeric index/string) variable of that name exists.
  virtual bool has_variable(const std::string& name) const = 0;
  /// The numeric value of variable `name` (equal-style formulas are evaluated, invoking computes as LAMMPS's
  /// variables do); a bad formula throws.
  virtual double variable(const std::string& name) = 0;
  /// LAMMPS's modify->clearstep_compute(): the next reference to a compute in this output event computes it
  /// afresh (fix ave/time and fix print start their sampling with it, as thermo and dumps do).
  virtual void clearstep_computes() = 0;
  /// True when `name` is an atom-style variable (a value per atom).
  virtual bool has_atom_variable(const std::string& name) const {
    (void)name;
    return false;
  }
  /// This rank's values of atom-style variable `name` (state order), its formula evaluated per atom now.
  virtual void atom_variable(const std::string& name, const SourcePos& at, std::vector<double>& out) {
    (void)name, (void)out;
    fail_input(at, "atom-style variable " + name + ": no atoms here");
  }
  /// The text with LAMMPS's $x, ${name} and $(formula[:fmt]) substituted now (fix print), as `print` does.
  virtual std::string substitute(const std::string& text, const SourcePos& at) = 0;
  /// A line for the screen and the log (rank 0 prints it).
  virtual void print_line(const std::string& text) = 0;
  /// The energy of the fixes `fix_modify energy yes` adds to the potential energy (LAMMPS's
  /// modify->energy_global()); collective.
  virtual double fix_energy() const { return 0.0; }
  /// LAMMPS's ghost cutoff comm->cutghost (the pair cutoff plus the neighbour skin): how far beyond the box
  /// one-rank LAMMPS keeps periodic images, which bounds what compute voronoi/atom tessellates.
  virtual double ghost_cutoff() const { return 0.0; }
  /// The neighbour skin (Å), which LAMMPS adds to a compute's own cutoff when it checks it against the
  /// ghosts.
  virtual double neighbor_skin() const { return 0.0; }
  /// True while a run or minimisation is in progress (references then invoke computes; between runs a
  /// reference may only read a current value).
  virtual bool in_run() const = 0;
};

}  // namespace wmd::md
