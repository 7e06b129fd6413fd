# Third-party packages, all from Debian 12 (scripts/setup.sh installs them).
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(HDF5 REQUIRED COMPONENTS C)
find_package(ZLIB REQUIRED)  # read_data file.gz, dump …/gz
find_package(yaml-cpp REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(hwy REQUIRED)  # Google Highway (libhwy-dev): the SIMD kernels

# Kokkos: Debian's Trilinos build (Serial backend) or any Kokkos found through Kokkos_ROOT.
find_package(Kokkos REQUIRED)
if(TARGET Kokkos::kokkos AND EXISTS /usr/include/trilinos/Kokkos_Core.hpp AND NOT Kokkos_ROOT)
  # Debian's KokkosConfig.cmake points its include directory at /usr/lib/include; the headers live here.
  set_target_properties(Kokkos::kokkos PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES /usr/include/trilinos
    INTERFACE_LINK_LIBRARIES "trilinos_kokkosalgorithms;trilinos_kokkoscontainers;trilinos_kokkoscore")
endif()
