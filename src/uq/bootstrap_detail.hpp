#pragma once
// Private helpers shared by the bootstrap estimators of sensitivity.cpp and epistemic.cpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "contactuq/uq/random.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq::detail {

// counts[j] = how often item j of n is drawn in bootstrap replicate b: n draws with
// replacement from stream (seed, bootstrap_replicate, b), as summarize() draws them.
inline void resample_counts(std::uint64_t seed, std::size_t b, std::span<double> counts) {
  engine e = make_engine(seed, stream_purpose::bootstrap_replicate, b);
  std::fill(counts.begin(), counts.end(), 0.0);
  const std::size_t n = counts.size();
  for (std::size_t i = 0; i < n; ++i) counts[uniform_index(e, n)] += 1.0;
}

// Percentile interval at confidence c of the replicates (sorted in place): the (1-c)/2 and
// (1+c)/2 definition-7 quantiles; NaN when any replicate is NaN or there are none.
inline interval percentile_interval(std::vector<double>& replicates, double confidence) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (replicates.empty() ||
      std::any_of(replicates.begin(), replicates.end(), [](double v) { return std::isnan(v); })) {
    return {nan, nan};
  }
  std::sort(replicates.begin(), replicates.end());
  return {sorted_quantile(replicates, 0.5 * (1.0 - confidence)),
          sorted_quantile(replicates, 0.5 * (1.0 + confidence))};
}

}  // namespace contactuq::uq::detail
