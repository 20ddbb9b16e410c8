// Subset simulation, Au & Beck (2001), with the adaptive conditional sampling (aCS) of
// Papaioannou, Betz, Zwirglmaier & Straub (2015), "MCMC algorithms for subset simulation",
// Prob. Eng. Mech. 41, 89-103, as the move that grows the chains of each level. The CoV is
// taken by clusters of common ancestry within and between levels (lineage_variance), not
// Au & Beck's sum of per-level delta_i^2, which under-reports it.
#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"
#include "contactuq/uq/reliability.hpp"

namespace contactuq::uq {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double z975 = 1.959963984540054;  // Phi^-1(0.975)
constexpr double target_acceptance = 0.44;  // Papaioannou et al. (2015), section 5.2

double standard_normal(engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e));
}

// g at the rows of u, counted into p.
Eigen::VectorXd evaluate(const limit_state& g, const Eigen::MatrixXd& u, probability_estimate& p) {
  Eigen::VectorXd y = g(u);
  if (y.size() != u.rows())
    throw parameter_error("limit_state", fmt::format("limit state returned {} values for {} points",
                                                     y.size(), u.rows()));
  p.model_calls += static_cast<std::size_t>(u.rows());
  for (double v : y)
    if (!std::isfinite(v)) ++p.failed_calls;
  return y;
}

// Lognormal interval of an estimate with coefficient of variation cov:
//   sigma_ln^2 = ln(1 + cov^2),  [P exp(-z sigma_ln), P exp(z sigma_ln)].
void lognormal_interval(probability_estimate& p, double z) {
  const double s = std::sqrt(std::log1p(p.cov * p.cov));
  p.ci_low = p.estimate * std::exp(-z * s);
  p.ci_high = p.estimate * std::exp(z * s);
}

// Chain-correlation factor of one level, Au & Beck (2001) eqs. (25)-(29):
//   R_k = 1/(#pairs at lag k) sum_j sum_t I_j,t I_j,t+k - p^2,   rho_k = R_k / R_0,
//   R_0 = p (1 - p),   gamma = 2 sum_{k=1}^{Ns-1} (1 - k/Ns) rho_k,
// over the chains laid out one after another in `indicator` (chain j: rows start[j] ..
// start[j] + length[j] - 1). Ns = N / (number of chains), the mean chain length.
double chain_gamma(const std::vector<char>& indicator, const std::vector<std::size_t>& start,
                   const std::vector<std::size_t>& length, double p) {
  const double r0 = p * (1.0 - p);
  if (!(r0 > 0.0)) return 0.0;  // every sample on one side: the level has no sampling error
  const double ns = static_cast<double>(indicator.size()) / static_cast<double>(start.size());
  const std::size_t longest = *std::max_element(length.begin(), length.end());
  double gamma = 0.0;
  for (std::size_t k = 1; k < longest && static_cast<double>(k) < ns; ++k) {
    double sum = 0.0;
    std::size_t pairs = 0;
    for (std::size_t j = 0; j < start.size(); ++j) {
      for (std::size_t t = 0; t + k < length[j]; ++t) {
        sum += static_cast<double>(indicator[start[j] + t] & indicator[start[j] + t + k]);
        ++pairs;
      }
    }
    if (pairs == 0) break;
    const double rho = (sum / static_cast<double>(pairs) - p * p) / r0;
    gamma += 2.0 * (1.0 - static_cast<double>(k) / ns) * rho;
  }
  // The estimated correlations can sum below zero from noise (few chains, ties); a negative
  // gamma would claim the chains beat independent sampling, which accept/reject chains do not,
  // and could make 1 + gamma negative under the square root. Clamp at 0.
  return std::max(gamma, 0.0);
}

// Levels back to the common ancestor that groups samples into clusters, and levels apart over
// which the errors of two levels are taken as correlated (measured on the linear limit state,
// beta = 5, n = 10, bench/reliability_coverage_bench.cpp: lag 1 and span 0 is Au & Beck's
// estimate, 16 % under the observed CoV; lag 2 and span 2 reports within 5 % of it at
// N = 2000 and 10000; lag 3 or span 3 change it by under 1 %).
constexpr int ancestor_lag = 2;
constexpr int correlated_span = 2;

// Var(ln Pf) of the linearised estimate ln Pf ~ sum_i sum_{a in level i} x_a,
//   x_a = (I_a - p_i) / (N_i p_i),
// by clusters of common ancestry: sample a of level i goes to cluster c_i(a) = its ancestor on
// level k_i = max(0, i - ancestor_lag) (parent[t][a]: the row of level t - 1 that seeded a's
// chain), S_ij(c) = sum of x_a over the samples of level j in cluster c of level k_i, and
//   Var = sum_i [ sum_c S_ii(c)^2 + 2 sum_{j = i+1}^{i + correlated_span} sum_c S_ii(c) S_ij(c) ].
// Stores delta_i = sqrt(sum_c S_ii(c)^2) in levels[i].cov.
double lineage_variance(const std::vector<std::vector<double>>& share,
                        const std::vector<std::vector<std::size_t>>& parent,
                        std::vector<subset_level>& levels) {
  const auto depth = static_cast<int>(share.size());
  double v = 0.0;
  for (int i = 0; i < depth; ++i) {
    const int key = std::max(0, i - ancestor_lag);
    const std::size_t clusters = share[static_cast<std::size_t>(key)].size();
    const auto sums = [&](int level) {
      std::vector<double> sum(clusters, 0.0);
      const auto& x = share[static_cast<std::size_t>(level)];
      for (std::size_t a = 0; a < x.size(); ++a) {
        std::size_t c = a;
        for (int t = level; t > key; --t) c = parent[static_cast<std::size_t>(t)][c];
        sum[c] += x[a];
      }
      return sum;
    };
    const std::vector<double> own = sums(i);
    double diagonal = 0.0;
    for (double s : own) diagonal += s * s;
    levels[static_cast<std::size_t>(i)].cov = std::sqrt(diagonal);
    v += diagonal;
    for (int j = i + 1; j < depth && j <= i + correlated_span; ++j) {
      const std::vector<double> other = sums(j);
      for (std::size_t c = 0; c < clusters; ++c) v += 2.0 * own[c] * other[c];
    }
  }
  // The cross terms are estimates and can sum below zero; the diagonal alone cannot.
  return std::max(v, 0.0);
}

// One level's samples: chain j occupies rows start[j] .. start[j] + length[j] - 1 (level 0:
// one "chain" per row, all of length 1).
struct level_samples {
  Eigen::MatrixXd u;
  Eigen::VectorXd g;
  std::vector<std::size_t> start, length;
  double acceptance = 0.0;
};

// Grows chains from the seeds (rows of `seeds` with values `seed_g`, all <= b) to `total`
// samples by aCS: per component k, sigma_k = min(1, lambda s_k) with s_k the seeds' standard
// deviation, rho_k = sqrt(1 - sigma_k^2), proposal u'_k = rho_k u_k + sigma_k z_k, which leaves
// N(0, I) invariant, so u' is accepted iff g(u') <= b. After each step (one batch of g over
// all running chains) lambda moves toward the target acceptance:
//   ln lambda <- ln lambda + (a_t - 0.44) / sqrt(t)   (Papaioannou et al. 2015, Algorithm 5).
level_samples grow_chains(const limit_state& g, const Eigen::MatrixXd& seeds,
                          const Eigen::VectorXd& seed_g, double b, std::size_t total,
                          double& lambda, engine& e, probability_estimate& count) {
  const auto m = static_cast<std::size_t>(seeds.rows());
  const auto d = seeds.cols();
  level_samples s;
  s.u.resize(static_cast<Eigen::Index>(total), d);
  s.g.resize(static_cast<Eigen::Index>(total));
  s.start.resize(m);
  s.length.resize(m);
  for (std::size_t j = 0, row = 0; j < m; ++j) {
    s.length[j] = total / m + (j < total % m ? 1 : 0);
    s.start[j] = row;
    row += s.length[j];
  }
  Eigen::RowVectorXd spread(d);
  if (m > 1) {
    const Eigen::RowVectorXd mean = seeds.colwise().mean();
    spread = ((seeds.rowwise() - mean).array().square().colwise().sum() / static_cast<double>(m - 1))
                 .sqrt();
  } else {
    spread.setOnes();
  }
  Eigen::MatrixXd current = seeds;
  Eigen::VectorXd current_g = seed_g;
  for (std::size_t j = 0; j < m; ++j) {
    s.u.row(static_cast<Eigen::Index>(s.start[j])) = current.row(static_cast<Eigen::Index>(j));
    s.g(static_cast<Eigen::Index>(s.start[j])) = current_g(static_cast<Eigen::Index>(j));
  }
  const std::size_t longest = total / m + (total % m ? 1 : 0);
  std::size_t proposed = 0, accepted = 0;
  std::vector<std::size_t> running;
  Eigen::RowVectorXd sigma(d), rho(d);
  for (std::size_t t = 1; t < longest; ++t) {
    running.clear();
    for (std::size_t j = 0; j < m; ++j)
      if (s.length[j] > t) running.push_back(j);
    for (Eigen::Index k = 0; k < d; ++k) {
      sigma(k) = std::min(1.0, lambda * spread(k));
      rho(k) = std::sqrt(1.0 - sigma(k) * sigma(k));
    }
    Eigen::MatrixXd proposal(static_cast<Eigen::Index>(running.size()), d);
    for (std::size_t r = 0; r < running.size(); ++r)
      for (Eigen::Index k = 0; k < d; ++k)
        proposal(static_cast<Eigen::Index>(r), k) =
            rho(k) * current(static_cast<Eigen::Index>(running[r]), k) + sigma(k) * standard_normal(e);
    const Eigen::VectorXd proposal_g = evaluate(g, proposal, count);
    std::size_t step_accepted = 0;
    for (std::size_t r = 0; r < running.size(); ++r) {
      const auto j = static_cast<Eigen::Index>(running[r]);
      const double v = proposal_g(static_cast<Eigen::Index>(r));
      if (std::isfinite(v) && v <= b) {  // a failed evaluation is a rejection
        current.row(j) = proposal.row(static_cast<Eigen::Index>(r));
        current_g(j) = v;
        ++step_accepted;
      }
      const auto row = static_cast<Eigen::Index>(s.start[running[r]] + t);
      s.u.row(row) = current.row(j);
      s.g(row) = current_g(j);
    }
    proposed += running.size();
    accepted += step_accepted;
    const double a = static_cast<double>(step_accepted) / static_cast<double>(running.size());
    lambda = std::exp(std::log(lambda) + (a - target_acceptance) / std::sqrt(static_cast<double>(t)));
  }
  s.acceptance = proposed ? static_cast<double>(accepted) / static_cast<double>(proposed) : 0.0;
  return s;
}

// Level 0: plain Monte Carlo. Points whose g is not finite cannot be ranked: they are left out
// of the level (counted in failed_calls), i.e. taken to fall like the others.
level_samples first_level(const limit_state& g, std::size_t n, Eigen::Index d, engine& e, probability_estimate& p) {
  level_samples s;
  Eigen::MatrixXd u(static_cast<Eigen::Index>(n), d);
  for (Eigen::Index i = 0; i < u.rows(); ++i)
    for (Eigen::Index k = 0; k < d; ++k) u(i, k) = standard_normal(e);
  const Eigen::VectorXd y = evaluate(g, u, p);
  std::vector<Eigen::Index> finite;
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (std::isfinite(y(i))) finite.push_back(i);
  s.u.resize(static_cast<Eigen::Index>(finite.size()), d);
  s.g.resize(static_cast<Eigen::Index>(finite.size()));
  for (std::size_t i = 0; i < finite.size(); ++i) {
    s.u.row(static_cast<Eigen::Index>(i)) = u.row(finite[i]);
    s.g(static_cast<Eigen::Index>(i)) = y(finite[i]);
  }
  s.start.resize(finite.size());
  s.length.assign(finite.size(), 1);
  std::iota(s.start.begin(), s.start.end(), std::size_t{0});
  return s;
}

// The next intermediate threshold b: the p0-quantile of the level's g, midway between the N p0-th
// and the next smallest value (Au & Beck 2001, section 4); with ties at it, all of the tied
// samples fall below it. None when the level cannot progress below `previous`.
std::optional<double> next_threshold(const Eigen::VectorXd& g, double p0, double previous) {
  const auto size = static_cast<std::size_t>(g.size());
  std::vector<double> sorted(g.data(), g.data() + size);
  std::sort(sorted.begin(), sorted.end());
  const std::size_t k =
      std::clamp<std::size_t>(static_cast<std::size_t>(std::llround(static_cast<double>(size) * p0)), 1, size);
  double b = k < size ? 0.5 * (sorted[k - 1] + sorted[k]) : sorted[k - 1];
  if (k < size && sorted[k - 1] == sorted[k]) b = sorted[k - 1];
  if (b >= previous) {
    // More than 1 - p0 of the level sits on the previous threshold (a g with ties): move to the
    // largest value below it, or stop when there is none.
    const auto below = std::lower_bound(sorted.begin(), sorted.end(), previous);
    if (below == sorted.begin()) return std::nullopt;
    b = *(below - 1);
  }
  return b;
}

// The estimate, its CoV (lineage_variance: for the running product up to each level and for the
// whole) and its interval, once the levels are done.
void finish_run(subset_run& run, double product, const std::vector<std::vector<double>>& share,
                const std::vector<std::vector<std::size_t>>& parent) {
  probability_estimate& p = run.probability;
  double variance = 0.0;
  for (std::size_t k = 1; k <= share.size(); ++k) {
    const std::vector<std::vector<double>> first(share.begin(), share.begin() + static_cast<std::ptrdiff_t>(k));
    variance = lineage_variance(first, parent, run.levels);
    run.levels[k - 1].cumulative_cov = std::sqrt(variance);
  }
  p.cov = std::sqrt(variance);
  if (run.reached_failure) {
    p.estimate = product;
    p.interval = "lognormal(cov)";
    lognormal_interval(p, z975);
    return;
  }
  // The chain of levels ended above g = 0: the product is P(g <= b_last), an upper bound of Pf,
  // not an estimate of it. The estimate is NaN; ci_high is the bound's own upper 97.5 % limit
  // and ci_low 0.
  p.estimate = nan;
  p.cov = nan;
  const double s_ln = std::sqrt(std::log1p(variance));
  p.ci_low = 0.0;
  p.ci_high = run.levels.empty() ? 1.0 : product * std::exp(z975 * s_ln);
  p.interval = "upper bound: max_levels reached (or no progress) before g <= 0";
}

subset_run run_one(const limit_state& g, std::size_t dimension, const subset_options& o,
                   std::uint64_t replicate) {
  subset_run run;
  probability_estimate& p = run.probability;
  engine e = make_engine(o.seed, stream_purpose::reliability_subset, replicate);
  const std::size_t n = o.samples_per_level;
  const auto d = static_cast<Eigen::Index>(dimension);

  level_samples s = first_level(g, n, d, e, p);

  // Per level: x_a = (I_a - p_i) / (N_i p_i), sample a's share of the error of ln p_i, and
  // parent[i][a], the row of level i - 1 that seeded a's chain (level 0: none).
  std::vector<std::vector<double>> share;
  std::vector<std::vector<std::size_t>> parent(1);
  std::vector<std::size_t> seed_row;
  double lambda = o.proposal_scale, product = 1.0, previous = inf;
  run.reached_failure = false;
  for (int level = 0; level < o.max_levels; ++level) {
    const auto size = static_cast<std::size_t>(s.g.size());
    if (size == 0) break;  // every evaluation failed
    const std::optional<double> next = next_threshold(s.g, o.p0, previous);
    if (!next) break;
    const bool last = *next <= 0.0;
    const double b = last ? 0.0 : *next;
    std::vector<char> indicator(size);
    std::size_t inside = 0;
    for (std::size_t i = 0; i < size; ++i) {
      indicator[i] = s.g(static_cast<Eigen::Index>(i)) <= b ? 1 : 0;
      inside += static_cast<std::size_t>(indicator[i]);
    }
    subset_level l;
    l.threshold = b;
    l.samples = size;
    l.probability = static_cast<double>(inside) / static_cast<double>(size);
    l.acceptance = s.acceptance;
    l.gamma = level == 0 ? 0.0 : chain_gamma(indicator, s.start, s.length, l.probability);
    product *= l.probability;
    {
      std::vector<double> x(size);
      const double scale = 1.0 / (static_cast<double>(size) * l.probability);
      for (std::size_t i = 0; i < size; ++i)
        x[i] = (static_cast<double>(indicator[i]) - l.probability) * scale;
      share.push_back(std::move(x));
    }
    if (o.keep_samples) {
      l.u = s.u;
      l.g = s.g;
    }
    run.levels.push_back(std::move(l));
    if (last) {
      run.reached_failure = true;
      break;
    }
    if (level + 1 == o.max_levels) break;
    Eigen::MatrixXd seeds(static_cast<Eigen::Index>(inside), d);
    Eigen::VectorXd seed_g(static_cast<Eigen::Index>(inside));
    seed_row.clear();
    for (std::size_t i = 0, j = 0; i < size; ++i) {
      if (!indicator[i]) continue;
      seed_row.push_back(i);
      seeds.row(static_cast<Eigen::Index>(j)) = s.u.row(static_cast<Eigen::Index>(i));
      seed_g(static_cast<Eigen::Index>(j++)) = s.g(static_cast<Eigen::Index>(i));
    }
    s = grow_chains(g, seeds, seed_g, b, n, lambda, e, p);
    std::vector<std::size_t>& up = parent.emplace_back(n);
    for (std::size_t j = 0; j < s.start.size(); ++j)
      std::fill_n(up.begin() + static_cast<std::ptrdiff_t>(s.start[j]), s.length[j], seed_row[j]);
    previous = b;
  }

  finish_run(run, product, share, parent);
  return run;
}

}  // namespace

void subset_options::validate() const {
  if (samples_per_level < 100 || samples_per_level > 100'000'000)
    throw parameter_error("samples_per_level",
                          fmt::format("samples_per_level = {}: must be in [100, 1e8]", samples_per_level));
  if (!(p0 >= 0.01 && p0 <= 0.5))
    throw parameter_error("p0", fmt::format("p0 = {}: must be in [0.01, 0.5]", format_value(p0)));
  const double seeds = static_cast<double>(samples_per_level) * p0;
  if (std::abs(seeds - std::round(seeds)) > 1e-9 * seeds)
    throw parameter_error("p0", fmt::format("samples_per_level * p0 = {} * {} = {}: must be an integer",
                                            samples_per_level, format_value(p0), format_value(seeds)));
  if (max_levels < 1 || max_levels > 100)
    throw parameter_error("max_levels", fmt::format("max_levels = {}: must be in [1, 100]", max_levels));
  if (!(proposal_scale > 0.0 && proposal_scale <= 10.0))
    throw parameter_error("proposal_scale", fmt::format("proposal_scale = {}: must be in (0, 10]",
                                                        format_value(proposal_scale)));
  if (replicates < 1 || replicates > 10'000)
    throw parameter_error("replicates", fmt::format("replicates = {}: must be in [1, 10000]", replicates));
}

subset_result run_subset(const limit_state& g, std::size_t dimension, const subset_options& options) {
  options.validate();
  if (dimension == 0) throw parameter_error("dimension", "subset simulation needs at least one input");
  if (!g) throw parameter_error("limit_state", "no limit state given");
  subset_result result;
  result.runs.reserve(options.replicates);
  for (std::size_t r = 0; r < options.replicates; ++r)
    result.runs.push_back(run_one(g, dimension, options, r));
  probability_estimate& p = result.probability;
  if (options.replicates == 1) {
    p = result.runs.front().probability;
    return result;
  }
  // Several runs: their mean, with the CoV from their spread, cov = sd / (mean sqrt(R)), and a
  // lognormal interval from it with Student's t_{R-1} in place of 1.96 (the spread is itself
  // estimated from R values).
  const auto r = static_cast<double>(options.replicates);
  double sum = 0.0, bound = 0.0;
  bool reached = true;
  for (const subset_run& run : result.runs) {
    p.model_calls += run.probability.model_calls;
    p.failed_calls += run.probability.failed_calls;
    reached = reached && run.reached_failure;
    sum += run.probability.estimate;
    bound += run.probability.ci_high;
  }
  if (!reached) {
    // Some run stopped above g = 0: no estimate; ci_high is the mean of the runs' upper limits.
    p.estimate = nan;
    p.cov = nan;
    p.ci_low = 0.0;
    p.ci_high = bound / r;
    p.interval = "upper bound: max_levels reached (or no progress) in some replicate";
    return result;
  }
  p.estimate = sum / r;
  double var = 0.0;
  for (const subset_run& run : result.runs) var += std::pow(run.probability.estimate - p.estimate, 2);
  var /= r - 1.0;
  p.cov = p.estimate > 0.0 ? std::sqrt(var / r) / p.estimate : nan;
  lognormal_interval(p, boost::math::quantile(boost::math::students_t(r - 1.0), 0.975));
  p.interval = "lognormal(replicate cov, t)";
  return result;
}

}  // namespace contactuq::uq
