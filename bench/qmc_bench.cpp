// Samples each design needs for the same confidence-interval width on the quickstart's outputs
// (studies/quickstart.toml, correlation included), for docs/sampling.md and `make bench`:
// every design is run REPS times with independent seeds at N samples, and the variance of its
// estimate of the mean and of the 95th percentile over those runs is compared. At equal N,
//   samples design A needs / samples design B needs = Var_A(N) / Var_B(N)
// when A's variance falls as 1/N (exact for Monte Carlo, the asymptotic rate of Latin
// hypercubes on non-additive models); RQMC falls faster, so the ratio at N is a lower bound for
// larger N.
//   qmc_bench STUDY.toml [N = 1024] [REPS = 24] [OUTPUT = peak_insertion] [NAME = qmc_sample_gain]
// prints a table, then "RATIO NAME <Var_LHS / Var_Sobol of the mean>".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/uq/statistics.hpp"

using namespace contactuq;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("qmc_bench: the study has no '" + from + "'");
  return text.replace(at, from.size(), to);
}

double variance(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m += v;
  m /= static_cast<double>(x.size());
  double ss = 0.0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: {} STUDY.toml [N] [REPS] [OUTPUT] [RATIO NAME]\n", argv[0]);
    return 2;
  }
  const std::size_t n = argc > 2 ? std::stoul(argv[2]) : 1024;
  const int reps = argc > 3 ? std::stoi(argv[3]) : 24;
  const std::string output = argc > 4 ? argv[4] : "peak_insertion";
  const std::string ratio_name = argc > 5 ? argv[5] : "qmc_sample_gain";
  std::ifstream in(argv[1]);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  model::register_builtin_models();

  struct row {
    std::string design;
    double var_mean, var_p95, mean, p95;
  };
  std::vector<row> rows;
  for (const std::string design : {"monte_carlo", "latin_hypercube", "sobol", "halton"}) {
    std::vector<double> means, p95s;
    for (int r = 0; r < reps; ++r) {
      std::string t = replaced(text, "design = \"latin_hypercube\"",
                               fmt::format("design = \"{}\"{}", design,
                                           design == "sobol" || design == "halton" ? "\nreplicates = 1" : ""));
      t = replaced(t, "samples = 1000", fmt::format("samples = {}", n));
      t = replaced(t, "seed = 2026", fmt::format("seed = {}", 1000 + r));
      const study::ensemble_study s = study::read_ensemble_study(io::study_document::parse(t, argv[1]));
      study::memory_sink sink;
      study::run_ensemble(s, study::sample_inputs(s), sink);
      const auto names = s.model.output_names();
      const auto j = static_cast<std::size_t>(std::find(names.begin(), names.end(), output) - names.begin());
      if (j == names.size()) throw std::runtime_error("qmc_bench: the model has no output " + output);
      const auto col = sink.samples().outputs.col(static_cast<Eigen::Index>(j));
      const std::vector<double> y(col.begin(), col.end());
      uq::summary_options o;
      o.bootstrap_resamples = 0;
      o.probabilities = {0.95};
      const uq::summary sum = uq::summarize(y, o);
      means.push_back(sum.mean);
      p95s.push_back(sum.quantiles[0].value);
    }
    rows.push_back({design, variance(means), variance(p95s), means.front(), p95s.front()});
  }
  fmt::print("{} of {}: N = {} samples per estimate, {} independent seeds per design\n", output, argv[1], n, reps);
  fmt::print("{:<16} {:>12} {:>12} {:>14} {:>14}\n", "design", "sd(mean)", "sd(p95)", "MC N / N (mean)",
             "MC N / N (p95)");
  for (const row& r : rows)
    fmt::print("{:<16} {:>12.4g} {:>12.4g} {:>14.1f} {:>14.1f}\n", r.design, std::sqrt(r.var_mean),
               std::sqrt(r.var_p95), rows[0].var_mean / r.var_mean, rows[0].var_p95 / r.var_p95);
  fmt::print("samples LHS needs / samples scrambled Sobol' needs: mean {:.2f}, p95 {:.2f}\n",
             rows[1].var_mean / rows[2].var_mean, rows[1].var_p95 / rows[2].var_p95);
  fmt::print("RATIO {} {:.3f}\n", ratio_name, rows[1].var_mean / rows[2].var_mean);
  return 0;
}
