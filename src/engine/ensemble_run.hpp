#pragma once
// The one path from a plan of model evaluations to an ensemble file, shared by every method that
// evaluates many cases of a model (sample, nested, morris): open or resume the file, evaluate
// the plan's rows in blocks (this process, or the run's executor), append them in order, and
// finish, stop or abort the file as the run ends. The method brings the study, its plan of rows
// and what it reports once every row is in.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "methods.hpp"

namespace contactuq::engine::detail {

// Writes every block to the file and keeps the scalar outputs and statuses, for what the method
// reports at the end.
class recording_sink : public study::sample_sink {
 public:
  recording_sink(io::ensemble_writer& writer, std::size_t outputs) : writer_(writer), outputs_(outputs) {}
  void prepare(io::ensemble_block& b) const override { writer_.precompress(b); }
  std::optional<io::chunk_compression> compression() const override { return writer_.compression(); }
  void append(const io::ensemble_block& b) override {
    writer_.append(b);
    keep(b.outputs, b.status, b.messages);
  }
  void keep(const io::sample_matrix& outputs, const std::vector<std::int32_t>& status,
            const std::vector<std::string>& messages);
  // Output j of every row kept, in row order.
  const std::vector<std::vector<double>>& outputs() const { return outputs_; }
  const std::vector<std::int32_t>& status() const { return status_; }
  std::size_t failed() const { return failed_; }
  // Valid samples whose model left a note (e.g. an undecided outcome), and the first of them.
  std::size_t noted() const { return noted_; }
  const std::pair<std::size_t, std::string>& first_note() const { return first_note_; }
  // Distinct failure messages, most frequent first: (message, count, first sample).
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> failure_messages() const;

 private:
  io::ensemble_writer& writer_;
  std::vector<std::vector<double>> outputs_;
  std::vector<std::int32_t> status_;
  std::size_t failed_ = 0, noted_ = 0;
  std::pair<std::size_t, std::string> first_note_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> failure_messages_;  // count, first sample
};

// The distinct failure messages with their counts, the most frequent first.
std::string failures_text(const recording_sink& sink);

// Refuses (std::invalid_argument naming the study) a plan whose kept outputs and inputs need
// over half of this machine's memory, unless the run says --yes. `streamed`: the plan's rows
// are made block by block (study::sample_plan::streams).
void refuse_oversized(const io::study_document& doc, const run_options& o, const study::ensemble_study& s,
                      bool streamed);

// Worker threads of a run: run_options::threads, or every core.
std::size_t threads_of(const run_options& o);

struct ensemble_job {
  const study::ensemble_study& study;
  // The rows to evaluate, plan.rows() of them: the study's own, or given (the method's; an
  // executor sends them to the other processes).
  const study::sample_plan& plan;
  io::ensemble_schema schema;          ///< ensemble_schema_for(study), the method's own facts set
  std::string method_name;             ///< recorded in run_result (the file's is schema.metadata.method)
  std::string description;             ///< first line of the report, e.g. "model switch, 1000 samples (lhs)"
  double plan_seconds = 0.0;           ///< how long making the plan took (run_result::timing)
  // Once every row is in and the file is being finished (on another thread): the method's report,
  // printed after "wrote ...". Not called for a shard, a stopped or an aborted run.
  std::function<std::string(const recording_sink&)> summary = {};
  // Once the file is finished: the method's own groups, written into the file (may be empty).
  std::function<void(const std::filesystem::path& file, const recording_sink&)> finished = {};
};

// Runs the job into `out` (resuming it with --resume), and returns the outcome: exit code 0 when
// every row is in, 1 when failures = "abort" stopped it or every row failed, 130 when stopped.
run_result run_ensemble_job(const io::study_document& doc, const run_options& o, const std::filesystem::path& out,
                            ensemble_job job);

}  // namespace contactuq::engine::detail
