#pragma once
// Reliability: the probability of a failure event {g(U) <= 0} for a limit state g of d
// independent standard normals U (the model's inputs are reached through an isoprobabilistic
// transform, uq/nataf.hpp). The algorithms only see g in u-space:
//   FORM  Hasofer & Lind (1974); iHL-RF of Zhang & Der Kiureghian (1995) with an NLopt SLSQP
//         fallback; beta = |u*|, Pf ~ Phi(-beta)                              (form.cpp)
//   SORM  Breitung (1984), Hohenbichler & Rackwitz (1988), Tvedt (1990) from the main
//         curvatures at u* of a finite-difference Hessian                    (form.cpp)
//   importance sampling around the design point(s) (Melchers 1989)          (importance.cpp)
//   subset simulation, Au & Beck (2001), "Estimation of small failure probabilities in high
//         dimensions by subset simulation", Prob. Eng. Mech. 16, 263-277    (subset.cpp)
//   plain Monte Carlo                                                         (importance.cpp)
//
// g is evaluated a batch of points at a time, so that a caller can spread each batch over
// threads and processes. A non-finite value marks a failed evaluation: it is counted in
// failed_calls and handled as each algorithm states (never silently as safe or failed).

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace contactuq::uq {

// g at each row of `u` (n x d standard normal points); returns n values. Must be
// deterministic: the same point gives the same value.
using limit_state = std::function<Eigen::VectorXd(const Eigen::MatrixXd& u)>;

// A probability with its uncertainty. The interval is the algorithm's nominal 95 % interval
// (its method in `interval`); cov is the estimate's coefficient of variation (NaN where the
// algorithm gives none, as FORM and SORM).
struct probability_estimate {
  double estimate = 0.0;
  double ci_low = 0.0, ci_high = 0.0;
  double cov = 0.0;
  std::string interval;            ///< how the interval was made, e.g. "lognormal(cov)"
  std::size_t model_calls = 0;     ///< every evaluation of g, failed ones included
  std::size_t failed_calls = 0;    ///< evaluations that returned a non-finite value
};

// beta = -Phi^-1(Pf) (generalised reliability index).
double reliability_index(double probability);

// ---- FORM / SORM ---------------------------------------------------------------------------

struct form_options {
  int max_iterations = 100;       ///< iHL-RF iterations per start, in [1, 10000]
  double tolerance = 1e-6;        ///< on |u_{k+1} - u_k| / max(1, |u_k|) and |g(u)| / |g(0)|
  double difference_step = 1e-4;  ///< forward-difference step of the gradient in u, in [1e-10, 1]
  int starts = 1;                 ///< multistart: start 0 at u = 0, others random, in [1, 1000]
  std::uint64_t seed = 1;         ///< stream (seed, reliability_form_start, start)
  void validate() const;          ///< throws parameter_error naming the field
};

struct form_iteration {
  Eigen::VectorXd u;
  double g = 0.0;
  double beta = 0.0;  ///< |u|
};

struct form_result {
  bool converged = false;
  std::string message;              ///< why not, when not converged
  std::string search;               ///< "ihlrf" or "slsqp" (the fallback)
  Eigen::VectorXd u_star;           ///< design point (most probable failure point)
  double beta = 0.0;                ///< signed: negative when u = 0 is in the failure domain
  Eigen::VectorXd alpha;            ///< -grad g / |grad g| at u*; alpha_i^2 are importance factors
  double g_at_design = 0.0;         ///< |g(u*)| must be small relative to |g(0)|
  double g_at_origin = 0.0;
  std::vector<form_iteration> history;  ///< of the start that gave u*
  probability_estimate probability;     ///< Phi(-beta); interval = estimate (no sampling error)
};

// Throws nothing on a failed search: converged = false and message say why; the estimate is
// then NaN. Design points of other starts that converged elsewhere (|u - u*| > 1e-3 |u*|) are
// in `others` sorted by beta, for multi-point importance sampling.
struct form_search {
  form_result best;
  std::vector<form_result> others;
};
form_search run_form(const limit_state& g, std::size_t dimension, const form_options& options);

struct sorm_result {
  Eigen::VectorXd curvatures;  ///< the d - 1 main curvatures at u*
  double breitung = 0.0, hohenbichler = 0.0, tvedt = 0.0;  ///< Pf by each formula
  probability_estimate probability;  ///< Tvedt's, else Hohenbichler-Rackwitz's, else Breitung's (interval names it)
};
// Curvatures from a central-difference Hessian at form.u_star (step options.difference_step
// * 10); model calls are counted in probability.model_calls (FORM's not included).
sorm_result run_sorm(const limit_state& g, const form_result& form, const form_options& options);

// ---- sampling ------------------------------------------------------------------------------

struct importance_options {
  std::size_t samples = 10000;          ///< in [10, 1e9]
  std::vector<Eigen::VectorXd> centres;  ///< design points; an equal mixture of N(c, I)
  std::size_t block = 1000;             ///< points per call of g
  std::uint64_t seed = 1;               ///< stream (seed, reliability_importance, block index)
};
struct importance_result {
  probability_estimate probability;
  double effective_sample_size = 0.0;  ///< (sum w)^2 / sum w^2 over the failed points' weights
};
// Importance sampling; with no centres, plain Monte Carlo (weights 1), interval by Wilson.
// Weights w = phi(u) / q(u), estimate mean(I w), cov = se / estimate from the sample variance
// of I w, interval estimate -/+ 1.96 se with the low end clamped at 0 ("normal(se), low clamped
// at 0"). No failure observed: estimate 0 with cov = inf, never a CoV of 0; plain Monte Carlo
// then gives Wilson's upper limit, importance sampling ci_high = NaN. A non-finite g leaves the
// sample (the mean is over the points that gave a value) and is counted in failed_calls.
// Parameter errors: samples, block in [1, 1e8], centres of `dimension` finite coordinates.
importance_result run_importance(const limit_state& g, std::size_t dimension, const importance_options& options);

struct subset_options {
  std::size_t samples_per_level = 2000;  ///< N, in [100, 1e8]; N p0 must be an integer
  double p0 = 0.1;                       ///< level probability, in [0.01, 0.5]
  int max_levels = 30;                   ///< in [1, 100]; reaching it is reported, not hidden
  double proposal_scale = 1.0;           ///< initial lambda of the aCS proposal (below), in (0, 10]
  std::size_t replicates = 1;            ///< independent runs, in [1, 10000]
  std::uint64_t seed = 1;                ///< stream (seed, reliability_subset, replicate)
  bool keep_samples = false;             ///< store every level's samples
  void validate() const;
};
struct subset_level {
  double threshold = 0.0;    ///< b_i (the last level's is 0)
  double probability = 0.0;  ///< conditional p_i
  std::size_t samples = 0;   ///< N_i
  double acceptance = 0.0;   ///< of the MCMC moves that made this level's samples (0 on level 0)
  double gamma = 0.0;        ///< within-chain correlation factor, Au & Beck (2001) eq. (29)
  double cov = 0.0;          ///< delta_i, sd of ln p_i by clusters of common ancestry (below)
  // CoV of the running product p_0 ... p_i by the same estimator over levels 0..i: the last
  // level's is the run's cov.
  double cumulative_cov = 0.0;
  Eigen::MatrixXd u;         ///< the samples (keep_samples only)
  Eigen::VectorXd g;
};
struct subset_run {
  probability_estimate probability;  ///< of this run, interval lognormal from its cov
  std::vector<subset_level> levels;
  bool reached_failure = true;       ///< false when max_levels ran out first
};
struct subset_result {
  probability_estimate probability;  ///< one run: that run's; several: from the replicates' spread
  std::vector<subset_run> runs;
};
// Level 0: N standard normal points in one call of g. Level i: b_i = the p0-quantile of the
// level's g; the samples with g <= b_i seed as many chains, grown to N samples by adaptive
// conditional sampling (Papaioannou et al. 2015): u'_k = rho_k u_k + sigma_k z_k with
// sigma_k = min(1, lambda s_k), s_k the seeds' sd, lambda adapted after each step toward 44 %
// acceptance and carried to the next level; one call of g per step with one row per chain;
// accepted iff g(u') <= b_i, a non-finite g(u') is a rejection. Level 0 points with a
// non-finite g are left out of the level. Once b <= 0: b = 0 and p = #(g <= 0) / N_i.
// Pf = prod p_i. Its cov is the sd of the linearised ln Pf ~ sum_i sum_{a in level i} x_a,
// x_a = (I_a - p_i) / (N_i p_i) (I_a = [g(u_a) <= b_i]), by clusters of common ancestry: the
// samples of level i are grouped by their ancestor two levels up (level max(0, i - 2); a
// chain's states descend from its seed), S_ij(c) = sum of x_a over level j's samples in cluster
// c of level i's grouping, and
//   cov^2 = sum_i [ sum_c S_ii(c)^2 + 2 sum_{j=i+1}^{i+2} sum_c S_ii(c) S_ij(c) ],
// clamped at >= 0. Grouping by chain alone with no j != i terms is Au & Beck's delta^2 = sum
// delta_i^2, eq. (28); it leaves out the correlation of chains grown from seeds of one earlier
// chain and of levels that share seeds (16 % under the observed CoV at beta = 5, n = 10); this
// one reports within 5 % of it (bench/reliability_coverage_bench.cpp). delta_i =
// sqrt(sum_c S_ii(c)^2); gamma_i is Au & Beck's eq. (29), clamped at >= 0, for comparison.
// Interval lognormal(cov). reached_failure = false (max_levels used, or
// a g with ties that cannot go below the last threshold): estimate and cov NaN, ci_low 0,
// ci_high an upper bound of Pf (the partial product's upper 97.5 % limit), interval "upper
// bound: ...". Several replicates: mean of the runs, cov = sd / (mean sqrt(R)), lognormal
// interval with Student's t_{R-1} for 1.96; any run without failure makes the whole an upper bound.
subset_result run_subset(const limit_state& g, std::size_t dimension, const subset_options& options);

}  // namespace contactuq::uq
