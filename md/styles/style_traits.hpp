// What every fix and compute style declares about itself, as LAMMPS styles do: the shapes of its outputs
// (which references like c_ID, c_ID[2], f_ID may name it), and which backends can run it (MeshWork,
// md/force/backend.hpp, is what it costs the wafer).
#pragma once
#include <cstdint>
#include <string>

#include "md/force/backend.hpp"

namespace wmd::md {

/// LAMMPS's output flags of a fix or compute (scalar_flag, vector_flag/size_vector, array_flag/size_array_*,
/// peratom_flag/size_peratom_cols, local_flag/size_local_cols, extscalar/extvector).
struct OutputShape {
  bool scalar = false;  // a global scalar: c_ID / f_ID
  int vector = 0;       // length of a global vector (0: none): c_ID[i] / f_ID[i], 1-based
  int peratom_cols =
      -1;  // −1: no per-atom output; 0: a per-atom vector; n > 0: a per-atom array of n columns
  bool extensive = false;  // the scalar/vector grows with the atom count (thermo_modify norm divides it)
  int array_rows = 0, array_cols = 0;  // a global array (c_ID[i][j] / f_ID[i][j]); 0: none
  int local_cols = -1;  // −1: no local output; 0: a local vector; n > 0: a local array of n columns
  bool intensive() const { return !extensive; }
  bool peratom() const { return peratom_cols >= 0; }
  bool local() const { return local_cols >= 0; }
  bool array() const { return array_rows > 0 && array_cols > 0; }
};

/// The backends a style can run on.
enum BackendSet : unsigned { kOnCluster = 1u, kOnMesh = 2u, kOnAnyBackend = kOnCluster | kOnMesh };

/// "cluster" → kOnCluster, "mesh" → kOnMesh, anything else → 0.
inline unsigned backend_bit(const std::string& backend) {
  return backend == "cluster" ? kOnCluster : backend == "mesh" ? kOnMesh : 0u;
}

}  // namespace wmd::md
