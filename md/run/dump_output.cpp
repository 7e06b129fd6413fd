// Frames of `dump custom|atom|xyz`: per-atom columns gathered from the state (and per-atom computes), written
// by rank 0 in id order (dump_modify sort id) or else in one-rank LAMMPS's atom order (Atoms::order), which
// is the order an unsorted LAMMPS dump on one processor writes.
#include <algorithm>
#include <numeric>

#include "base/units.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

void Simulation::write_dumps(bool force_all) {
  for (Dump& d : dumps) {
    // dump_modify first yes: a dump that has written nothing writes at the first step it sees.
    if (!force_all && state.step % d.every != 0 && !(d.first && d.last_step < 0)) continue;
    if (d.last_step == state.step) continue;  // a run's set-up step that the previous run already wrote
    write_dump_frame(d);
    d.last_step = state.step;
  }
}

void Simulation::write_dump_frame(Dump& d) {
  if (dry_run) return;
  clearstep_computes();  // a dump frame is an output event: each compute at most once
  if (d.style == "local") return write_dump_local_frame(d);
  const Atoms& a = state.atoms;
  std::vector<size_t> idx;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.mask[i] & d.group) idx.push_back(i);
  }
  io::DumpFrame f;
  f.step = state.step;
  for (int k = 0; k < 3; ++k) {
    f.lo[k] = state.box.lo[k], f.hi[k] = state.box.hi[k];
    f.boundary[k] =
        std::string(1, static_cast<char>(state.box.face[k][0])) + static_cast<char>(state.box.face[k][1]);
  }
  f.columns = d.columns;
  const double L[3] = {state.box.prd(0), state.box.prd(1), state.box.prd(2)};
  const double inv[3] = {1.0 / L[0], 1.0 / L[1], 1.0 / L[2]};
  for (const auto& col : d.columns) {
    std::vector<double> v;
    v.reserve(idx.size());
    bool is_int = col == "id" || col == "type" || col == "ix" || col == "iy" || col == "iz";
    const std::vector<double>* computed = nullptr;
    std::vector<double> referenced;
    Reference r;
    const io::Command none{"dump", {}, SourcePos{"dump " + d.id, 0}, ""};
    if (col.size() > 2 && col[1] == '_' && parse_reference(col, r, io::ArgCursor(none))) {
      reference_peratom(r, compute_context(), SourcePos{"dump " + d.id + " " + col, 0}, referenced);
      computed = &referenced;
    }
    for (size_t i : idx) {
      double x;
      if (computed)
        x = (*computed)[i];
      else if (col == "id")
        x = static_cast<double>(a.id[i]);
      else if (col == "type")
        x = a.type[i];
      else if (col == "mass")
        x = state.mass[a.type[i]];
      else if (col == "x")
        x = a.x[i];
      else if (col == "y")
        x = a.y[i];
      else if (col == "z")
        x = a.z[i];
      else if (col == "xs")  // LAMMPS multiplies by the inverse length (its digits)
        x = (a.x[i] - state.box.lo[0]) * inv[0];
      else if (col == "ys")
        x = (a.y[i] - state.box.lo[1]) * inv[1];
      else if (col == "zs")
        x = (a.z[i] - state.box.lo[2]) * inv[2];
      else if (col == "xu")
        x = a.x[i] + a.ix[i] * L[0];
      else if (col == "yu")
        x = a.y[i] + a.iy[i] * L[1];
      else if (col == "zu")
        x = a.z[i] + a.iz[i] * L[2];
      else if (col == "xsu")  // scaled and unwrapped: xs plus the image count
        x = (a.x[i] - state.box.lo[0]) * inv[0] + a.ix[i];
      else if (col == "ysu")
        x = (a.y[i] - state.box.lo[1]) * inv[1] + a.iy[i];
      else if (col == "zsu")
        x = (a.z[i] - state.box.lo[2]) * inv[2] + a.iz[i];
      else if (col == "ix")
        x = a.ix[i];
      else if (col == "iy")
        x = a.iy[i];
      else if (col == "iz")
        x = a.iz[i];
      else if (col == "vx")
        x = a.vx[i];
      else if (col == "vy")
        x = a.vy[i];
      else if (col == "vz")
        x = a.vz[i];
      else if (col == "fx")
        x = a.fx[i];
      else if (col == "fy")
        x = a.fy[i];
      else
        x = a.fz[i];
      v.push_back(x);
    }
    f.values.push_back(std::move(v));
    f.is_integer.push_back(is_int);
  }
  // Rows (id and LAMMPS order first, then the columns) gathered to rank 0 in rank order, then sorted.
  const size_t ncol = d.columns.size(), width = ncol + 2;
  std::vector<double> rows;
  rows.reserve(idx.size() * width);
  for (size_t r = 0; r < idx.size(); ++r) {
    rows.push_back(static_cast<double>(a.id[idx[r]]));
    rows.push_back(static_cast<double>(a.order[idx[r]]));
    for (size_t k = 0; k < ncol; ++k) rows.push_back(f.values[k][r]);
  }
  const std::vector<double> all = comm.gather(rows);
  if (!comm.root()) return;
  const size_t n = all.size() / width;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  const size_t key = d.sort_id ? 0 : 1;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t p, size_t q) { return all[p * width + key] < all[q * width + key]; });
  for (size_t k = 0; k < ncol; ++k) {
    f.values[k].resize(n);
    for (size_t r = 0; r < n; ++r) f.values[k][r] = all[order[r] * width + 2 + k];
  }
  emit_dump_frame(d, f);
}

void Simulation::emit_dump_frame(Dump& d, const io::DumpFrame& f) {
  std::string file = d.file;
  if (d.multifile) {
    // One file per frame: '*' becomes the step, zero-padded to `pad` digits (dump_modify pad).
    std::string step = std::to_string(state.step);
    if (static_cast<int>(step.size()) < d.pad) step.insert(0, d.pad - step.size(), '0');
    file.replace(file.find('*'), 1, step);
    d.writer = std::make_unique<io::DumpTextWriter>();
    if (!d.writer->open(file, d.gz)) throw RunError("cannot write dump file '" + file + "'");
  }
  if (!d.writer) return;
  d.writer->set_layout(d.style == "xyz"     ? io::DumpLayout::xyz
                       : d.style == "local" ? io::DumpLayout::local
                       : d.style == "cfg"   ? io::DumpLayout::cfg
                                            : io::DumpLayout::custom);
  d.writer->set_label(d.label);
  d.writer->set_elements(d.elements);
  d.writer->set_formats(d.column_formats);
  d.writer->set_line_format(d.line_format);
  if (!d.writer->write(f)) throw RunError("cannot write dump file '" + file + "'");
  if (d.multifile) d.writer.reset();
}

}  // namespace wmd::md
