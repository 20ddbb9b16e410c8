#pragma once
// Gaussian-process regression (universal kriging) of one scalar output y(x), x in R^d:
//   Y(x) = f(x)^T beta + Z(x),   Cov[Z(x), Z(x')] = sigma^2 k(x, x'),
// observed as y_i = Y(x_i) + eps_i with eps_i ~ N(0, sigma^2 g) (g the relative nugget).
//
// Kernels, anisotropic, r^2 = sum_j ((x_j - x'_j)/l_j)^2 with length scales l_j:
//   matern52             k = (1 + sqrt5 r + 5 r^2/3) exp(-sqrt5 r)
//   squared_exponential  k = exp(-r^2/2)
// Trends: constant f(x) = 1, linear f(x) = (1, x_1, .., x_d).
//
// Conditioning (Rasmussen & Williams 2006, sec. 2.7; Santner et al. 2003, sec. 3.3): with
// R_ik = k(x_i, x_k), C = R + (g + j) I (j the jitter, 0 unless the Cholesky factorisation of
// C = L L^T failed, then 1e-12 relative and multiplied by 10 until it succeeds) and
// F_ik = f_k(x_i),
//   beta  = (F^T C^-1 F)^-1 F^T C^-1 y                          generalised least squares
//   alpha = C^-1 (y - F beta)
//   mean(x) = f(x)^T beta + r(x)^T alpha,                      r_i(x) = k(x, x_i)
//   var(x)  = sigma^2 [1 - r^T C^-1 r + u^T (F^T C^-1 F)^-1 u], u = F^T C^-1 r - f(x)
// var(x) is the variance of the latent Y(x) (the noise sigma^2 g is not in it) and includes
// the uncertainty of the trend coefficients.
//
// Closed-form leave-one-out (Dubrule 1983, universal kriging): with
//   Q = C^-1 - C^-1 F (F^T C^-1 F)^-1 F^T C^-1,
// the top-left block of the inverse of the bordered matrix [[C, F], [F^T, 0]],
//   y_i - yhat_{-i} = (Q y)_i / Q_ii = alpha_i / Q_ii,   var(y_i - yhat_{-i}) = sigma^2 / Q_ii,
// which equal removing point i, refitting beta by GLS on the n - 1 others with the same
// hyperparameters, and predicting the observation y_i (latent variance plus noise sigma^2 g).
// Computed through Q = L^-T (I - P P^T) L^-1, P the thin orthonormal factor of L^-1 F.
//
// Maximum likelihood: sigma^2 is concentrated out analytically (sigma^2 = (y - F beta)^T
// C^-1 (y - F beta)/n at the GLS beta), leaving
//   -log L = n/2 log(sigma^2) + 1/2 log det C + n/2 (1 + log 2 pi)
// to minimise over log l_j (each in [range_j/100, 10 range_j] unless bounds are given) and, when
// estimated, log g in [1e-10, 10]: NLopt BOBYQA (derivative-free, bounded) from a seeded Latin
// hypercube of starts in that log box; a start whose likelihood is not finite is penalised,
// and when no start reaches a finite likelihood, fit_gaussian_process throws.
//
// Inputs are scaled internally to [0, 1] per column (by the training range) for the kernel and
// the trend; every value reported (length scales, trend coefficients) is in physical units.

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace contactuq::uq {

enum class gp_kernel { matern52, squared_exponential };  // "matern52", "squared_exponential"
enum class gp_trend { constant, linear };                // "constant", "linear"
std::string to_string(gp_kernel kernel);
std::string to_string(gp_trend trend);
// Inverse of to_string; parameter_error ("kernel", "trend") listing the known names.
gp_kernel parse_gp_kernel(std::string_view name);
gp_trend parse_gp_trend(std::string_view name);

// Number of trend coefficients: 1 (constant) or 1 + d (linear).
std::size_t trend_size(gp_trend trend, std::size_t d) noexcept;

struct gp_hyperparameters {
  Eigen::VectorXd length_scales;  ///< d, in physical input units
  double variance = 1.0;          ///< sigma^2 of the process [output unit^2]
  double nugget = 0.0;            ///< relative to variance (noise variance = nugget * variance)
};

struct gp_options {
  gp_kernel kernel = gp_kernel::matern52;
  gp_trend trend = gp_trend::constant;
  bool estimate_nugget = false;  ///< else nugget = fixed_nugget
  double fixed_nugget = 1e-10;   ///< >= 0
  std::size_t starts = 10;       ///< multistart of the likelihood maximisation, 1..10000
  std::uint64_t seed = 1;
  std::size_t max_evaluations = 2000;  ///< likelihood evaluations per start, >= 10
  // Bounds of the length scales in physical units, d entries each, or empty for
  // [range_j/100, 10 range_j] with range_j the spread of column j of x (1 if constant).
  Eigen::VectorXd lower_length_scales, upper_length_scales;
  double min_nugget = 1e-10, max_nugget = 10.0;  ///< bounds of an estimated nugget, 0 < min < max
  void validate() const;                         ///< parameter_error naming the field
};

// What the likelihood maximisation did (zero for a GP built with fixed hyperparameters).
struct gp_fit_report {
  std::size_t starts = 0;         ///< local optimisations run
  std::size_t failed_starts = 0;  ///< those that reached no finite likelihood
  std::size_t evaluations = 0;    ///< likelihood evaluations, all starts together
  std::size_t best_start = 0;     ///< index of the start that gave the optimum
};

// A conditioned Gaussian process (universal kriging, trend coefficients by GLS).
class gaussian_process {
 public:
  // Fixed hyperparameters: conditions on (x, y), x n x d and y n; Cholesky with jitter added if
  // needed (the jitter used is kept). parameter_error for mismatched sizes, non-finite data,
  // invalid hyperparameters, fewer than trend_size + 1 points ("samples") or a trend matrix
  // without full column rank ("x"); std::runtime_error when no jitter up to 1e-2 helps.
  gaussian_process(gp_kernel kernel, gp_trend trend, Eigen::MatrixXd x, Eigen::VectorXd y,
                   gp_hyperparameters h);

  Eigen::VectorXd predict(const Eigen::MatrixXd& x) const;        ///< mean, one per row of x
  Eigen::VectorXd predictive_sd(const Eigen::MatrixXd& x) const;  ///< includes trend uncertainty
  // Both at once (one set of triangular solves).
  void predict(const Eigen::MatrixXd& x, Eigen::VectorXd& mean, Eigen::VectorXd& sd) const;

  const Eigen::VectorXd& loo_residuals() const { return loo_residuals_; }  ///< y_i - yhat_{-i}
  const Eigen::VectorXd& loo_sd() const { return loo_sd_; }  ///< sd of y_i - yhat_{-i}
  Eigen::VectorXd standardized_loo_residuals() const;        ///< residual / sd, ~N(0, 1)
  // mean(loo_residuals^2)/Var(y), Var with n - 1 as for the PCE (1 - Q2_LOO); NaN for a
  // constant y.
  double loo_error() const;
  // Full Gaussian log-likelihood of y at the stored hyperparameters and the GLS beta:
  //   -1/2 [n log(2 pi sigma^2) + log det C + (y - F beta)^T C^-1 (y - F beta)/sigma^2].
  // After fit_gaussian_process sigma^2 is the concentrated optimum, so this is the maximised
  // profile likelihood.
  double log_likelihood() const { return log_likelihood_; }

  gp_kernel kernel() const { return kernel_; }
  gp_trend trend() const { return trend_; }
  std::size_t dimension() const { return static_cast<std::size_t>(x_.cols()); }
  std::size_t size() const { return static_cast<std::size_t>(x_.rows()); }
  const Eigen::MatrixXd& x() const { return x_; }
  const Eigen::VectorXd& y() const { return y_; }
  const gp_hyperparameters& hyperparameters() const { return h_; }
  // beta for the physical basis f(x) = (1) or (1, x_1, .., x_d).
  const Eigen::VectorXd& trend_coefficients() const { return beta_; }
  // Lower L with L L^T = C = R + (nugget + jitter) I (a correlation matrix: the covariance of
  // the observations is variance * L L^T).
  const Eigen::MatrixXd& cholesky_factor() const { return l_; }
  // alpha = C^-1 (y - F beta): mean(x) = f(x)^T beta + sum_i k(x, x_i) alpha_i.
  const Eigen::VectorXd& weights() const { return alpha_; }
  double jitter() const { return jitter_; }  ///< added to the relative nugget, 0 if none
  // 1-norm condition number of C, estimated from its Cholesky factor (Eigen's rcond).
  double condition_estimate() const { return condition_; }
  double noise_variance() const { return h_.variance * (h_.nugget + jitter_); }

  const gp_fit_report& fit_report() const { return report_; }
  void set_fit_report(const gp_fit_report& report) { report_ = report; }

  // Kernel k(x, x') (unit variance) between two physical points; for exports and tests.
  double correlation(const Eigen::Ref<const Eigen::RowVectorXd>& a,
                     const Eigen::Ref<const Eigen::RowVectorXd>& b) const;

 private:
  Eigen::MatrixXd scale(const Eigen::MatrixXd& x) const;  ///< (x - lo)/range, per column
  Eigen::MatrixXd basis(const Eigen::MatrixXd& u) const;  ///< F of scaled rows
  void predict_block(const Eigen::MatrixXd& x, Eigen::VectorXd* mean, Eigen::VectorXd* sd) const;

  gp_kernel kernel_;
  gp_trend trend_;
  Eigen::MatrixXd x_;
  Eigen::VectorXd y_;
  gp_hyperparameters h_;
  Eigen::RowVectorXd lo_, range_;   ///< internal scaling of the inputs
  Eigen::VectorXd scaled_lengths_;  ///< l_j / range_j
  Eigen::MatrixXd u_;               ///< scaled training inputs
  Eigen::MatrixXd l_;               ///< Cholesky factor of C
  Eigen::MatrixXd whitened_basis_;  ///< P: thin orthonormal factor of L^-1 F
  Eigen::MatrixXd trend_r_;         ///< R factor of L^-1 F = P R (p x p, upper)
  Eigen::VectorXd scaled_beta_;     ///< beta for the scaled basis
  Eigen::VectorXd beta_;            ///< beta for the physical basis
  Eigen::VectorXd alpha_;
  Eigen::VectorXd loo_residuals_, loo_sd_;
  double jitter_ = 0.0;
  double condition_ = 1.0;
  double log_likelihood_ = 0.0;
  gp_fit_report report_;
};

// Maximum likelihood over log length scales and (when estimated) log nugget, the variance
// concentrated out (see above); NLopt BOBYQA from `starts` points of a seeded Latin hypercube
// in the log box. parameter_error for invalid options, mismatched sizes, non-finite data, a
// constant y ("y") or fewer than trend_size + 1 points ("samples", saying how many are needed);
// std::runtime_error saying so when every start fails.
gaussian_process fit_gaussian_process(const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                                      const gp_options& options = {});

}  // namespace contactuq::uq
