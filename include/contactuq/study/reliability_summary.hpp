#pragma once
// Everything `contactuq summarize` reports of a reliability file (format "contactuq-reliability",
// docs/hdf5-schema.md), read once here: the command's text (to_text) and its `--json` (to_json)
// and Python's contactuq.analyze() all print this summary, so they show the same numbers.
//   - P(failure) with its 95 % interval, CoV, beta = -Phi^-1(P), model calls, resolved/note;
//   - FORM: the design point per input (u*, x* in display units), alpha and alpha^2;
//   - SORM: the main curvatures and the Breitung, Hohenbichler and Tvedt formulas;
//   - subset simulation: per replicate and level, the conditional p_i and the running product
//     P up to that level with its lognormal interval and the model calls so far;
//   - values in the study's [output] units unless `si`.

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace contactuq::study {

// One input at FORM's design point u* (standard normal space) and x* (the input's value).
struct design_point_row {
  std::string input;
  std::string unit;         ///< of x; "" for dimensionless
  double u = NAN;           ///< u*_i; NaN where the file has none
  double x = NAN;           ///< x*_i in `unit`; NaN where the search did not converge
  double alpha = NAN;       ///< -grad g / |grad g| in u-space; > 0: a larger value fails sooner
  double importance = NAN;  ///< alpha_i^2; they sum to 1
};

struct form_summary {
  bool converged = false;
  std::string message, search;  ///< why it did not converge; "ihlrf" or "slsqp"
  double beta = NAN;            ///< |u*|
  double probability = NAN;     ///< Phi(-beta); NaN unless converged
  double g_at_design = NAN, g_at_origin = NAN;
  std::size_t iterations = 0;
  std::size_t other_design_points = 0;  ///< found by other starts
  // Per input in the file's order (the JSON's); by_importance() gives the text's order. Rows
  // for the inputs that have an alpha.
  std::vector<design_point_row> design_point;
  bool complete = false;  ///< u* and alpha for every input: the text shows the table

  // Row indices by alpha_i^2, largest first (ties in input order).
  std::vector<std::size_t> by_importance() const;
};

struct sorm_summary {
  std::vector<double> curvatures;                          ///< the d - 1 main curvatures at u*
  double breitung = NAN, hohenbichler = NAN, tvedt = NAN;  ///< P(failure) by each formula
};

// One level i of a subset run, with what the levels up to it give.
struct subset_level {
  double threshold = NAN;    ///< b_i of the margin, in the output's display unit
  double probability = NAN;  ///< conditional p_i
  double samples = NAN;      ///< N_i
  double acceptance = NAN, gamma = NAN,
         cov = NAN;                  ///< MCMC acceptance, correlation factor, delta_i
  double running_probability = NAN;  ///< P_i = p_0 p_1 ... p_i
  // Lognormal 95 % interval of P_i from s = sqrt(log(1 + sum delta_j^2)): P_i exp(-+1.96 s).
  double running_low = NAN, running_high = NAN;
  // Model calls up to level i: N_0, then N_j less the round(p_{j-1} N_{j-1}) seeds, which were
  // evaluated on the level before.
  double model_calls = NAN;
};

struct subset_run_summary {
  bool reached_failure = true;  ///< false: the product is an upper bound
  std::vector<subset_level> levels;
};

struct subset_summary {
  std::size_t samples_per_level = 0;
  double p0 = NAN;
  std::vector<double> run_estimates, run_cov;  ///< per replicate
  std::vector<subset_run_summary> runs;
};

struct reliability_summary {
  std::string file;  ///< as given
  std::string model, title;
  std::string algorithm;                 ///< form, sorm, importance, subset or monte_carlo
  std::string output;                    ///< the limited output
  std::string output_unit;               ///< its display unit: of the subset thresholds
  std::string event;                     ///< e.g. "g < 0 N"
  std::vector<std::string> inputs;       ///< the aleatoric inputs
  std::vector<std::string> input_units;  ///< their display units ("" dimensionless or unknown)
  double probability = NAN;              ///< NaN where the algorithm gives none
  double ci_low = NAN, ci_high = NAN;    ///< the algorithm's 95 % interval
  double cov = NAN;
  std::string interval;  ///< how the interval was made
  double beta = NAN;     ///< -Phi^-1(probability)
  std::size_t model_calls = 0, failed_calls = 0;
  bool resolved = true;  ///< false: the estimate is not a probability to report
  std::string note;
  std::size_t seed = 0;
  std::optional<double>
      effective_sample_size;  ///< importance sampling; failed samples for monte_carlo
  std::optional<form_summary> form;
  std::optional<sorm_summary> sorm;
  std::optional<subset_summary> subset;
};

// The summary of the reliability file `file`; values in its study's [output] units, or SI with
// `si`. Throws std::runtime_error for a file that cannot be read or has no /reliability group.
reliability_summary summarize_reliability(const std::filesystem::path& file, bool si = false);

// As `contactuq summarize` prints it: the estimate first, then what each algorithm found.
std::string to_text(const reliability_summary& s);

// As `contactuq summarize --json` prints it (docs/cli.md): {"file", "format", "method", "model",
// "title", "reliability": {...}}. Values that are not finite are null.
std::string to_json(const reliability_summary& s);

}  // namespace contactuq::study
