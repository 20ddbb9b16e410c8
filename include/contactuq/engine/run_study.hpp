#pragma once
// One entry point for every study: a registered model x variables with roles x one method x one
// result file. run_study() reads which method a study asks for (its root key `method`, or the
// tables it holds), runs it and writes the method's result file. The command line, the Python
// module and any other front end call only this; docs/architecture.md shows the data flow.

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "contactuq/engine/method.hpp"
#include "contactuq/io/display_units.hpp"
#include "contactuq/io/study_file.hpp"

namespace contactuq::study {
class executor;
}

namespace contactuq::engine {

// The method a study asks for: its root key `method` when present (a registered method's name;
// anything else is an error naming the registered ones), otherwise the first registered method
// whose tables the study holds (engine/method.hpp). When neither says, `fallback` (the method of
// the command that runs it, "" for none), or else std::invalid_argument naming the file.
const method& method_of(const io::study_document& doc, std::string_view fallback = {});

struct run_options {
  // The result file; "" -> the study's [output] file, or else its file name with .h5 (in the
  // working directory).
  std::filesystem::path output;
  bool write_result = true;      ///< false: print the summary only (curve and calibrate methods)
  // Read and check the study and its plan as a run would (every key, unit, range, data file and
  // the method's budget), then stop: nothing is evaluated and nothing written (`contactuq check`).
  bool check_only = false;
  std::size_t threads = 0;       ///< worker threads; 0 -> all cores
  bool resume = false;           ///< continue an unfinished run (sample, nested, optimize, reliability)
  bool force = false;            ///< replace an existing result
  bool yes = false;              ///< start even when the run needs over half of the memory
  int compression = 1;           ///< deflate level of ensemble datasets, 0..9
  std::string shard;             ///< "k/K": part k of K of a sampling plan; "" for all of it
  // Where the methods that evaluate many cases run them (study/executor.hpp): nullptr, this
  // process (TBB); otherwise, e.g., every rank of an MPI job (mpi::world_runner). Sample, nested,
  // morris and reliability studies run their blocks on it, optimize studies their batches of
  // designs, calibrate studies their starts and bootstrap refits (started and finished by the run).
  study::executor* executor = nullptr;
  // Optimize: stop after this many new evaluations; reliability: before a batch that would take
  // the model runs of this process above it. Stopped as if interrupted (resumable). 0: no limit.
  std::size_t max_new = 0;
  std::filesystem::path csv;     ///< calibrate (receptacle-pin fit): also write every point here
  std::filesystem::path export_study;  ///< calibrate (receptacle-pin fit): fitted [parameters.x]
  std::string fallback;          ///< the method of a study that neither names nor implies one; "": none
  std::string build_commit;      ///< the front end's git commit, stored in ensemble metadata
  const std::atomic<bool>* stop = nullptr;  ///< set to true to stop cleanly (an interrupted run)
  // Set with stop to also drop the samples in flight (a sample or nested study in one process:
  // the blocks not finished are evaluated again on resume) instead of finishing them.
  const std::atomic<bool>* cancel = nullptr;
  // Seconds after which a sample, nested, optimize or reliability run stops cleanly, as if
  // interrupted (resumable, exit code 130): a cluster job's wall time, or a bound on any run. 0: none.
  // Samples in flight are dropped (cancel), so the run ends within about one sample's time.
  double time_limit = 0.0;
  // For tests of interrupted runs (sample and nested studies): after this many blocks the run
  // pauses, its samples so far written, until stop or cancel is set (a signal, the time limit);
  // study::run_options::pause_after_blocks. 0: no pause.
  std::size_t pause_after_blocks = 0;
  // Progress of long methods: cases (or evaluations) done and planned. Called from the thread
  // that runs the study, never concurrently.
  std::function<void(std::size_t done, std::size_t total)> progress;
  std::FILE* report = nullptr;  ///< where the summary tables go; nullptr: nowhere
  std::FILE* errors = stderr;   ///< where failures and how to resume go; nullptr: nowhere
};

struct run_result {
  std::string method_name;       ///< the method that ran (a nested study: "nested")
  std::filesystem::path output;  ///< the result file written
  std::size_t planned = 0;       ///< cases (samples, impacts, evaluations) the study planned
  std::size_t failed = 0;        ///< of them, how many failed
  std::string model = {};        ///< the registered model the study runs
  // README, "Exit codes": 0 done; 1 ran without a result (every case failed, a search found no
  // feasible design, or failures = "abort" stopped it); 130 interrupted (resumable).
  int exit_code = 0;
  // Where the wall time of a sample or nested run went, in order (phase, seconds): plan,
  // open, evaluate, of it waiting for the writer, summary, then the rest of finishing the file
  // (it runs alongside the summary). Empty for other methods.
  std::vector<std::pair<std::string, double>> timing = {};
};

// Runs the study and writes its result file. Throws std::invalid_argument for bad input and
// refusals (an existing result without force, --resume of a finished run), std::runtime_error
// for files that cannot be read or written.
run_result run_study(const io::study_document& doc, const run_options& options);

// Throws std::invalid_argument when `path` (or an unfinished run of it, path + ".part") exists:
// a result is replaced only with force, and continued only with resume.
void refuse_overwrite(const std::filesystem::path& path, bool resumable = true);

// How a result file asks to be shown: the [output] units of the study stored in it, with the
// variables of its model (rebuilt from the study's [model] table) they may name. SI when the
// file holds no study, or one this version no longer reads.
struct shown_units {
  io::display_units units;
  std::vector<io::named_dimension> variables;
};
shown_units display_units_of_result(const std::filesystem::path& file);

}  // namespace contactuq::engine
