// Convergence diagnostics of MCMC draws (formulas in uq/mcmc.hpp; Vehtari et al. 2021, and the
// ESS of Stan's stan/analyze/mcmc/compute_effective_sample_size.hpp, which it follows).

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <numeric>

#include "contactuq/error.hpp"
#include "contactuq/uq/mcmc.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
using series = std::vector<double>;

// In-place iterative radix-2 FFT (Cooley-Tukey); a.size() a power of 2; inverse unscaled. The
// products are written out: std::complex's operator* checks for inf/NaN through a library call.
// wr, wi: cos and sin of 2 pi k/n, k < n/2 (twiddles(n)).
void fft(std::vector<std::complex<double>>& a, bool inverse, const std::vector<double>& wr,
         const std::vector<double>& wi) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double sign = inverse ? 1.0 : -1.0;  // e^(-+2 pi i k/n)
  auto* d = reinterpret_cast<double*>(a.data());  // re, im interleaved (guaranteed layout)
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2, stride = n / len;
    for (std::size_t i = 0; i < n; i += len) {
      for (std::size_t k = 0; k < half; ++k) {
        const double cr = wr[k * stride], ci = sign * wi[k * stride];
        double* u = d + 2 * (i + k);
        double* v = d + 2 * (i + k + half);
        const double tr = v[0] * cr - v[1] * ci, ti = v[0] * ci + v[1] * cr;
        v[0] = u[0] - tr;
        v[1] = u[1] - ti;
        u[0] += tr;
        u[1] += ti;
      }
    }
  }
}

// Biased autocovariance acov(t) = (1/n) sum_{i<n-t} (x_i - m)(x_{i+t} - m), t = 0..n-1, by FFT
// of the series zero-padded to twice its length (no circular wrap).
series autocovariance(const series& x) {
  const std::size_t n = x.size();
  const double m = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  std::size_t size = 1;
  while (size < 2 * n) size <<= 1;
  std::vector<std::complex<double>> a(size);
  for (std::size_t i = 0; i < n; ++i) a[i] = x[i] - m;
  std::vector<double> wr(size / 2), wi(size / 2);
  for (std::size_t k = 0; k < size / 2; ++k) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(size);
    wr[k] = std::cos(angle);
    wi[k] = std::sin(angle);
  }
  fft(a, false, wr, wi);
  for (auto& v : a) v = v.real() * v.real() + v.imag() * v.imag();
  fft(a, true, wr, wi);
  series acov(n);
  for (std::size_t t = 0; t < n; ++t)
    acov[t] = a[t].real() / (static_cast<double>(size) * static_cast<double>(n));
  return acov;
}

double mean_of(const series& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double variance_of(const series& x) {  // n - 1 denominator
  const double m = mean_of(x);
  double s = 0.0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

// Integrated autocorrelation time tau of M chains of N draws (ESS = M N / tau), Geyer's initial
// monotone sequence on the pair sums, with Stan's improved estimate of the last term. `cap`:
// tau >= 1/log10(M N) (ESS <= M N log10(M N)), as Stan does for antithetic chains.
double integrated_time(const std::vector<series>& chains, bool cap) {
  const std::size_t m = chains.size();
  if (m == 0) return nan;
  const std::size_t n = chains.front().size();
  if (n < 4) return nan;
  std::vector<series> acov;
  series means;
  for (const auto& c : chains) {
    if (c.size() != n) throw parameter_error("chains", "chains of different lengths");
    for (double v : c)
      if (!std::isfinite(v)) return nan;
    acov.push_back(autocovariance(c));
    means.push_back(mean_of(c));
  }
  const double dn = static_cast<double>(n);
  double mean_var = 0.0;
  for (const auto& a : acov) mean_var += a[0] * dn / (dn - 1.0);
  mean_var /= static_cast<double>(m);
  double var_plus = mean_var * (dn - 1.0) / dn;
  if (m > 1) var_plus += variance_of(means);
  if (!(var_plus > 0.0)) return nan;
  const auto mean_acov = [&](std::size_t t) {
    double s = 0.0;
    for (const auto& a : acov) s += a[t];
    return s / static_cast<double>(m);
  };
  const auto rho = [&](std::size_t t) { return 1.0 - (mean_var - mean_acov(t)) / var_plus; };

  series rho_hat(n, 0.0);
  rho_hat[0] = 1.0;
  double rho_even = 1.0, rho_odd = rho(1);
  rho_hat[1] = rho_odd;
  std::size_t s = 1;
  while (s < n - 4 && rho_even + rho_odd > 0.0) {
    rho_even = rho(s + 1);
    rho_odd = rho(s + 2);
    if (rho_even + rho_odd >= 0.0) {
      rho_hat[s + 1] = rho_even;
      rho_hat[s + 2] = rho_odd;
    }
    s += 2;
  }
  const std::size_t max_s = s;
  if (rho_even > 0.0 && max_s + 1 < n) rho_hat[max_s + 1] = rho_even;
  // Initial monotone sequence: the pair sums may not increase (Geyer 1992).
  for (std::size_t t = 1; t + 3 <= max_s; t += 2) {
    if (rho_hat[t + 1] + rho_hat[t + 2] > rho_hat[t - 1] + rho_hat[t]) {
      rho_hat[t + 1] = (rho_hat[t - 1] + rho_hat[t]) / 2.0;
      rho_hat[t + 2] = rho_hat[t + 1];
    }
  }
  double tau = -1.0 + 2.0 * std::accumulate(rho_hat.begin(), rho_hat.begin() + static_cast<std::ptrdiff_t>(max_s), 0.0);
  if (max_s + 1 < n) tau += rho_hat[max_s + 1];
  if (cap) tau = std::max(tau, 1.0 / std::log10(static_cast<double>(m) * dn));
  return tau;
}

double ess_of(const std::vector<series>& chains) {
  const double tau = integrated_time(chains, true);
  if (std::isnan(tau)) return nan;
  return static_cast<double>(chains.size() * chains.front().size()) / tau;
}

// Each chain cut in two halves of floor(N/2) draws (an odd last draw is dropped).
std::vector<series> split(const std::vector<series>& chains) {
  std::vector<series> out;
  for (const auto& c : chains) {
    const std::size_t h = c.size() / 2;
    out.emplace_back(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(h));
    out.emplace_back(c.begin() + static_cast<std::ptrdiff_t>(h),
                     c.begin() + static_cast<std::ptrdiff_t>(2 * h));
  }
  return out;
}

series pooled(const std::vector<series>& chains) {
  series all;
  for (const auto& c : chains) all.insert(all.end(), c.begin(), c.end());
  return all;
}

double inverse_normal_cdf(double p) { return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * p); }

// Rank normalisation (Vehtari et al. 2021 eq. 14): z = Phi^-1((r - 3/8)/(S + 1/4)), r the
// average rank (1-based) of a draw among all S draws.
std::vector<series> rank_normalize(const std::vector<series>& chains) {
  const series all = pooled(chains);
  const std::size_t total = all.size();
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a] < all[b]; });
  series z(total);
  for (std::size_t i = 0; i < total;) {
    std::size_t j = i;
    while (j + 1 < total && all[order[j + 1]] == all[order[i]]) ++j;
    const double rank = (static_cast<double>(i + j) / 2.0) + 1.0;
    const double v =
        inverse_normal_cdf((rank - 0.375) / (static_cast<double>(total) + 0.25));
    for (std::size_t k = i; k <= j; ++k) z[order[k]] = v;
    i = j + 1;
  }
  std::vector<series> out;
  std::size_t at = 0;
  for (const auto& c : chains) {
    out.emplace_back(z.begin() + static_cast<std::ptrdiff_t>(at),
                     z.begin() + static_cast<std::ptrdiff_t>(at + c.size()));
    at += c.size();
  }
  return out;
}

// Classic potential scale reduction of M chains (eq. 3-4 of Vehtari et al. 2021).
double rhat_basic(const std::vector<series>& chains) {
  const std::size_t n = chains.front().size();
  if (chains.size() < 2 || n < 2) return nan;
  series means, vars;
  for (const auto& c : chains) {
    means.push_back(mean_of(c));
    vars.push_back(variance_of(c));
  }
  const double w = mean_of(vars);
  const double b = static_cast<double>(n) * variance_of(means);
  if (!(w > 0.0) || !std::isfinite(w)) return nan;
  const double dn = static_cast<double>(n);
  return std::sqrt(((dn - 1.0) / dn * w + b / dn) / w);
}

series sorted_copy(series x) {
  std::sort(x.begin(), x.end());
  return x;
}

std::vector<series> indicator(const std::vector<series>& chains, double threshold) {
  std::vector<series> out;
  for (const auto& c : chains) {
    series i(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) i[k] = c[k] <= threshold ? 1.0 : 0.0;
    out.push_back(std::move(i));
  }
  return out;
}

bool all_finite(const std::vector<series>& chains) {
  for (const auto& c : chains)
    for (double v : c)
      if (!std::isfinite(v)) return false;
  return true;
}

}  // namespace

std::vector<std::vector<double>> chain_columns(const std::vector<Eigen::MatrixXd>& chains,
                                               std::size_t parameter) {
  std::vector<series> out;
  for (const auto& c : chains) {
    if (static_cast<Eigen::Index>(parameter) >= c.cols())
      throw parameter_error("parameter", "parameter index beyond the columns of the chains");
    const auto col = c.col(static_cast<Eigen::Index>(parameter));
    out.emplace_back(col.data(), col.data() + col.size());
  }
  return out;
}

double effective_sample_size(const std::vector<std::vector<double>>& chains) {
  return ess_of(chains);
}

double autocorrelation_time(std::span<const double> values) {
  return integrated_time({series(values.begin(), values.end())}, false);
}

namespace {

// Quantile p of the draws `sorted` (pooled and sorted) and its MCSE; `ess` of 1{x <= q_p} is
// returned too.
quantile_mcse quantile_of(const std::vector<series>& chains, const series& sorted, double p,
                          double& ess) {
  if (!(p >= 0.0 && p <= 1.0)) throw parameter_error("probability", "a probability must be in [0, 1]");
  quantile_mcse out;
  ess = nan;
  if (sorted.empty() || !all_finite(chains)) return {nan, nan};
  out.value = sorted_quantile(sorted, p);
  ess = ess_of(split(indicator(chains, out.value)));
  if (!std::isfinite(ess) || p == 0.0 || p == 1.0) {
    out.mcse = nan;
    return out;
  }
  // Vehtari et al. 2021 sec. 4.4: the +-1 sd band of the probability, Beta(ess p + 1,
  // ess (1 - p) + 1), mapped through the sorted draws.
  const double a = boost::math::ibeta_inv(ess * p + 1.0, ess * (1.0 - p) + 1.0, 0.1586553);
  const double b = boost::math::ibeta_inv(ess * p + 1.0, ess * (1.0 - p) + 1.0, 0.8413447);
  const auto s = static_cast<double>(sorted.size());
  const auto lo = static_cast<std::size_t>(std::max(std::floor(a * s), 1.0)) - 1;
  const auto hi = static_cast<std::size_t>(std::min(std::ceil(b * s), s)) - 1;
  out.mcse = (sorted[hi] - sorted[lo]) / 2.0;
  return out;
}

}  // namespace

quantile_mcse quantile_with_mcse(const std::vector<std::vector<double>>& chains, double p) {
  double ess = 0;
  return quantile_of(chains, sorted_copy(pooled(chains)), p, ess);
}

std::vector<parameter_summary> summarize_chains(const std::vector<Eigen::MatrixXd>& chains) {
  if (chains.empty()) throw parameter_error("chains", "no chains to summarise");
  for (const auto& c : chains)
    if (c.rows() != chains.front().rows() || c.cols() != chains.front().cols())
      throw parameter_error("chains", "chains of different shapes");
  if (chains.front().rows() == 0) throw parameter_error("draws", "chains without draws");
  std::vector<parameter_summary> out;
  for (Eigen::Index j = 0; j < chains.front().cols(); ++j) {
    const std::vector<series> x = chain_columns(chains, static_cast<std::size_t>(j));
    parameter_summary s;
    const series all = pooled(x);
    const series sorted = sorted_copy(all);
    s.mean = mean_of(all);
    s.sd = all.size() > 1 ? std::sqrt(variance_of(all)) : nan;
    if (!all_finite(x)) {
      s.mcse_mean = s.mcse_sd = s.q05 = s.q50 = s.q95 = s.rhat = s.ess_bulk = s.ess_tail = nan;
      s.ess_mean = s.mcse_q05 = s.mcse_q50 = s.mcse_q95 = nan;
      out.push_back(s);
      continue;
    }
    const std::vector<series> halves = split(x);
    // R-hat: bulk (rank-normalised) and tail (folded about the median, rank-normalised).
    const std::vector<series> z = rank_normalize(halves);
    const double median = sorted_quantile(sorted, 0.5);
    std::vector<series> folded = halves;
    for (auto& c : folded)
      for (double& v : c) v = std::abs(v - median);
    const double rhat_bulk = rhat_basic(z), rhat_tail = rhat_basic(rank_normalize(folded));
    s.rhat = std::isnan(rhat_bulk) || std::isnan(rhat_tail) ? nan : std::max(rhat_bulk, rhat_tail);
    s.ess_bulk = ess_of(z);
    s.ess_mean = ess_of(halves);
    s.mcse_mean = s.sd / std::sqrt(s.ess_mean);
    // MCSE of sd: delta method on the variance estimate, from the ESS of (x - mean)^2.
    std::vector<series> squares = halves;
    for (auto& c : squares)
      for (double& v : c) v = (v - s.mean) * (v - s.mean);
    const double ess_sq = ess_of(squares);
    s.mcse_sd = std::sqrt(variance_of(pooled(squares)) / ess_sq) / (2.0 * s.sd);
    double ess05 = 0, ess50 = 0, ess95 = 0;
    const quantile_mcse q05 = quantile_of(x, sorted, 0.05, ess05),
                        q50 = quantile_of(x, sorted, 0.5, ess50),
                        q95 = quantile_of(x, sorted, 0.95, ess95);
    s.q05 = q05.value;
    s.q50 = q50.value;
    s.q95 = q95.value;
    s.mcse_q05 = q05.mcse;
    s.mcse_q50 = q50.mcse;
    s.mcse_q95 = q95.mcse;
    s.ess_tail = std::isnan(ess05) || std::isnan(ess95) ? nan : std::min(ess05, ess95);
    out.push_back(s);
  }
  return out;
}

}  // namespace contactuq::uq
