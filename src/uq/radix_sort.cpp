#include "contactuq/uq/radix_sort.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <numeric>
#include <utility>

namespace contactuq::uq {

namespace {

// Below this size a comparison sort is as fast.
constexpr std::size_t radix_from = 1024;
constexpr int digit_bits = 11;  // 2048 buckets: the counts stay in the L1 cache
constexpr int passes = (64 + digit_bits - 1) / digit_bits;
constexpr std::uint64_t digit_mask = (std::uint64_t{1} << digit_bits) - 1;

// An unsigned key that orders like the double; -0 below +0.
std::uint64_t key_of(double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

double value_of(std::uint64_t key) {
  return std::bit_cast<double>(key >> 63 ? key & ~(std::uint64_t{1} << 63) : ~key);
}

// Stable LSD radix sort of `keys`, carrying `payload` (when not null) along.
template <class Payload>
void radix_sort(std::vector<std::uint64_t>& keys, std::vector<Payload>* payload) {
  const std::size_t n = keys.size();
  std::vector<std::array<std::size_t, digit_mask + 1>> start(passes, std::array<std::size_t, digit_mask + 1>{});
  for (const std::uint64_t k : keys)
    for (int p = 0; p < passes; ++p) ++start[p][(k >> (p * digit_bits)) & digit_mask];
  std::vector<std::uint64_t> keys_next(n);
  std::vector<Payload> payload_next(payload ? n : 0);
  for (int p = 0; p < passes; ++p) {
    auto& at = start[p];
    if (std::find(at.begin(), at.end(), n) != at.end()) continue;  // one digit value: order unchanged
    std::size_t sum = 0;
    for (auto& s : at) sum += std::exchange(s, sum);
    const int shift = p * digit_bits;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = at[(keys[i] >> shift) & digit_mask]++;
      keys_next[to] = keys[i];
      if (payload) payload_next[to] = (*payload)[i];
    }
    keys.swap(keys_next);
    if (payload) payload->swap(payload_next);
  }
}

}  // namespace

std::vector<std::size_t> stable_order(std::span<const double> values) {
  const std::size_t n = values.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (n < radix_from) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    return order;
  }
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = key_of(values[i] == 0.0 ? 0.0 : values[i]);  // -0 ties +0
  radix_sort(keys, &order);
  return order;
}

void sort_values(std::vector<double>& values) {
  if (values.size() < radix_from) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::vector<std::uint64_t> keys(values.size());
  std::transform(values.begin(), values.end(), keys.begin(), key_of);
  radix_sort<char>(keys, nullptr);
  std::transform(keys.begin(), keys.end(), values.begin(), value_of);
}

}  // namespace contactuq::uq
