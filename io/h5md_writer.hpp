// H5MD 1.1 trajectory writer (HDF5 C library): particles/all/{position,velocity,force,image,species,id},
// time-dependent box edges, observables/ time series and parameters/ (the input text). One file, written by
// one process: md/ gathers per-atom arrays to rank 0 sorted by id and hands them over.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_util.hpp"

namespace wmd::io {

/// What the file holds; fixed for the life of a trajectory.
struct H5mdSetup {
  std::string path;
  std::vector<std::string> fields;  // position (always), velocity, force, image, species, id
  int64_t natoms = 0;
  bool periodic[3] = {true, true, true};
  std::string author = "wafermd user";
  std::string creator_version;
  std::string input_name, input_text;
};

/// One scalar observable value at a frame.
struct H5mdObservable {
  std::string name, unit;
  double value = 0.0;
};

/// One frame; per-atom arrays are in id order, 3 values per atom for vectors. Forces in eV/Å.
struct H5mdFrame {
  int64_t step = 0;
  double time = 0.0;  // accumulated simulated time, ps
  double edges[3] = {0, 0, 0};
  double tilt[3] = {0, 0, 0};  // xy xz yz: the edge vectors a, b, c are the rows of box/edges
  std::vector<double> position, velocity, force;
  std::vector<int> image, species;
  std::vector<int64_t> id;
  std::vector<H5mdObservable> observables;
};

/// Unit strings written to `unit` attributes (the ones MDAnalysis's H5MD reader recognises).
namespace h5md_units {
inline constexpr const char* length = "Angstrom";
inline constexpr const char* time = "ps";
inline constexpr const char* velocity = "Angstrom ps-1";
inline constexpr const char* force = "kJ mol-1 Angstrom-1";
}  // namespace h5md_units

class H5mdWriter {
 public:
  H5mdWriter();
  ~H5mdWriter();
  /// Creates the file, replacing any old one. I/O failures are RunErrors.
  void create(const H5mdSetup& setup);
  /// Continues an existing trajectory after `last_kept_step`: frames with a later step are dropped (a
  /// restart). Creates the file if it does not exist. Returns the number of frames kept.
  int64_t reopen(const H5mdSetup& setup, int64_t last_kept_step);
  /// Appends one frame. The file is open only while a frame is written (readers can open it during a run;
  /// HDF5 locks open files) and a crash loses at most the frame being written.
  void write_frame(const H5mdFrame& frame);
  /// Frames in the file.
  int64_t frames() const { return frames_; }
  /// Step of the last frame, or -1 when there is none.
  int64_t last_step() const { return last_step_; }
  bool is_open() const { return ready_; }

 private:
  void open_rw();
  void close();
  struct Obs {
    std::string name;
    h5::Handle step, time, value;
  };
  void create_layout();
  void open_layout();
  Obs& observable(const std::string& name, const std::string& unit);

  H5mdSetup setup_;
  h5::Handle file_;
  h5::Handle step_, time_;                                  // particles/all/position/{step,time}
  std::vector<std::pair<std::string, h5::Handle>> values_;  // field name → value dataset
  h5::Handle edges_;
  std::vector<Obs> obs_;
  int64_t frames_ = 0, last_step_ = -1;
  bool ready_ = false;  // created or reopened
};

}  // namespace wmd::io
