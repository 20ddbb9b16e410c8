#pragma once
// A surrogate built by `method = "surrogate"` (docs/surrogates.md), as its result file stores it
// (format "contactuq-surrogate") and as a model, type "surrogate":
//
//   [model]
//   type = "surrogate"
//   file = "pce.h5"        a contactuq-surrogate file (relative paths: from the study's folder)
//   extrapolate = false    true: accept inputs outside the training box
//
// The model's inputs and outputs are the original model's, named and with units as there. Each
// input's valid range is the training box: its marginal's support where that is bounded, else
// the range of the training points; an input outside it is refused (a failed sample, and a study
// whose distributions reach outside is refused when read) unless extrapolate = true, where an
// input with an affine map is unbounded and one through the transform keeps its marginal's
// support. The nominal value of each input is its marginal's mean.
//
// A PCE output is evaluated as the file stores it (uq/pce.hpp):
//   y(x) = sum_t c_t prod_i psi^(i)_{alpha_ti}(xi_i),  xi_i = (x_i - shift_i)/scale_i (affine),
//   or xi_i = Phi^-1(F_i(x_i)) (transform = "isoprobabilistic"),
//   sqrt(b_{n+1}) psi_{n+1} = (xi - a_n) psi_n - sqrt(b_n) psi_{n-1},  psi_0 = 1,
// with the recurrence coefficients a_n, b_n of each input's family stored beside it.
//
// A GP output (kind "gp", uq/gaussian_process.hpp) is conditioned again on the stored training
// points with the stored kernel, trend and hyperparameters (the same computation as when it was
// fitted, so the same values); the model then has, after the outputs, one output "<name>_sd" per
// output: the GP's predictive standard deviation at x, in the output's unit.

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contactuq/io/hdf5.hpp"
#include "contactuq/io/study_file.hpp"
#include "contactuq/model/model.hpp"
#include "contactuq/uq/distribution.hpp"
#include "contactuq/uq/gaussian_process.hpp"
#include "contactuq/uq/pce.hpp"

namespace contactuq::model {

inline constexpr const char* surrogate_format = "contactuq-surrogate";
inline constexpr std::int64_t surrogate_format_version = 1;

struct surrogate_input {
  std::string name;
  std::string unit;              ///< SI unit text ("" dimensionless)
  uq::distribution marginal;     ///< the input's law in the training study [SI]
  double low = 0.0, high = 0.0;  ///< the training box [SI]
};

// The validation of one output's surrogate.
struct surrogate_validation {
  double q2_kfold = 0.0;                  ///< K-fold Q2, the selection repeated in every fold
  Eigen::VectorXd kfold_predictions;      ///< yhat_i from the fold without point i
  std::vector<std::size_t> fold;          ///< each training point's fold
  double loo_error = 0.0;                 ///< post-selection LOO error eps_LOO (optimistic)
  double corrected_loo_error = 0.0;       ///< post-selection eps_LOO* (optimistic)
  std::optional<double> test_error = {};  ///< 1 - Q2 on the independent test set, when there is one
};

struct surrogate_output {
  std::string name;
  std::string unit;  ///< SI unit text
  // kind "pce": the expansion and how it was chosen.
  std::optional<uq::polynomial_chaos> chaos;
  unsigned degree = 0, max_degree = 0;
  double q_norm = 1.0;
  std::string selection = "lars";
  std::size_t candidates = 0;
  // kind "gp": the conditioned process (hyperparameters from maximum likelihood).
  std::optional<uq::gaussian_process> gp = {};
  double mean = 0.0, variance = 0.0;  ///< of the surrogate under the marginals [SI]
  surrogate_validation validation;
};

// Everything a contactuq-surrogate file holds below its header (docs/hdf5-schema.md).
struct surrogate_data {
  std::string kind = "pce";
  std::string model;  ///< the original model's registered name
  std::vector<surrogate_input> inputs;
  std::vector<surrogate_output> outputs;
  Eigen::MatrixXd x;     ///< training inputs, N x d [SI]
  Eigen::MatrixXd y;     ///< training outputs, N x outputs [SI]
  std::string training;  ///< where the training points came from (a file, or "sampling")
  std::size_t folds = 5;
  std::uint64_t fold_seed = 1;
  double q2_warning = 0.9;
  std::size_t test_samples = 0;  ///< points of the test set (0: none)
};

// Writes the group /surrogate of a result file whose header is written (io/result_file.hpp).
void write_surrogate(io::hdf5::file& f, const surrogate_data& data);
// Reads a contactuq-surrogate file; std::runtime_error naming the file for anything else.
surrogate_data read_surrogate(const std::filesystem::path& file);

class surrogate_model {
 public:
  surrogate_model(std::shared_ptr<const surrogate_data> data, bool extrapolate);
  // Reads the [model] table above; errors at file, line and key.
  static surrogate_model from_study(const io::study_table& table);

  std::vector<variable> inputs() const;
  std::vector<variable> outputs() const;
  bool thread_safe() const { return true; }  // immutable after construction
  std::string name() const { return "surrogate"; }
  // parameter_error naming the input outside the training box (unless extrapolating).
  evaluation evaluate(std::span<const double> x) const;

  const surrogate_data& data() const { return *data_; }

 private:
  std::shared_ptr<const surrogate_data> data_;
  bool extrapolate_ = false;
};

}  // namespace contactuq::model
