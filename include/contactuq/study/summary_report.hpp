#pragma once
// Everything `contactuq summarize` reports of an ensemble file, decided once here: the command's
// text and its `--json` (to_json below) and Python's contactuq.analyze() all print this report,
// so they show the same numbers.
//   - per output: moments and quantiles, their intervals from the bootstrap, or from the
//     independent replicates of a finished plain QMC study (RQMC points are dependent);
//   - sample status: counts, failure messages, notes;
//   - per epistemic case (output_analysis.hpp): input rankings (at most ranking_resamples
//     bootstrap resamples: they replicate the whole regression), specification limits with
//     P(violation) and 0/1 proportions with Wilson intervals, from the SI values;
//   - a nested study: per case statistics, model-form decomposition, Sobol indices
//     (nested_summary.hpp);
//   - values in the study's [output] units unless `si`; limits shown in them too.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/study/nested_summary.hpp"
#include "contactuq/study/output_analysis.hpp"
#include "contactuq/uq/statistics.hpp"

namespace contactuq::study {

struct summary_options {
  bool si = false;               ///< SI values, whatever the study's [output] units ask for
  std::size_t bootstrap = 1000;  ///< resamples of the bootstrap intervals: 0 (none) or in [10, 100000]
  double confidence = 0.95;      ///< of every interval, in (0, 1)
  std::vector<double> probabilities = {0.05, 0.5, 0.95};  ///< of the quantiles, each in [0, 1]
  std::uint64_t seed = 1;        ///< of the bootstrap resampling; any value
  // The statistics of a nested study pooled over its cases too. They mix the model forms, so
  // the text leaves them out and skips their bootstrap; the JSON carries them.
  bool pooled_nested = true;

  // Throws contactuq::parameter_error naming the field and value.
  void validate() const;
};

// Rankings replicate the whole regression per resample: fewer resamples than the moments.
inline constexpr std::size_t ranking_resamples = 200;

struct status_counts {
  std::size_t ok = 0, failed = 0, not_run = 0;
  // Distinct failure messages with how often each occurred, most frequent first.
  std::vector<std::pair<std::string, std::size_t>> messages;
  // Valid samples that carry a note from the model (e.g. an undecided outcome), the first of
  // them and its note.
  std::size_t noted = 0;
  std::size_t first_noted = 0;
  std::string first_note;
};

struct summary_report {
  std::string file;              ///< as given
  io::ensemble_schema schema;    ///< outputs with their display units; inputs SI
  std::size_t rows = 0;          ///< samples in the file
  summary_options options;       ///< as used
  status_counts status;
  bool replicate_intervals = false;  ///< intervals from schema.metadata.replicates, else the bootstrap
  std::size_t ranking_resamples = 0;  ///< bootstrap resamples of the rankings
  bool nested = false;                ///< several epistemic cases or a pick-freeze design
  bool converted = false;             ///< some output is shown in other than SI units
  std::vector<double> factors;        ///< per output, display value per SI value
  // Per output, pooled over every sample (display units); empty for a nested study unless
  // options.pooled_nested.
  std::vector<uq::summary> outputs;
  std::vector<ensemble_analysis> analyses;  ///< per epistemic case, SI
  std::optional<nested_summary> nested_statistics;  ///< a nested study (display units)
};

// The report of the ensemble file `file` (io::read_ensemble's errors for anything else).
summary_report summarize(const std::filesystem::path& file, const summary_options& options = {});

// The report as `contactuq summarize --json` prints it (docs/cli.md): an object with "file",
// "format", "metadata", "status", "bootstrap", "outputs" (limits in display units) and, for a
// nested study, "nested". Values that are not finite are null.
std::string to_json(const summary_report& report);

}  // namespace contactuq::study
