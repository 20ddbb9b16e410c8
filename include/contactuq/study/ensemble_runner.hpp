#pragma once
// Evaluating an ensemble study: samples in parallel, handed to a sink in order.
//
// Samples [first, N) are cut into blocks of consecutive samples. A TBB pipeline takes blocks in
// order, evaluates the samples of a block in parallel (each sample on its own: its outputs are
// a function of its inputs only, whatever the thread count), and passes finished blocks to the
// sink in order. A sample whose model throws is retried or recorded, as the study's failure
// policy says, with status failed, the exception's message and NaN outputs and curves; the
// other samples are untouched.

#include <tbb/enumerable_thread_specific.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/ensemble_study.hpp"
#include "contactuq/study/executor.hpp"  // run_ensemble elsewhere (the ranks of an MPI job)

namespace contactuq::study {

// Where finished blocks go, in order of their first sample, each exactly once.
class sample_sink {
 public:
  virtual ~sample_sink() = default;
  // Called on a worker thread for each evaluated block, several at once, before append: the
  // place for costly, thread-safe work such as compression.
  virtual void prepare(io::ensemble_block& /*block*/) const {}
  virtual void append(const io::ensemble_block& block) = 0;
  // How prepare compresses, for blocks evaluated in another process; nullopt: not at all.
  virtual std::optional<io::chunk_compression> compression() const { return std::nullopt; }
};

// Keeps every block's values in memory, for tests and small studies.
class memory_sink : public sample_sink {
 public:
  void append(const io::ensemble_block& block) override;
  // Every sample appended, in order (blocks concatenated).
  const io::ensemble_block& samples() const noexcept { return all_; }

 private:
  io::ensemble_block all_;
};

// Writes every block to an ensemble file (io::ensemble_writer::append).
class writer_sink : public sample_sink {
 public:
  explicit writer_sink(io::ensemble_writer& writer) : writer_(writer) {}
  void prepare(io::ensemble_block& block) const override { writer_.precompress(block); }
  void append(const io::ensemble_block& block) override { writer_.append(block); }
  std::optional<io::chunk_compression> compression() const override { return writer_.compression(); }

 private:
  io::ensemble_writer& writer_;
};

struct run_options {
  std::size_t threads = 0;     ///< worker threads, 0: all cores (tbb::global_control)
  std::size_t block_size = 256;  ///< samples per block handed to the sink, >= 1 (at most: see block_seconds)
  std::size_t first = 0;       ///< first sample to evaluate (a resumed run), <= N
  std::size_t end = 0;         ///< one past the last sample to evaluate (a shard), <= N; 0: N
  // When set (e.g. by a SIGINT handler), no new block is started; blocks in flight are
  // finished and handed to the sink.
  const std::atomic<bool>* stop = nullptr;
  // When set (a time limit), also no further sample starts: of the blocks in flight, the first
  // hands the sink the samples before its first one not run, the others are dropped (a resumed
  // run evaluates them).
  const std::atomic<bool>* cancel = nullptr;
  // Samples of the first block (a resumed run: up to the next whole chunk of its file); 0:
  // block_size.
  std::size_t first_block = 0;
  // Seconds of work a block should hold on the run's threads; 0: every block is block_size
  // (fixed sizes). When > 0, blocks are sized by measured cost as well: until the first samples
  // have been timed a block is `threads` samples, then block_seconds x threads / (seconds per
  // sample), at least block_size / 64 and at most block_size, never across a block_size
  // boundary (a chunk of the file: whole chunks stay whole, a costly study's blocks tile them).
  // Cheap studies get block_size blocks after the first few; a slow one hands the sink a block
  // every few seconds. Which samples a block holds then depends on timing; their values never do.
  double block_seconds = 0.0;
  // For tests of interrupted runs, a pause at a known point: when > 0, the run starts no block
  // after its first pause_after_blocks, hands those to the sink, and then waits until stop or
  // cancel is set (a signal, a time limit) before it returns stopped; given neither flag, it
  // returns stopped at once. A kill or signal sent during the pause lands at the same samples
  // in every run, whatever the machine's speed. 0: no pause.
  std::size_t pause_after_blocks = 0;
  // Called from the sink's thread after each block with (samples done, N). The sink's thread
  // is one of its own (not a worker): appends overlap the evaluation of later blocks.
  std::function<void(std::size_t, std::size_t)> progress;

  void validate() const;  // throws parameter_error naming the field
};

struct run_summary {
  std::size_t first = 0;      ///< first sample evaluated by this run
  std::size_t completed = 0;  ///< samples [0, completed) are in the sink
  std::size_t failed = 0;     ///< samples of this run with status failed
  std::size_t retried = 0;    ///< samples that failed at least once and then succeeded
  bool stopped = false;       ///< stopped by run_options::stop before N
  // Under failure_policy::abort: the run stopped at the block of the first failure (that block
  // is in the sink, later ones are not); abort_message names the sample and its error.
  bool aborted = false;
  std::string abort_message;
  // Seconds the evaluation waited for the sink: blocks are appended on a thread of their own
  // while the next ones are evaluated, and the evaluation waits only while two blocks are
  // queued, and for the last ones at the end.
  double sink_wait_seconds = 0.0;
};

// A block of samples evaluated, with what the failure policy needs to know.
struct evaluated_block {
  io::ensemble_block block;
  std::size_t failed = 0;   ///< samples with status failed
  std::size_t retried = 0;  ///< samples that failed at least once and then succeeded
  std::optional<std::size_t> first_failure;  ///< row in the block of the first failed sample
  // Cancelled before every sample ran: `block` holds only the samples before the first one
  // not run (possibly none).
  bool cancelled = false;
};

// Evaluates blocks of a study's samples, each sample on its own (in parallel, TBB), so that a
// block's values do not depend on how many threads or processes share the work. Several blocks
// may be evaluated at once from different threads. `study` and `inputs` must outlive it.
class block_evaluator {
 public:
  block_evaluator(const ensemble_study& study, const sample_plan& inputs);
  // Samples [first, first + size), under the study's failure policy (retries included). Once
  // `cancel` is set no further sample starts and the block comes back cancelled, cut short.
  evaluated_block operator()(std::size_t first, std::size_t size, const std::atomic<bool>* cancel = nullptr) const;
  // Wall-clock seconds one thread spent per sample, over the samples evaluated so far (timed
  // per run of rows on a thread, so several blocks at once count once each); 0: none yet.
  double seconds_per_sample() const;

 private:
  class timed_rows;
  const model::model& model_for(std::size_t sample) const;
  const ensemble_study& study_;
  const sample_plan& inputs_;
  int attempts_ = 1;
  // Per worker thread, a clone of each case's model that is not thread safe.
  mutable tbb::enumerable_thread_specific<std::vector<std::optional<model::model>>> clones_;
  // On a cache line of their own: every thread adds to them, and the members above are read
  // for every sample.
  alignas(64) mutable std::atomic<std::uint64_t> timed_samples_ = 0;
  mutable std::atomic<std::uint64_t> timed_nanoseconds_ = 0;
};

// Returns once options.stop or options.cancel is set (the end of a pause_after_blocks), at once
// when neither is given.
void wait_for_stop(const run_options& options);

// Evaluates samples [options.first, options.end or N) of `study` with model inputs `inputs` (the
// study's sample_plan; each block's rows are made where it is evaluated) and hands them to `sink`.
// Blocks of block_size samples from `first` (the last one shorter): with the same options, the
// sink sees the same blocks.
run_summary run_ensemble(const ensemble_study& study, const sample_plan& inputs, sample_sink& sink,
                         const run_options& options = {});
// The same with the inputs given whole (sample_inputs(study), N x inputs).
run_summary run_ensemble(const ensemble_study& study, const io::sample_matrix& inputs, sample_sink& sink,
                         const run_options& options = {});

// The ensemble file schema of a study: inputs with role, unit and distribution (attribute
// "distribution", e.g. "normal(mean=0.21, sd=0.02)"), outputs, curves, and the metadata the
// study determines (text, path, seed, design, N). Time, host and threads are the caller's.
io::ensemble_schema ensemble_schema_for(const ensemble_study& study, const io::study_document& doc);

}  // namespace contactuq::study
