// Coverage and honesty of subset simulation's reported CoV over many independent runs on the
// linear limit state g = beta sqrt(n) - sum u_i (Pf = Phi(-beta)), the anchor case of
// design/reliability-surrogates-bayes-anchors.md (OpenTURNS 1.20: real CoV 0.43, mean reported
// 0.26, coverage 88 % at 2,000 samples per level). bench/run_reliability_coverage.sh runs it
// next to OpenTURNS' SubsetSampling.
//
//   reliability_coverage_bench [runs=200] [samples_per_level=2000] [beta=5] [n=10]
//
// Prints one line of numbers (runs, calls per run, mean, truth, observed CoV, mean reported
// CoV, coverage) and RATIO subset_coverage <fraction of 95 % intervals holding the truth>.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "contactuq/uq/reliability.hpp"

int main(int argc, char** argv) {
  using namespace contactuq::uq;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::size_t per_level = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 2000;
  const double beta = argc > 3 ? std::atof(argv[3]) : 5.0;
  const std::size_t n = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 10;
  const double truth = 0.5 * std::erfc(beta / std::sqrt(2.0));
  const limit_state g = [beta](const Eigen::MatrixXd& u) -> Eigen::VectorXd {
    return (beta * std::sqrt(static_cast<double>(u.cols())) - u.rowwise().sum().array()).matrix();
  };
  std::vector<double> estimate;
  double reported = 0.0, calls = 0.0;
  int covered = 0, lost = 0;
  for (int s = 0; s < runs; ++s) {
    const subset_options o{.samples_per_level = per_level, .seed = static_cast<std::uint64_t>(s + 1)};
    const probability_estimate p = run_subset(g, n, o).probability;
    calls += static_cast<double>(p.model_calls) / runs;
    if (!std::isfinite(p.estimate)) {
      ++lost;
      continue;
    }
    estimate.push_back(p.estimate);
    reported += p.cov;
    covered += (p.ci_low <= truth && truth <= p.ci_high) ? 1 : 0;
  }
  const auto m = static_cast<double>(estimate.size());
  double mean = 0.0, var = 0.0;
  for (double e : estimate) mean += e / m;
  for (double e : estimate) var += (e - mean) * (e - mean) / (m - 1.0);
  fmt::print("ours runs={} lost={} calls_per_run={:.0f} mean={:.4e} truth={:.4e} observed_cov={:.3f} "
             "mean_reported_cov={:.3f} coverage={:.3f}\n",
             runs, lost, calls, mean, truth, std::sqrt(var) / mean, reported / m, covered / m);
  fmt::print("RATIO subset_coverage {:.3f}\n", covered / static_cast<double>(runs));
  return 0;
}
