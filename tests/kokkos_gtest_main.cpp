// main() of the GoogleTest programs that link md/: Kokkos is initialised before the first test and finalised
// after the last, as the wafermd program's main does, so no test launches a Kokkos kernel (the mesh's PE
// passes, the cluster's pair kernels) or allocates a View before Kokkos::initialize — which Kokkos 4
// refuses (Kokkos 3.4 let it pass).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);  // takes the --gtest_* options; Kokkos reads its --kokkos-* ones
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
