#include "contactuq/io/ensemble_merge.hpp"

#include <catch2/catch.hpp>

#include "contactuq/error.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

TEST_CASE("the K shards of a plan cover every sample once, in order", "[io][merge]") {
  const std::size_t n = GENERATE(1u, 2u, 7u, 1000u, 4097u, 1000000007u);
  const std::size_t k_count = GENERATE(1u, 2u, 3u, 7u, 64u, 1000u);
  if (k_count > n) {
    CHECK_THROWS_WITH(io::shard_range({1, k_count}, n), Contains("at most one shard per sample"));
    return;
  }
  std::size_t next = 0, smallest = n, largest = 0;
  for (std::size_t k = 1; k <= k_count; ++k) {
    const auto [first, end] = io::shard_range({k, k_count}, n);
    CHECK(first == next);
    CHECK(end > first);
    smallest = std::min(smallest, end - first);
    largest = std::max(largest, end - first);
    next = end;
  }
  CHECK(next == n);
  CHECK(largest - smallest <= 1);  // balanced
}

TEST_CASE("shard specifications k/K are checked", "[io][merge]") {
  const io::shard_spec s = io::parse_shard("2/8");
  CHECK(s.index == 2);
  CHECK(s.count == 8);
  for (const char* bad : {"0/3", "4/3", "3", "1/0", "a/3", "1/3x", "-1/3", ""})
    CHECK_THROWS_WITH(io::parse_shard(bad), Contains("must be k/K with integers 1 <= k <= K"));
}

TEST_CASE("a shard schema holds its part of the plan", "[io][merge]") {
  io::ensemble_schema whole;
  whole.inputs = {{"x", "m", io::input_role::aleatoric, {}}};
  whole.outputs = {{"y", "N"}};
  whole.metadata.samples = 10;
  whole.metadata.epistemic_cases = {"a", "b"};
  const io::ensemble_schema s = io::shard_schema(whole, {2, 3});
  CHECK(s.metadata.shard_first == 3);
  CHECK(s.metadata.samples == 3);
  CHECK(s.metadata.plan_samples == 10);
  CHECK(s.metadata.aleatoric_samples() == 5);  // of the plan, not of the shard
  CHECK_NOTHROW(s.validate());
}

TEST_CASE("merge with no parts says so", "[io][merge]") {
  CHECK_THROWS_WITH(io::merge_ensembles({}, "never.h5"), Contains("no part files"));
}
