#include "contactuq/uq/epistemic.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>

#include "bootstrap_detail.hpp"
#include "contactuq/error.hpp"

namespace contactuq::uq {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// The used samples of the included models, centred on the overall mean m, column by column.
struct crn_matrix {
  std::size_t k = 0;      // included models
  std::size_t n = 0;      // used samples
  std::vector<double> w;  // normalised weights of the included models
  std::vector<double> z;  // z[j k + model] = Y - m
  std::vector<double> q;  // Var_M[Y | x_j] = sum_k w_k (z_kj - zbar_j)^2
};

constexpr std::size_t estimate_count = 6;  // total, aleatoric, epistemic, share, S_M, S_TM

// The header's estimates with sample j counted c[j] times; means and variances of the models
// into model_mean/model_variance when given.
void estimate_decomposition(const crn_matrix& y, std::span<const double> c, std::span<double> out,
                            std::vector<double>* model_mean = nullptr,
                            std::vector<double>* model_variance = nullptr) {
  const std::size_t k_count = y.k, n = y.n;
  double total_weight = 0.0;
  for (std::size_t j = 0; j < n; ++j) total_weight += c[j];
  std::vector<double> m_k(k_count, 0.0), v_k(k_count, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < k_count; ++k) m_k[k] += c[j] * y.z[j * k_count + k];
  }
  double m = 0.0;
  for (std::size_t k = 0; k < k_count; ++k) {
    m_k[k] /= total_weight;
    m += y.w[k] * m_k[k];
  }
  double total = 0.0, interaction = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < k_count; ++k) {
      const double z = y.z[j * k_count + k];
      v_k[k] += c[j] * (z - m_k[k]) * (z - m_k[k]);
      total += c[j] * y.w[k] * (z - m) * (z - m);
    }
    interaction += c[j] * y.q[j];
  }
  total /= total_weight;  // Var_total, computed directly (not as the sum of the two parts)
  double aleatoric = 0.0, epistemic = 0.0;
  for (std::size_t k = 0; k < k_count; ++k) {
    v_k[k] /= total_weight;
    aleatoric += y.w[k] * v_k[k];                       // E_model[Var_aleatoric]
    epistemic += y.w[k] * (m_k[k] - m) * (m_k[k] - m);  // Var_model[E_aleatoric]
  }
  const bool shares = total > 0.0;
  out[0] = total;
  out[1] = aleatoric;
  out[2] = epistemic;
  out[3] = shares ? 100.0 * epistemic / total : nan;
  out[4] = shares ? epistemic / total : nan;                   // S_M
  out[5] = shares ? interaction / total_weight / total : nan;  // S_TM
  if (model_mean != nullptr) *model_mean = m_k;
  if (model_variance != nullptr) *model_variance = v_k;
}

std::vector<double> row_values(const Eigen::MatrixXd& y, Eigen::Index k) {
  std::vector<double> v(static_cast<std::size_t>(y.cols()));
  for (Eigen::Index j = 0; j < y.cols(); ++j) v[static_cast<std::size_t>(j)] = y(k, j);
  return v;
}

void check_confidence(double confidence) {
  require(confidence > 0.0 && confidence < 1.0, "confidence", confidence, "", "in (0, 1)");
}

}  // namespace

namespace {

// Which models have a finite value in some sample (the others are excluded, listed in
// out.excluded_models); weight_sum: the sum of the included models' weights.
std::vector<bool> included_models(const Eigen::MatrixXd& y, std::span<const double> weights,
                                  model_form_decomposition& out, double& weight_sum) {
  const auto k_all = static_cast<std::size_t>(y.rows());
  std::vector<bool> included(k_all);
  for (std::size_t k = 0; k < k_all; ++k) {
    const auto row = y.row(static_cast<Eigen::Index>(k));
    included[k] = (row.array().isFinite()).any();
    if (!included[k]) {
      out.excluded_models.push_back(k);
    } else {
      weight_sum += weights.empty() ? 1.0 : weights[k];
    }
  }
  return included;
}

// The included models' normalised weights (also in out.weights) and the samples where every
// included model is finite (out.used; out.dropped the others).
crn_matrix common_samples(const Eigen::MatrixXd& y, std::span<const double> weights,
                          const std::vector<bool>& included, double weight_sum,
                          model_form_decomposition& out) {
  const auto k_all = static_cast<std::size_t>(y.rows());
  const auto n_all = static_cast<std::size_t>(y.cols());
  crn_matrix crn;
  out.weights.assign(k_all, 0.0);
  for (std::size_t k = 0; k < k_all; ++k) {
    if (!included[k]) continue;
    out.weights[k] = (weights.empty() ? 1.0 : weights[k]) / weight_sum;
    crn.w.push_back(out.weights[k]);
  }
  crn.k = crn.w.size();
  for (std::size_t j = 0; j < n_all; ++j) {
    bool finite = true;
    for (std::size_t k = 0; k < k_all && finite; ++k) {
      finite = !included[k] ||
               std::isfinite(y(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)));
    }
    if (!finite) continue;
    for (std::size_t k = 0; k < k_all; ++k) {
      if (included[k]) {
        crn.z.push_back(y(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(j)));
      }
    }
  }
  crn.n = crn.k > 0 ? crn.z.size() / crn.k : 0;
  out.used = crn.n;
  out.dropped = n_all - crn.n;
  return crn;
}

// Centres the values on the overall mean, so sums stay accurate on a large offset, and fills
// the per-sample spread q; returns the offset.
double centre(crn_matrix& crn) {
  double offset = 0.0;
  for (std::size_t j = 0; j < crn.n; ++j) {
    for (std::size_t k = 0; k < crn.k; ++k) offset += crn.w[k] * crn.z[j * crn.k + k];
  }
  offset /= static_cast<double>(crn.n);
  for (double& z : crn.z) z -= offset;
  crn.q.resize(crn.n);
  for (std::size_t j = 0; j < crn.n; ++j) {
    double zbar = 0.0;
    for (std::size_t k = 0; k < crn.k; ++k) zbar += crn.w[k] * crn.z[j * crn.k + k];
    double q = 0.0;
    for (std::size_t k = 0; k < crn.k; ++k) {
      const double dz = crn.z[j * crn.k + k] - zbar;
      q += crn.w[k] * dz * dz;
    }
    crn.q[j] = q;
  }
  return offset;
}

// Percentile bootstrap intervals of the estimates over resampled samples.
void bootstrap_intervals(const crn_matrix& crn, const sensitivity_options& options,
                         std::vector<interval>& cis) {
  const std::size_t b_count = options.bootstrap_resamples;
  std::vector<double> replicates(b_count * estimate_count);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, b_count, 8),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      std::vector<double> counts(crn.n);
                      for (std::size_t b = range.begin(); b != range.end(); ++b) {
                        detail::resample_counts(options.seed, b, counts);
                        estimate_decomposition(crn, counts,
                                               {&replicates[b * estimate_count], estimate_count});
                      }
                    });
  std::vector<double> column(b_count);
  for (std::size_t c = 0; c < estimate_count; ++c) {
    for (std::size_t b = 0; b < b_count; ++b) column[b] = replicates[b * estimate_count + c];
    cis[c] = detail::percentile_interval(column, options.confidence);
  }
}

}  // namespace

model_form_decomposition decompose_model_form(const Eigen::MatrixXd& y,
                                              std::span<const double> weights,
                                              const sensitivity_options& options) {
  options.validate();
  require(y.rows() >= 1, "models", static_cast<double>(y.rows()), "", ">= 1");
  require(y.cols() >= 1, "samples", static_cast<double>(y.cols()), "", ">= 1");
  const auto k_all = static_cast<std::size_t>(y.rows());
  const auto n_all = static_cast<std::size_t>(y.cols());
  if (!weights.empty() && weights.size() != k_all) {
    throw parameter_error("weights", fmt::format("{} model weights: must be empty (equal weights) "
                                                 "or one per model ({})",
                                                 weights.size(), k_all));
  }
  for (const double w : weights) {
    require(std::isfinite(w) && w >= 0.0, "weights", w, "", "finite and >= 0");
  }

  model_form_decomposition out;
  out.models = k_all;
  out.samples = n_all;
  out.confidence = options.confidence;
  out.bootstrap_resamples = options.bootstrap_resamples;
  double weight_sum = 0.0;
  const std::vector<bool> included = included_models(y, weights, out, weight_sum);
  require(weight_sum > 0.0, "weights", weight_sum, "",
          "positive in sum over the models with finite values");
  crn_matrix crn = common_samples(y, weights, included, weight_sum, out);

  const std::vector<interval> no_cis(estimate_count, interval{nan, nan});
  std::vector<double> point(estimate_count, nan);
  out.model_mean.assign(k_all, nan);
  out.model_variance.assign(k_all, nan);
  out.mean = nan;
  std::vector<interval> cis = no_cis;
  if (crn.n > 0) {
    const double offset = centre(crn);
    std::vector<double> means, variances;
    estimate_decomposition(crn, std::vector<double>(crn.n, 1.0), point, &means, &variances);
    double m = 0.0;
    for (std::size_t k = 0, i = 0; k < k_all; ++k) {
      if (!included[k]) continue;
      out.model_mean[k] = means[i] + offset;
      out.model_variance[k] = variances[i];
      m += crn.w[i] * means[i];
      ++i;
    }
    out.mean = m + offset;
    if (options.bootstrap_resamples > 0) bootstrap_intervals(crn, options, cis);
  }
  out.total_variance = {point[0], cis[0]};
  out.aleatoric_variance = {point[1], cis[1]};
  out.epistemic_variance = {point[2], cis[2]};
  out.epistemic_share_percent = {point[3], cis[3]};
  out.model_first_order = {point[4], cis[4]};
  out.model_total_order = {point[5], cis[5]};
  return out;
}

probability_box make_probability_box(const Eigen::MatrixXd& y, std::span<const double> grid) {
  for (std::size_t g = 0; g < grid.size(); ++g) {
    require(std::isfinite(grid[g]) && (g == 0 || grid[g] > grid[g - 1]), "grid", grid[g], "",
            "finite and strictly increasing");
  }
  const auto k_count = static_cast<std::size_t>(y.rows());
  probability_box out;
  out.grid.assign(grid.begin(), grid.end());
  out.cdf.resize(y.rows(), static_cast<Eigen::Index>(grid.size()));
  out.lower.assign(grid.size(), nan);
  out.upper.assign(grid.size(), nan);
  for (std::size_t k = 0; k < k_count; ++k) {
    const finite_sample sample(row_values(y, static_cast<Eigen::Index>(k)));
    out.used.push_back(sample.size());
    out.skipped.push_back(sample.skipped());
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const double f = sample.ecdf(grid[g]);  // NaN for a model without values
      out.cdf(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(g)) = f;
      if (std::isnan(f)) continue;
      out.lower[g] = std::isnan(out.lower[g]) ? f : std::min(out.lower[g], f);
      out.upper[g] = std::isnan(out.upper[g]) ? f : std::max(out.upper[g], f);
    }
  }
  return out;
}

probability_box make_probability_box(const Eigen::MatrixXd& y, std::size_t grid_points) {
  require(grid_points >= 2, "grid_points", static_cast<double>(grid_points), "", ">= 2");
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (Eigen::Index j = 0; j < y.cols(); ++j) {
    for (Eigen::Index k = 0; k < y.rows(); ++k) {
      if (!std::isfinite(y(k, j))) continue;
      lo = std::min(lo, y(k, j));
      hi = std::max(hi, y(k, j));
    }
  }
  std::vector<double> grid;
  if (lo < hi) {
    grid.resize(grid_points);
    const double step = (hi - lo) / static_cast<double>(grid_points - 1);
    for (std::size_t g = 0; g < grid_points; ++g) grid[g] = lo + step * static_cast<double>(g);
    grid.back() = hi;  // exactly, so every model's CDF reaches 1 at the last point
  } else if (lo == hi) {
    grid.push_back(lo);
  }
  return make_probability_box(y, grid);
}

std::string to_string(binomial_interval method) {
  switch (method) {
    case binomial_interval::wilson:
      return "wilson";
    case binomial_interval::clopper_pearson:
      return "clopper_pearson";
  }
  return "unknown";
}

binomial_interval parse_binomial_interval(std::string_view name) {
  if (name == "wilson") return binomial_interval::wilson;
  if (name == "clopper_pearson") return binomial_interval::clopper_pearson;
  throw parameter_error(
      "interval", fmt::format("interval = \"{}\": must be one of wilson, clopper_pearson", name));
}

event_probability binomial_proportion(std::size_t events, std::size_t trials, double confidence,
                                      binomial_interval method) {
  check_confidence(confidence);
  require(events <= trials, "events", static_cast<double>(events), "",
          fmt::format("<= trials ({})", trials).c_str());
  event_probability out;
  out.events = events;
  out.trials = trials;
  if (trials == 0) {
    out.value = nan;
    out.ci = {0.0, 1.0};
    return out;
  }
  const auto k = static_cast<double>(events);
  const auto n = static_cast<double>(trials);
  const double p = k / n;
  out.value = p;
  const double alpha = 1.0 - confidence;
  switch (method) {
    case binomial_interval::wilson: {
      const double z = boost::math::quantile(boost::math::normal(), 0.5 * (1.0 + confidence));
      const double z2 = z * z;
      const double centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
      const double half = z / (1.0 + z2 / n) * std::sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n));
      // with no events (or all) the bound is exactly 0 (or 1): centre - half cancels to rounding
      out.ci = {events == 0 ? 0.0 : std::max(0.0, centre - half),
                events == trials ? 1.0 : std::min(1.0, centre + half)};
      break;
    }
    case binomial_interval::clopper_pearson:
      out.ci.low = events == 0 ? 0.0 : boost::math::ibeta_inv(k, n - k + 1.0, 0.5 * alpha);
      out.ci.high =
          events == trials ? 1.0 : boost::math::ibeta_inv(k + 1.0, n - k, 1.0 - 0.5 * alpha);
      break;
  }
  return out;
}

event_probability probability_above(std::span<const double> values, double threshold,
                                    double confidence, binomial_interval method) {
  require(!std::isnan(threshold), "threshold", threshold, "", "a number");
  std::size_t events = 0, trials = 0;
  for (const double v : values) {
    if (!std::isfinite(v)) continue;
    ++trials;
    if (v > threshold) ++events;
  }
  event_probability out = binomial_proportion(events, trials, confidence, method);
  out.skipped = values.size() - trials;
  return out;
}

std::vector<event_probability> probability_above(const Eigen::MatrixXd& y, double threshold,
                                                 double confidence, binomial_interval method) {
  std::vector<event_probability> out;
  for (Eigen::Index k = 0; k < y.rows(); ++k) {
    out.push_back(probability_above(row_values(y, k), threshold, confidence, method));
  }
  return out;
}

}  // namespace contactuq::uq
