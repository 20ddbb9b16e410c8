#include "contactuq/uq/mcmc.hpp"

#include <fmt/format.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "contactuq/error.hpp"
#include "contactuq/uq/random.hpp"

namespace contactuq::uq {
namespace {

// Step s of chain (or walker) c draws from stream (seed, mcmc_step, c 2^40 + s): a fresh stream
// per step, so the kernel of a step depends only on the seed, the chain, the step and the state,
// and a run resumed at step s from the saved state continues with the same bits.
constexpr auto mcmc_step = stream_purpose::mcmc_step;

engine step_engine(std::uint64_t seed, std::size_t chain, std::size_t step) {
  return make_engine(seed, mcmc_step, (static_cast<std::uint64_t>(chain) << 40) | step);
}

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

double standard_normal(engine& e) {
  return -std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * open_uniform(e));
}

// Calls the density on `points` and checks what came back: NaN reads as -inf, +inf throws.
struct evaluator {
  const batch_log_density& f;
  std::size_t evaluations = 0;

  Eigen::VectorXd operator()(const Eigen::MatrixXd& points) {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(points.rows());
    f(points, out);
    evaluations += static_cast<std::size_t>(points.rows());
    if (out.size() != points.rows())
      throw std::runtime_error(fmt::format("mcmc: the log density returned {} values for {} points",
                                           out.size(), points.rows()));
    for (Eigen::Index i = 0; i < out.size(); ++i) {
      if (std::isnan(out(i))) out(i) = minus_inf;
      if (out(i) == std::numeric_limits<double>::infinity())
        throw std::runtime_error("mcmc: the log density returned +inf (an improper density?)");
    }
    return out;
  }
};

// log u < log p(y) - log p(x), with -inf handled (never accept a point outside the support).
bool accept(engine& e, double log_ratio) {
  if (std::isnan(log_ratio) || log_ratio == minus_inf) return false;
  return std::log(open_uniform(e)) < log_ratio;
}

// Storage shared by both samplers: the result being filled and the state of the run.
struct recorder {
  std::size_t chains, d, warmup, draws, thin;
  mcmc_result result;
  mcmc_state state;

  recorder(std::size_t c, std::size_t dim, const mcmc_options& o)
      : chains(c), d(dim), warmup(o.warmup), draws(o.draws), thin(o.thin) {
    const auto ed = static_cast<Eigen::Index>(d);
    result.draws.assign(c, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(draws), ed));
    result.log_density.assign(c, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(draws)));
    result.warmup_draws.assign(c, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(warmup), ed));
    result.warmup_log_density.assign(c, Eigen::VectorXd::Zero(static_cast<Eigen::Index>(warmup)));
    state.accepted_warmup.assign(c, 0);
    state.accepted.assign(c, 0);
    state.accepted_second.assign(c, 0);
  }

  std::size_t steps() const { return warmup + draws * thin; }

  // After step `step` (0-based) the state of every chain is state.positions, state.log_density.
  void record(std::size_t step) {
    const Eigen::MatrixXd& x = state.positions;
    const Eigen::VectorXd& lp = state.log_density;
    if (step < warmup) {
      const auto s = static_cast<Eigen::Index>(step);
      for (std::size_t c = 0; c < chains; ++c) {
        result.warmup_draws[c].row(s) = x.row(static_cast<Eigen::Index>(c));
        result.warmup_log_density[c](s) = lp(static_cast<Eigen::Index>(c));
      }
      return;
    }
    const std::size_t k = step - warmup;
    if ((k + 1) % thin != 0) return;
    const auto s = static_cast<Eigen::Index>(k / thin);
    for (std::size_t c = 0; c < chains; ++c) {
      result.draws[c].row(s) = x.row(static_cast<Eigen::Index>(c));
      result.log_density[c](s) = lp(static_cast<Eigen::Index>(c));
    }
  }

  void count(std::size_t step, std::size_t chain, bool second_stage = false) {
    if (step < warmup) {
      ++state.accepted_warmup[chain];
    } else {
      ++state.accepted[chain];
      if (second_stage) ++state.accepted_second[chain];
    }
  }

  // End of step `step`: record it (unless done already), and hand a checkpoint to the caller
  // when one is due.
  void end_step(std::size_t step, std::size_t evaluations, const mcmc_options& o,
                bool recorded = false) {
    if (!recorded) record(step);
    state.step = step + 1;
    state.evaluations = evaluations;
    if (o.checkpoint_interval > 0 && o.checkpoint && state.step % o.checkpoint_interval == 0 &&
        state.step < steps())
      o.checkpoint(result, state);
  }

  mcmc_result finish(bool dram) {
    const auto rate = [](std::size_t n, std::size_t steps) {
      return steps == 0 ? std::numeric_limits<double>::quiet_NaN()
                        : static_cast<double>(n) / static_cast<double>(steps);
    };
    result.acceptance.clear();
    result.warmup_acceptance.clear();
    result.second_stage_acceptance.clear();
    for (std::size_t c = 0; c < chains; ++c) {
      result.acceptance.push_back(rate(state.accepted[c], draws * thin));
      result.warmup_acceptance.push_back(rate(state.accepted_warmup[c], warmup));
      if (dram)
        result.second_stage_acceptance.push_back(rate(state.accepted_second[c], draws * thin));
    }
    result.evaluations = state.evaluations;
    if (dram) result.final_covariance = std::exp(2.0 * state.log_scale) * state.covariance;
    return std::move(result);
  }
};

// Pooled within-chain covariance of warm-up steps [from, to) of every chain (the W of R-hat).
Eigen::MatrixXd within_chain_covariance(const std::vector<Eigen::MatrixXd>& history,
                                        std::size_t from, std::size_t to) {
  const Eigen::Index d = history.front().cols();
  const auto n = static_cast<Eigen::Index>(to - from);
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(d, d);
  for (const auto& h : history) {
    const Eigen::MatrixXd block = h.middleRows(static_cast<Eigen::Index>(from), n);
    const Eigen::MatrixXd centred = block.rowwise() - block.colwise().mean();
    s.noalias() += centred.transpose() * centred;
  }
  return s / static_cast<double>(history.size() * static_cast<std::size_t>(n - 1));
}

mcmc_result run_dram(evaluator& eval, recorder& rec, const mcmc_options& o) {
  const std::size_t chains = rec.chains;
  const auto d = static_cast<Eigen::Index>(rec.d);
  Eigen::MatrixXd& covariance = rec.state.covariance;        // C, the proposal is lambda^2 C
  double& log_scale = rec.state.log_scale;                   // log lambda
  Eigen::MatrixXd base_factor = covariance.llt().matrixL();  // C = L L^T
  Eigen::MatrixXd base_precision;                            // L^-1
  Eigen::MatrixXd factor, precision_factor;  // lambda L and (lambda L)^-1, q1 in the stage-2 ratio
  const auto rescale = [&] {
    const double lambda = std::exp(log_scale);
    factor = lambda * base_factor;
    precision_factor = base_precision / lambda;
  };
  const auto refactor = [&] {
    base_precision =
        base_factor.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(d, d));
    rescale();
  };
  refactor();
  const double g = o.dr_scale;
  const double sd_scale = 2.38 * 2.38 / static_cast<double>(d);
  // Robbins-Monro target of the stage-1 acceptance (Roberts, Gelman & Gilks 1997; Roberts &
  // Rosenthal 2001: 0.44 in one dimension).
  const double target = d == 1 ? 0.44 : 0.234;

  std::vector<engine> engines(chains);

  Eigen::MatrixXd& x = rec.state.positions;
  Eigen::VectorXd& lp = rec.state.log_density;
  Eigen::MatrixXd y1(static_cast<Eigen::Index>(chains), d);
  Eigen::VectorXd z(d);
  std::vector<Eigen::Index> rejected;
  const std::size_t steps = rec.steps();
  for (std::size_t step = rec.state.step; step < steps; ++step) {
    for (std::size_t c = 0; c < chains; ++c) engines[c] = step_engine(o.seed, c, step);
    // Stage 1: one proposal per chain, one batch.
    for (std::size_t c = 0; c < chains; ++c) {
      for (Eigen::Index i = 0; i < d; ++i) z(i) = standard_normal(engines[c]);
      const auto r = static_cast<Eigen::Index>(c);
      y1.row(r) = x.row(r) + (factor * z).transpose();
    }
    const Eigen::VectorXd lp1 = eval(y1);
    rejected.clear();
    Eigen::VectorXd a1(static_cast<Eigen::Index>(chains));  // log a1(x, y1)
    for (std::size_t c = 0; c < chains; ++c) {
      const auto r = static_cast<Eigen::Index>(c);
      a1(r) = std::min(0.0, lp1(r) - lp(r));
      if (accept(engines[c], lp1(r) - lp(r))) {
        x.row(r) = y1.row(r);
        lp(r) = lp1(r);
        rec.count(step, c);
      } else {
        rejected.push_back(r);
      }
    }
    // Stage 2: the rejected chains try again closer to x, one batch.
    if (!rejected.empty()) {
      Eigen::MatrixXd y2(static_cast<Eigen::Index>(rejected.size()), d);
      for (std::size_t k = 0; k < rejected.size(); ++k) {
        const Eigen::Index r = rejected[k];
        for (Eigen::Index i = 0; i < d; ++i)
          z(i) = standard_normal(engines[static_cast<std::size_t>(r)]);
        y2.row(static_cast<Eigen::Index>(k)) = x.row(r) + g * (factor * z).transpose();
      }
      const Eigen::VectorXd lp2 = eval(y2);
      for (std::size_t k = 0; k < rejected.size(); ++k) {
        const Eigen::Index r = rejected[k];
        const auto kk = static_cast<Eigen::Index>(k);
        engine& e = engines[static_cast<std::size_t>(r)];
        // log of [p(y2) q1(y2->y1) (1 - a1(y2,y1))] / [p(x) q1(x->y1) (1 - a1(x,y1))]
        double log_ratio = minus_inf;
        if (lp2(kk) != minus_inf) {
          const double a1_back = std::min(0.0, lp1(r) - lp2(kk));  // log a1(y2, y1)
          if (a1_back < 0.0) {
            const Eigen::VectorXd u_new = precision_factor * (y1.row(r) - y2.row(kk)).transpose();
            const Eigen::VectorXd u_old = precision_factor * (y1.row(r) - x.row(r)).transpose();
            log_ratio = lp2(kk) - lp(r) - 0.5 * u_new.squaredNorm() + 0.5 * u_old.squaredNorm() +
                        std::log1p(-std::exp(a1_back)) - std::log1p(-std::exp(a1(r)));
          }
        }
        if (accept(e, log_ratio)) {
          x.row(r) = y2.row(kk);
          lp(r) = lp2(kk);
          rec.count(step, static_cast<std::size_t>(r), true);
        }
      }
    }
    rec.record(step);
    // Global scale, warm-up only (Andrieu & Thoms 2008, algorithm 4): log lambda moves by
    // gamma_k (mean stage-1 acceptance probability of the chains - target), gamma_k = k^-0.6, so
    // a covariance estimated from chains that barely moved (which shrinks with them) is
    // stretched back until proposals are accepted at the optimal rate.
    if (step < o.warmup) {
      double alpha = 0.0;
      for (std::size_t c = 0; c < chains; ++c) alpha += std::exp(a1(static_cast<Eigen::Index>(c)));
      alpha /= static_cast<double>(chains);
      log_scale += std::pow(static_cast<double>(step + 1), -0.6) * (alpha - target);
      log_scale = std::clamp(log_scale, -30.0, 30.0);
      rescale();
    }
    // Adaptation, warm-up only: from the latter half of the warm-up so far.
    if (step < o.warmup && (step + 1) % o.adapt_interval == 0) {
      const std::size_t to = step + 1, from = to / 2;
      if (to - from >= 2) {
        Eigen::MatrixXd s = within_chain_covariance(rec.result.warmup_draws, from, to);
        bool moved = true;
        for (Eigen::Index i = 0; i < d; ++i)
          moved = moved && s(i, i) > 0.0 && std::isfinite(s(i, i));
        if (moved) {
          s.diagonal() *= 1.0 + 1e-8;
          Eigen::LLT<Eigen::MatrixXd> llt(sd_scale * s);
          if (llt.info() == Eigen::Success) {
            covariance = sd_scale * s;
            base_factor = llt.matrixL();
            refactor();
          }
        }
      }
    }
    rec.end_step(step, eval.evaluations, o, true);
  }
  return rec.finish(true);
}

mcmc_result run_stretch(evaluator& eval, recorder& rec, const mcmc_options& o) {
  const std::size_t walkers = rec.chains;
  const std::size_t half = walkers / 2;
  const auto d = static_cast<Eigen::Index>(rec.d);
  std::vector<engine> engines(walkers);

  const double a = o.stretch_a;
  Eigen::MatrixXd& x = rec.state.positions;
  Eigen::VectorXd& lp = rec.state.log_density;
  Eigen::MatrixXd y(static_cast<Eigen::Index>(half), d);
  std::vector<double> z(half);
  const std::size_t steps = rec.steps();
  for (std::size_t step = rec.state.step; step < steps; ++step) {
    for (std::size_t c = 0; c < walkers; ++c) engines[c] = step_engine(o.seed, c, step);
    for (std::size_t side = 0; side < 2; ++side) {
      const std::size_t first = side * half, other = (1 - side) * half;
      for (std::size_t k = 0; k < half; ++k) {
        engine& e = engines[first + k];
        // z = ((a - 1) u + 1)^2 / a has density ∝ 1/sqrt(z) on [1/a, a] (Goodman & Weare eq. 9).
        const double u = open_uniform(e);
        z[k] = ((a - 1.0) * u + 1.0) * ((a - 1.0) * u + 1.0) / a;
        const auto j = static_cast<Eigen::Index>(other + uniform_index(e, half));
        const auto r = static_cast<Eigen::Index>(first + k);
        y.row(static_cast<Eigen::Index>(k)) = x.row(j) + z[k] * (x.row(r) - x.row(j));
      }
      const Eigen::VectorXd lpy = eval(y);
      for (std::size_t k = 0; k < half; ++k) {
        const auto r = static_cast<Eigen::Index>(first + k);
        const auto kk = static_cast<Eigen::Index>(k);
        const double log_ratio = static_cast<double>(d - 1) * std::log(z[k]) + lpy(kk) - lp(r);
        if (accept(engines[first + k], log_ratio)) {
          x.row(r) = y.row(kk);
          lp(r) = lpy(kk);
          rec.count(step, first + k);
        }
      }
    }
    rec.end_step(step, eval.evaluations, o);
  }
  return rec.finish(false);
}

}  // namespace

std::string to_string(mcmc_sampler sampler) {
  switch (sampler) {
    case mcmc_sampler::dram:
      return "dram";
    case mcmc_sampler::stretch:
      return "stretch";
  }
  return "?";
}

mcmc_sampler parse_mcmc_sampler(std::string_view name) {
  if (name == "dram") return mcmc_sampler::dram;
  if (name == "stretch") return mcmc_sampler::stretch;
  throw parameter_error("sampler",
                        fmt::format("unknown MCMC sampler '{}' (known: dram, stretch)", name));
}

void mcmc_options::validate(std::size_t dimension) const {
  if (dimension == 0) throw parameter_error("start", "MCMC needs at least one parameter (d = 0)");
  if (sampler == mcmc_sampler::dram && chains < 1)
    throw parameter_error("chains", "chains must be >= 1 for dram");
  if (sampler == mcmc_sampler::stretch && (chains < 2 * dimension || chains % 2 != 0))
    throw parameter_error(
        "chains",
        fmt::format("the stretch move needs an even number of walkers >= 2 d = {} (got {})",
                    2 * dimension, chains));
  if (draws < 1) throw parameter_error("draws", "draws must be >= 1");
  if (thin < 1) throw parameter_error("thin", "thin must be >= 1");
  if (!(stretch_a > 1.0) || !std::isfinite(stretch_a))
    throw parameter_error("stretch_a", fmt::format("stretch_a must be finite and > 1 (got {})",
                                                   format_value(stretch_a)));
  if (!(dr_scale > 0.0 && dr_scale <= 1.0))
    throw parameter_error(
        "dr_scale", fmt::format("dr_scale must be in (0, 1] (got {})", format_value(dr_scale)));
  if (adapt_interval < 1) throw parameter_error("adapt_interval", "adapt_interval must be >= 1");
  if (initial_covariance.size() != 0) {
    const auto d = static_cast<Eigen::Index>(dimension);
    if (initial_covariance.rows() != d || initial_covariance.cols() != d)
      throw parameter_error("initial_covariance",
                            fmt::format("initial_covariance must be {0} x {0} (got {1} x {2})", d,
                                        initial_covariance.rows(), initial_covariance.cols()));
    if (!initial_covariance.allFinite() ||
        (initial_covariance - initial_covariance.transpose()).cwiseAbs().maxCoeff() >
            1e-12 * initial_covariance.cwiseAbs().maxCoeff())
      throw parameter_error("initial_covariance",
                            "initial_covariance must be finite and symmetric");
    if (initial_covariance.llt().info() != Eigen::Success)
      throw parameter_error("initial_covariance", "initial_covariance must be positive definite");
  }
}

mcmc_result run_mcmc(const batch_log_density& log_density, const Eigen::MatrixXd& starts,
                     const mcmc_options& options) {
  options.validate(static_cast<std::size_t>(starts.cols()));
  if (static_cast<std::size_t>(starts.rows()) != options.chains)
    throw parameter_error(
        "start", fmt::format("{} starts given for {} chains", starts.rows(), options.chains));
  if (!log_density) throw parameter_error("log_density", "no log density given");
  for (Eigen::Index c = 0; c < starts.rows(); ++c)
    if (!starts.row(c).allFinite())
      throw parameter_error("start", fmt::format("the start of chain {} is not finite", c));
  if (options.sampler == mcmc_sampler::stretch) {
    // Every stretch move stays in the affine hull of the walkers, so starts that span fewer
    // than d dimensions can never reach the rest of the space (emcee checks the same).
    const Eigen::MatrixXd centred = starts.rowwise() - starts.colwise().mean();
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(centred);
    qr.setThreshold(1e-10);
    if (qr.rank() < starts.cols())
      throw parameter_error(
          "start", fmt::format("the stretch move cannot leave the affine hull of its starting "
                               "walkers, and the {} starts span only {} of {} dimensions: "
                               "disperse them in every parameter",
                               starts.rows(), qr.rank(), starts.cols()));
  }
  evaluator eval{log_density};
  Eigen::VectorXd lp0(starts.rows());
  {
    lp0.setZero();
    log_density(starts, lp0);
    eval.evaluations += static_cast<std::size_t>(starts.rows());
    if (lp0.size() != starts.rows())
      throw std::runtime_error("mcmc: the log density returned the wrong number of values");
    for (Eigen::Index c = 0; c < starts.rows(); ++c)
      if (!std::isfinite(lp0(c)))
        throw parameter_error(
            "start", fmt::format("the log density at the start of chain {} is {} (must be finite: "
                                 "start inside the support of the prior and the likelihood)",
                                 c, format_value(lp0(c))));
  }
  recorder rec(static_cast<std::size_t>(starts.rows()), static_cast<std::size_t>(starts.cols()),
               options);
  rec.state.positions = starts;
  rec.state.log_density = lp0;
  rec.state.evaluations = eval.evaluations;
  if (options.sampler == mcmc_sampler::dram) {
    rec.state.covariance = options.initial_covariance;
    if (rec.state.covariance.size() == 0) {
      const Eigen::VectorXd scale = starts.cwiseAbs().colwise().mean().transpose().array() + 1.0;
      rec.state.covariance = (0.01 * scale.array().square()).matrix().asDiagonal();
    }
  }
  return options.sampler == mcmc_sampler::dram ? run_dram(eval, rec, options)
                                               : run_stretch(eval, rec, options);
}

mcmc_result resume_mcmc(const batch_log_density& log_density, mcmc_result partial,
                        const mcmc_state& state, const mcmc_options& options) {
  const auto d = static_cast<std::size_t>(state.positions.cols());
  options.validate(d);
  if (!log_density) throw parameter_error("log_density", "no log density given");
  const std::size_t chains = options.chains;
  const auto same_shape = [&](const auto& v, std::size_t rows, std::size_t cols) {
    if (v.size() != chains) return false;
    for (const auto& m : v)
      if (static_cast<std::size_t>(m.rows()) != rows || static_cast<std::size_t>(m.cols()) != cols)
        return false;
    return true;
  };
  const bool dram = options.sampler == mcmc_sampler::dram;
  const bool fits = static_cast<std::size_t>(state.positions.rows()) == chains &&
                    static_cast<std::size_t>(state.log_density.size()) == chains &&
                    state.accepted.size() == chains && state.accepted_warmup.size() == chains &&
                    state.accepted_second.size() == chains &&
                    state.step <= options.warmup + options.draws * options.thin &&
                    same_shape(partial.draws, options.draws, d) &&
                    same_shape(partial.log_density, options.draws, 1) &&
                    same_shape(partial.warmup_draws, options.warmup, d) &&
                    same_shape(partial.warmup_log_density, options.warmup, 1) &&
                    (!dram || (static_cast<std::size_t>(state.covariance.rows()) == d &&
                               static_cast<std::size_t>(state.covariance.cols()) == d));
  if (!fits)
    throw parameter_error("resume",
                          "the saved MCMC state does not fit these options (chains, "
                          "warm-up, draws, thin or dimension changed)");
  evaluator eval{log_density};
  eval.evaluations = state.evaluations;
  recorder rec(chains, d, options);
  rec.result = std::move(partial);
  rec.state = state;
  return dram ? run_dram(eval, rec, options) : run_stretch(eval, rec, options);
}

}  // namespace contactuq::uq
