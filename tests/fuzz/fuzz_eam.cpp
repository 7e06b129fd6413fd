// Fuzz harness for EAM potential files (funcfl, setfl, Finnis–Sinclair): the first byte picks the format, the
// rest is the file. A file that reads is built into spline tables and looked up at in-table, out-of-table and
// NaN radii and densities. Only InputError is an expected answer; the memory budget is lowered so that a
// table too large for it is refused as it would be in a run.
#include <cmath>
#include <fstream>
#include <limits>

#include "base/memory_budget.hpp"
#include "harness.hpp"
#include "potentials/eam_tables.hpp"
#include "scratch_file.hpp"

namespace pot = wmd::potentials;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  wmd::memory::set_limit_gb(1.0);
  static const std::string path = wmd::fuzz::scratch_file("eam.eam");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  const pot::EamStyle style = data[0] % 3 == 0   ? pot::EamStyle::funcfl
                              : data[0] % 3 == 1 ? pot::EamStyle::setfl
                                                 : pot::EamStyle::finnis_sinclair;
  return wmd::fuzz::guarded([&] {
    const int ntypes = 2;
    pot::EamBuilder b(style, ntypes);
    const wmd::SourcePos at{"in.fuzz", 1};
    if (style == pot::EamStyle::funcfl) {
      b.add_funcfl(1, 2, 1, 2, path, at);
    } else {
      // Both types mapped to the file's first element (or its second, when it has one).
      const pot::SetflFile f = pot::read_setfl(path, style == pot::EamStyle::finnis_sinclair, at);
      b.set_elements(path, {f.elements[0], f.elements.back()}, at);
    }
    if (!b.complete()) return;
    const pot::EamTables t = b.build();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    volatile double sink = 0.0;
    for (double x : {0.0, 0.5 * t.cutmax, t.cutmax, 1e300, nan, -1.0}) {
      double d = 0.0;
      sink = sink + t.embed(1, x) + t.embed_deriv(2, x) + t.density(1, 2, x, &d) + d;
      if (x > 0.0) sink = sink + t.pair(2, 1, x, &d) + d;
    }
  });
}
