// Streaming delivery (deliver_window_range, deliver_requested_range, deliver_approved_range): any split of
// the destinations into ranges gives the bits of one whole delivery, coverage is checked per request (at
// approval for approved requests, which are then refused unless they are the approved arrays), and nothing is
// charged until charge().
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
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

TEST(RangeDelivery, ApprovedRequestsCopyWhatRequestedDeliveryDoes) {
  const HardwareSpec hw = preset("wse2");
  for (int words : {1, 3, 2}) {
    const ScheduleSpec spec{ScheduleKind::WindowMulticast, Grid{12, 7}, 2, words, true};
    FastTransport t(spec, hw);
    const int n = spec.grid.size();
    std::mt19937 rng(11);
    std::vector<std::uint32_t> payload(static_cast<size_t>(n) * words);
    for (auto& w : payload) w = rng();
    std::vector<std::int32_t> off(n + 1), src;
    std::uniform_int_distribution<int> o(-2, 2);
    for (int d = 0; d < n; ++d) {
      off[d] = static_cast<std::int32_t>(src.size());
      for (int k = 0; k < 1 + d % 5; ++k) {
        int dx = o(rng), dy = o(rng);
        if (dx == 0 && dy == 0) dx = 1;
        src.push_back(t.offset_pe(d, dx, dy));
      }
    }
    off[n] = static_cast<std::int32_t>(src.size());
    std::vector<std::uint32_t> whole(src.size() * words), part;
    t.deliver_requested(off.data(), src.data(), payload.data(), whole.data());
    const long long charged = t.charged_cycles();
    // Not approved yet: refused.
    part.assign(whole.size(), 0u);
    EXPECT_THROW(t.deliver_approved_range(0, n, off.data(), src.data(), payload.data(), part.data()),
                 RunError);
    t.approve_requests(0, n, off.data(), src.data());
    for (int d0 = 0; d0 < n; d0 += 9) {
      const int d1 = std::min(n, d0 + 9);
      const size_t nreq = static_cast<size_t>(off[d1] - off[d0]);
      part.assign(nreq * words, 0u);
      t.deliver_approved_range(d0, d1, &off[d0], src.data(), payload.data(), part.data());
      for (size_t k = 0; k < part.size(); ++k)
        ASSERT_EQ(part[k], whole[static_cast<size_t>(off[d0]) * words + k]) << "words " << words;
      // Planes: word w of request k at w·nreq + k.
      part.assign(nreq * words, 0u);
      t.deliver_approved_range(d0, d1, &off[d0], src.data(), payload.data(), part.data(), nreq);
      for (size_t k = 0; k < nreq; ++k)
        for (int w = 0; w < words; ++w)
          ASSERT_EQ(part[w * nreq + k], whole[(static_cast<size_t>(off[d0]) + k) * words + w])
              << "words " << words;
    }
    EXPECT_EQ(t.charged_cycles(), charged);
    // Other arrays, even with equal contents, were not approved.
    const std::vector<std::int32_t> src2 = src;
    EXPECT_THROW(t.deliver_approved_range(0, n, off.data(), src2.data(), payload.data(), part.data()),
                 RunError);
  }
}

TEST(RangeDelivery, ApprovalRefusesAnUncoveredRequest) {
  const HardwareSpec hw = preset("wse2");
  const ScheduleSpec spec{ScheduleKind::WindowMulticast, Grid{9, 9}, 2, 3, false};
  FastTransport t(spec, hw);
  const int n = spec.grid.size();
  std::vector<std::int32_t> off(n + 1, 0), src;
  // PE 40 (4,4) asks for (4,1): three rows away, outside b = 2.
  for (int d = 0; d <= n; ++d) off[d] = d > 40 ? 1 : 0;
  src.push_back(t.offset_pe(40, 0, -3));
  try {
    t.approve_requests(0, n, off.data(), src.data());
    FAIL() << "approved a request outside the window";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("(4,4) asked for the payload of PE (4,1)"), std::string::npos)
        << e.what();
  }
  // Nothing was approved.
  std::vector<std::uint32_t> payload(static_cast<size_t>(n) * 3), out(3);
  EXPECT_THROW(t.deliver_approved_range(40, 41, &off[40], src.data(), payload.data(), out.data()), RunError);
}

TEST(RangeDelivery, ReductionByBandsOfRowsGivesReduceBits) {
  const HardwareSpec hw = preset("wse2");
  for (bool wrap : {false, true}) {
    const ScheduleSpec spec{ScheduleKind::Reduction, Grid{13, 11}, 1, 3, wrap, ReduceOp::Sum};
    FastTransport t(spec, hw);
    const int W = spec.grid.width, H = spec.grid.height, P = spec.words;
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<std::uint32_t> values(static_cast<size_t>(W) * H * P);
    for (auto& w : values) {
      const float f = u(rng) * 1000.0f;  // fp32 sums of these depend on the order
      std::memcpy(&w, &f, 4);
    }
    std::vector<std::uint32_t> whole(P), banded(P);
    t.reduce(values.data(), whole.data());
    const long long one = t.charged_cycles();
    // Three bands of rows, each reading only its own PEs.
    std::vector<std::uint32_t> rows(static_cast<size_t>(H) * P, 0u);
    for (auto [r0, r1] : {std::pair{0, 4}, std::pair{4, 5}, std::pair{5, H}}) {
      std::vector<std::uint32_t> band(values.begin() + static_cast<size_t>(r0) * W * P,
                                      values.begin() + static_cast<size_t>(r1) * W * P);
      t.reduce_rows(band.data(), r0, r1, rows.data());
    }
    EXPECT_EQ(t.charged_cycles(), one);  // the row stage charges nothing
    t.fold_rows(rows.data(), banded.data());
    EXPECT_EQ(t.charged_cycles(), 2 * one);
    for (int w = 0; w < P; ++w) EXPECT_EQ(banded[w], whole[w]) << "wrap " << wrap << " word " << w;
  }
}

}  // namespace
}  // namespace wmd::fabric
