// Batches of designs evaluated as ensembles on a study::executor (include/contactuq/opt/optimizer.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/opt/optimizer.hpp"
#include "contactuq/study/ensemble_runner.hpp"

namespace contactuq::opt {

namespace {

// The outputs and failure messages of samples [first, first + n), as their blocks come: each
// block written into its place, so that a batch is never copied whole per block.
class batch_sink : public study::sample_sink {
 public:
  batch_sink(std::size_t first, std::size_t n, std::size_t outputs)
      : first_(first), outputs_(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(outputs)), errors_(n) {}
  void append(const io::ensemble_block& block) override {
    if (block.first < first_ || block.first + block.size() > first_ + errors_.size() ||
        block.outputs.cols() != outputs_.cols())
      throw std::invalid_argument(fmt::format("a block of samples [{}, {}) in a batch of samples [{}, {})", block.first,
                                              block.first + block.size(), first_, first_ + errors_.size()));
    const std::size_t at = block.first - first_;
    outputs_.middleRows(static_cast<Eigen::Index>(at), block.outputs.rows()) = block.outputs;
    for (std::size_t r = 0; r < block.size(); ++r) {
      if (block.status[r] != static_cast<std::int32_t>(io::sample_status::failed)) continue;
      // robust_problem::evaluate's message of a model that threw without one.
      errors_[at + r] = block.messages[r].empty() ? "failed" : block.messages[r];
    }
  }
  const io::sample_matrix& outputs() const noexcept { return outputs_; }
  const std::vector<std::string>& errors() const noexcept { return errors_; }

 private:
  std::size_t first_;
  io::sample_matrix outputs_;
  std::vector<std::string> errors_;  // "" for a sample that did not fail
};

}  // namespace

design_ensembles::design_ensembles(study::executor& executor, const io::study_document& doc,
                                   const study::ensemble_study& study, std::size_t threads)
    : executor_(executor),
      doc_(doc),
      batch_(study),
      crn_(study::sample_inputs(study).topRows(static_cast<Eigen::Index>(study.per_case()))),
      design_(study.design_variables()),
      threads_(threads) {
  // robust_problem::evaluate records every failing sample once and goes on; the rows are given,
  // so a pick-freeze design's are already among them.
  batch_.sampling.failures = study::failure_policy::record;
  batch_.sampling.sobol = false;
}

std::size_t design_ensembles::processes() const { return executor_.processes(); }

std::vector<robust_value> design_ensembles::evaluate(const robust_problem& problem, std::size_t model,
                                                     const std::vector<std::vector<double>>& xs) {
  const auto n = static_cast<std::size_t>(crn_.rows());
  const std::size_t cases = std::max<std::size_t>(batch_.cases.size(), 1);
  if (model >= cases) throw std::invalid_argument(fmt::format("design_ensembles: model {} of {}", model, cases));
  if (static_cast<std::size_t>(problem.samples().rows()) != n || problem.dimension() != design_.size())
    throw std::invalid_argument("design_ensembles: a robust problem of another study");
  if (xs.empty()) return {};
  // Case `model` of the study with K N samples: the rows [c K N, (c + 1) K N) are the batch's,
  // design k's samples from c K N + k N. The rows of the other cases are never read: left unset.
  const std::size_t k_n = xs.size() * n, first = model * k_n;
  batch_.sampling.samples = k_n;
  io::sample_matrix rows(static_cast<Eigen::Index>(batch_.rows()), crn_.cols());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    if (xs[k].size() != design_.size())
      throw std::invalid_argument(
          fmt::format("a design of {} values for {} design variables", xs[k].size(), design_.size()));
    auto samples = rows.middleRows(static_cast<Eigen::Index>(first + k * n), static_cast<Eigen::Index>(n));
    samples = crn_;
    for (std::size_t j = 0; j < design_.size(); ++j) samples.col(static_cast<Eigen::Index>(design_[j])).setConstant(xs[k][j]);
  }
  const study::sample_plan plan(batch_, rows);  // given rows: the executor sends them to the processes
  batch_sink sink(first, k_n, problem.model().outputs().size());
  study::run_options options;
  options.threads = threads_;
  options.first = first;
  options.end = first + k_n;
  const study::run_summary done = executor_.run(doc_, batch_, plan, sink, options);
  if (done.completed != first + k_n)
    throw std::runtime_error(fmt::format("{}: a batch of {} designs stopped after {} of {} model evaluations",
                                         doc_.file(), xs.size(), done.completed - first, k_n));
  // Each design's measures in sample order, as robust_problem::evaluate reduces them.
  std::vector<robust_value> values;
  values.reserve(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    const io::sample_matrix y = sink.outputs().middleRows(static_cast<Eigen::Index>(k * n), static_cast<Eigen::Index>(n));
    const std::span<const std::string> errors(sink.errors().data() + k * n, n);
    values.push_back(problem.value_of(y, errors));
  }
  return values;
}

}  // namespace contactuq::opt
