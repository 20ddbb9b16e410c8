#pragma once
// Pieces shared by the conditioned process (gaussian_process.cpp) and the likelihood
// maximisation (gaussian_process_fit.cpp). Internal to the uq module.

#include <Eigen/Core>

#include "contactuq/uq/gaussian_process.hpp"

namespace contactuq::uq::detail {

inline constexpr double max_jitter = 1e-2;

// k(r^2) with unit variance.
double kernel_value(gp_kernel kernel, double r2);
// R_ik = k(|w_i - w_k|^2) for rows w already divided by the length scales.
Eigen::MatrixXd correlation_matrix(gp_kernel kernel, const Eigen::MatrixXd& w);
// n x m: R_im = k(|w_i - w_new_m|^2).
Eigen::MatrixXd cross_correlation(gp_kernel kernel, const Eigen::MatrixXd& w,
                                  const Eigen::MatrixXd& w_new);

struct factored {
  Eigen::MatrixXd l;  ///< lower Cholesky factor of R + (nugget + jitter) I
  double jitter = 0.0;
  double rcond = 0.0;
  bool ok = false;
};
// Cholesky of R + nugget I, with jitter 0, 1e-12, 1e-11, .. max_jitter added until it succeeds.
factored factor_with_jitter(const Eigen::MatrixXd& r, double nugget);

// Trend basis of inputs scaled to [0, 1]: 1 and, for the linear trend, u_j - 1/2.
Eigen::MatrixXd scaled_basis(gp_trend trend, const Eigen::MatrixXd& u);
// Thin QR L^-1 F = P R; false when R is (numerically) singular.
bool trend_qr(const Eigen::MatrixXd& whitened_f, Eigen::MatrixXd& p, Eigen::MatrixXd& r);

// -log L with sigma^2 concentrated out, at scaled rows w and relative nugget.
struct concentrated {
  double value = 0.0;
  double sigma2 = 0.0;
  bool ok = false;
};
concentrated concentrated_likelihood(gp_kernel kernel, const Eigen::MatrixXd& w,
                                     const Eigen::MatrixXd& f, const Eigen::VectorXd& y,
                                     double nugget);

// lo = column minima, range = column spreads (1 where a column is constant).
void input_scaling(const Eigen::MatrixXd& x, Eigen::RowVectorXd& lo, Eigen::RowVectorXd& range);
// Sizes, finiteness and at least trend_size + 1 points (parameter_error otherwise).
void check_data(const char* who, const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                gp_trend trend);

}  // namespace contactuq::uq::detail
