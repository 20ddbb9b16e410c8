#include "contactuq/uq/gaussian_process.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>

#include "contactuq/error.hpp"
#include "gaussian_process_detail.hpp"

namespace contactuq::uq {
namespace detail {

double kernel_value(gp_kernel kernel, double r2) {
  if (kernel == gp_kernel::squared_exponential) return std::exp(-0.5 * r2);
  const double s = std::sqrt(5.0 * r2);  // sqrt5 r
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

Eigen::MatrixXd correlation_matrix(gp_kernel kernel, const Eigen::MatrixXd& w) {
  const auto n = w.rows();
  Eigen::MatrixXd r(n, n);
  for (Eigen::Index k = 0; k < n; ++k) {
    r(k, k) = 1.0;
    for (Eigen::Index i = k + 1; i < n; ++i) {
      const double v = kernel_value(kernel, (w.row(i) - w.row(k)).squaredNorm());
      r(i, k) = v;
      r(k, i) = v;
    }
  }
  return r;
}

Eigen::MatrixXd cross_correlation(gp_kernel kernel, const Eigen::MatrixXd& w,
                                  const Eigen::MatrixXd& w_new) {
  Eigen::MatrixXd r(w.rows(), w_new.rows());
  for (Eigen::Index m = 0; m < w_new.rows(); ++m)
    for (Eigen::Index i = 0; i < w.rows(); ++i)
      r(i, m) = kernel_value(kernel, (w.row(i) - w_new.row(m)).squaredNorm());
  return r;
}

factored factor_with_jitter(const Eigen::MatrixXd& r, double nugget) {
  factored out;
  Eigen::MatrixXd c = r;
  c.diagonal().array() += nugget;
  // Jitter relative to the unit diagonal of the correlation matrix; a factorisation "succeeds"
  // when it has positive pivots and a reciprocal condition above machine epsilon (below it
  // the solves carry no digits).
  for (double jitter = 0.0; jitter <= max_jitter; jitter = jitter == 0.0 ? 1e-12 : 10.0 * jitter) {
    if (jitter > 0.0) c.diagonal() = r.diagonal().array() + nugget + jitter;
    const Eigen::LLT<Eigen::MatrixXd> llt(c);
    if (llt.info() != Eigen::Success || !llt.matrixLLT().allFinite()) continue;
    const double rcond = llt.rcond();
    if (!(rcond > std::numeric_limits<double>::epsilon())) continue;
    out.l = llt.matrixL();
    out.jitter = jitter;
    out.rcond = rcond;
    out.ok = true;
    return out;
  }
  return out;
}

Eigen::MatrixXd scaled_basis(gp_trend trend, const Eigen::MatrixXd& u) {
  const auto n = u.rows(), d = u.cols();
  Eigen::MatrixXd f(n, trend == gp_trend::linear ? d + 1 : 1);
  f.col(0).setOnes();
  // Centred columns u - 1/2 keep F^T C^-1 F well conditioned.
  if (trend == gp_trend::linear) f.rightCols(d) = u.array() - 0.5;
  return f;
}

bool trend_qr(const Eigen::MatrixXd& whitened_f, Eigen::MatrixXd& p, Eigen::MatrixXd& r) {
  const auto n = whitened_f.rows(), k = whitened_f.cols();
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(whitened_f);
  r = qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  const double largest = r.diagonal().cwiseAbs().maxCoeff();
  if (!(largest > 0.0) || !(r.diagonal().cwiseAbs().minCoeff() > 1e-10 * largest)) return false;
  p = qr.householderQ() * Eigen::MatrixXd::Identity(n, k);
  return true;
}

concentrated concentrated_likelihood(gp_kernel kernel, const Eigen::MatrixXd& w,
                                     const Eigen::MatrixXd& f, const Eigen::VectorXd& y,
                                     double nugget) {
  concentrated out;
  const auto n = static_cast<double>(y.size());
  const factored c = factor_with_jitter(correlation_matrix(kernel, w), nugget);
  if (!c.ok) return out;
  const auto lower = c.l.triangularView<Eigen::Lower>();
  const Eigen::MatrixXd ft = lower.solve(f);
  Eigen::MatrixXd p, r;
  if (!trend_qr(ft, p, r)) return out;
  const Eigen::VectorXd yt = lower.solve(y);
  const Eigen::VectorXd resid = yt - p * (p.transpose() * yt);
  const double sigma2 = resid.squaredNorm() / n;
  const double log_det = 2.0 * c.l.diagonal().array().log().sum();
  out.value = 0.5 * n * std::log(sigma2) + 0.5 * log_det +
              0.5 * n * (1.0 + std::log(2.0 * std::numbers::pi));
  out.sigma2 = sigma2;
  out.ok = std::isfinite(out.value) && sigma2 > 0.0;
  return out;
}

void input_scaling(const Eigen::MatrixXd& x, Eigen::RowVectorXd& lo, Eigen::RowVectorXd& range) {
  lo = x.colwise().minCoeff();
  range = x.colwise().maxCoeff() - lo;
  for (Eigen::Index j = 0; j < range.size(); ++j)
    if (!(range(j) > 0.0)) range(j) = 1.0;  // one value: any scale will do
}

void check_data(const char* who, const Eigen::MatrixXd& x, const Eigen::VectorXd& y,
                gp_trend trend) {
  if (x.cols() < 1) throw parameter_error("x", fmt::format("{}: x has no columns", who));
  if (x.rows() != y.size())
    throw parameter_error(
        "y", fmt::format("{}: x has {} rows but y has {} values", who, x.rows(), y.size()));
  if (!x.allFinite() || !y.allFinite())
    throw parameter_error("y", fmt::format("{}: x and y must be finite", who));
  const std::size_t p = trend_size(trend, static_cast<std::size_t>(x.cols()));
  if (static_cast<std::size_t>(y.size()) < p + 1)
    throw parameter_error(
        "samples",
        fmt::format("{}: {} points; a {} trend in {} input(s) has {} coefficient(s), so at least "
                    "{} points are needed",
                    who, y.size(), to_string(trend), x.cols(), p, p + 1));
}

}  // namespace detail

using namespace detail;

std::string to_string(gp_kernel kernel) {
  return kernel == gp_kernel::squared_exponential ? "squared_exponential" : "matern52";
}

std::string to_string(gp_trend trend) { return trend == gp_trend::linear ? "linear" : "constant"; }

gp_kernel parse_gp_kernel(std::string_view name) {
  for (const auto k : {gp_kernel::matern52, gp_kernel::squared_exponential})
    if (name == to_string(k)) return k;
  throw parameter_error(
      "kernel",
      fmt::format("unknown kernel '{}'; known kernels: matern52, squared_exponential", name));
}

gp_trend parse_gp_trend(std::string_view name) {
  for (const auto t : {gp_trend::constant, gp_trend::linear})
    if (name == to_string(t)) return t;
  throw parameter_error("trend",
                        fmt::format("unknown trend '{}'; known trends: constant, linear", name));
}

std::size_t trend_size(gp_trend trend, std::size_t d) noexcept {
  return trend == gp_trend::linear ? d + 1 : 1;
}

void gp_options::validate() const {
  if (!(fixed_nugget >= 0.0 && std::isfinite(fixed_nugget)))
    throw parameter_error("fixed_nugget",
                          fmt::format("gp: fixed_nugget = {}; must be >= 0", fixed_nugget));
  if (starts < 1 || starts > 10000)
    throw parameter_error("starts", fmt::format("gp: starts = {}; must be in [1, 10000]", starts));
  if (max_evaluations < 10)
    throw parameter_error("max_evaluations",
                          fmt::format("gp: max_evaluations = {}; must be >= 10", max_evaluations));
  if (!(min_nugget > 0.0 && max_nugget > min_nugget && std::isfinite(max_nugget)))
    throw parameter_error(
        "min_nugget", fmt::format("gp: nugget bounds [{}, {}]; need 0 < min_nugget < max_nugget",
                                  min_nugget, max_nugget));
  if (lower_length_scales.size() != upper_length_scales.size())
    throw parameter_error("lower_length_scales",
                          fmt::format("gp: {} lower and {} upper length-scale bounds",
                                      lower_length_scales.size(), upper_length_scales.size()));
  for (Eigen::Index j = 0; j < lower_length_scales.size(); ++j)
    if (!(lower_length_scales(j) > 0.0 && upper_length_scales(j) >= lower_length_scales(j) &&
          std::isfinite(upper_length_scales(j))))
      throw parameter_error(
          "lower_length_scales",
          fmt::format("gp: length-scale bounds of input {} are [{}, {}]; need 0 < lower <= upper",
                      j, lower_length_scales(j), upper_length_scales(j)));
}

gaussian_process::gaussian_process(gp_kernel kernel, gp_trend trend, Eigen::MatrixXd x,
                                   Eigen::VectorXd y, gp_hyperparameters h)
    : kernel_(kernel), trend_(trend), x_(std::move(x)), y_(std::move(y)), h_(std::move(h)) {
  check_data("gp", x_, y_, trend_);
  const auto n = x_.rows(), d = x_.cols();
  if (h_.length_scales.size() != d)
    throw parameter_error("length_scales", fmt::format("gp: {} length scales for {} inputs",
                                                       h_.length_scales.size(), d));
  if (!((h_.length_scales.array() > 0.0).all() && h_.length_scales.allFinite()))
    throw parameter_error("length_scales", "gp: length scales must be finite and > 0");
  if (!(h_.variance > 0.0 && std::isfinite(h_.variance)))
    throw parameter_error("variance",
                          fmt::format("gp: variance = {}; must be finite and > 0", h_.variance));
  if (!(h_.nugget >= 0.0 && std::isfinite(h_.nugget)))
    throw parameter_error("nugget", fmt::format("gp: nugget = {}; must be >= 0", h_.nugget));

  input_scaling(x_, lo_, range_);
  scaled_lengths_ = h_.length_scales.array() / range_.transpose().array();
  u_ = scale(x_);
  const Eigen::MatrixXd w = u_ * scaled_lengths_.cwiseInverse().asDiagonal();
  factored c = factor_with_jitter(correlation_matrix(kernel_, w), h_.nugget);
  if (!c.ok)
    throw std::runtime_error(fmt::format(
        "gp: the correlation matrix of {} points is not positive definite even with a jitter of "
        "{} (duplicate points with no nugget, or length scales far too long)",
        n, max_jitter));
  l_ = std::move(c.l);
  jitter_ = c.jitter;
  condition_ = 1.0 / c.rcond;
  const auto lower = l_.triangularView<Eigen::Lower>();

  const Eigen::MatrixXd ft = lower.solve(basis(u_));
  if (!trend_qr(ft, whitened_basis_, trend_r_))
    throw parameter_error(
        "x", fmt::format("gp: the {} trend is not identifiable from these points (its design "
                         "matrix has not full column rank)",
                         to_string(trend_)));
  const Eigen::VectorXd yt = lower.solve(y_);
  const Eigen::VectorXd pty = whitened_basis_.transpose() * yt;
  scaled_beta_ = trend_r_.triangularView<Eigen::Upper>().solve(pty);
  const Eigen::VectorXd resid = yt - whitened_basis_ * pty;
  alpha_ = l_.transpose().triangularView<Eigen::Upper>().solve(resid);

  // Physical basis: b0 + sum_j b_j ((x_j - lo_j)/range_j - 1/2).
  beta_ = scaled_beta_;
  if (trend_ == gp_trend::linear) {
    for (Eigen::Index j = 0; j < d; ++j) {
      beta_(j + 1) = scaled_beta_(j + 1) / range_(j);
      beta_(0) -= scaled_beta_(j + 1) * (lo_(j) / range_(j) + 0.5);
    }
  }

  const double nn = static_cast<double>(n);
  const double log_det = 2.0 * l_.diagonal().array().log().sum();
  log_likelihood_ = -0.5 * (nn * std::log(2.0 * std::numbers::pi * h_.variance) + log_det +
                            resid.squaredNorm() / h_.variance);

  // Dubrule's closed form: Q = M^T M with M = (I - P P^T) L^-1, so Q_ii = |M e_i|^2.
  Eigen::MatrixXd m = lower.solve(Eigen::MatrixXd::Identity(n, n));
  m -= whitened_basis_ * (whitened_basis_.transpose() * m);
  const Eigen::VectorXd q = m.colwise().squaredNorm().transpose();
  loo_residuals_ = alpha_.cwiseQuotient(q);
  loo_sd_ = (h_.variance * q.cwiseInverse()).cwiseSqrt();
}

Eigen::MatrixXd gaussian_process::scale(const Eigen::MatrixXd& x) const {
  return (x.rowwise() - lo_).array().rowwise() / range_.array();
}

Eigen::MatrixXd gaussian_process::basis(const Eigen::MatrixXd& u) const {
  return scaled_basis(trend_, u);
}

double gaussian_process::correlation(const Eigen::Ref<const Eigen::RowVectorXd>& a,
                                     const Eigen::Ref<const Eigen::RowVectorXd>& b) const {
  return kernel_value(kernel_,
                      ((a - b).array() / h_.length_scales.transpose().array()).square().sum());
}

void gaussian_process::predict_block(const Eigen::MatrixXd& x, Eigen::VectorXd* mean,
                                     Eigen::VectorXd* sd) const {
  const Eigen::MatrixXd u = scale(x);
  const Eigen::VectorXd inv = scaled_lengths_.cwiseInverse();
  const Eigen::MatrixXd r = cross_correlation(kernel_, u_ * inv.asDiagonal(), u * inv.asDiagonal());
  const Eigen::MatrixXd f = basis(u);
  if (mean) *mean = f * scaled_beta_ + r.transpose() * alpha_;
  if (sd) {
    // var/sigma^2 = 1 - |v|^2 + |R^-T (F_t^T v - f)|^2 with v = L^-1 r, F_t = L^-1 F = P R.
    const Eigen::MatrixXd v = l_.triangularView<Eigen::Lower>().solve(r);
    const Eigen::MatrixXd t =
        whitened_basis_.transpose() * v -
        trend_r_.transpose().triangularView<Eigen::Lower>().solve(f.transpose());
    const Eigen::ArrayXd var = 1.0 - v.colwise().squaredNorm().transpose().array() +
                               t.colwise().squaredNorm().transpose().array();
    *sd = (h_.variance * var.max(0.0)).sqrt().matrix();
  }
}

void gaussian_process::predict(const Eigen::MatrixXd& x, Eigen::VectorXd& mean,
                               Eigen::VectorXd& sd) const {
  if (x.cols() != x_.cols())
    throw parameter_error(
        "x", fmt::format("gp: x has {} columns, the process has {} inputs", x.cols(), x_.cols()));
  mean.resize(x.rows());
  sd.resize(x.rows());
  // Blocks bound the n x block cross-correlation matrix.
  constexpr Eigen::Index block = 512;
  Eigen::VectorXd m, s;
  for (Eigen::Index first = 0; first < x.rows(); first += block) {
    const auto count = std::min(block, x.rows() - first);
    predict_block(x.middleRows(first, count), &m, &s);
    mean.segment(first, count) = m;
    sd.segment(first, count) = s;
  }
}

Eigen::VectorXd gaussian_process::predict(const Eigen::MatrixXd& x) const {
  if (x.cols() != x_.cols())
    throw parameter_error(
        "x", fmt::format("gp: x has {} columns, the process has {} inputs", x.cols(), x_.cols()));
  Eigen::VectorXd out(x.rows()), m;
  constexpr Eigen::Index block = 512;
  for (Eigen::Index first = 0; first < x.rows(); first += block) {
    const auto count = std::min(block, x.rows() - first);
    predict_block(x.middleRows(first, count), &m, nullptr);
    out.segment(first, count) = m;
  }
  return out;
}

Eigen::VectorXd gaussian_process::predictive_sd(const Eigen::MatrixXd& x) const {
  Eigen::VectorXd mean, sd;
  predict(x, mean, sd);
  return sd;
}

Eigen::VectorXd gaussian_process::standardized_loo_residuals() const {
  return loo_residuals_.cwiseQuotient(loo_sd_);
}

double gaussian_process::loo_error() const {
  const double n = static_cast<double>(y_.size());
  const double var = (y_.array() - y_.mean()).square().sum() / (n - 1.0);
  if (!(var > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  return loo_residuals_.squaredNorm() / n / var;
}

}  // namespace contactuq::uq
