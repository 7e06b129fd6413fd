// Fuzzes the LAMMPS-script reader as far as it goes without a simulation: lines, continuations, quotes,
// comments, variables of every style, $x ${x} $(expr:%fmt) substitution, expressions, `if` Booleans, labels,
// jumps (at most 64, as the dry run bounds them) and includes; and every `thermo_modify format` it
// produces through the thermo formatter.
#include <cstdint>

#include "harness.hpp"
#include "io/lammps_script.hpp"
#include "io/thermo_format.hpp"
#include "scratch_file.hpp"

namespace {

void format_thermo(const wmd::io::Command& c) {
  using namespace wmd::io;
  if (c.name != "thermo_modify" || c.args.size() < 3 || c.args[0] != "format") return;
  const std::string& what = c.args[1];
  const std::string& fmt = c.args[2];
  ThermoFormat tf;
  tf.set_columns({"Step", "Temp", "PotEng"}, {true, false, false});
  if (what == "line" && valid_line_format(fmt)) tf.set_line(fmt);
  if (what == "int" && valid_int_format(fmt)) tf.set_int(fmt);
  if (what == "float" && valid_float_format(fmt)) tf.set_float(fmt);
  if (what == "2") tf.set_column(2, fmt);  // unchecked: the formatter must still be safe
  (void)tf.row({1e18, -2.5e300, 0.125});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = wmd::fuzz::scratch_input(data, size, "script.in");
  return wmd::fuzz::guarded([&] {
    wmd::io::Variables vars;
    vars.set_thermo_resolver([](const std::string& name, double& v) {
      if (name != "step" && name != "temp" && name != "pe") return false;
      v = name == "step" ? 100.0 : 1.5;
      return true;
    });
    wmd::io::LammpsScript script(path, vars, wmd::SourcePos{"<fuzz>", 0});
    script.limit_jumps(64);
    wmd::io::Command c;
    for (int n = 0; n < 100000 && script.next(c); ++n) format_thermo(c);
  });
}
