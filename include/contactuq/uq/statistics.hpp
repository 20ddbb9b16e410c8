#pragma once
// Estimators over the samples of one scalar output. A failed sample is stored as NaN; it is
// left out of every estimate and counted, so a summary always says how many samples it rests
// on. Infinite values are not valid outputs either and are left out and counted the same way.
//
// With x_(1) <= ... <= x_(n) the n finite values:
//   mean       m = (1/n) sum x_i
//   stddev     s = sqrt( sum (x_i - m)^2 / (n - 1) )            (NaN for n < 2)
//   quantile   Hyndman & Fan (1996) definition 7 (R's and NumPy's default):
//                h = (n - 1) p,  j = floor h,
//                Q(p) = x_(j+1) + (h - j)(x_(j+2) - x_(j+1))
//   ecdf       F_n(x) = #{x_i <= x} / n
//   bootstrap  percentile intervals (Efron & Tibshirani 1993, ch. 13): B resamples of size n
//              drawn with replacement; the interval at confidence c is the (1-c)/2 and (1+c)/2
//              quantiles (definition 7) of the B replicate estimates. Replicate b is drawn from
//              stream (seed, bootstrap_replicate, b), so the interval does not depend on how many
//              threads compute it.
// An estimate that needs more values than there are is NaN.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace contactuq::uq {

// The finite values of a sample, sorted, and how many were left out.
class finite_sample {
 public:
  explicit finite_sample(std::span<const double> values);

  std::size_t size() const { return sorted_.size(); }  ///< finite values used
  std::size_t skipped() const { return skipped_; }     ///< non-finite values left out
  const std::vector<double>& sorted() const { return sorted_; }

  double mean() const;
  double stddev() const;
  double min() const;
  double max() const;
  // Definition 7 quantile; p in [0, 1] (parameter_error otherwise).
  double quantile(double p) const;
  // Empirical CDF F_n(x).
  double ecdf(double x) const;

 private:
  std::vector<double> sorted_;
  std::size_t skipped_ = 0;
};

struct interval {
  double low;
  double high;
};

struct quantile_estimate {
  double probability;  ///< p in [0, 1]
  double value;        ///< Q(p), definition 7
  interval ci;         ///< bootstrap percentile interval
};

struct summary_options {
  std::vector<double> probabilities = {0.05, 0.5, 0.95};  ///< each in [0, 1]
  double confidence = 0.95;                               ///< of the bootstrap intervals, in (0, 1)
  std::size_t bootstrap_resamples = 1000;  ///< B, 0 (no intervals: NaN) or >= 10, <= 1e7
  std::uint64_t seed = 1;                  ///< bootstrap seed; any value

  // Throws contactuq::parameter_error naming the field and value.
  void validate() const;
};

// Per-output summary (what `contactuq summarize` prints).
struct summary {
  std::size_t count = 0;    ///< samples given, failed included
  std::size_t used = 0;     ///< finite values the estimates rest on
  std::size_t skipped = 0;  ///< count - used: failed (NaN) or infinite values left out
  double mean = 0.0;
  double stddev = 0.0;
  double min = 0.0;
  double max = 0.0;
  interval mean_ci{0.0, 0.0};
  interval stddev_ci{0.0, 0.0};
  std::vector<quantile_estimate> quantiles;  ///< one per summary_options::probabilities
  double confidence = 0.0;                   ///< of every interval above
  std::size_t bootstrap_resamples = 0;
};

summary summarize(std::span<const double> values, const summary_options& options = {});

// Definition 7 quantile of values already sorted ascending (no NaN); p in [0, 1].
double sorted_quantile(std::span<const double> sorted, double p);

// Points of the empirical CDF for plotting: the distinct finite values x_k in increasing order
// with F_n(x_k).
struct ecdf_points {
  std::vector<double> x;
  std::vector<double> f;
  std::size_t skipped = 0;  ///< non-finite values left out
};
ecdf_points empirical_cdf(std::span<const double> values);

}  // namespace contactuq::uq
