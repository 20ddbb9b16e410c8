// Honesty of the polynomial chaos error estimate on Ishigami (a = 7, b = 0.1, U(-pi, pi)^3), the
// anchor case of design/reliability-surrogates-bayes-anchors.md (OpenTURNS 1.20: LOO after LARS
// 3.0e-3 reported against 0.21 on a test set at N = 50). For each training size and each of
// `runs` Latin hypercubes, a hybrid-LARS PCE with the degree chosen by corrected LOO
// (uq/pce.hpp), its corrected LOO error (post-selection) and 1 - Q^2 on a 10^4-point Monte Carlo
// test set. bench/run_pce.sh runs it next to OpenTURNS' FunctionalChaosAlgorithm.
//
//   pce_bench [runs=10] [max_degree=10] [N ...=50 500]
//
// Prints one line per N (medians over the runs, geometric mean of LOO / test, Sobol errors)
// and RATIO pce_loo_over_test <geometric mean of LOO / test at the first N>.
#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <vector>

#include "contactuq/uq/design.hpp"
#include "contactuq/uq/pce.hpp"

namespace {

Eigen::VectorXd ishigami(const Eigen::MatrixXd& x) {
  Eigen::VectorXd y(x.rows());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double s2 = std::sin(x(r, 1));
    y(r) = std::sin(x(r, 0)) + 7.0 * s2 * s2 + 0.1 * std::pow(x(r, 2), 4) * std::sin(x(r, 0));
  }
  return y;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace contactuq::uq;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  const unsigned max_degree = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 10u;
  std::vector<std::size_t> sizes;
  for (int a = 3; a < argc; ++a) sizes.push_back(std::strtoul(argv[a], nullptr, 10));
  if (sizes.empty()) sizes = {50, 500};

  constexpr double pi = std::numbers::pi;
  const std::vector<distribution> marginals(3, make_uniform(-pi, pi));
  const double v = 49.0 / 8.0 + 0.1 * std::pow(pi, 4) / 5.0 + 0.01 * std::pow(pi, 8) / 18.0 + 0.5;
  const double v1 = 0.5 * std::pow(1.0 + 0.1 * std::pow(pi, 4) / 5.0, 2),
               v13 = 0.01 * std::pow(pi, 8) * (8.0 / 225.0);
  const Eigen::Vector3d first(v1 / v, 49.0 / 8.0 / v, 0.0),
      total((v1 + v13) / v, 49.0 / 8.0 / v, v13 / v);
  const Eigen::MatrixXd x_test = map_to_inputs(
      unit_design(10000, 3, {.kind = design_kind::monte_carlo, .seed = 12345}), marginals);
  const Eigen::VectorXd y_test = ishigami(x_test);
  const double var_test =
      (y_test.array() - y_test.mean()).square().sum() / static_cast<double>(y_test.size() - 1);

  double first_ratio = 0.0;
  for (const std::size_t n : sizes) {
    std::vector<double> loo, test, sobol_error;
    double log_ratio = 0.0;
    for (int s = 0; s < runs; ++s) {
      const Eigen::MatrixXd x =
          map_to_inputs(unit_design(n, 3, {.seed = static_cast<std::uint64_t>(s + 1)}), marginals);
      const pce_fit fit = fit_pce(marginals, x, ishigami(x), {.max_degree = max_degree});
      const double e = (fit.chaos.evaluate(x_test) - y_test).squaredNorm() /
                       static_cast<double>(y_test.size()) / var_test;
      loo.push_back(fit.corrected_loo_error);
      test.push_back(e);
      log_ratio += std::log(fit.corrected_loo_error / e);
      sobol_error.push_back(
          std::max((fit.chaos.first_order_indices() - first).cwiseAbs().maxCoeff(),
                   (fit.chaos.total_order_indices() - total).cwiseAbs().maxCoeff()));
    }
    const double ratio = std::exp(log_ratio / runs);
    if (n == sizes.front()) first_ratio = ratio;
    fmt::print(
        "contactuq N={} runs={} median_loo={:.3e} median_test={:.3e} geomean_loo_over_test={:.3g} "
        "min_loo_over_test={:.3g} median_sobol_error={:.2e}\n",
        n, runs, median(loo), median(test), ratio,
        [&] {
          double m = 1e300;
          for (std::size_t i = 0; i < loo.size(); ++i) m = std::min(m, loo[i] / test[i]);
          return m;
        }(),
        median(sobol_error));
  }
  fmt::print("RATIO pce_loo_over_test {:.3g}\n", first_ratio);
}
