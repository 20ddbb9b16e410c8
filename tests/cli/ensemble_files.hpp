#pragma once
// Ensemble files in command-line tests: whether two hold the same samples, bit for bit (NaN
// included), and waiting for a running command to put samples on disk.
#include <catch2/catch.hpp>

#include <sys/types.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "contactuq/io/ensemble_store.hpp"

inline bool same_bits(const contactuq::io::sample_matrix& a, const contactuq::io::sample_matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

inline void check_same_samples(const contactuq::io::ensemble& a, const contactuq::io::ensemble& b) {
  CHECK(a.rows == b.rows);
  CHECK(same_bits(a.inputs, b.inputs));
  CHECK(same_bits(a.outputs, b.outputs));
  REQUIRE(a.curves.size() == b.curves.size());
  for (std::size_t k = 0; k < a.curves.size(); ++k) CHECK(same_bits(a.curves[k], b.curves[k]));
  CHECK(a.status == b.status);
  CHECK(a.messages == b.messages);
}

// Waits until the unfinished file of the result `out` (out.part) holds samples, polling every
// 10 ms for up to `seconds`; false when the process `child` ended first.
inline bool wait_for_samples(pid_t child, const std::filesystem::path& out, int seconds = 30) {
  const std::filesystem::path working = contactuq::io::unfinished_path(out);
  for (int i = 0; i < 100 * seconds; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return false;
    if (!std::filesystem::exists(working)) continue;
    try {
      if (contactuq::io::read_ensemble(working, {.curves = false}).rows > 0) return true;
    } catch (const std::exception&) {
      // Not readable yet: the file is being created.
    }
  }
  return true;  // still running: kill it now
}
