#!/usr/bin/env bash
# Installs every Debian package wafermd needs (build, tests, the sanitizer and fuzz build with clang, validation). Idempotent: installs only what is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config clang-format
  clang libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev zlib1g-dev
  libtrilinos-kokkos-dev
  libyaml-cpp-dev libgtest-dev libcli11-dev libfmt-dev nlohmann-json3-dev
  libhwy-dev
  lammps lammps-data lammps-examples
  python3-numpy python3-matplotlib python3-h5py python3-mdanalysis python3-ase
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
