// Streaming delivery (deliver_window_range, deliver_requested_range): any split of the destinations into
// ranges gives the bits of one whole delivery, coverage is still checked per request, and nothing is charged
// until charge().
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "base/error.hpp"
#include "fabric/fast_transport.hpp"
#include "fabric/hardware.hpp"

namespace wmd::fabric {
namespace {

TEST(RangeDelivery, WindowRangesEqualDeliverAll) {
  const HardwareSpec hw = preset("wse2");
  for (bool wrap : {false, true}) {
    const ScheduleSpec spec{ScheduleKind::WindowMulticast, Grid{11, 9}, 3, 2, wrap};
    FastTransport t(spec, hw);
    std::mt19937 rng(5);
    std::vector<std::uint32_t> payload(spec.grid.size() * spec.words);
    for (auto& w : payload) w = rng();
    std::vector<std::uint32_t> all(static_cast<size_t>(spec.grid.size()) * t.slots_per_pe());
    t.deliver_all(payload.data(), all.data());
    const long long charged = t.charged_cycles();
    std::vector<std::uint32_t> part;
    for (int d0 = 0; d0 < spec.grid.size(); d0 += 7) {
      const int d1 = std::min(spec.grid.size(), d0 + 7);
      part.assign(static_cast<size_t>(d1 - d0) * t.slots_per_pe(), 1u);
      t.deliver_window_range(d0, d1, payload.data(), part.data());
      for (size_t k = 0; k < part.size(); ++k)
        ASSERT_EQ(part[k], all[static_cast<size_t>(d0) * t.slots_per_pe() + k])
            << "wrap " << wrap << " d0 " << d0;
    }
    EXPECT_EQ(t.charged_cycles(), charged);
    t.charge();
    EXPECT_EQ(t.charged_cycles(), 2 * charged);
  }
}

TEST(RangeDelivery, RequestedRangesCheckCoverageAndMatchWholeDelivery) {
  const HardwareSpec hw = preset("wse2");
  const ScheduleSpec spec{ScheduleKind::WindowMulticast, Grid{9, 9}, 2, 3, true};
  FastTransport t(spec, hw);
  const int n = spec.grid.size();
  std::vector<std::uint32_t> payload(n * spec.words);
  for (size_t k = 0; k < payload.size(); ++k) payload[k] = static_cast<std::uint32_t>(k * 2654435761u);
  // Each destination asks for the PEs at (+2, -1), (-2, +2) (wrapped) and (1, 0).
  std::vector<std::int32_t> off(n + 1), src;
  for (int d = 0; d < n; ++d) {
    off[d] = static_cast<std::int32_t>(src.size());
    for (auto [dx, dy] : {std::pair{2, -1}, std::pair{-2, 2}, std::pair{1, 0}})
      src.push_back(t.offset_pe(d, dx, dy));
  }
  off[n] = static_cast<std::int32_t>(src.size());
  std::vector<std::uint32_t> whole(src.size() * spec.words), part;
  t.deliver_requested(off.data(), src.data(), payload.data(), whole.data());
  for (int d0 = 0; d0 < n; d0 += 10) {
    const int d1 = std::min(n, d0 + 10);
    part.assign(static_cast<size_t>(off[d1] - off[d0]) * spec.words, 0u);
    t.deliver_requested_range(d0, d1, &off[d0], src.data(), payload.data(), part.data());
    for (size_t k = 0; k < part.size(); ++k)
      ASSERT_EQ(part[k], whole[static_cast<size_t>(off[d0]) * spec.words + k]);
  }
  // A source 3 columns away is outside b = 2: refused, naming the PEs.
  std::vector<std::int32_t> bad_off = {0, 1}, bad_src = {t.offset_pe(40, 3, 0)};
  std::vector<std::uint32_t> out(spec.words);
  EXPECT_THROW(t.deliver_requested_range(40, 41, bad_off.data(), bad_src.data(), payload.data(), out.data()),
               RunError);
}

}  // namespace
}  // namespace wmd::fabric
