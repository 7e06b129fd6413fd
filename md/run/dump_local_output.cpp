// Frames of `dump local`: the local rows of the computes its columns name (c_ID, c_ID[i]) and `index`, rank
// 0's rows first, then rank 1's, … as LAMMPS writes them; index counts the rows 1…N in that order.
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

void Simulation::write_dump_local_frame(Dump& d) {
  io::DumpFrame f;
  f.step = state.step;
  fill_frame_box(state.box, f);
  f.columns = d.columns;
  const size_t ncol = d.columns.size();
  std::vector<std::vector<double>> cols(ncol);
  const io::Command none{"dump", {}, SourcePos{"dump " + d.id, 0}, ""};
  int64_t rows = -1;
  std::string first;
  for (size_t k = 0; k < ncol; ++k) {
    Reference r;
    if (d.columns[k] == "index" || !parse_reference(d.columns[k], r, io::ArgCursor(none))) continue;
    reference_local(r, compute_context(), SourcePos{"dump " + d.id + " " + d.columns[k], 0}, cols[k]);
    const int64_t n = static_cast<int64_t>(cols[k].size());
    if (rows >= 0 && n != rows)
      throw RunError("dump local " + d.id + ": " + d.columns[k] + " has " + std::to_string(n) +
                     " rows on rank " + std::to_string(comm.rank()) + ", " + first + " " +
                     std::to_string(rows) +
                     " (LAMMPS: \"Dump local count is not consistent across input fields\")");
    if (rows < 0) rows = n, first = d.columns[k];
  }
  if (rows < 0) rows = 0;
  // Rows gathered to rank 0 in rank order; index is then the row's place.
  std::vector<double> mine;
  mine.reserve(static_cast<size_t>(rows) * ncol);
  for (int64_t r = 0; r < rows; ++r)
    for (size_t k = 0; k < ncol; ++k) mine.push_back(cols[k].empty() ? 0.0 : cols[k][r]);
  const std::vector<double> all = comm.gather(mine);
  if (!comm.root()) return;
  const size_t n = ncol > 0 ? all.size() / ncol : 0;
  f.values.assign(ncol, std::vector<double>(n));
  for (size_t k = 0; k < ncol; ++k) {
    const bool index = d.columns[k] == "index";
    f.is_integer.push_back(d.kind->integer_column(d.columns[k]));
    for (size_t r = 0; r < n; ++r) f.values[k][r] = index ? static_cast<double>(r + 1) : all[r * ncol + k];
  }
  emit_dump_frame(d, f);
}

}  // namespace wmd::md
