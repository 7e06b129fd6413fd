// Caps the address space for one scope, so a test of a refused huge allocation fails fast instead of taking
// the machine. Under AddressSanitizer the cap is left off: its shadow memory needs far more address space
// than any cap, and the sanitizer job's max_allocation_size_mb (scripts/sanitize.sh) bounds allocations
// instead.
#pragma once
#include <sys/resource.h>

namespace wmd::test {

#if defined(__SANITIZE_ADDRESS__)
#define WAFERMD_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WAFERMD_TEST_UNDER_ASAN 1
#endif
#endif

struct AddressSpaceCap {
  rlimit old{};
  explicit AddressSpaceCap(double gb) {
#ifndef WAFERMD_TEST_UNDER_ASAN
    getrlimit(RLIMIT_AS, &old);
    rlimit r = old;
    r.rlim_cur = static_cast<rlim_t>(gb * 1e9);
    setrlimit(RLIMIT_AS, &r);
#else
    (void)gb;
#endif
  }
  ~AddressSpaceCap() {
#ifndef WAFERMD_TEST_UNDER_ASAN
    setrlimit(RLIMIT_AS, &old);
#endif
  }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;
};

}  // namespace wmd::test
