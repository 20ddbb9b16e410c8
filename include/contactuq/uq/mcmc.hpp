#pragma once
// Markov chain Monte Carlo for Bayesian calibration: derivative-free samplers of an unnormalised
// density p(x), x in R^d, and the convergence diagnostics that say whether to trust the draws.
//
// Samplers (every log density is asked for in batches, one row per chain or walker, so a caller
// can run the model evaluations of one step in parallel):
//   dram     Delayed-rejection adaptive Metropolis (Haario, Laine, Mira & Saksman 2006).
//            Stage 1: y1 ~ N(x, C), accepted with a1(x, y1) = min(1, p(y1)/p(x)).
//            Stage 2, after a rejection: y2 ~ N(x, g^2 C), g = dr_scale, accepted with
//              a2 = min(1, p(y2) q1(y2->y1) [1 - a1(y2,y1)] / (p(x) q1(x->y1) [1 - a1(x,y1)]))
//            (Tierney & Mira 1999, eq. 2; the stage-2 proposal is symmetric and cancels), with
//            q1(a -> b) = N(b; a, C). During warm-up C is adapted every adapt_interval steps to
//              C = 2.38^2/d (S + eps diag S),   eps = 1e-8
//            (Haario, Saksman & Tamminen 2001; Gelman, Roberts & Gilks 1996 for 2.38^2/d), where S
//            is the within-chain covariance of the latter half of the warm-up so far, averaged
//            over the chains (the pooled W of R-hat, so chains in different modes do not inflate
//            it). The chains share C during warm-up only; after warm-up C is frozen, so the kept
//            draws are independent Markov chains with one fixed kernel.
//            On top of C, a global scale lambda (the proposal is N(x, lambda^2 C), lambda = 1 at
//            the start) is adapted at every warm-up step by Robbins-Monro (Andrieu & Thoms 2008,
//            "A tutorial on adaptive MCMC", Statistics and Computing 18, algorithm 4):
//              log lambda += k^-0.6 (mean over chains of a1(x, y1) - a*),  k = step + 1,
//            a* = 0.234 (0.44 for d = 1; Roberts, Gelman & Gilks 1997, Roberts & Rosenthal 2001).
//            Without it, chains that barely move early shrink S, hence C, hence their steps
//            further: the adapted proposal collapses and the acceptance stays near 1. lambda is
//            frozen with C after warm-up.
//   stretch  Affine-invariant ensemble, stretch move (Goodman & Weare 2010, eq. 7-10) with the
//            red-blue split of emcee (Foreman-Mackey et al. 2013, algorithm 3): the walkers are
//            two halves; each walker k of one half moves to y = x_j + z (x_k - x_j), x_j a random
//            walker of the other half and z ~ g(z) ∝ 1/sqrt(z) on [1/a, a], accepted with
//            min(1, z^(d-1) p(y)/p(x_k)). One half is proposed and evaluated in one batch.
//
// Random numbers: step s of chain (or walker) c draws from its own stream (seed, mcmc_step,
// c 2^40 + s) of uq/random.hpp, in a fixed order, so the draws depend on the seed alone, bit for
// bit, never on how the caller evaluates a batch; and a run restarted at step s from the state
// after step s - 1 (positions, log densities, proposal covariance) continues with the same bits.
//
// Diagnostics (Vehtari, Gelman, Simpson, Carpenter & Bürkner 2021, "Rank-normalization,
// folding, and localization: an improved R-hat", Bayesian Analysis 16(2)): each chain is split
// in halves (an odd last draw is dropped), the pooled draws are ranked (average ranks for ties)
// and mapped to z = Phi^-1((r - 3/8)/(S + 1/4)) (eq. 14). Then
//   R-hat     = max(R(z), R(z of |x - median x|)), R = sqrt(((N-1)/N W + B/N)/W)   (eq. 3-4)
//   ESS bulk  = ESS(z);  ESS tail = min(ESS(1{x <= q05}), ESS(1{x <= q95}))        (sec. 4.3)
//   ESS       = M N / tau,  tau = -1 + 2 sum_{t} rho_t with Geyer's initial monotone sequence
//               of the pair sums rho_{2t} + rho_{2t+1}, rho_t = 1 - (W - mean_m acov_m(t))/var+
//               (eq. 10-11; Geyer 1992), tau >= 1/log10(M N) as in Stan.
//   MCSE mean = sd / sqrt(ESS(x)); MCSE sd by the delta method from the ESS of (x - mean)^2:
//               sqrt(Var((x - mean)^2) / ESS) / (2 sd).
//   MCSE of a quantile q_p from the ESS of 1{x <= q_p} and the Beta(ESS p + 1, ESS (1-p) + 1)
//               band of the probability (sec. 4.4), read off the sorted draws.
// Autocovariances by FFT (zero-padded radix-2), so long badly mixing chains stay O(n log n).

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace contactuq::uq {

// Log of an unnormalised density at many points at once: rows of `points` (n x d) -> out (n).
// -infinity outside the support. Called with one row per chain (or per walker of a half
// ensemble), so a caller can evaluate the rows in parallel (model runs). Must not throw for a
// point outside the support (return -inf); may throw for real errors. `out` comes sized n; a
// NaN is read as -inf (the proposal is rejected), +inf is an error.
using batch_log_density = std::function<void(const Eigen::MatrixXd& points, Eigen::VectorXd& out)>;

enum class mcmc_sampler { dram, stretch };  // "dram", "stretch"
std::string to_string(mcmc_sampler sampler);
mcmc_sampler parse_mcmc_sampler(std::string_view name);  // parameter_error listing the names

struct mcmc_result;
struct mcmc_state;

struct mcmc_options {
  mcmc_sampler sampler = mcmc_sampler::dram;
  std::size_t chains = 4;     ///< dram: independent chains (>= 1); stretch: walkers (>= 2 d, even)
  std::size_t warmup = 1000;  ///< adaptation steps per chain, discarded from draws (>= 0)
  std::size_t draws = 1000;   ///< kept draws per chain after warm-up (>= 1); draws*thin steps run
  std::size_t thin = 1;       ///< keep every thin-th step after warm-up (>= 1)
  std::uint64_t seed = 1;
  double stretch_a = 2.0;              ///< stretch move scale a, > 1
  double dr_scale = 0.1;               ///< DRAM stage-2 proposal sd factor g, in (0, 1]
  std::size_t adapt_interval = 50;     ///< DRAM: covariance update every k warm-up steps, >= 1
  Eigen::MatrixXd initial_covariance;  ///< d x d SPD proposal start; empty: 0.1^2 (|x0|+1)^2
                                       ///< diagonal, |x0| the mean over chains of the starts
  // Called after every checkpoint_interval-th step but the last (0: never) with the result so
  // far (rows of the steps done filled, acceptance not yet) and the state; saving both lets
  // resume_mcmc continue the run bit for bit after an interruption.
  std::function<void(const mcmc_result& so_far, const mcmc_state& state)> checkpoint;
  std::size_t checkpoint_interval = 0;
  void validate(std::size_t dimension) const;  // parameter_error naming the field
};

// Where a run stands after `step` steps (warm-up included).
struct mcmc_state {
  std::size_t step = 0;
  Eigen::MatrixXd positions;    ///< chains x d after `step` steps
  Eigen::VectorXd log_density;  ///< at the positions
  Eigen::MatrixXd covariance;   ///< dram: the adapted covariance C (2.38^2/d included)
  double log_scale = 0.0;       ///< dram: log lambda, the proposal is N(x, lambda^2 C)
  std::vector<std::size_t> accepted_warmup, accepted, accepted_second;  ///< counts per chain
  std::size_t evaluations = 0;  ///< rows passed to the log density so far
};

struct mcmc_result {
  // chains x draws x d, as one (draws x d) matrix per chain (for stretch: one per walker).
  std::vector<Eigen::MatrixXd> draws;
  std::vector<Eigen::VectorXd> log_density;         ///< per chain, per kept draw
  std::vector<Eigen::MatrixXd> warmup_draws;        ///< per chain, every warm-up step (not thinned)
  std::vector<Eigen::VectorXd> warmup_log_density;  ///< per chain, per warm-up step
  std::vector<double> acceptance;               ///< per chain: accepted moves / steps after warm-up
  std::vector<double> warmup_acceptance;        ///< per chain, during warm-up
  std::vector<double> second_stage_acceptance;  ///< dram, per chain after warm-up: the share of
                                                ///< steps accepted at stage 2 (in acceptance too)
  std::size_t evaluations = 0;                  ///< rows passed to the log density in all
  Eigen::MatrixXd final_covariance;             ///< dram: the adapted proposal covariance
                                                ///< lambda^2 C; stretch: empty
};

// Runs the sampler from starts (chains x d; every start must have a finite log density, else
// parameter_error "start" naming the chain). Deterministic for a seed (bit for bit, whatever
// the caller's threads).
mcmc_result run_mcmc(const batch_log_density& log_density, const Eigen::MatrixXd& starts,
                     const mcmc_options& options);

// Continues a run from a checkpoint (mcmc_options::checkpoint) with the same options: the
// result is bit-identical to the uninterrupted run. parameter_error "resume" when the saved
// shapes do not fit the options.
mcmc_result resume_mcmc(const batch_log_density& log_density, mcmc_result partial,
                        const mcmc_state& state, const mcmc_options& options);

// Diagnostics (Vehtari et al. 2021): rank-normalised split R-hat, bulk and tail ESS, MCSE of
// the mean, and quantiles, per parameter, over chains (each draws x d, all the same shape).
// NaN where undefined (R-hat of one chain of fewer than 4 draws, ESS of a constant).
struct parameter_summary {
  double mean = 0, sd = 0, mcse_mean = 0, mcse_sd = 0;
  double q05 = 0, q50 = 0, q95 = 0;
  double rhat = 0, ess_bulk = 0, ess_tail = 0;
  double ess_mean = 0;  ///< ESS of the raw draws (split chains), behind mcse_mean
  double mcse_q05 = 0, mcse_q50 = 0, mcse_q95 = 0;
};
std::vector<parameter_summary> summarize_chains(const std::vector<Eigen::MatrixXd>& chains);
// Integrated autocorrelation time of one series (Geyer's initial monotone sequence).
double autocorrelation_time(std::span<const double> series);

// Column `parameter` of every chain, as one vector per chain (helper for the functions below).
std::vector<std::vector<double>> chain_columns(const std::vector<Eigen::MatrixXd>& chains,
                                               std::size_t parameter);
// ESS of chains of one scalar (Vehtari et al. 2021 eq. 10-11), without splitting or ranking.
double effective_sample_size(const std::vector<std::vector<double>>& chains);
// Quantile p (definition 7 of the pooled draws) and its MCSE (Vehtari et al. 2021 sec. 4.4).
struct quantile_mcse {
  double value = 0, mcse = 0;
};
quantile_mcse quantile_with_mcse(const std::vector<std::vector<double>>& chains, double p);

}  // namespace contactuq::uq
