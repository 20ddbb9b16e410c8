// studies/nicolson_tables.toml through `contactuq run`: the trends of Nicolson (1990) Tables 5.1
// and 5.2 that the notes (004-notes.md §5) call robust enough to check. The thesis reports its runs
// in words only, so these are trends over the scan of mass, friction and feed, not numbers
// (docs/threaded-insertion.md, "The thesis's tables").
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "contactuq/io/ensemble_store.hpp"
#include "run_cli.hpp"

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

// Outcome counts of one table row over the scan.
struct row_counts {
  int samples = 0;
  std::array<int, 6> outcome{};  // 0 engaged, 1 cross-threaded, 2 jammed, 3 tipped, 4 no start, 5 inconclusive
  int failed = 0;                // samples the engine recorded as failed
  int aligned = 0;               // upright and in phase at the end (see below)
  int tilting = 0;               // tilted beyond 5.2 degrees at some time
  int engaged() const { return outcome[0]; }
};

}  // namespace

TEST_CASE("nicolson tables: the notes' four trends hold over the scan", "[cli][threaded]") {
#if defined(__SANITIZE_ADDRESS__)
  // 16 starts take 2 minutes in the release build and several times that under the sanitizers: the
  // trends are checked there; tests/threaded runs the model under the sanitizers.
  WARN("skipped under the sanitizers: the release build checks the trends");
  return;
#endif
  const auto dir = std::filesystem::temp_directory_path() / ("contactuq-nicolson-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // The shipped study with 2 points of the scan per row (16 starts, about 2 minutes on 2 cores; the
  // shipped 6 take 4.5 minutes).
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/nicolson_tables.toml");
  std::ostringstream text;
  text << in.rdbuf();
  std::string study = text.str();
  const auto at = study.find("samples = 6");
  REQUIRE(at != std::string::npos);
  study.replace(at, 11, "samples = 2");
  const std::string path = (dir / "tables.toml").string();
  std::ofstream(path) << study;
  const std::string out = (dir / "tables.h5").string();
  const cli_result run = run_cli("run " + path + " -o " + out + " -j 2 -q");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  const io::ensemble e = io::read_ensemble(out);
  const auto& cases = e.schema.metadata.epistemic_cases;
  REQUIRE(cases.size() == 8);
  const std::size_t per_case = e.rows / cases.size();
  REQUIRE(per_case * cases.size() == e.rows);
  const auto outcome = static_cast<Eigen::Index>(e.output_index("outcome"));
  const auto final_tilt = static_cast<Eigen::Index>(e.output_index("final_tilt"));
  const auto phase_error = static_cast<Eigen::Index>(e.output_index("phase_error"));
  const auto max_tilt = static_cast<Eigen::Index>(e.output_index("max_tilt"));
  const auto time_to_engage = static_cast<Eigen::Index>(e.output_index("time_to_engage"));
  std::map<std::string, row_counts> rows;
  std::map<std::string, std::vector<double>> engage_time;  // per scan point, NaN: not engaged
  std::string table;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    REQUIRE(cases[c].starts_with("row="));
    row_counts& r = rows[cases[c].substr(4)];
    for (std::size_t i = c * per_case; i < (c + 1) * per_case; ++i) {
      const auto k = static_cast<Eigen::Index>(i);
      ++r.samples;
      engage_time[cases[c].substr(4)].push_back(e.status[i] == 0 ? e.outputs(k, time_to_engage) : std::nan(""));
      const double o = e.outputs(k, outcome);
      if (e.status[i] != 0 || !(o >= 0 && o <= 5)) {
        ++r.failed;
        continue;
      }
      ++r.outcome[static_cast<std::size_t>(o)];
      // Aligned to the nut: upright and in phase at the end, engaged or not (short of the engage
      // depth when the run ended: still threading, inconclusive, or stalled, jammed).
      if (e.outputs(k, max_tilt) > 5.2 * std::numbers::pi / 180) ++r.tilting;
      if ((o == 0 || o == 2 || o == 5) && e.outputs(k, final_tilt) < 2 * std::numbers::pi / 180 &&
          std::abs(e.outputs(k, phase_error)) < std::numbers::pi / 2)
        ++r.aligned;
    }
    table.append(cases[c]).append(":");
    for (std::size_t k = 0; k < 6; ++k) table.append(" ").append(std::to_string(r.outcome[k]));
    table.append(" aligned ").append(std::to_string(r.aligned));
    table.append(" tilting ").append(std::to_string(r.tilting)).append("\n");
  }
  INFO("outcome counts per row (engaged, cross-threaded, jammed, tipped, no start, inconclusive):\n" << table);
  const int n = static_cast<int>(per_case);
  for (const auto& [name, r] : rows) CHECK(r.failed == 0);

  // (a) In phase engages at least as often as out of phase, in each table.
  for (const char* out_of_phase : {"5.1-1", "5.1-2"}) CHECK(rows["5.1-3"].engaged() >= rows[out_of_phase].engaged());
  // In Table 5.1 every row engages at every point of the scan, so the counts above cannot fail
  // there: the in-phase row must engage at every point (n of n). What phase does to *when* was
  // measured and is not the thesis's trend: at both points the out-of-phase rows engage earlier
  // (0.644 s (5.1-1) and 0.709 s (5.1-2) against 0.757 s in phase; 1.065 s (5.1-2) against 1.140 s),
  // so an "in phase engages first" check fails (docs/threaded-insertion.md, trend (a)).
  CHECK(rows["5.1-3"].engaged() == n);
  for (const char* row : {"5.1-1", "5.1-2", "5.1-3"})
    for (std::size_t k = 0; k < engage_time[row].size(); ++k) UNSCOPED_INFO(row << " at scan point " << k << ": engaged at " << engage_time[row][k] << " s");
  for (const char* out_of_phase : {"5.2-2", "5.2-3"}) CHECK(rows["5.2-4"].engaged() >= rows[out_of_phase].engaged());
  // (b) 5.2-1 (Loncaric's stiffness alone: no lateral or tilt stiffness) never engages; the
  // thesis's bolt "flops over", and here every start tilts far (most tip over; over 12 points of
  // the scan one jams at 14 degrees).
  const row_counts& loncaric = rows["5.2-1"];
  CHECK(loncaric.engaged() == 0);
  CHECK(loncaric.tilting == n);
  // (c) 5.1-4 (tilt stiffness 0.01, 5 degree tilt, offset beyond capture) fails by tipping:
  // never engaged, every start tipped over (15 degrees) or still tipping when the integrator
  // gave up (inconclusive, its tilt grown beyond the initial 5.1 degrees).
  const row_counts& r4 = rows["5.1-4"];
  CHECK(r4.engaged() == 0);
  CHECK(r4.outcome[3] + r4.outcome[5] == n);
  CHECK(r4.tilting == n);
  // (d) 5.2-4 (in phase, Loncaric's coupling) threads and 5.2-2 (180 degrees out of phase)
  // aligns to the nut, each for a majority.
  CHECK(2 * rows["5.2-4"].engaged() > n);
  CHECK(2 * rows["5.2-2"].aligned > n);
  // None cross-threads: the thesis reports no cross-threaded run in either table.
  for (const auto& [name, r] : rows) CHECK(r.outcome[1] == 0);

  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}
