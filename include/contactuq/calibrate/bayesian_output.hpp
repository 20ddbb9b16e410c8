#pragma once
// The result of a bayesian calibration (docs/bayesian.md, docs/hdf5-schema.md): root attributes
// format = "contactuq-posterior", format_version = 1, method = "bayesian", and
//
//   /posterior    names, units, kinds, inputs (per parameter; ArviZ names <input>, <input>_loc,
//                 <input>_scale, <input>[<part>], sigma_<output>); draws: (chains * iterations)
//                 x parameters, chain-major, attribute shape = [chains, iterations, parameters],
//                 the first `warmup` iterations of each chain warm-up (warmup_mask 1); starts;
//                 log_posterior and log_likelihood: chains x draws (kept draws); acceptance and
//                 warmup_acceptance per chain
//   /priors       texts: each prior as the study wrote it
//   /diagnostics  names and per parameter: mean, sd, mcse_mean, mcse_sd, q025, q05, q50, q95,
//                 q975, rhat, ess_bulk, ess_tail (over the kept draws of all chains)
//   /predictive   per measured value: case, name, x (curve abscissa or NaN), measured, and the
//                 posterior predictive (model + noise) mean, q05, q50, q95, and p_below (the
//                 share of replicated values below the measured one)

#include <Eigen/Core>
#include <filesystem>
#include <string>
#include <vector>

#include "contactuq/calibrate/bayesian_study.hpp"

namespace contactuq::calibrate {

struct parameter_diagnostics {
  double mean = 0, sd = 0, mcse_mean = 0, mcse_sd = 0;
  double q025 = 0, q05 = 0, q50 = 0, q95 = 0, q975 = 0;
  double rhat = 0, ess_bulk = 0, ess_tail = 0;
};

struct predictive_value {
  std::size_t case_index = 0;
  std::string name;
  double x = 0, measured = 0, mean = 0, q05 = 0, q50 = 0, q95 = 0, p_below = 0;
};

struct posterior_run {
  std::vector<posterior_parameter> parameters;
  std::size_t warmup = 0, draws = 0;
  std::vector<Eigen::MatrixXd> warmup_draws, kept;  ///< per chain, physical values
  std::vector<Eigen::VectorXd> log_posterior, log_likelihood;  ///< per chain, per kept draw
  Eigen::MatrixXd starts;  ///< chains x parameters, physical
  std::vector<double> acceptance, warmup_acceptance;
  std::vector<parameter_diagnostics> diagnostics;
  std::vector<predictive_value> predictive;
  std::size_t model_calls = 0, evaluations = 0;
  double seconds = 0;
};

// Quantile (linear between order statistics, type 7) of unsorted values.
double sample_quantile(std::vector<double> v, double p);

void write_posterior_hdf5(const std::filesystem::path& path, const io::study_document& doc,
                          const bayesian_study& study, const posterior_run& run);

// The report after a run and `contactuq summarize`: the posterior of every parameter
// (median, 95 % interval, R-hat, bulk and tail ESS), each population's mean and sd, and in
// words what to do where R-hat > 1.01 or an ESS < 400.
std::string describe_posterior_file(const std::filesystem::path& path);
// The same as JSON: {format, ..., bayesian: {parameters: {name: {median, ci95, mean, sd, rhat,
// ess_bulk, ess_tail, mcse_mean}}, population: {input: {mean: {median, ci95}, sd: {median,
// ci95}}}}, warnings: [...]}, in SI.
std::string posterior_file_json(const std::filesystem::path& path);

}  // namespace contactuq::calibrate
