#pragma once
// Probability distributions of aleatoric inputs, as one value type. The continuous ones are
// evaluated with Boost.Math; the formulas below are the ones mean() and stddev() implement and
// the tests check against.
//
//   normal(mean=m, sd=s)                 mean m, sd s
//   lognormal(median=M, sigma_log=S)     ln X ~ normal(ln M, S); mean M e^(S^2/2),
//                                        sd = mean sqrt(e^(S^2) - 1)
//   lognormal(mean=m, sd=s)              the same family given by its moments:
//                                        S^2 = ln(1 + s^2/m^2), ln M = ln m - S^2/2
//   uniform(low=a, high=b)               mean (a+b)/2, sd (b-a)/sqrt(12)
//   truncated_normal(mean=m, sd=s,       normal(m, s) conditioned on a <= X <= b; with
//     low=a, high=b)                     al = (a-m)/s, be = (b-m)/s, Z = Phi(be) - Phi(al):
//                                        mean m + s (phi(al) - phi(be))/Z,
//                                        var s^2 [1 + (al phi(al) - be phi(be))/Z
//                                                   - ((phi(al) - phi(be))/Z)^2]
//                                        (a = -inf or b = +inf allowed)
//   triangular(low=a, mode=c, high=b)    mean (a+b+c)/3, var (a^2+b^2+c^2-ab-ac-bc)/18
//   beta(alpha=p, beta=q, low=a, high=b) a + (b-a) Y with Y ~ Beta(p, q) on [0, 1]:
//                                        mean a + (b-a) p/(p+q),
//                                        sd (b-a) sqrt(pq/((p+q)^2 (p+q+1)))
//   weibull(shape=k, scale=l)            F(x) = 1 - exp(-(x/l)^k), x >= 0:
//                                        mean l G(1+1/k), var l^2 [G(1+2/k) - G(1+1/k)^2]
//   discrete(values x_i, weights w_i)    P(X = x_i) = w_i / sum w; x_i distinct
//
// All values are in the SI unit of the input they describe (sigma_log, shape, alpha and beta
// are dimensionless).

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace contactuq::uq {

enum class distribution_kind {
  normal,
  lognormal,
  uniform,
  truncated_normal,
  triangular,
  beta,
  weibull,
  discrete,
};

// Named parameters in the order the distribution was given them, e.g. {{"mean", 0.21},
// {"sd", 0.02}}. make_distribution(d.name(), to_map(d.parameters())) rebuilds d.
using parameter_list = std::vector<std::pair<std::string, double>>;

class distribution {
 public:
  // Inverse CDF: the smallest x with cdf(x) >= u. u in [0, 1]; quantile(0) and quantile(1) are
  // the ends of the support (possibly infinite). Throws parameter_error for u outside [0, 1].
  double quantile(double u) const;
  // F^-1(Phi(z)): the value whose probability equals a standard normal's at z, precise in both
  // tails (the upper one through the complement, so that z = 9 is not rounded to the upper end).
  // Continuous distributions only (parameter_error for a discrete one).
  double from_standard_normal(double z) const;
  // P(X <= x).
  double cdf(double x) const;
  // Density; for a discrete distribution the probability mass P(X = x).
  double pdf(double x) const;
  double mean() const;
  double stddev() const;
  // Ends of the support: the smallest and largest values X can take (possibly infinite).
  double lower() const;
  double upper() const;

  distribution_kind kind() const { return kind_; }
  bool is_discrete() const { return kind_ == distribution_kind::discrete; }
  // The kind as make_distribution spells it, e.g. "truncated_normal".
  std::string name() const;
  // The parameters as given; a discrete distribution lists value_0, weight_0, value_1, ...
  // (weights as given, not normalised).
  const parameter_list& parameters() const { return parameters_; }
  // One line, e.g. "normal(mean=0.21, sd=0.02)", "discrete(values=[1, 2], weights=[1, 3])".
  std::string describe() const;

  // Support points of a discrete distribution in increasing order, with their probabilities
  // (normalised to sum 1); empty for continuous distributions.
  const std::vector<double>& values() const { return values_; }
  const std::vector<double>& probabilities() const { return probabilities_; }

  friend bool operator==(const distribution&, const distribution&) = default;

 private:
  friend distribution make_normal(double, double);
  friend distribution make_lognormal(double, double);
  friend distribution make_lognormal_from_moments(double, double);
  friend distribution make_uniform(double, double);
  friend distribution make_truncated_normal(double, double, double, double);
  friend distribution make_triangular(double, double, double);
  friend distribution make_beta(double, double, double, double);
  friend distribution make_weibull(double, double);
  friend distribution make_discrete(std::vector<double>, std::vector<double>);

  distribution() = default;

  distribution_kind kind_ = distribution_kind::normal;
  parameter_list parameters_;
  // Canonical parameters, by kind:
  //   normal, truncated_normal: mean, sd, low, high;  lognormal: ln median, sigma_log;
  //   uniform: low, high;  triangular: low, mode, high;  beta: alpha, beta, low, high;
  //   weibull: shape, scale.
  double p_[4] = {0, 0, 0, 0};
  std::vector<double> values_;         // sorted support points (discrete)
  std::vector<double> probabilities_;  // matching probabilities, sum 1
  std::vector<double> cumulative_;     // running sums of probabilities_, last exactly 1
};

// Factories. Each validates its arguments and throws contactuq::parameter_error whose field()
// is the parameter name (as make_distribution spells it) and whose message gives the value and
// what is allowed, e.g. "normal: sd = -0.1: must be > 0 and finite".
distribution make_normal(double mean, double sd);
// ln X ~ normal(ln median, sigma_log); median > 0, sigma_log > 0.
distribution make_lognormal(double median, double sigma_log);
// The lognormal with the given mean > 0 and sd > 0 (formulas above).
distribution make_lognormal_from_moments(double mean, double sd);
distribution make_uniform(double low, double high);
// low < high, either may be infinite; the interval must hold probability > 1e-300 of the
// parent normal.
distribution make_truncated_normal(double mean, double sd, double low, double high);
// low <= mode <= high, low < high.
distribution make_triangular(double low, double mode, double high);
// alpha > 0, beta > 0, low < high.
distribution make_beta(double alpha, double beta, double low, double high);
// shape > 0, scale > 0.
distribution make_weibull(double shape, double scale);
// Distinct finite values, any order; weights >= 0 with a positive sum, one per value, or empty
// for equal weights.
distribution make_discrete(std::vector<double> values, std::vector<double> weights = {});

// Builds a distribution from its kind and named SI parameters, as a study file gives them:
//   "normal" {mean, sd}; "lognormal" {median, sigma_log} or {mean, sd}; "uniform" {low, high};
//   "truncated_normal" {mean, sd, low, high}; "triangular" {low, mode, high};
//   "beta" {alpha, beta, low, high}; "weibull" {shape, scale};
//   "discrete" {value_0, ..., value_n-1} with either no weights or {weight_0, ..., weight_n-1}.
// An unknown kind throws parameter_error with field "kind" listing the known kinds; a missing
// or unexpected parameter throws parameter_error naming it and listing what the kind takes.
distribution make_distribution(std::string_view kind, const std::map<std::string, double>& params);

// "normal, lognormal, uniform, truncated_normal, triangular, beta, weibull, discrete".
std::string known_distribution_kinds();

std::map<std::string, double> to_map(const parameter_list& parameters);

}  // namespace contactuq::uq
