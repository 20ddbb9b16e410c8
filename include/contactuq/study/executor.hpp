#pragma once
// Where a method's many evaluations run when not on this process's threads alone: one interface
// for every method (sample, nested, morris, reliability, optimize, calibrate), implemented over
// the ranks of an MPI job by mpi::world_runner. nullptr in engine::run_options::executor means
// this process (TBB): the methods then call run_ensemble, or their own loops, directly.
//
// It runs two kinds of work, both an ordered map with the results of one process, bit for bit:
//  - run(): the blocks of an ensemble, rows of a sample_plan evaluated by the study's model and
//    handed to a sink in order (run_ensemble's contract). Every method that evaluates many model
//    runs uses it: the other processes read the study from its document again and remake its
//    rows, or get the rows of a plan of given rows (a method's own: morris trajectories, a
//    reliability batch, the designs × samples of an optimiser's batch) with their blocks.
//  - map(): independent jobs of an algorithm that every process runs in step (a calibration's
//    starts and bootstrap refits, whose residual problems are built from data, not rows): start()
//    has the other processes run the same method on the same document, each job runs on one of
//    them and every process gets every result, as bytes, in order. Between start() and finish()
//    only map() may be called.
//
// Why map() is not a run() of rows: a fit's job is a Levenberg–Marquardt solve over the whole
// data set, not a model evaluation at one input row; sending its state would cost more than
// running the same calibration on every process, which is deterministic.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace contactuq::io {
class study_document;
}

namespace contactuq::study {

struct ensemble_study;
class sample_plan;
class sample_sink;
struct run_options;
struct run_summary;

class executor {
 public:
  virtual ~executor() = default;
  virtual std::size_t processes() const = 0;  ///< recorded in the result file (mpi_ranks)

  // Evaluates samples [options.first, options.end or N) of `study` and hands them to `sink`,
  // with run_ensemble's contract: the sink sees the same blocks' values in the same order.
  // `doc` is the study's document, `study` read from it (study.reading; the method may have set
  // study.sampling's samples, failures, retries and sobol after reading): other processes read
  // it again the same way. They remake the rows of the study's own plan; the rows of a plan of
  // given rows (sample_plan::given) go to them with the blocks.
  virtual run_summary run(const io::study_document& doc, const ensemble_study& study, const sample_plan& inputs,
                          sample_sink& sink, const run_options& options) = 0;

  // Before an algorithm whose every process runs in step (a calibration): the other processes
  // read `doc` and run the same method, `threads` each (0: all cores). finish() after it,
  // however it ended (executor_session does both).
  virtual void start(const io::study_document& doc, std::size_t threads) = 0;
  virtual void finish() = 0;
  // Collective, between start() and finish(): every process calls it with the same n, in the
  // same order. job(i) for every i in [0, n), each on one process (on its threads when
  // `parallel`); every process gets every result, in order of i. A job returns its result as
  // bytes and does not throw.
  virtual std::vector<std::string> map(std::size_t n, bool parallel,
                                       const std::function<std::string(std::size_t)>& job) = 0;
};

// An executor started for one method run and finished however the run ends; no executor (this
// process) does nothing.
class executor_session {
 public:
  executor_session(executor* e, const io::study_document& doc, std::size_t threads) : executor_(e) {
    if (executor_) executor_->start(doc, threads);
  }
  executor_session(const executor_session&) = delete;
  executor_session& operator=(const executor_session&) = delete;
  ~executor_session() {
    if (executor_) executor_->finish();
  }
  executor* get() const noexcept { return executor_; }

 private:
  executor* executor_;
};

}  // namespace contactuq::study
