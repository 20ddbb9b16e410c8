#pragma once
// Bayesian calibration studies (`method = "bayesian"`, docs/bayesian.md): the calibrate
// method's model, [parameters] and [data], with priors instead of bounds, an optional
// population per input (part-to-part scatter) and a likelihood:
//
//   [parameters.<input>]  role = "calibrated", prior = { distribution = "<kind>", ... },
//                         optional start, low, high (truncate the prior; both within its support)
//                           kinds: normal {mean, sd}, lognormal {median, sigma_log} or {mean, sd},
//                           uniform {low, high}, truncated_normal {mean, sd, low, high},
//                           half_normal {scale}, half_cauchy {scale} (on [0, inf))
//                         population = "normal" | "lognormal": one value per part, drawn from the
//                           population; location_prior (its mean, or median for lognormal) and
//                           scale_prior (its sd, or sigma_log for lognormal, dimensionless)
//                           replace `prior`; parameterisation = "noncentred" (default) | "centred"
//                         role = "fixed", value
//   [data]                tables = [...], [[data.curves]] as calibrate reads them; a "part" column
//                         (tables) or the curve's label names the physical part of each case
//   [bayesian]            sampler = "dram" | "stretch", chains, warmup, draws, seed,
//                         likelihood = "gaussian" | "student_t", dof, predictive_draws, start_spread
//   [bayesian.noise]      <output or curve> = "<quantity>": known noise sd, or
//                         { prior = { distribution = "half_normal", scale = "..." } }: inferred
//   [output] units = { <name> = "<unit>" }
//
// The sampler moves in unconstrained coordinates (log or logit of a bounded value, Stan's
// convention); draws are stored as the physical values, named as ArviZ expects: <input>,
// <input>_loc, <input>_scale, <input>[<part>], sigma_<output>.

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/calibrate/calibration.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/uq/distribution.hpp"

namespace contactuq::calibrate {

enum class prior_kind { normal, lognormal, uniform, truncated_normal, half_normal, half_cauchy };

struct prior {
  prior_kind kind = prior_kind::normal;
  std::optional<uq::distribution> law;  ///< the kinds uq::distribution has
  double scale = 0.0;                   ///< half_normal, half_cauchy [SI]
  double low = -std::numeric_limits<double>::infinity();  ///< support, with the study's bounds
  double high = std::numeric_limits<double>::infinity();
  std::string text;  ///< as written in the study
  // Log density up to a constant; -inf outside [low, high].
  double log_density(double x) const;
  // A central value (the median of the untruncated law), clamped into the support.
  double median() const;
  // A typical spread (sd, or the scale of a half law); used to disperse chain starts.
  double spread() const;
};

// Reads `key = { distribution = "<kind>", <parameters with units of dim> }` of t; every error
// names the file, line and key and lists what is allowed.
prior read_prior(const io::study_table& t, std::string_view key, units::dimension dim);

enum class population_kind { none, normal, lognormal };
enum class likelihood_kind { gaussian, student_t };

struct bayes_input {
  std::string name;
  std::size_t input = 0;  ///< model input index
  units::dimension dim{};
  std::string unit;
  prior value_prior = {};  ///< population none
  double start = 0.0;
  population_kind population = population_kind::none;
  prior location_prior = {}, scale_prior = {};
  bool centred = false;
};

// The noise of one measured output or curve: known sd, or inferred with a prior.
struct noise_term {
  std::string name;
  bool curve = false;
  std::size_t index = 0;  ///< output or curve index
  units::dimension dim{};
  double sd = 0.0;        ///< known [SI]; 0 when inferred
  std::optional<prior> sd_prior;
};

struct bayesian_options {
  std::string sampler = "dram";
  std::size_t chains = 4, warmup = 1000, draws = 1000;
  std::uint64_t seed = 1;
  likelihood_kind likelihood = likelihood_kind::gaussian;
  double dof = 4.0;  ///< student_t
  std::size_t predictive_draws = 200;  ///< posterior draws the predictive summary simulates
  // Chain starts dispersed by this times spread() about the study's start, and the first
  // proposal sd 0.2 times that: below 1 where the data pin the values down far more tightly
  // than the priors (a start far out in a sharp likelihood takes long to come back).
  double start_spread = 1.0;
};

struct bayesian_study {
  std::string title;
  model::model model;
  std::vector<double> inputs;  ///< every model input [SI]: fixed values, calibrated starts
  std::vector<bayes_input> calibrated;  ///< in the key order of [parameters]
  std::vector<measured_case> cases;
  std::vector<std::string> parts;        ///< distinct part labels, first seen first
  std::vector<std::size_t> case_part;    ///< per case, index into parts
  std::vector<noise_term> noise;         ///< per measured output and curve
  bayesian_options options;
  std::string data_hash;                 ///< FNV-1a 64 of the data files' bytes, hex
  std::map<std::string, std::string> units;
  std::vector<std::string> warnings;     ///< e.g. too few parts for a population scale
  std::vector<std::string> prior_texts;  ///< "<name>: <key> = <as written>"
  bool has_population() const;
};

// Reads the study and its data (models must be registered first).
bayesian_study read_bayesian_study(const io::study_document& doc);

// A named parameter of the posterior (physical value).
struct posterior_parameter {
  std::string name, unit, kind;  ///< kind: value, location, scale, part, noise
  units::dimension dim{};
  std::string input;             ///< the model input (empty for noise)
  std::string population = {};   ///< its population's law (normal, lognormal); empty: none
};

// The log posterior over the sampler's coordinates z (unconstrained), evaluated in batches:
// every row needs the model at every case; rows x cases run in parallel on TBB threads.
class bayesian_posterior {
 public:
  bayesian_posterior(const bayesian_study& s, std::size_t threads);

  std::size_t dimension() const { return params_.size(); }
  const std::vector<posterior_parameter>& parameters() const { return params_; }

  // Physical values of the named parameters at z.
  Eigen::VectorXd physical(const Eigen::VectorXd& z) const;
  // Log prior at z, with the log-Jacobian of the coordinate transforms.
  double log_prior(const Eigen::VectorXd& z) const;
  // Log posterior per row of Z (-inf outside the support or where the model fails); the log
  // likelihoods too when asked.
  void log_density(const Eigen::MatrixXd& Z, Eigen::VectorXd& out, Eigen::VectorXd* log_likelihood = nullptr) const;
  // The model's values at every measured point of every case (cases in order, as
  // case_values), at physical parameters x. Counts as model calls.
  std::vector<std::vector<double>> predictions(const Eigen::VectorXd& x) const;
  // The noise sd of each case value (case by case) at physical parameters x.
  std::vector<std::vector<double>> noise_sd(const Eigen::VectorXd& x) const;
  // Starts of `chains` chains: chain 0 at the study's starts, the others dispersed about them.
  Eigen::MatrixXd starts(std::size_t chains, std::uint64_t seed, double factor = 1.0) const;
  Eigen::VectorXd start() const;  ///< the study's start in coordinates
  // A typical scale of each coordinate a priori: how far starts are dispersed, and (a fifth of
  // it) the sampler's first proposal sd.
  Eigen::VectorXd spread() const;

  std::size_t model_calls() const { return calls_.load(); }

 private:
  struct transform {
    double low = -std::numeric_limits<double>::infinity(), high = std::numeric_limits<double>::infinity();
    double value(double z) const;
    double log_jacobian(double z) const;
    double inverse(double x) const;
  };
  struct coordinate {
    transform t = {};        ///< coordinate -> sampled value
    const prior* p = nullptr;  ///< its prior, or none (a part: its population)
    std::size_t calibrated = 0;  ///< index into study.calibrated (noise: into study.noise)
    std::size_t part = 0;
  };
  // Model inputs of case c at physical x.
  std::vector<double> case_inputs(const Eigen::VectorXd& x, std::size_t c) const;
  double case_log_likelihood(const Eigen::VectorXd& x, std::size_t c) const;

  const bayesian_study& s_;
  std::size_t threads_;
  std::vector<posterior_parameter> params_;
  std::vector<coordinate> coords_;
  // Per calibrated input: its coordinate (no population), or loc, scale and the first part.
  std::vector<std::size_t> first_;
  std::vector<std::size_t> noise_coord_;  ///< per noise term: coordinate or npos (known)
  Eigen::VectorXd start_;
  mutable std::atomic<std::size_t> calls_{0};
};

}  // namespace contactuq::calibrate
