// Coverage and honesty of subset simulation's reported CoV over many independent runs on the
// linear limit state g = beta sqrt(n) - sum u_i (Pf = Phi(-beta)), the anchor case of
// design/reliability-surrogates-bayes-anchors.md (OpenTURNS 1.20: real CoV 0.43, mean reported
// 0.26, coverage 88 % at 2,000 samples per level). bench/run_reliability_coverage.sh runs it
// next to OpenTURNS' SubsetSampling.
//
//   reliability_coverage_bench [runs=200] [samples_per_level=2000] [beta=5] [n=10] [levels]
//
// Prints one line of numbers (runs, calls per run, mean, truth, bias = mean / truth - 1 with
// its standard error, observed CoV, mean reported CoV, coverage, the fractions of runs whose
// interval lies wholly below / above the truth, and the fraction of estimates below the truth)
// and RATIO subset_coverage <fraction of 95 % intervals holding the truth>. With `levels`, also
// per level (over the runs with the most common number of levels): the sd of each level's error of ln P (d_i below) next to the mean
// reported delta_i and gamma_i, the correlation matrix of the d_i, and the range over the runs
// of the reported cov^2 over sum delta_i^2.
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>
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
  const bool per_level_report = argc > 5 && std::string(argv[5]) == "levels";
  std::vector<double> estimate;
  std::map<std::size_t, std::vector<std::vector<subset_level>>> by_depth;
  double reported = 0.0, calls = 0.0, least = INFINITY, most = 0.0;
  int covered = 0, lost = 0, high = 0, low = 0, below = 0;
  for (int s = 0; s < runs; ++s) {
    const subset_options o{.samples_per_level = per_level, .seed = static_cast<std::uint64_t>(s + 1)};
    subset_result r = run_subset(g, n, o);
    const probability_estimate p = r.probability;
    if (per_level_report && r.runs[0].reached_failure) {
      double diagonal = 0.0;
      for (const subset_level& l : r.runs[0].levels) diagonal += l.cov * l.cov;
      least = std::min(least, p.cov * p.cov / diagonal);
      most = std::max(most, p.cov * p.cov / diagonal);
    }
    if (per_level_report && r.runs[0].reached_failure)
      by_depth[r.runs[0].levels.size()].push_back(std::move(r.runs[0].levels));
    calls += static_cast<double>(p.model_calls) / runs;
    if (!std::isfinite(p.estimate)) {
      ++lost;
      continue;
    }
    estimate.push_back(p.estimate);
    reported += p.cov;
    covered += (p.ci_low <= truth && truth <= p.ci_high) ? 1 : 0;
    low += p.ci_high < truth ? 1 : 0;
    below += p.estimate < truth ? 1 : 0;
    high += p.ci_low > truth ? 1 : 0;
  }
  const auto m = static_cast<double>(estimate.size());
  double mean = 0.0, var = 0.0;
  for (double e : estimate) mean += e / m;
  for (double e : estimate) var += (e - mean) * (e - mean) / (m - 1.0);
  const double observed = std::sqrt(var) / mean;
  fmt::print("ours runs={} lost={} calls_per_run={:.0f} mean={:.4e} truth={:.4e} bias={:+.3f} "
             "bias_se={:.3f} observed_cov={:.3f} mean_reported_cov={:.3f} coverage={:.3f} "
             "missed_low={:.3f} missed_high={:.3f} below_truth={:.3f}\n",
             runs, lost, calls, mean, truth, mean / truth - 1.0, observed * mean / truth / std::sqrt(m),
             observed, reported / m, covered / m, low / m, high / m, below / m);
  if (per_level_report && !by_depth.empty()) {
    const auto& [depth, sets] = *std::max_element(
        by_depth.begin(), by_depth.end(),
        [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
    // The error of level i: d_i = e_i - e_{i-1} with e_i = ln(p_0 ... p_i / P(g <= b_i)), the
    // partial product against the exact probability of its own threshold,
    // P(g <= b) = Phi(-(beta - b / sqrt(n))) (e_{-1} = 0). The sum of the d_i is the run's
    // log error; their correlations are what delta^2 = sum delta_i^2 leaves out.
    const auto k = static_cast<double>(sets.size());
    const auto exact = [&](double b) {
      return 0.5 * std::erfc((beta - b / std::sqrt(static_cast<double>(n))) / std::sqrt(2.0));
    };
    std::vector<std::vector<double>> d(sets.size(), std::vector<double>(depth));
    for (std::size_t r = 0; r < sets.size(); ++r) {
      double log_product = 0.0, before = 0.0;
      for (std::size_t i = 0; i < depth; ++i) {
        log_product += std::log(sets[r][i].probability);
        const double e = log_product - std::log(exact(sets[r][i].threshold));
        d[r][i] = e - before;
        before = e;
      }
    }
    std::vector<double> mlog(depth, 0.0);
    for (const auto& row : d)
      for (std::size_t i = 0; i < depth; ++i) mlog[i] += row[i] / k;
    std::vector<std::vector<double>> c(depth, std::vector<double>(depth, 0.0));
    for (const auto& row : d)
      for (std::size_t i = 0; i < depth; ++i)
        for (std::size_t j = 0; j < depth; ++j)
          c[i][j] += (row[i] - mlog[i]) * (row[j] - mlog[j]) / (k - 1.0);
    fmt::print("levels={} runs_with_that_many={}\n", depth, sets.size());
    double total = 0.0, diagonal = 0.0, reported_var = 0.0;
    for (std::size_t i = 0; i < depth; ++i) {
      double cov = 0.0, gamma = 0.0, p = 0.0;
      for (const auto& levels : sets) {
        cov += levels[i].cov / k;
        gamma += levels[i].gamma / k;
        p += levels[i].probability / k;
        reported_var += levels[i].cov * levels[i].cov / k;
      }
      fmt::print("level {} mean_p={:.4f} mean_d={:+.4f} sd_d={:.3f} mean_reported_cov={:.3f} "
                 "mean_gamma={:.2f} corr",
                 i, p, mlog[i], std::sqrt(c[i][i]), cov, gamma);
      for (std::size_t j = 0; j < depth; ++j) {
        fmt::print(" {:+.2f}", c[i][j] / std::sqrt(c[i][i] * c[j][j]));
        total += c[i][j];
      }
      diagonal += c[i][i];
      fmt::print("\n");
    }
    fmt::print("var_ln_error={:.4f} of_it_diagonal={:.4f} mean_reported_sum_delta2={:.4f} "
               "reported_cov2_over_sum_delta2_range=[{:.2f}, {:.2f}]\n",
               total, diagonal, reported_var, least, most);
  }  fmt::print("RATIO subset_coverage {:.3f}\n", covered / static_cast<double>(runs));
  return 0;
}
