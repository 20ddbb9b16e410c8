#pragma once
// Analytic models with known robust optima, registered for the opt tests.
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "contactuq/error.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/model/registry.hpp"

namespace opt_test {

using contactuq::model::evaluation;
using contactuq::model::variable;
namespace u = contactuq::units;

// Inputs x1, x2 (design), xi (aleatoric, standard normal in the studies). Outputs:
//   y = (x1 - 2)^2 + (x2 - 1)^2 + xi (x1 + x2) / 2   nominal optimum (2, 1); mean + kappa sd
//       optimum (for x1 + x2 > 0) x1 = 2 - (m + kappa s)/4, x2 = 1 - (m + kappa s)/4 with m, s
//       the sample mean and sd of xi
//   g = x1 + xi                                        for chance constraints P(g > limit)
//   h = x1^2 + x2^2 + 1 + 0.1 xi                       mean(h) >= 1 + 0.1 m everywhere
//   a = x1^2 + x2^2,  b = (x1 - 2)^2 + x2^2            two objectives; Pareto set x2 = 0,
//                                                      0 <= x1 <= 2: sqrt(a) + sqrt(b) = 2
// Throws model_error when x2 < -5 (outside every test's bounds but the failure test's).
struct robust_quadratic {
  std::vector<variable> inputs() const {
    return {{"x1", u::dimensionless, 0.0},
            {"x2", u::dimensionless, 0.0},
            {"xi", u::dimensionless, 0.0}};
  }
  std::vector<variable> outputs() const {
    return {{"y", u::dimensionless},
            {"g", u::dimensionless},
            {"h", u::dimensionless},
            {"a", u::dimensionless},
            {"b", u::dimensionless}};
  }
  bool thread_safe() const { return true; }
  evaluation evaluate(std::span<const double> x) const {
    const double x1 = x[0], x2 = x[1], xi = x[2];
    if (x2 < -5) throw contactuq::model_error("x2 < -5: no solution");
    return {{(x1 - 2) * (x1 - 2) + (x2 - 1) * (x2 - 1) + xi * (x1 + x2) / 2, x1 + xi,
             x1 * x1 + x2 * x2 + 1 + 0.1 * xi, x1 * x1 + x2 * x2, (x1 - 2) * (x1 - 2) + x2 * x2},
            {}};
  }
};

// Inputs x (design), xi (aleatoric); y = (x - c)^2 + xi. Optimum of mean(y): x = c.
struct shifted_parabola {
  double c = 0.0;
  std::vector<variable> inputs() const {
    return {{"x", u::dimensionless, 0.0}, {"xi", u::dimensionless, 0.0}};
  }
  std::vector<variable> outputs() const { return {{"y", u::dimensionless}}; }
  bool thread_safe() const { return true; }
  evaluation evaluate(std::span<const double> x) const {
    return {{(x[0] - c) * (x[0] - c) + x[1]}, {}};
  }
};

inline void register_models() {
  using namespace contactuq;
  if (!model::is_registered("test_robust_quadratic"))
    model::register_model("test_robust_quadratic", [](const io::study_table& t) {
      t.allow_only({"type"});
      return model::model(robust_quadratic{});
    });
  if (!model::is_registered("test_shifted_parabola"))
    model::register_model("test_shifted_parabola", [](const io::study_table& t) {
      t.allow_only({"type", "c"});
      return model::model(shifted_parabola{t.quantity("c", u::dimensionless)});
    });
}

// A study of robust_quadratic: x1 in [-1, 4] from 0, x2 in [-1, 3] from 0, xi standard normal
// on a Latin hypercube of `samples`; `optimization` is appended verbatim.
inline std::string quadratic_study(const std::string& optimization, int samples = 64) {
  return R"(title = "robust quadratic"
[model]
type = "test_robust_quadratic"
[parameters.x1]
role = "design"
low = -1
high = 4
value = 0
[parameters.x2]
role = "design"
low = -1
high = 3
value = 0
[parameters.xi]
role = "aleatoric"
distribution = "normal"
mean = 0
sd = 1
[sampling]
samples = )" +
         std::to_string(samples) +
         R"(
seed = 3
[optimization]
)" + optimization;
}

}  // namespace opt_test
