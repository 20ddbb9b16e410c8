#include "contactuq/uq/replicates.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "contactuq/error.hpp"

namespace contactuq::uq {

double replicate_half_width(std::span<const double> estimates, double confidence) {
  const std::size_t r = estimates.size();
  require(r >= 2, "replicates", static_cast<double>(r), "", ">= 2");
  double mean = 0.0;
  for (double e : estimates) mean += e;
  mean /= static_cast<double>(r);
  double ss = 0.0;
  for (double e : estimates) ss += (e - mean) * (e - mean);
  const double s = std::sqrt(ss / static_cast<double>(r - 1));
  const double t =
      boost::math::quantile(boost::math::students_t(static_cast<double>(r - 1)), 0.5 * (1.0 + confidence));
  return t * s / std::sqrt(static_cast<double>(r));
}

summary summarize_replicates(std::span<const double> values, std::size_t replicates,
                             const summary_options& options) {
  require(replicates >= 2, "replicates", static_cast<double>(replicates), "", ">= 2");
  if (values.size() % replicates != 0)
    throw parameter_error("replicates", fmt::format("{} values are no multiple of {} replicates", values.size(),
                                                    replicates));
  summary_options pooled = options;
  pooled.bootstrap_resamples = 0;
  summary out = summarize(values, pooled);
  const std::size_t m = values.size() / replicates;
  // Estimates per replicate: mean, sd, then the quantiles.
  const std::size_t q = options.probabilities.size();
  std::vector<std::vector<double>> est(2 + q);
  for (std::size_t r = 0; r < replicates; ++r) {
    const summary s = summarize(values.subspan(r * m, m), pooled);
    if (s.used == 0) continue;
    est[0].push_back(s.mean);
    est[1].push_back(s.stddev);
    for (std::size_t k = 0; k < q; ++k) est[2 + k].push_back(s.quantiles[k].value);
  }
  if (est[0].size() < 2) return out;  // intervals stay NaN
  auto around = [&](double centre, const std::vector<double>& e) -> interval {
    if (!std::isfinite(centre)) return {centre, centre};
    const double h = replicate_half_width(e, options.confidence);
    return {centre - h, centre + h};
  };
  out.mean_ci = around(out.mean, est[0]);
  out.stddev_ci = around(out.stddev, est[1]);
  for (std::size_t k = 0; k < q; ++k) out.quantiles[k].ci = around(out.quantiles[k].value, est[2 + k]);
  return out;
}

}  // namespace contactuq::uq
