// References to other styles' outputs, as LAMMPS writes them in thermo_style custom, variables, dump custom,
// fix ave/time, fix print and compute reduce: c_ID, c_ID[i], c_ID[i][j], f_ID, f_ID[i], f_ID[i][j] and
// v_name. Checked against the referenced style's output shape when the referring command is read, evaluated
// with LAMMPS's invocation rule (a compute is computed once per output event; between runs only a value
// computed at the present step may be read).
#pragma once
#include <string>
#include <vector>

#include "io/command.hpp"
#include "md/styles/compute.hpp"
#include "md/styles/fix.hpp"
#include "md/styles/style_lookup.hpp"

namespace wmd::md {

struct Reference {
  enum class Kind { compute, fix, variable };
  Kind kind = Kind::compute;
  std::string id;    // compute or fix ID, variable name
  int i = 0, j = 0;  // 1-based indices; 0: none
  std::string text;  // as written

  /// The kind of value the reference names.
  enum class Shape { global, peratom, local };
};

/// Parses c_ID, c_ID[i], c_ID[i][j], f_ID…, v_name; false for any other word. Malformed indices ("c_x[0]",
/// "c_x[a]") fail at the cursor.
bool parse_reference(const std::string& word, Reference& r, const io::ArgCursor& at);

/// LAMMPS's wildcard expansion of c_ID[*], c_ID[m*n], f_ID[*] (utils::expand_args): the words c_ID[1] …
/// c_ID[n] over a global vector's elements (columns false: fix ave/time scalar mode) or a global array's
/// columns (columns true: vector mode), else a per-atom array's columns. A word without a wildcard comes
/// back alone; one naming a missing style or an output with nothing to expand fails at the cursor.
std::vector<std::string> expand_wildcard(const std::string& word, bool columns, const StyleLookup& styles,
                                         const io::ArgCursor& at);

/// Checks that the reference names an existing output of that shape (global: a scalar or one element of a
/// vector or array; per-atom: a per-atom vector or a column of a per-atom array; local: likewise), as LAMMPS
/// checks it when the command is read. `who` names the referring command in the message ("thermo_style",
/// "compute reduce", …). Variables must exist (global: any numeric style; per-atom: atom-style, which
/// wafermd does not have, so per-atom v_ references are refused).
void check_reference(const Reference& r, Reference::Shape shape, const StyleLookup& styles,
                     const io::ArgCursor& at, const std::string& who);

/// True when the referenced global value grows with the number of atoms (LAMMPS's extscalar/extvector).
bool reference_extensive(const Reference& r, const StyleLookup& styles);

/// The global value (collective). During a run the compute is invoked as needed (once per output event);
/// between runs it must have been computed at the present step, else InputError at `at` (LAMMPS's "Compute
/// used in variable between runs is not current"), except in the dry run.
double reference_value(const Reference& r, const ComputeContext& ctx, const SourcePos& at);

/// This rank's per-atom values (state order, one per atom; 0 outside the referenced style's group).
void reference_peratom(const Reference& r, const ComputeContext& ctx, const SourcePos& at,
                       std::vector<double>& out);

/// This rank's local values (one per local row of the referenced compute, in its order): a local vector, or
/// column i of a local array.
void reference_local(const Reference& r, const ComputeContext& ctx, const SourcePos& at,
                     std::vector<double>& out);

/// True when the reference names a compute or fix whose values are local (it has local output and no
/// per-atom output: compute reduce reads such a reference as local values, as LAMMPS's does).
bool reference_is_local(const Reference& r, const StyleLookup& styles);

}  // namespace wmd::md
