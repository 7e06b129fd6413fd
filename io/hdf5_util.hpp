// Small HDF5 C-library helpers shared by the H5MD writer and the checkpoint file: owning handles,
// variable-length string attributes and datasets (the form h5py returns as str), error checks.
#pragma once
#include <hdf5.h>

#include <string>
#include <vector>

namespace wmd::io::h5 {

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes the identifier now (whatever kind it is).
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

/// Throws RunError naming `what` when an HDF5 call returned a negative status or identifier.
hid_t check(hid_t status, const std::string& what);

/// Turns off HDF5's automatic error printing (we report errors ourselves).
void quiet_errors();

/// Variable-length UTF-8 string type (h5py reads it as str).
Handle string_type();
/// Writes a scalar string attribute on an object.
void set_string_attr(hid_t obj, const std::string& name, const std::string& value);
/// Writes a 1-D array-of-strings attribute.
void set_string_array_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values);
/// Writes a 1-D int attribute.
void set_int_attr(hid_t obj, const std::string& name, const std::vector<int>& values);
/// Writes a scalar int attribute.
void set_int_scalar_attr(hid_t obj, const std::string& name, int value);
/// Writes a scalar string dataset.
void write_string_dataset(hid_t parent, const std::string& name, const std::string& value);
/// Reads a scalar string dataset.
std::string read_string_dataset(hid_t parent, const std::string& name);
/// True if a link of that name (may contain '/') exists under parent, every path component included.
bool exists(hid_t parent, const std::string& path);
/// Opens the group, creating it and its parents if needed.
Handle open_or_create_group(hid_t parent, const std::string& path);

}  // namespace wmd::io::h5
