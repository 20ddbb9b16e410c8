#include "contactuq/uq/distribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/triangular.hpp>
#include <boost/math/distributions/weibull.hpp>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

#include "contactuq/error.hpp"

namespace contactuq::uq {

namespace {

namespace bm = boost::math;
// Infinite densities (beta with alpha < 1 at its lower end, Weibull with shape < 1 at 0) are
// returned as +inf rather than thrown; domain errors still throw, but the callers below only
// pass points inside the support.
using policy = bm::policies::policy<bm::policies::overflow_error<bm::policies::ignore_error>>;
using normal_dist = bm::normal_distribution<double, policy>;
using lognormal_dist = bm::lognormal_distribution<double, policy>;
using triangular_dist = bm::triangular_distribution<double, policy>;
using beta_dist = bm::beta_distribution<double, policy>;
using weibull_dist = bm::weibull_distribution<double, policy>;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

constexpr std::array kind_names = {"normal",     "lognormal", "uniform", "truncated_normal",
                                   "triangular", "beta",      "weibull", "discrete"};

const char* kind_name(distribution_kind kind) { return kind_names[static_cast<std::size_t>(kind)]; }

// Throws "<kind>: <field> = <value>: must be <requirement>".
void check(bool ok, std::string_view kind, const std::string& field, double value,
           std::string_view requirement) {
  if (ok) return;
  throw parameter_error(
      field, fmt::format("{}: {} = {}: must be {}", kind, field, format_value(value), requirement));
}

void check_positive(std::string_view kind, const std::string& field, double value) {
  check(std::isfinite(value) && value > 0, kind, field, value, "> 0 and finite");
}

void check_finite(std::string_view kind, const std::string& field, double value) {
  check(std::isfinite(value), kind, field, value, "finite");
}

// Standard normal Phi, its complement and density, with the infinite ends exact.
double std_normal_cdf(double z) {
  if (std::isinf(z)) return z < 0 ? 0.0 : 1.0;
  return bm::cdf(normal_dist(), z);
}
double std_normal_ccdf(double z) {
  if (std::isinf(z)) return z < 0 ? 1.0 : 0.0;
  return bm::cdf(bm::complement(normal_dist(), z));
}
double std_normal_pdf(double z) {
  if (std::isinf(z)) return 0.0;
  return bm::pdf(normal_dist(), z);
}
// z phi(z), which is 0 at z = +-inf.
double z_phi(double z) { return std::isinf(z) ? 0.0 : z * std_normal_pdf(z); }

// Truncated normal in standard units: al = (low - mean)/sd, be = (high - mean)/sd. When the
// whole interval lies right of the mean, probabilities are taken from the upper tail,
// Q(z) = 1 - Phi(z), so that an interval far out in the tail keeps its precision.
struct truncated_standard {
  double al, be;
  bool upper_tail;  // al > 0
  double z_mass;    // Phi(be) - Phi(al)

  truncated_standard(double al_, double be_) : al(al_), be(be_), upper_tail(al_ > 0) {
    z_mass = upper_tail ? std_normal_ccdf(al) - std_normal_ccdf(be)
                        : std_normal_cdf(be) - std_normal_cdf(al);
  }
  double cdf(double z) const {
    return upper_tail ? (std_normal_ccdf(al) - std_normal_ccdf(z)) / z_mass
                      : (std_normal_cdf(z) - std_normal_cdf(al)) / z_mass;
  }
  double quantile(double u) const {
    if (upper_tail) {
      return bm::quantile(bm::complement(normal_dist(), std_normal_ccdf(al) - u * z_mass));
    }
    return bm::quantile(normal_dist(), std_normal_cdf(al) + u * z_mass);
  }
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Factories

distribution make_normal(double mean, double sd) {
  check_finite("normal", "mean", mean);
  check_positive("normal", "sd", sd);
  distribution d;
  d.kind_ = distribution_kind::normal;
  d.parameters_ = {{"mean", mean}, {"sd", sd}};
  d.p_[0] = mean;
  d.p_[1] = sd;
  return d;
}

distribution make_lognormal(double median, double sigma_log) {
  check_positive("lognormal", "median", median);
  check_positive("lognormal", "sigma_log", sigma_log);
  distribution d;
  d.kind_ = distribution_kind::lognormal;
  d.parameters_ = {{"median", median}, {"sigma_log", sigma_log}};
  d.p_[0] = std::log(median);
  d.p_[1] = sigma_log;
  return d;
}

distribution make_lognormal_from_moments(double mean, double sd) {
  check_positive("lognormal", "mean", mean);
  check_positive("lognormal", "sd", sd);
  // S^2 = ln(1 + s^2/m^2), ln M = ln m - S^2/2 (header).
  const double ratio = sd / mean;
  const double s2 = std::log1p(ratio * ratio);
  distribution d;
  d.kind_ = distribution_kind::lognormal;
  d.parameters_ = {{"mean", mean}, {"sd", sd}};
  d.p_[0] = std::log(mean) - 0.5 * s2;
  d.p_[1] = std::sqrt(s2);
  return d;
}

distribution make_uniform(double low, double high) {
  check_finite("uniform", "low", low);
  check_finite("uniform", "high", high);
  check(high > low, "uniform", "high", high, fmt::format("> low = {}", format_value(low)));
  distribution d;
  d.kind_ = distribution_kind::uniform;
  d.parameters_ = {{"low", low}, {"high", high}};
  d.p_[0] = low;
  d.p_[1] = high;
  return d;
}

distribution make_truncated_normal(double mean, double sd, double low, double high) {
  constexpr std::string_view kind = "truncated_normal";
  check_finite(kind, "mean", mean);
  check_positive(kind, "sd", sd);
  check(!std::isnan(low) && low != inf, kind, "low", low, "a number or -inf");
  check(!std::isnan(high) && high != -inf, kind, "high", high, "a number or +inf");
  check(high > low, kind, "high", high, fmt::format("> low = {}", format_value(low)));
  const truncated_standard t((low - mean) / sd, (high - mean) / sd);
  if (!(t.z_mass >= 1e-300)) {
    throw parameter_error(
        "low", fmt::format("truncated_normal: [low, high] = [{}, {}] holds probability {} of "
                           "normal(mean={}, sd={}): must hold more than 1e-300",
                           format_value(low), format_value(high), format_value(t.z_mass),
                           format_value(mean), format_value(sd)));
  }
  distribution d;
  d.kind_ = distribution_kind::truncated_normal;
  d.parameters_ = {{"mean", mean}, {"sd", sd}, {"low", low}, {"high", high}};
  d.p_[0] = mean;
  d.p_[1] = sd;
  d.p_[2] = low;
  d.p_[3] = high;
  return d;
}

distribution make_triangular(double low, double mode, double high) {
  constexpr std::string_view kind = "triangular";
  check_finite(kind, "low", low);
  check_finite(kind, "mode", mode);
  check_finite(kind, "high", high);
  check(high > low, kind, "high", high, fmt::format("> low = {}", format_value(low)));
  check(mode >= low && mode <= high, kind, "mode", mode,
        fmt::format("in [low, high] = [{}, {}]", format_value(low), format_value(high)));
  distribution d;
  d.kind_ = distribution_kind::triangular;
  d.parameters_ = {{"low", low}, {"mode", mode}, {"high", high}};
  d.p_[0] = low;
  d.p_[1] = mode;
  d.p_[2] = high;
  return d;
}

distribution make_beta(double alpha, double beta, double low, double high) {
  constexpr std::string_view kind = "beta";
  check_positive(kind, "alpha", alpha);
  check_positive(kind, "beta", beta);
  check_finite(kind, "low", low);
  check_finite(kind, "high", high);
  check(high > low, kind, "high", high, fmt::format("> low = {}", format_value(low)));
  distribution d;
  d.kind_ = distribution_kind::beta;
  d.parameters_ = {{"alpha", alpha}, {"beta", beta}, {"low", low}, {"high", high}};
  d.p_[0] = alpha;
  d.p_[1] = beta;
  d.p_[2] = low;
  d.p_[3] = high;
  return d;
}

distribution make_weibull(double shape, double scale) {
  check_positive("weibull", "shape", shape);
  check_positive("weibull", "scale", scale);
  distribution d;
  d.kind_ = distribution_kind::weibull;
  d.parameters_ = {{"shape", shape}, {"scale", scale}};
  d.p_[0] = shape;
  d.p_[1] = scale;
  return d;
}

distribution make_discrete(std::vector<double> values, std::vector<double> weights) {
  constexpr std::string_view kind = "discrete";
  const std::size_t n = values.size();
  if (n == 0) {
    throw parameter_error("values", "discrete: no values given: must have at least one value");
  }
  if (!weights.empty() && weights.size() != n) {
    throw parameter_error("weights", fmt::format("discrete: {} weights for {} values: give one "
                                                 "weight per value, or none for equal weights",
                                                 weights.size(), n));
  }
  for (std::size_t i = 0; i < n; ++i) check_finite(kind, fmt::format("value_{}", i), values[i]);
  double total = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    check(std::isfinite(weights[i]) && weights[i] >= 0, kind, fmt::format("weight_{}", i),
          weights[i], ">= 0 and finite");
    total += weights[i];
  }
  if (!weights.empty() && !(total > 0 && std::isfinite(total))) {
    throw parameter_error("weights", fmt::format("discrete: weights sum to {}: the sum must be > "
                                                 "0 and finite",
                                                 format_value(total)));
  }

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t a = order[k - 1], b = order[k];
    check(values[a] != values[b], kind, fmt::format("value_{}", std::max(a, b)), values[b],
          fmt::format("different from value_{} (values must be distinct)", std::min(a, b)));
  }

  distribution d;
  d.kind_ = distribution_kind::discrete;
  for (std::size_t i = 0; i < n; ++i)
    d.parameters_.emplace_back(fmt::format("value_{}", i), values[i]);
  for (std::size_t i = 0; i < weights.size(); ++i) {
    d.parameters_.emplace_back(fmt::format("weight_{}", i), weights[i]);
  }
  double running = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    const double p = weights.empty() ? 1.0 / static_cast<double>(n) : weights[i] / total;
    d.values_.push_back(values[i]);
    d.probabilities_.push_back(p);
    running += p;
    d.cumulative_.push_back(running);
  }
  // Rounding must not leave a sliver above the last value that quantile(u) could fall into.
  d.cumulative_.back() = 1.0;
  return d;
}

// ---------------------------------------------------------------------------------------------
// make_distribution

namespace {

// Checks that params holds exactly `keys`; an unexpected key is reported before a missing one,
// since a misspelt key produces both and the misspelling is the useful news.
void expect_keys(std::string_view kind, const std::map<std::string, double>& params,
                 const std::vector<std::string>& keys, std::string_view takes) {
  for (const auto& [key, value] : params) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw parameter_error(key, fmt::format("{}: unexpected parameter '{}' = {}; {} takes {}",
                                             kind, key, format_value(value), kind, takes));
    }
  }
  for (const auto& key : keys) {
    if (!params.contains(key)) {
      throw parameter_error(
          key, fmt::format("{}: missing parameter '{}'; {} takes {}", kind, key, kind, takes));
    }
  }
}

// "value_12" -> 12 for prefix "value_"; -1 when the key is not of that form.
long indexed_key(const std::string& key, std::string_view prefix) {
  if (!key.starts_with(prefix) || key.size() == prefix.size()) return -1;
  const char* first = key.data() + prefix.size();
  const char* last = key.data() + key.size();
  if (*first == '0' && last - first > 1) return -1;  // no leading zeros: one spelling per index
  long index = 0;
  const auto [ptr, ec] = std::from_chars(first, last, index);
  if (ec != std::errc{} || ptr != last || index < 0) return -1;
  return index;
}

distribution discrete_from_map(const std::map<std::string, double>& params) {
  constexpr std::string_view takes =
      "value_0, value_1, ... and optionally one weight_i per value_i";
  std::map<long, double> values, weights;
  for (const auto& [key, value] : params) {
    if (const long i = indexed_key(key, "value_"); i >= 0) {
      values[i] = value;
    } else if (const long j = indexed_key(key, "weight_"); j >= 0) {
      weights[j] = value;
    } else {
      throw parameter_error(key, fmt::format("discrete: unexpected parameter '{}' = {}; discrete "
                                             "takes {}",
                                             key, format_value(value), takes));
    }
  }
  if (values.empty()) {
    throw parameter_error(
        "value_0", fmt::format("discrete: missing parameter 'value_0'; discrete takes {}", takes));
  }
  const long n = values.rbegin()->first + 1;
  for (long i = 0; i < n; ++i) {
    if (!values.contains(i)) {
      throw parameter_error(fmt::format("value_{}", i),
                            fmt::format("discrete: missing parameter 'value_{}' (value_{} is "
                                        "given); discrete takes {}",
                                        i, n - 1, takes));
    }
  }
  if (!weights.empty()) {
    for (const auto& [j, w] : weights) {
      if (j >= n) {
        throw parameter_error(fmt::format("weight_{}", j),
                              fmt::format("discrete: unexpected parameter 'weight_{}' = {}: there "
                                          "is no value_{}",
                                          j, format_value(w), j));
      }
    }
    for (long i = 0; i < n; ++i) {
      if (!weights.contains(i)) {
        throw parameter_error(fmt::format("weight_{}", i),
                              fmt::format("discrete: missing parameter 'weight_{}': give a weight "
                                          "for every value or for none",
                                          i));
      }
    }
  }
  std::vector<double> v, w;
  for (const auto& [i, x] : values) v.push_back(x);
  for (const auto& [i, x] : weights) w.push_back(x);
  return make_discrete(std::move(v), std::move(w));
}

}  // namespace

distribution make_distribution(std::string_view kind, const std::map<std::string, double>& params) {
  const auto get = [&](const char* key) { return params.at(key); };
  if (kind == "normal") {
    expect_keys(kind, params, {"mean", "sd"}, "mean, sd");
    return make_normal(get("mean"), get("sd"));
  }
  if (kind == "lognormal") {
    constexpr std::string_view takes = "either median, sigma_log or mean, sd";
    if (params.contains("median") || params.contains("sigma_log")) {
      expect_keys(kind, params, {"median", "sigma_log"}, takes);
      return make_lognormal(get("median"), get("sigma_log"));
    }
    expect_keys(kind, params, {"mean", "sd"}, takes);
    return make_lognormal_from_moments(get("mean"), get("sd"));
  }
  if (kind == "uniform") {
    expect_keys(kind, params, {"low", "high"}, "low, high");
    return make_uniform(get("low"), get("high"));
  }
  if (kind == "truncated_normal") {
    expect_keys(kind, params, {"mean", "sd", "low", "high"}, "mean, sd, low, high");
    return make_truncated_normal(get("mean"), get("sd"), get("low"), get("high"));
  }
  if (kind == "triangular") {
    expect_keys(kind, params, {"low", "mode", "high"}, "low, mode, high");
    return make_triangular(get("low"), get("mode"), get("high"));
  }
  if (kind == "beta") {
    expect_keys(kind, params, {"alpha", "beta", "low", "high"}, "alpha, beta, low, high");
    return make_beta(get("alpha"), get("beta"), get("low"), get("high"));
  }
  if (kind == "weibull") {
    expect_keys(kind, params, {"shape", "scale"}, "shape, scale");
    return make_weibull(get("shape"), get("scale"));
  }
  if (kind == "discrete") return discrete_from_map(params);
  throw parameter_error("kind", fmt::format("unknown distribution '{}'; known distributions: {}",
                                            kind, known_distribution_kinds()));
}

std::string known_distribution_kinds() {
  return join(std::vector<std::string>(kind_names.begin(), kind_names.end()));
}

std::map<std::string, double> to_map(const parameter_list& parameters) {
  return {parameters.begin(), parameters.end()};
}

// ---------------------------------------------------------------------------------------------
// Evaluation

std::string distribution::name() const { return kind_name(kind_); }

std::string distribution::describe() const {
  if (is_discrete()) {
    std::vector<std::string> v, w;
    for (const auto& [key, value] : parameters_) {
      (key.starts_with("value_") ? v : w).push_back(format_value(value));
    }
    if (w.empty()) return fmt::format("discrete(values=[{}])", join(v));
    return fmt::format("discrete(values=[{}], weights=[{}])", join(v), join(w));
  }
  std::vector<std::string> items;
  for (const auto& [key, value] : parameters_) {
    items.push_back(fmt::format("{}={}", key, format_value(value)));
  }
  return fmt::format("{}({})", name(), join(items));
}

double distribution::lower() const {
  switch (kind_) {
    case distribution_kind::normal:
      return -inf;
    case distribution_kind::lognormal:
    case distribution_kind::weibull:
      return 0.0;
    case distribution_kind::uniform:
    case distribution_kind::triangular:
      return p_[0];
    case distribution_kind::truncated_normal:
    case distribution_kind::beta:
      return p_[2];
    case distribution_kind::discrete:
      return values_.front();
  }
  return nan;
}

double distribution::upper() const {
  switch (kind_) {
    case distribution_kind::normal:
    case distribution_kind::lognormal:
    case distribution_kind::weibull:
      return inf;
    case distribution_kind::uniform:
      return p_[1];
    case distribution_kind::triangular:
      return p_[2];
    case distribution_kind::truncated_normal:
    case distribution_kind::beta:
      return p_[3];
    case distribution_kind::discrete:
      return values_.back();
  }
  return nan;
}

double distribution::quantile(double u) const {
  if (!(u >= 0.0 && u <= 1.0)) {
    throw parameter_error(
        "u", fmt::format("{} quantile: u = {}: must be in [0, 1]", name(), format_value(u)));
  }
  if (is_discrete()) {
    // Smallest x_k with F(x_k) >= u.
    const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), u);
    return values_[static_cast<std::size_t>(it - cumulative_.begin())];
  }
  if (u == 0.0) return lower();
  if (u == 1.0) return upper();
  switch (kind_) {
    case distribution_kind::normal:
      return bm::quantile(normal_dist(p_[0], p_[1]), u);
    case distribution_kind::lognormal:
      return bm::quantile(lognormal_dist(p_[0], p_[1]), u);
    case distribution_kind::uniform: {
      // a + u (b - a), kept inside [a, b] against rounding.
      return std::clamp(p_[0] + u * (p_[1] - p_[0]), p_[0], p_[1]);
    }
    case distribution_kind::truncated_normal: {
      const truncated_standard t((p_[2] - p_[0]) / p_[1], (p_[3] - p_[0]) / p_[1]);
      return std::clamp(p_[0] + p_[1] * t.quantile(u), p_[2], p_[3]);
    }
    case distribution_kind::triangular:
      return bm::quantile(triangular_dist(p_[0], p_[1], p_[2]), u);
    case distribution_kind::beta: {
      const double y = bm::quantile(beta_dist(p_[0], p_[1]), u);
      return std::clamp(p_[2] + y * (p_[3] - p_[2]), p_[2], p_[3]);
    }
    case distribution_kind::weibull:
      return bm::quantile(weibull_dist(p_[0], p_[1]), u);
    case distribution_kind::discrete:
      break;
  }
  return nan;
}

double distribution::from_standard_normal(double z) const {
  if (is_discrete())
    throw parameter_error("distribution", fmt::format("{} has no transform to a standard normal: it is discrete", name()));
  if (std::isnan(z)) return nan;
  switch (kind_) {
    case distribution_kind::normal:
      return p_[0] + p_[1] * z;
    case distribution_kind::lognormal:
      return std::exp(p_[0] + p_[1] * z);
    case distribution_kind::weibull:  // scale (-ln(1 - F))^(1/shape), 1 - F = Q(z)
      return p_[1] * std::pow(-std::log(std_normal_ccdf(z)), 1.0 / p_[0]);
    default:
      break;
  }
  if (z <= 0) return quantile(std_normal_cdf(z));
  const double q = std_normal_ccdf(z);
  switch (kind_) {
    case distribution_kind::triangular:
      return bm::quantile(bm::complement(triangular_dist(p_[0], p_[1], p_[2]), q));
    case distribution_kind::beta:
      return std::clamp(p_[2] + bm::quantile(bm::complement(beta_dist(p_[0], p_[1]), q)) * (p_[3] - p_[2]), p_[2],
                        p_[3]);
    case distribution_kind::uniform:
      return std::clamp(p_[1] - q * (p_[1] - p_[0]), p_[0], p_[1]);
    default:  // truncated normal: bounded, its quantile resolves the upper end well enough
      return quantile(1.0 - q);
  }
}

double distribution::cdf(double x) const {
  if (std::isnan(x)) return nan;
  if (is_discrete()) {
    const auto it = std::upper_bound(values_.begin(), values_.end(), x);
    if (it == values_.begin()) return 0.0;
    return cumulative_[static_cast<std::size_t>(it - values_.begin()) - 1];
  }
  if (x <= lower()) return 0.0;
  if (x >= upper()) return 1.0;
  switch (kind_) {
    case distribution_kind::normal:
      return bm::cdf(normal_dist(p_[0], p_[1]), x);
    case distribution_kind::lognormal:
      return bm::cdf(lognormal_dist(p_[0], p_[1]), x);
    case distribution_kind::uniform:
      return (x - p_[0]) / (p_[1] - p_[0]);
    case distribution_kind::truncated_normal: {
      const truncated_standard t((p_[2] - p_[0]) / p_[1], (p_[3] - p_[0]) / p_[1]);
      return std::clamp(t.cdf((x - p_[0]) / p_[1]), 0.0, 1.0);
    }
    case distribution_kind::triangular:
      return bm::cdf(triangular_dist(p_[0], p_[1], p_[2]), x);
    case distribution_kind::beta:
      return bm::cdf(beta_dist(p_[0], p_[1]), (x - p_[2]) / (p_[3] - p_[2]));
    case distribution_kind::weibull:
      return bm::cdf(weibull_dist(p_[0], p_[1]), x);
    case distribution_kind::discrete:
      break;
  }
  return nan;
}

double distribution::pdf(double x) const {
  if (std::isnan(x)) return nan;
  if (is_discrete()) {
    const auto it = std::lower_bound(values_.begin(), values_.end(), x);
    if (it == values_.end() || *it != x) return 0.0;
    return probabilities_[static_cast<std::size_t>(it - values_.begin())];
  }
  if (x < lower() || x > upper() || std::isinf(x)) return 0.0;
  switch (kind_) {
    case distribution_kind::normal:
      return bm::pdf(normal_dist(p_[0], p_[1]), x);
    case distribution_kind::lognormal:
      return bm::pdf(lognormal_dist(p_[0], p_[1]), x);
    case distribution_kind::uniform:
      return 1.0 / (p_[1] - p_[0]);
    case distribution_kind::truncated_normal: {
      const truncated_standard t((p_[2] - p_[0]) / p_[1], (p_[3] - p_[0]) / p_[1]);
      return std_normal_pdf((x - p_[0]) / p_[1]) / (p_[1] * t.z_mass);
    }
    case distribution_kind::triangular:
      return bm::pdf(triangular_dist(p_[0], p_[1], p_[2]), x);
    case distribution_kind::beta: {
      const double width = p_[3] - p_[2];
      return bm::pdf(beta_dist(p_[0], p_[1]), (x - p_[2]) / width) / width;
    }
    case distribution_kind::weibull:
      return bm::pdf(weibull_dist(p_[0], p_[1]), x);
    case distribution_kind::discrete:
      break;
  }
  return nan;
}

double distribution::mean() const {
  switch (kind_) {
    case distribution_kind::normal:
      return p_[0];
    case distribution_kind::lognormal:
      return std::exp(p_[0] + 0.5 * p_[1] * p_[1]);
    case distribution_kind::uniform:
      return 0.5 * (p_[0] + p_[1]);
    case distribution_kind::truncated_normal: {
      const truncated_standard t((p_[2] - p_[0]) / p_[1], (p_[3] - p_[0]) / p_[1]);
      return p_[0] + p_[1] * (std_normal_pdf(t.al) - std_normal_pdf(t.be)) / t.z_mass;
    }
    case distribution_kind::triangular:
      return (p_[0] + p_[1] + p_[2]) / 3.0;
    case distribution_kind::beta:
      return p_[2] + (p_[3] - p_[2]) * p_[0] / (p_[0] + p_[1]);
    case distribution_kind::weibull:
      return p_[1] * std::tgamma(1.0 + 1.0 / p_[0]);
    case distribution_kind::discrete: {
      double m = 0.0;
      for (std::size_t k = 0; k < values_.size(); ++k) m += probabilities_[k] * values_[k];
      return m;
    }
  }
  return nan;
}

double distribution::stddev() const {
  switch (kind_) {
    case distribution_kind::normal:
      return p_[1];
    case distribution_kind::lognormal:
      return mean() * std::sqrt(std::expm1(p_[1] * p_[1]));
    case distribution_kind::uniform:
      return (p_[1] - p_[0]) / std::sqrt(12.0);
    case distribution_kind::truncated_normal: {
      const truncated_standard t((p_[2] - p_[0]) / p_[1], (p_[3] - p_[0]) / p_[1]);
      const double r = (std_normal_pdf(t.al) - std_normal_pdf(t.be)) / t.z_mass;
      const double var = 1.0 + (z_phi(t.al) - z_phi(t.be)) / t.z_mass - r * r;
      return p_[1] * std::sqrt(std::max(var, 0.0));
    }
    case distribution_kind::triangular: {
      const double a = p_[0], c = p_[1], b = p_[2];
      return std::sqrt((a * a + b * b + c * c - a * b - a * c - b * c) / 18.0);
    }
    case distribution_kind::beta: {
      const double p = p_[0], q = p_[1], s = p + q;
      return (p_[3] - p_[2]) * std::sqrt(p * q / (s * s * (s + 1.0)));
    }
    case distribution_kind::weibull: {
      const double g1 = std::tgamma(1.0 + 1.0 / p_[0]);
      const double g2 = std::tgamma(1.0 + 2.0 / p_[0]);
      return p_[1] * std::sqrt(std::max(g2 - g1 * g1, 0.0));
    }
    case distribution_kind::discrete: {
      const double m = mean();
      double v = 0.0;
      for (std::size_t k = 0; k < values_.size(); ++k) {
        v += probabilities_[k] * (values_[k] - m) * (values_[k] - m);
      }
      return std::sqrt(v);
    }
  }
  return nan;
}

}  // namespace contactuq::uq
