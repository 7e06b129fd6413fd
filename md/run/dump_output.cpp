// Frames of the per-atom text dumps (custom, atom, xyz, cfg): per-atom columns gathered from the state (and
// per-atom computes), written by rank 0 in id order (dump_modify sort id) or else in one-rank LAMMPS's atom
// order (Atoms::order), which is the order an unsorted LAMMPS dump on one processor writes; dump_modify
// thresh keeps only the atoms that pass every threshold. Each style lays the frame out (md/run/dumps/).
#include <algorithm>

#include "base/units.hpp"
#include "md/run/dump_style.hpp"
#include "md/run/simulation.hpp"
#include "md/styles/reference.hpp"

namespace wmd::md {

void Simulation::write_dumps(bool setup) {
  for (Dump& d : dumps) {
    bool write;
    if (setup) {
      // LAMMPS's Output::setup: a frame when the step is a multiple of the interval (never for a variable's
      // steps) or, with dump_modify first yes, when the dump has written nothing yet.
      write = (d.every_var.empty() && state.step % d.every == 0) || (d.first && d.last_step < 0);
    } else {
      write = dump_due(d, state.step);
    }
    if (state.step < d.delay) write = false;  // dump_modify delay
    // last_step: a run's set-up step that the previous run already wrote.
    if (write && d.last_step != state.step) {
      write_dump_frame(d);
      d.last_step = state.step;
    }
    // A variable's next step: at each set-up and after each of its frames (frames before the delay count).
    if (!d.every_var.empty() && (setup || state.step == d.next))
      d.next = output_step_from(d.every_var, d.every_pos, "dump_modify " + d.id + " every v_" + d.every_var,
                                "Dump every variable returned a bad timestep");
  }
}

namespace {

// LAMMPS's xsu: the scaled coordinate plus the image count as it is packed, (s + (image + IMGMAX)) −
// IMGMAX with IMGMAX = 512 (32-bit imageint, as Debian's lmp): the sum rounds to 512's ulp, and LAMMPS
// prints those digits.
double scaled_unwrapped(double s, int image) {
  constexpr int kImgMax = 512;
  return s + (image + kImgMax) - kImgMax;
}

// A triclinic box's scaled (fractional) and unwrapped columns, LAMMPS's pack_*_triclinic.
double triclinic_column(const Box& b, const std::string& col, const Atoms& a, size_t i) {
  const double x[3] = {a.x[i], a.y[i], a.z[i]};
  const int d = col[0] - 'x';
  if (col.size() == 2 && col[1] == 'u') {
    double u[3];
    b.unwrap(x, a.ix[i], a.iy[i], a.iz[i], u);
    return u[d];
  }
  double l[3];
  b.to_lamda(x, l);
  if (col.size() == 3) return scaled_unwrapped(l[d], d == 0 ? a.ix[i] : d == 1 ? a.iy[i] : a.iz[i]);
  return l[d];
}

}  // namespace

void Simulation::write_dump_frame(Dump& d) {
  if (dry_run) return;
  clearstep_computes();  // a dump frame is an output event: each compute at most once
  if (d.kind->local_rows()) return write_dump_local_frame(d);
  const Atoms& a = state.atoms;
  std::vector<size_t> idx;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a.mask[i] & d.group) idx.push_back(i);
  }
  io::DumpFrame f;
  f.step = state.step;
  fill_frame_box(state.box, f);
  f.columns = d.columns;
  const double L[3] = {state.box.prd(0), state.box.prd(1), state.box.prd(2)};
  const double inv[3] = {1.0 / L[0], 1.0 / L[1], 1.0 / L[2]};
  const bool tri = state.box.triclinic;
  // The values of a column (or a threshold's attribute) for the dumped atoms.
  auto values_of = [&](const std::string& col) {
    std::vector<double> v;
    v.reserve(idx.size());
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
      else if (col == "type" || col == "element")
        x = a.type[i];
      else if (col == "mass")
        x = state.mass[a.type[i]];
      else if (col == "x")
        x = a.x[i];
      else if (col == "y")
        x = a.y[i];
      else if (col == "z")
        x = a.z[i];
      else if (tri && (col == "xs" || col == "ys" || col == "zs" || col == "xsu" || col == "ysu" ||
                       col == "zsu" || col == "xu" || col == "yu" || col == "zu"))
        x = triclinic_column(state.box, col, a, i);
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
        x = scaled_unwrapped((a.x[i] - state.box.lo[0]) * inv[0], a.ix[i]);
      else if (col == "ysu")
        x = scaled_unwrapped((a.y[i] - state.box.lo[1]) * inv[1], a.iy[i]);
      else if (col == "zsu")
        x = scaled_unwrapped((a.z[i] - state.box.lo[2]) * inv[2], a.iz[i]);
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
    return v;
  };
  for (const auto& col : d.columns) {
    f.values.push_back(values_of(col));
    f.is_integer.push_back(d.kind->integer_column(col));
  }
  // Rows (id and LAMMPS order first, then the columns, then the thresholds' attributes) gathered to rank 0
  // in rank order, then filtered by the thresholds and sorted.
  const size_t ncol = d.columns.size(), nthresh = d.thresholds.size(), width = ncol + 2 + nthresh;
  std::vector<std::vector<double>> tvalues;
  for (const DumpThreshold& t : d.thresholds) tvalues.push_back(values_of(t.attribute));
  std::vector<double> rows;
  rows.reserve(idx.size() * width);
  for (size_t r = 0; r < idx.size(); ++r) {
    rows.push_back(static_cast<double>(a.id[idx[r]]));
    rows.push_back(static_cast<double>(a.order[idx[r]]));
    for (size_t k = 0; k < ncol; ++k) rows.push_back(f.values[k][r]);
    for (size_t k = 0; k < nthresh; ++k) rows.push_back(tvalues[k][r]);
  }
  const std::vector<double> all = comm.gather(rows);
  if (!comm.root()) return;
  const size_t gathered = all.size() / width;
  std::vector<size_t> order;
  order.reserve(gathered);
  std::vector<char> chosen(gathered, 1);
  for (size_t k = 0; k < nthresh; ++k) {
    // Each threshold in turn un-chooses atoms (LAMMPS's count()); a LAST one then remembers every atom's
    // value for the next frame, and on its first frame compares the values with themselves.
    DumpThreshold& t = d.thresholds[k];
    for (size_t r = 0; r < gathered; ++r) {
      const double v = all[r * width + 2 + ncol + k];
      const int64_t atom_id = static_cast<int64_t>(all[r * width]);
      double ref = t.value;
      if (t.last && !t.first) {
        const auto it = t.previous.find(atom_id);
        ref = it == t.previous.end() ? 0.0 : it->second;  // an atom new since then: FixStore's zero
      } else if (t.last) {
        ref = v;
      }
      if (chosen[r] && !compare(v, t.op, ref)) chosen[r] = 0;
    }
    if (t.last) {
      t.first = false;
      for (size_t r = 0; r < gathered; ++r)
        t.previous[static_cast<int64_t>(all[r * width])] = all[r * width + 2 + ncol + k];
    }
  }
  for (size_t r = 0; r < gathered; ++r)
    if (chosen[r]) order.push_back(r);
  const size_t n = order.size();
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
  if (!d.writer->write(d.kind->frame_text(f, d))) throw RunError("cannot write dump file '" + file + "'");
  if (d.multifile) d.writer.reset();
}

}  // namespace wmd::md
