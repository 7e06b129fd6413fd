#!/usr/bin/env bash
# The whole test job (README, .ci/run): installs what is missing, builds, runs every ctest test, then the
# sanitizer job (scripts/sanitize.sh: ASan + UBSan unit tests and the fuzzers, docs/reliability.md).
#   SKIP_SANITIZE=1   the ordinary build and tests only
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
./scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
echo "test: build and ctest took $(($(date +%s) - t0)) s"
if [ "${SKIP_SANITIZE:-0}" != 1 ]; then
  t1=$(date +%s)
  ./scripts/sanitize.sh
  echo "test: sanitizer job took $(($(date +%s) - t1)) s"
fi
