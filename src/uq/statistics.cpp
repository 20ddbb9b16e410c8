#include "contactuq/uq/statistics.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "contactuq/error.hpp"
#include "contactuq/uq/radix_sort.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::uq {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

void check_probability(double p, const char* field) {
  require(p >= 0.0 && p <= 1.0, field, p, "", "in [0, 1]");
}

// Neumaier's compensated sum of w_k x_k, for means over many samples.
struct compensated_sum {
  double sum = 0.0, carry = 0.0;
  void add(double v) {
    const double t = sum + v;
    carry += std::abs(sum) >= std::abs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return sum + carry; }
};

// Order statistic k (0-based) of a resample given by counts over the sorted values: the value
// at the first position whose running count exceeds k.
double order_statistic(std::span<const double> sorted, std::span<const std::uint32_t> running,
                       std::size_t k) {
  const auto it = std::upper_bound(running.begin(), running.end(), static_cast<std::uint32_t>(k));
  return sorted[static_cast<std::size_t>(it - running.begin())];
}

}  // namespace

double sorted_quantile(std::span<const double> sorted, double p) {
  check_probability(p, "probability");
  if (sorted.empty()) return nan;
  // Hyndman & Fan definition 7 (header), 0-based: h = (n-1) p, Q = x[lo] + (h-lo)(x[lo+1]-x[lo]).
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const double lo = std::floor(h);
  const auto i = static_cast<std::size_t>(lo);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

finite_sample::finite_sample(std::span<const double> values) {
  sorted_.reserve(values.size());
  for (const double v : values) {
    if (std::isfinite(v)) sorted_.push_back(v);
  }
  skipped_ = values.size() - sorted_.size();
  sort_values(sorted_);
}

double finite_sample::mean() const {
  if (sorted_.empty()) return nan;
  compensated_sum s;
  for (const double v : sorted_) s.add(v);
  return s.value() / static_cast<double>(sorted_.size());
}

double finite_sample::stddev() const {
  if (sorted_.size() < 2) return nan;
  const double m = mean();
  compensated_sum s;
  for (const double v : sorted_) s.add((v - m) * (v - m));
  return std::sqrt(s.value() / static_cast<double>(sorted_.size() - 1));
}

double finite_sample::min() const { return sorted_.empty() ? nan : sorted_.front(); }
double finite_sample::max() const { return sorted_.empty() ? nan : sorted_.back(); }
double finite_sample::quantile(double p) const { return sorted_quantile(sorted_, p); }

double finite_sample::ecdf(double x) const {
  if (sorted_.empty() || std::isnan(x)) return nan;
  const auto below = std::upper_bound(sorted_.begin(), sorted_.end(), x) - sorted_.begin();
  return static_cast<double>(below) / static_cast<double>(sorted_.size());
}

void summary_options::validate() const {
  for (const double p : probabilities) check_probability(p, "probabilities");
  require(confidence > 0.0 && confidence < 1.0, "confidence", confidence, "", "in (0, 1)");
  require(
      bootstrap_resamples == 0 || (bootstrap_resamples >= 10 && bootstrap_resamples <= 10'000'000),
      "bootstrap_resamples", static_cast<double>(bootstrap_resamples), "",
      "0 (no intervals) or in [10, 1e7]");
}

summary summarize(std::span<const double> values, const summary_options& options) {
  options.validate();
  const finite_sample sample(values);
  require(sample.size() < (std::size_t{1} << 32), "samples", static_cast<double>(sample.size()), "",
          "< 2^32");
  summary out;
  out.count = values.size();
  out.used = sample.size();
  out.skipped = sample.skipped();
  out.mean = sample.mean();
  out.stddev = sample.stddev();
  out.min = sample.min();
  out.max = sample.max();
  out.confidence = options.confidence;
  out.bootstrap_resamples = options.bootstrap_resamples;
  out.mean_ci = out.stddev_ci = {nan, nan};
  for (const double p : options.probabilities)
    out.quantiles.push_back({p, sample.quantile(p), {nan, nan}});

  const std::size_t n = sample.size();
  const std::size_t b_count = options.bootstrap_resamples;
  if (n == 0 || b_count == 0) return out;

  // Replicate estimates, one row per replicate: mean, stddev, then the quantiles. Resamples
  // are counts over the sorted values; sums run over values centred on the sample mean, which
  // keeps plain (vectorisable) summation accurate even on a large offset.
  const std::size_t m = 2 + options.probabilities.size();
  std::vector<double> replicates(b_count * m);
  const std::span<const double> sorted = sample.sorted();
  std::vector<double> centred(n);
  for (std::size_t k = 0; k < n; ++k) centred[k] = sorted[k] - out.mean;
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, b_count, 16),
      [&](const tbb::blocked_range<std::size_t>& range) {
        std::vector<std::uint32_t> counts(n);
        for (std::size_t b = range.begin(); b != range.end(); ++b) {
          engine e = make_engine(options.seed, stream_purpose::bootstrap_replicate, b);
          std::fill(counts.begin(), counts.end(), std::uint32_t{0});
          for (std::size_t i = 0; i < n; ++i) ++counts[uniform_index(e, n)];
          double sum = 0.0;
          for (std::size_t k = 0; k < n; ++k) sum += static_cast<double>(counts[k]) * centred[k];
          const double shift = sum / static_cast<double>(n);
          double ss = 0.0;
          for (std::size_t k = 0; k < n; ++k) {
            const double y = centred[k] - shift;
            ss += static_cast<double>(counts[k]) * y * y;
          }
          double* row = &replicates[b * m];
          // a resample's mean lies within the data's range; the centred sums can round a last
          // bit past it (a 0/1 sample's interval started at -3.5e-18)
          row[0] = std::clamp(out.mean + shift, out.min, out.max);
          row[1] = n >= 2 ? std::sqrt(ss / static_cast<double>(n - 1)) : nan;
          // Running counts, then definition-7 quantiles from order statistics of the resample.
          for (std::size_t k = 1; k < n; ++k) counts[k] += counts[k - 1];
          for (std::size_t q = 0; q < options.probabilities.size(); ++q) {
            const double h = static_cast<double>(n - 1) * options.probabilities[q];
            const double lo = std::floor(h);
            const auto i = static_cast<std::size_t>(lo);
            const double x_lo = order_statistic(sorted, counts, i);
            const double x_hi = i + 1 < n ? order_statistic(sorted, counts, i + 1) : x_lo;
            row[2 + q] = x_lo + (h - lo) * (x_hi - x_lo);
          }
        }
      });

  const double p_low = 0.5 * (1.0 - options.confidence);
  const double p_high = 0.5 * (1.0 + options.confidence);
  std::vector<double> column(b_count);
  const auto percentile_interval = [&](std::size_t c) -> interval {
    for (std::size_t b = 0; b < b_count; ++b) column[b] = replicates[b * m + c];
    if (std::any_of(column.begin(), column.end(), [](double v) { return std::isnan(v); })) {
      return {nan, nan};
    }
    std::sort(column.begin(), column.end());
    return {sorted_quantile(column, p_low), sorted_quantile(column, p_high)};
  };
  out.mean_ci = percentile_interval(0);
  out.stddev_ci = percentile_interval(1);
  for (std::size_t q = 0; q < out.quantiles.size(); ++q)
    out.quantiles[q].ci = percentile_interval(2 + q);
  return out;
}

ecdf_points empirical_cdf(std::span<const double> values) {
  const finite_sample sample(values);
  ecdf_points out;
  out.skipped = sample.skipped();
  const auto& x = sample.sorted();
  const double n = static_cast<double>(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (k + 1 < x.size() && x[k + 1] == x[k]) continue;  // the last of equal values carries F_n
    out.x.push_back(x[k]);
    out.f.push_back(static_cast<double>(k + 1) / n);
  }
  return out;
}

}  // namespace contactuq::uq
