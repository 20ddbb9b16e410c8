#pragma once
// How many worker threads a run uses, decided in one place for every method and executor.

#include <tbb/info.h>

#include <cstddef>

namespace contactuq::study {

// `requested` threads, or when 0 every core this process may use (TBB's default concurrency:
// the process's CPU affinity mask, e.g. a Slurm allocation, not the machine's core count).
inline std::size_t worker_threads(std::size_t requested) {
  return requested > 0 ? requested : static_cast<std::size_t>(tbb::info::default_concurrency());
}

}  // namespace contactuq::study
