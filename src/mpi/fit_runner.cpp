// Calibration studies over the ranks of an MPI job: every rank runs the calibration, the fits of
// each solve are dealt out (include/contactuq/mpi/world_runner.hpp: start, map, finish).
#include <fmt/format.h>
#include <mpi.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <climits>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "contactuq/calibrate/calibration.hpp"
#include "contactuq/calibrate/calibration_study.hpp"
#include "contactuq/calibrate/fit.hpp"
#include "contactuq/calibrate/fit_study.hpp"
#include "contactuq/mpi/world_runner.hpp"
#include "fit_runner.hpp"
#include "messages.hpp"
#include "transport.hpp"

namespace contactuq::mpi {

using namespace detail;

namespace {

// Blocks until a message from rank 0; returns its tag.
int wait_for_rank0() {
  MPI_Status probed;
  MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &probed);
  receive(probed);
  return probed.MPI_TAG;
}

}  // namespace

namespace detail {

bool serve_fits(const study_message& m, const session& s) {
  world_runner fits(s);
  std::optional<tbb::global_control> limit;
  if (m.threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, m.threads);
  // What rank 0 runs (engine run_calibrate), its result dropped: rank 0 prints and writes it.
  std::function<void()> calibration;
  try {
    const auto doc = std::make_shared<io::study_document>(io::study_document::parse(m.text, m.file));
    if (calibrate::is_calibration_study(*doc)) {
      auto study = std::make_shared<calibrate::calibration_study>(calibrate::read_calibration_study(*doc));
      study->options.executor = &fits;
      calibration = [study] { calibrate::calibrate(study->setup, study->cases, study->options); };
    } else {
      auto study = std::make_shared<calibrate::fit_study>(calibrate::read_fit_study(*doc));
      auto data = std::make_shared<calibrate::insertion_data>(calibrate::load_fit_data(*study));
      study->options.executor = &fits;
      calibration = [study, data] { calibrate::fit(study->model, *data, study->options); };
    }
    send_numbers({0}, 0, ready_tag);
  } catch (const std::exception& e) {
    send_error(whole_study, e.what());
  }
  int tag = wait_for_rank0();
  if (tag == go_tag) {
    try {
      calibration();
    } catch (const std::exception&) {
      // The same failure stops rank 0, which reports it.
    }
    tag = wait_for_rank0();
  }
  return tag == quit_tag;
}

}  // namespace detail

world_runner::~world_runner() {
  try {
    finish();
  } catch (...) {
    // MPI failed at the end of the job: nothing left to tell.
  }
}

void world_runner::start(const io::study_document& doc, std::size_t threads) {
  finish();
  const int ranks = session_.size();
  const std::vector<std::byte> announcement =
      pack(study_message{.text = doc.text(), .file = doc.file(), .threads = threads});
  for (int w = 1; w < ranks; ++w) send(announcement, w, fits_tag);
  const std::string failure = wait_for_ranks(ranks).second;
  for (int w = 1; w < ranks; ++w)
    MPI_Send(nullptr, 0, MPI_BYTE, w, failure.empty() ? go_tag : done_tag, MPI_COMM_WORLD);
  if (!failure.empty()) throw std::runtime_error(failure);
  started_ = true;
}

std::vector<std::string> world_runner::map(std::size_t n, bool parallel,
                                           const std::function<std::string(std::size_t)>& job) {
  const auto ranks = static_cast<std::size_t>(session_.size()), rank = static_cast<std::size_t>(session_.rank());
  // Dealt out in turn (job i on rank i mod R): starts and refits cost about the same.
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < n; i += ranks) mine.push_back(i);
  std::vector<std::string> results(mine.size());
  if (parallel)
    tbb::parallel_for(std::size_t{0}, mine.size(), [&](std::size_t k) { results[k] = job(mine[k]); });
  else
    for (std::size_t k = 0; k < mine.size(); ++k) results[k] = job(mine[k]);
  byte_writer w;
  for (const auto& r : results) w.put_string(r);
  const std::vector<std::byte> bytes = w.take();
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(fmt::format("fit results of {} bytes: more than one message can hold", bytes.size()));
  const int size = static_cast<int>(bytes.size());
  std::vector<int> sizes(ranks), offsets(ranks);
  MPI_Allgather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    if (total > static_cast<std::size_t>(INT_MAX))
      throw std::runtime_error("fit results: more than one message can hold");
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(sizes[r]);
  }
  std::vector<std::byte> all(total);
  MPI_Allgatherv(bytes.data(), size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::string> out(n);
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::vector<std::byte> part(all.begin() + offsets[r], all.begin() + offsets[r] + sizes[r]);
    byte_reader reader(part);
    for (std::size_t i = r; i < n; i += ranks) out[i] = reader.get_string();
  }
  return out;
}

void world_runner::finish() {
  if (!started_) return;
  started_ = false;
  for (int w = 1; w < session_.size(); ++w) MPI_Send(nullptr, 0, MPI_BYTE, w, done_tag, MPI_COMM_WORLD);
}

}  // namespace contactuq::mpi
