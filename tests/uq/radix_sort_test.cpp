#include "contactuq/uq/radix_sort.hpp"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace contactuq::uq;

namespace {

std::vector<std::size_t> reference_order(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  return order;
}

// Values with ties, both signs, signed zeros, subnormals, infinities and a wide range of scales.
std::vector<double> awkward_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> kind(0, 9), scale(-300, 300);
  std::vector<double> v(n);
  for (auto& x : v) {
    switch (kind(g)) {
      case 0: x = std::round(normal(g)); break;  // many ties
      case 1: x = kind(g) % 2 ? 0.0 : -0.0; break;
      case 2: x = std::ldexp(normal(g), scale(g)); break;
      case 3: x = kind(g) % 2 ? std::numeric_limits<double>::denorm_min() * kind(g) : -std::numeric_limits<double>::infinity(); break;
      case 4: x = std::numeric_limits<double>::infinity(); break;
      default: x = normal(g);
    }
  }
  return v;
}

}  // namespace

TEST_CASE("radix stable_order is std::stable_sort's order, ties (and -0, +0) by index", "[uq][radix]") {
  for (const std::size_t n : {0, 1, 2, 17, 1023, 1024, 5000, 100'000}) {
    const auto v = awkward_values(n, 7 + n);
    INFO("n = " << n);
    CHECK(stable_order(v) == reference_order(v));
  }
  // A column of one value, and values that differ only in their lowest bits.
  std::vector<double> same(3000, 0.25), close(3000);
  for (std::size_t i = 0; i < close.size(); ++i) close[i] = std::nextafter(1.0, 2.0 + static_cast<double>(i % 7));
  CHECK(stable_order(same) == reference_order(same));
  CHECK(stable_order(close) == reference_order(close));
}

TEST_CASE("radix sort_values sorts as std::sort does", "[uq][radix]") {
  for (const std::size_t n : {0, 1, 1023, 1024, 5000, 100'000}) {
    auto v = awkward_values(n, 99 + n), expected = v;
    std::sort(expected.begin(), expected.end());
    sort_values(v);
    INFO("n = " << n);
    REQUIRE(v.size() == expected.size());
    CHECK(std::is_sorted(v.begin(), v.end()));
    // Equal as values (std::sort may put -0 and +0 either way round); every bit pattern kept.
    CHECK(std::equal(v.begin(), v.end(), expected.begin()));
    auto bits = [](const std::vector<double>& a) {
      std::vector<std::uint64_t> b(a.size());
      std::transform(a.begin(), a.end(), b.begin(), [](double x) { return std::bit_cast<std::uint64_t>(x); });
      std::sort(b.begin(), b.end());
      return b;
    };
    CHECK(bits(v) == bits(expected));
  }
}
