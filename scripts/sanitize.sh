#!/usr/bin/env bash
# The sanitizer job (docs/reliability.md): one clang build with AddressSanitizer + UndefinedBehaviorSanitizer
# (any UB report is fatal) and libFuzzer's coverage hooks, in build-asan/. It runs the fast unit tests, the
# replay of every fuzz corpus and crash, the program on the kept hostile inputs, then each libFuzzer harness
# briefly on its corpus with a fixed seed. LeakSanitizer stays on; only the leaks of Open MPI, HDF5 and hwloc themselves are
# suppressed (tests/sanitizers/lsan.supp).
#   SANITIZE_BUILD=DIR   build directory (default build-asan)
#   FUZZ_SECONDS=N       seconds per fuzzer (default 6; 0 skips the fuzzers)
#   JOBS=N               parallel compile and test jobs (default: the CPU count)
#   SANITIZE_MD=1        also build test_md and run its fast cases (adds about 5 CPU-minutes of compilation)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${SANITIZE_BUILD:-build-asan}
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-6}
t0=$(date +%s)
stamp() { echo "sanitize: $1 at $(($(date +%s) - t0)) s"; }

# Also for the test programs gtest_discover_tests runs at build time.
# An allocation beyond 4 GB fails as operator new does (std::bad_alloc), not as an ASan report.
# fast_unwind_on_malloc=0: Debian's Open MPI has no frame pointers, and only full stacks name the library a
# leak comes from (so that lsan.supp can match it).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1:max_allocation_size_mb=4096:fast_unwind_on_malloc=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# use_tls=0: clang 14's LeakSanitizer crashes walking glibc 2.36's dynamic TLS once Open MPI has loaded its
# components ("Tracer caught signal 11"); heap blocks are still scanned from stacks, globals and registers.
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0:use_tls=0"

sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Sanitize \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS="$sanitizers" -DCMAKE_CXX_FLAGS="$sanitizers -fsanitize=fuzzer-no-link" \
  -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitizers" -DWAFERMD_FUZZ=ON >/dev/null

# Only what the job runs: the test programs, the program they drive, the replays and the fuzzers.
fuzz_names=$(find tests/fuzz -maxdepth 1 -name 'fuzz_*.cpp' -printf '%f\n' | sed 's/^fuzz_//; s/\.cpp$//' | sort)
targets="wafermd test_io test_potentials test_fabric"
[ "${SANITIZE_MD:-0}" = 1 ] && targets="$targets test_md"
for n in $fuzz_names; do targets="$targets replay_$n fuzz_$n"; done
# shellcheck disable=SC2086
cmake --build "$build" -j"$jobs" --target $targets
stamp "built"

# What finishes in minutes under the sanitizers on 2 CPUs: the io, potentials and fabric unit tests (less the
# fabric's cost-model sweeps and timing checks), the fuzz replays, and the whole program on every hostile input
# (its error paths through md/, io/, potentials/). The md unit tests and the long physics comparisons run in the
# ordinary build only: compiling test_md under ASan alone would take most of the job's time.
slow_fabric='WindowMulticastSweep|SwapsAndReductionsWithinFivePercent|^MdStep\.|^Delivery\.WindowMulticast$|'
slow_fabric+='PricesAFullWafer|MdStepReportsOverlap|MdStepSweep|MdStepNewtonSweep|'
# The variant sweep's meshes of 16 and more PEs a side (7 minutes of CPU under ASan); its smaller ones run the
# same code paths here, and every size runs in the ordinary build.
slow_fabric+='MdStepVariantSweep\.ModelWithinFivePercent/n(1[6-9]|[2-9][0-9])( |$)'
ctest --test-dir "$build" --output-on-failure -j"$jobs" -L '^(test_io|test_potentials|test_fabric|fuzz)$' \
  -E "$slow_fabric"
stamp "io, potentials, fabric tests and fuzz replays"
# Two shards side by side: each case is one process, mostly MPI and Kokkos start-up.
/usr/bin/python3 tests/hostile/run_hostile.py "$build/wafermd" "$build/test_scratch/hostile" --sanitized \
  --shard 1/2 >"$build/hostile-1.log" 2>&1 &
shard1=$!
/usr/bin/python3 tests/hostile/run_hostile.py "$build/wafermd" "$build/test_scratch/hostile" --sanitized \
  --shard 2/2 >"$build/hostile-2.log" 2>&1 || { cat "$build/hostile-2.log"; exit 1; }
wait "$shard1" || { cat "$build/hostile-1.log"; exit 1; }
tail -n 1 "$build/hostile-1.log" "$build/hostile-2.log"
stamp "hostile inputs"
if [ "${SANITIZE_MD:-0}" = 1 ]; then
  fast_md='^(Program|FailureReport|Registry|Comm|Decomposition|GhostExchange|HalfNeighborList|Restart|Trajectory|'
  fast_md+='Progress|FixInput|GeometryBadInput|StylesBadInput)[./]'
  ctest --test-dir "$build" --output-on-failure -j"$jobs" -L '^test_md$' -R "$fast_md"
  stamp "md tests"
fi

if [ "$fuzz_seconds" -gt 0 ]; then
  for n in $fuzz_names; do
    corpus="$build/fuzz-corpus/$n"  # a scratch copy: the kept corpus changes only by hand
    mkdir -p "$corpus"
    cp -r tests/fuzz/corpus/"$n"/. "$corpus"/ 2>/dev/null || true
    "$build/tests/fuzz/fuzz_$n" -seed=1 -max_total_time="$fuzz_seconds" -rss_limit_mb=4096 -timeout=20 \
      -artifact_prefix="$build/fuzz-$n-" -print_final_stats=1 "$corpus" 2>&1 | tail -n 40
  done
  stamp "fuzzers"
fi
stamp "done"
