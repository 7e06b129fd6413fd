#include "io/h5md_writer.hpp"

#include <algorithm>
#include <filesystem>

#include "base/error.hpp"
#include "base/units.hpp"

namespace wmd::io {
namespace {

using h5::check;
using h5::Handle;

bool is_vector_field(const std::string& f) {
  return f == "position" || f == "velocity" || f == "force" || f == "image";
}

hid_t file_type_of(const std::string& f) {
  if (f == "id") return H5T_STD_I64LE;
  if (f == "image" || f == "species") return H5T_STD_I32LE;
  return H5T_IEEE_F64LE;
}

// An extensible dataset [frames][inner...], chunked one frame (or a few MB of it) at a time.
Handle create_series(hid_t parent, const std::string& name, hid_t type, std::vector<hsize_t> inner) {
  std::vector<hsize_t> dims = {0}, maxdims = {H5S_UNLIMITED}, chunk = {1};
  for (hsize_t d : inner) dims.push_back(d), maxdims.push_back(d), chunk.push_back(std::max<hsize_t>(d, 1));
  // Keep chunks near 4 MB: split the atom axis of big systems.
  if (inner.size() >= 1) {
    hsize_t per_atom = 8 * (inner.size() == 2 ? inner[1] : 1);
    const hsize_t max_atoms = std::max<hsize_t>(1, (4u << 20) / per_atom);
    chunk[1] = std::min(chunk[1], max_atoms);
  }
  Handle sp(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()), "dataspace"));
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "property list"));
  check(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), "chunking");
  return Handle(
      check(H5Dcreate2(parent, name.c_str(), type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), "dataset " + name));
}

// Appends one frame (row) to a series; `data` holds the row in memory type `mtype`.
void append(hid_t dset, hid_t mtype, const void* data) {
  Handle fs(check(H5Dget_space(dset), "dataspace"));
  const int rank = H5Sget_simple_extent_ndims(fs);
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(fs, dims.data(), nullptr);
  std::vector<hsize_t> start(rank, 0), count = dims;
  start[0] = dims[0];
  count[0] = 1;
  dims[0] += 1;
  check(H5Dset_extent(dset, dims.data()), "extending a dataset");
  Handle fs2(check(H5Dget_space(dset), "dataspace"));
  check(H5Sselect_hyperslab(fs2, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr), "selection");
  Handle ms(check(H5Screate_simple(rank, count.data(), nullptr), "dataspace"));
  check(H5Dwrite(dset, mtype, ms, fs2, H5P_DEFAULT, data), "writing a frame");
}

hsize_t length(hid_t dset) {
  Handle fs(check(H5Dget_space(dset), "dataspace"));
  hsize_t dims[3] = {0, 0, 0};
  H5Sget_simple_extent_dims(fs, dims, nullptr);
  return dims[0];
}

void truncate(hid_t dset, hsize_t n) {
  Handle fs(check(H5Dget_space(dset), "dataspace"));
  const int rank = H5Sget_simple_extent_ndims(fs);
  std::vector<hsize_t> dims(rank);
  H5Sget_simple_extent_dims(fs, dims.data(), nullptr);
  dims[0] = std::min(dims[0], n);
  check(H5Dset_extent(dset, dims.data()), "truncating a dataset");
}

std::vector<int64_t> read_steps(hid_t dset) {
  std::vector<int64_t> s(length(dset));
  if (!s.empty())
    check(H5Dread(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()), "reading steps");
  return s;
}

// Number of leading entries with step <= last (steps increase).
hsize_t kept(const std::vector<int64_t>& steps, int64_t last) {
  return static_cast<hsize_t>(std::upper_bound(steps.begin(), steps.end(), last) - steps.begin());
}

}  // namespace

H5mdWriter::H5mdWriter() {
  h5::quiet_errors();
}
H5mdWriter::~H5mdWriter() {
  try {
    close();
  } catch (const RunError&) {
    // a destructor must not throw; every frame was flushed when it was written
  }
}

void H5mdWriter::close() {
  obs_.clear();
  values_.clear();
  edges_.reset();
  step_.reset();
  time_.reset();
  if (file_.valid() && H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0)
    throw RunError("cannot flush trajectory file '" + setup_.path + "'");
  file_.reset();
}

void H5mdWriter::open_rw() {
  file_ = Handle(H5Fopen(setup_.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  if (!file_.valid()) throw RunError("cannot open trajectory file '" + setup_.path + "' for writing");
  open_layout();
  Handle og = h5::open_or_create_group(file_, "observables");
  H5G_info_t info;
  H5Gget_info(og, &info);
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[256];
    if (H5Lget_name_by_idx(og, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT) < 0)
      continue;
    Obs o;
    o.name = name;
    o.step = Handle(check(H5Dopen2(og, (o.name + "/step").c_str(), H5P_DEFAULT), "observable"));
    o.time = Handle(check(H5Dopen2(og, (o.name + "/time").c_str(), H5P_DEFAULT), "observable"));
    o.value = Handle(check(H5Dopen2(og, (o.name + "/value").c_str(), H5P_DEFAULT), "observable"));
    obs_.push_back(std::move(o));
  }
}

void H5mdWriter::create(const H5mdSetup& setup) {
  close();
  setup_ = setup;
  if (std::find(setup_.fields.begin(), setup_.fields.end(), "position") == setup_.fields.end())
    setup_.fields.insert(setup_.fields.begin(), "position");
  file_ = Handle(H5Fcreate(setup_.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  if (!file_.valid()) throw RunError("cannot create trajectory file '" + setup_.path + "'");
  create_layout();
  frames_ = 0;
  last_step_ = -1;
  ready_ = true;
  close();  // closed between frames, so readers (HDF5 file locking) can open it during the run
}

void H5mdWriter::create_layout() {
  const hid_t f = file_;
  {
    Handle g = h5::open_or_create_group(f, "h5md");
    h5::set_int_attr(g, "version", {1, 1});
    Handle a = h5::open_or_create_group(g, "author");
    h5::set_string_attr(a, "name", setup_.author);
    Handle c = h5::open_or_create_group(g, "creator");
    h5::set_string_attr(c, "name", "wafermd");
    h5::set_string_attr(c, "version", setup_.creator_version);
    Handle u = h5::open_or_create_group(g, "modules/units");
    h5::set_int_attr(u, "version", {1, 0});
  }
  Handle all = h5::open_or_create_group(f, "particles/all");
  for (const auto& name : setup_.fields) {
    Handle g = h5::open_or_create_group(all, name);
    const hsize_t n = static_cast<hsize_t>(setup_.natoms);
    Handle v = create_series(g, "value", file_type_of(name),
                             is_vector_field(name) ? std::vector<hsize_t>{n, 3} : std::vector<hsize_t>{n});
    if (name == "position") {
      h5::set_string_attr(v, "unit", h5md_units::length);
      step_ = create_series(g, "step", H5T_STD_I64LE, {});
      time_ = create_series(g, "time", H5T_IEEE_F64LE, {});
      h5::set_string_attr(time_, "unit", h5md_units::time);
    } else {
      // Every element is sampled at the same frames: share position's step and time (H5MD allows links).
      check(H5Lcreate_hard(all, "position/step", g, "step", H5P_DEFAULT, H5P_DEFAULT), "link");
      check(H5Lcreate_hard(all, "position/time", g, "time", H5P_DEFAULT, H5P_DEFAULT), "link");
      if (name == "velocity") h5::set_string_attr(v, "unit", h5md_units::velocity);
      if (name == "force") h5::set_string_attr(v, "unit", h5md_units::force);
    }
    values_.emplace_back(name, std::move(v));
  }
  Handle box = h5::open_or_create_group(all, "box");
  h5::set_int_scalar_attr(box, "dimension", 3);
  std::vector<std::string> b;
  for (bool p : setup_.periodic) b.push_back(p ? "periodic" : "none");
  h5::set_string_array_attr(box, "boundary", b);
  Handle e = h5::open_or_create_group(box, "edges");
  // Written as a 3×3 matrix whose rows are the edge vectors (diagonal for an orthogonal box): H5MD allows
  // it, and MDAnalysis reads box edges only in this form.
  edges_ = create_series(e, "value", H5T_IEEE_F64LE, {3, 3});
  h5::set_string_attr(edges_, "unit", h5md_units::length);
  check(H5Lcreate_hard(all, "position/step", e, "step", H5P_DEFAULT, H5P_DEFAULT), "link");
  check(H5Lcreate_hard(all, "position/time", e, "time", H5P_DEFAULT, H5P_DEFAULT), "link");
  Handle p = h5::open_or_create_group(f, "parameters");
  h5::write_string_dataset(p, "input", setup_.input_text);
  h5::write_string_dataset(p, "input_file", setup_.input_name);
  h5::write_string_dataset(p, "wafermd_version", setup_.creator_version);
  h5::open_or_create_group(f, "observables");
}

int64_t H5mdWriter::reopen(const H5mdSetup& setup, int64_t last_kept_step) {
  if (!std::filesystem::exists(setup.path)) {
    create(setup);
    return 0;
  }
  close();
  setup_ = setup;
  if (std::find(setup_.fields.begin(), setup_.fields.end(), "position") == setup_.fields.end())
    setup_.fields.insert(setup_.fields.begin(), "position");
  open_rw();
  const hsize_t k = kept(read_steps(step_), last_kept_step);
  truncate(step_, k);
  truncate(time_, k);
  truncate(edges_, k);
  for (auto& [name, v] : values_) truncate(v, k);
  // Observables keep their own step arrays (code may add one later in a run).
  for (Obs& o : obs_) {
    const hsize_t ko = kept(read_steps(o.step), last_kept_step);
    truncate(o.step, ko), truncate(o.time, ko), truncate(o.value, ko);
  }
  frames_ = static_cast<int64_t>(k);
  const auto steps = read_steps(step_);
  last_step_ = steps.empty() ? -1 : steps.back();
  ready_ = true;
  close();
  return frames_;
}

void H5mdWriter::open_layout() {
  auto open = [&](const std::string& path) {
    Handle d(H5Dopen2(file_, path.c_str(), H5P_DEFAULT));
    if (!d.valid())
      throw RunError("trajectory file '" + setup_.path + "' lacks " + path +
                     " (written with other output.trajectory.fields?); move it away to start a new one");
    return d;
  };
  step_ = open("particles/all/position/step");
  time_ = open("particles/all/position/time");
  edges_ = open("particles/all/box/edges/value");
  for (const auto& name : setup_.fields) {
    Handle v = open("particles/all/" + name + "/value");
    Handle sp(H5Dget_space(v));
    hsize_t dims[3] = {0, 0, 0};
    H5Sget_simple_extent_dims(sp, dims, nullptr);
    if (static_cast<int64_t>(dims[1]) != setup_.natoms)
      throw RunError("trajectory file '" + setup_.path + "' holds " + std::to_string(dims[1]) +
                     " atoms, not " + std::to_string(setup_.natoms));
    values_.emplace_back(name, std::move(v));
  }
}

H5mdWriter::Obs& H5mdWriter::observable(const std::string& name, const std::string& unit) {
  for (auto& o : obs_) {
    if (o.name == name) return o;
  }
  Handle g = h5::open_or_create_group(file_, "observables/" + name);
  Obs o;
  o.name = name;
  o.step = create_series(g, "step", H5T_STD_I64LE, {});
  o.time = create_series(g, "time", H5T_IEEE_F64LE, {});
  h5::set_string_attr(o.time, "unit", h5md_units::time);
  o.value = create_series(g, "value", H5T_IEEE_F64LE, {});
  if (!unit.empty()) h5::set_string_attr(o.value, "unit", unit);
  obs_.push_back(std::move(o));
  return obs_.back();
}

void H5mdWriter::write_frame(const H5mdFrame& fr) {
  if (!ready_) throw RunError("trajectory file is not set up");
  open_rw();
  const size_t n = static_cast<size_t>(setup_.natoms);
  auto need = [&](const std::string& what, size_t have, size_t want) {
    if (have != want)
      throw RunError("trajectory frame: " + what + " has " + std::to_string(have) + " values, expected " +
                     std::to_string(want));
  };
  append(step_, H5T_NATIVE_INT64, &fr.step);
  append(time_, H5T_NATIVE_DOUBLE, &fr.time);
  const double m[9] = {fr.edges[0], 0, 0, fr.tilt[0], fr.edges[1], 0, fr.tilt[1], fr.tilt[2], fr.edges[2]};
  append(edges_, H5T_NATIVE_DOUBLE, m);
  for (auto& [name, v] : values_) {
    if (name == "position") {
      need(name, fr.position.size(), 3 * n);
      append(v, H5T_NATIVE_DOUBLE, fr.position.data());
    } else if (name == "velocity") {
      need(name, fr.velocity.size(), 3 * n);
      append(v, H5T_NATIVE_DOUBLE, fr.velocity.data());
    } else if (name == "force") {
      need(name, fr.force.size(), 3 * n);
      std::vector<double> f(fr.force);
      for (double& x : f) x *= units::ev_to_kj_per_mol;
      append(v, H5T_NATIVE_DOUBLE, f.data());
    } else if (name == "image") {
      need(name, fr.image.size(), 3 * n);
      append(v, H5T_NATIVE_INT, fr.image.data());
    } else if (name == "species") {
      need(name, fr.species.size(), n);
      append(v, H5T_NATIVE_INT, fr.species.data());
    } else if (name == "id") {
      need(name, fr.id.size(), n);
      append(v, H5T_NATIVE_INT64, fr.id.data());
    }
  }
  for (const auto& ob : fr.observables) {
    Obs& o = observable(ob.name, ob.unit);
    append(o.step, H5T_NATIVE_INT64, &fr.step);
    append(o.time, H5T_NATIVE_DOUBLE, &fr.time);
    append(o.value, H5T_NATIVE_DOUBLE, &ob.value);
  }
  close();
  ++frames_;
  last_step_ = fr.step;
}

}  // namespace wmd::io
