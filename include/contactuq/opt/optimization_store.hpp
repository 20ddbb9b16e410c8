#pragma once
// The HDF5 file of a robust-design run, `contactuq optimize` (format "contactuq-optimization",
// layout in docs/robust-design.md): the study verbatim, the design variables, objectives,
// constraints and models, the history of every evaluation as it happens, and at the end the
// best design per model, the regret matrix and the design over all models.
//
// The history is appended while the optimisers run and flushed after each batch; the file is
// SWMR-written, so it stays readable at every instant and a killed run loses at most the
// batch in flight. A resumed run reads the history back (read_optimization), replays it
// (opt::history) and writes a new file, built under path + ".new" and renamed over the old
// one, so a crash never leaves half a file at the path.

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/opt/epistemic.hpp"
#include "contactuq/opt/optimizer.hpp"

namespace contactuq::opt {

// What the file holds besides the history.
struct optimization_schema {
  std::string study_text;  ///< the study file, verbatim; resume checks it
  std::string study_path;
  std::vector<std::string> design_names;  ///< design variables, in order, non-empty
  std::vector<std::string> design_units;  ///< SI unit of each
  std::vector<double> low, high, start;   ///< bounds and start [SI]
  std::vector<std::string> objectives;    ///< descriptions, e.g. "mean+3sd(peak_insertion)"
  std::vector<std::string> objective_units;
  std::vector<std::string> objective_senses;  ///< "minimize" or "maximize"
  std::vector<std::string>
      constraints;  ///< descriptions, e.g. "P(peak_withdrawal < 0.5 N) <= 0.01"
  std::vector<std::string> constraint_units;
  std::vector<std::string> models;  ///< model labels, index = evaluation_record::model
  std::string model;                ///< the registered model's name (root attribute `model`)
  std::string algorithm;            ///< e.g. "hybrid (de, then slsqp)"
  std::uint64_t seed = 0;
  std::size_t samples = 0;        ///< N of the CRN set
  std::string contactuq_version;  ///< "" is replaced by this library's version
  std::string start_time, end_time, host;
  std::size_t threads = 1;
  std::size_t mpi_ranks = 0;  ///< ranks of the MPI job that evaluated the designs, 0: none

  void validate() const;  // throws parameter_error naming the field
};

class optimization_writer {
 public:
  // Creates the file of a run whose result is `path`, with no history yet. Until finish() it is
  // written at io::unfinished_path(path) (path + ".part"), so a file at `path` stays as it was
  // until the new result is complete; an interrupted run leaves the .part file for --resume.
  static optimization_writer create(const std::filesystem::path& path,
                                    const optimization_schema& schema);
  optimization_writer(optimization_writer&&) noexcept;
  optimization_writer& operator=(optimization_writer&&) noexcept;
  ~optimization_writer();  // closes the file as it is (an interrupted run)

  std::size_t rows() const noexcept;  ///< history rows written
  // Appends records to the history and flushes them; throws std::invalid_argument for a record
  // of the wrong shape.
  void append(std::span<const opt::evaluation_record> records);
  // Writes /results and the end time on a copy, renames it to `path` and removes the .part file.
  void finish(const opt::epistemic_result& result, std::string_view end_time);

 private:
  struct impl;
  explicit optimization_writer(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

// A file read back: the complete history rows of a finished or interrupted run.
struct optimization_file {
  optimization_schema schema;
  std::vector<opt::evaluation_record> history;
  bool finished = false;   ///< /results present
  Eigen::MatrixXd regret;  ///< finished, one objective: models x models; else empty
  Eigen::MatrixXd best_x;  ///< finished: models x design variables
};
// Throws hdf5::error or ensemble_error (not an optimisation file).
optimization_file read_optimization(const std::filesystem::path& path);

}  // namespace contactuq::opt
