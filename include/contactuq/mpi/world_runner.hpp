#pragma once
// Every method's evaluations over the ranks of an MPI job (`mpirun -n R contactuq run STUDY -o
// FILE`): one executor (study/executor.hpp), world_runner.
//
// Rank 0 runs the command as a single process would: it reads the study, opens the result file
// and hands blocks of whole chunks (finer for a small plan) to every rank, itself included, as
// each asks for more work (dynamic load balancing: samples of pin-slot or switch studies vary in
// cost). The other ranks read the same study (as rank 0's method read it: its own tables, the
// samples and failure policy it set), sample the same inputs, evaluate their blocks with TBB and
// compress them as the writer would; rank 0 puts the blocks in order and writes them. A plan
// whose rows are the method's own (study::sample_plan::given: morris trajectories, the batches
// of a reliability method) cannot be remade there: rank 0 sends each block's inputs with its
// assignment, so every row crosses the network once, to the rank that evaluates it, and a large
// plan never sits whole in every rank's inbox. So the file is the one a single process writes,
// bit for bit, whatever the number of ranks, threads and the order in which blocks come back; it
// resumes like any other after a killed job. A method may run many ensembles in one job (one per
// batch): each is a study of its own on the ranks, which keep the last study they read and make
// its models once. On every rank only the main thread calls MPI (MPI_THREAD_FUNNELED).
//
// Optimisation studies (`mpirun -n R contactuq run OPT.toml`) are clients of the same
// ensembles: each batch of designs is a plan of given rows (opt::design_ensembles), the samples
// of every design of the batch, run and handed back in order as any other; rank 0 reduces the
// measures of each design from its samples' outputs in sample order, so every value, the
// optimiser's path and the result file are those of a single process, bit for bit.
//
// Calibration studies run on every rank at once (executor::start and map): each rank reads the
// study and its data and runs the same calibration, and the independent fits of each solve (the
// starts, the bootstrap refits) are dealt out over the ranks, their results gathered on every
// rank in order. So every rank follows the single-process path to the same result, bit for bit;
// rank 0 alone prints and writes it.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "contactuq/mpi/launcher.hpp"
#include "contactuq/study/ensemble_runner.hpp"
#include "contactuq/study/executor.hpp"

namespace contactuq::mpi {

// MPI for the life of the program: initialised in the constructor when launched(), finalised
// in the destructor, where rank 0 first tells the other ranks that the job is over. One per
// process, in main.
class session {
 public:
  session(int& argc, char**& argv);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  bool active() const noexcept { return active_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  // Ranks other than 0: evaluate the blocks of every study rank 0 runs until it says the job is
  // over; returns the process's exit code.
  int serve();

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// The executor over every rank of the job (see above): on rank 0 the engine's, for every method;
// on the other ranks the one a calibration running there calls map() on.
class world_runner : public study::executor {
 public:
  explicit world_runner(const session& s) : session_(s) {}
  ~world_runner() override;
  std::size_t processes() const override { return static_cast<std::size_t>(session_.size()); }
  study::run_summary run(const io::study_document& doc, const study::ensemble_study& study,
                         const study::sample_plan& inputs, study::sample_sink& sink,
                         const study::run_options& options) override;
  void start(const io::study_document& doc, std::size_t threads) override;
  void finish() override;
  std::vector<std::string> map(std::size_t n, bool parallel,
                               const std::function<std::string(std::size_t)>& job) override;

 private:
  const session& session_;
  bool started_ = false;  // rank 0: the other ranks run a calibration (start)
};

}  // namespace contactuq::mpi
