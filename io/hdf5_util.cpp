#include "io/hdf5_util.hpp"

#include <sstream>

#include "base/error.hpp"

namespace wmd::io::h5 {

void Handle::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    default:
      break;
  }
  id_ = H5I_INVALID_HID;
}

hid_t check(hid_t status, const std::string& what) {
  if (status < 0) throw RunError("HDF5: " + what + " failed");
  return status;
}

void quiet_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Handle string_type() {
  Handle t(check(H5Tcopy(H5T_C_S1), "string type"));
  check(H5Tset_size(t, H5T_VARIABLE), "string size");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "string charset");
  return t;
}

void set_string_attr(hid_t obj, const std::string& name, const std::string& value) {
  Handle t = string_type();
  Handle sp(check(H5Screate(H5S_SCALAR), "dataspace"));
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle a(check(H5Acreate2(obj, name.c_str(), t, sp, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name));
  const char* p = value.c_str();
  check(H5Awrite(a, t, &p), "writing attribute " + name);
}

void set_string_array_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  Handle t = string_type();
  const hsize_t n = values.size();
  Handle sp(check(H5Screate_simple(1, &n, nullptr), "dataspace"));
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle a(check(H5Acreate2(obj, name.c_str(), t, sp, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name));
  std::vector<const char*> p;
  for (const auto& v : values) p.push_back(v.c_str());
  check(H5Awrite(a, t, p.data()), "writing attribute " + name);
}

void set_int_attr(hid_t obj, const std::string& name, const std::vector<int>& values) {
  const hsize_t n = values.size();
  Handle sp(check(H5Screate_simple(1, &n, nullptr), "dataspace"));
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle a(
      check(H5Acreate2(obj, name.c_str(), H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name));
  check(H5Awrite(a, H5T_NATIVE_INT, values.data()), "writing attribute " + name);
}

void set_int_scalar_attr(hid_t obj, const std::string& name, int value) {
  Handle sp(check(H5Screate(H5S_SCALAR), "dataspace"));
  if (H5Aexists(obj, name.c_str()) > 0) H5Adelete(obj, name.c_str());
  Handle a(
      check(H5Acreate2(obj, name.c_str(), H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT), "attribute " + name));
  check(H5Awrite(a, H5T_NATIVE_INT, &value), "writing attribute " + name);
}

void write_string_dataset(hid_t parent, const std::string& name, const std::string& value) {
  Handle t = string_type();
  Handle sp(check(H5Screate(H5S_SCALAR), "dataspace"));
  Handle d(check(H5Dcreate2(parent, name.c_str(), t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 "dataset " + name));
  const char* p = value.c_str();
  check(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), "writing " + name);
}

std::string read_string_dataset(hid_t parent, const std::string& name) {
  Handle d(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "opening " + name));
  Handle t = string_type();
  char* p = nullptr;
  check(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), "reading " + name);
  std::string s = p ? p : "";
  Handle sp(H5Dget_space(d));
  H5Dvlen_reclaim(t, sp, H5P_DEFAULT, &p);
  return s;
}

bool exists(hid_t parent, const std::string& path) {
  std::string sofar;
  std::istringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (part.empty()) continue;
    sofar += (sofar.empty() ? "" : "/") + part;
    if (H5Lexists(parent, sofar.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

Handle open_or_create_group(hid_t parent, const std::string& path) {
  if (exists(parent, path))
    return Handle(check(H5Gopen2(parent, path.c_str(), H5P_DEFAULT), "group " + path));
  Handle lcpl(check(H5Pcreate(H5P_LINK_CREATE), "property list"));
  H5Pset_create_intermediate_group(lcpl, 1);
  return Handle(check(H5Gcreate2(parent, path.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT), "group " + path));
}

}  // namespace wmd::io::h5
