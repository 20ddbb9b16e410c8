// `contactuq run --shard k/K` and `contactuq merge`, as a user (or a Slurm array) runs them: the
// merged file holds the same bits as one process running the whole study.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "contactuq/io/ensemble_store.hpp"
#include "run_cli.hpp"
#include "ensemble_files.hpp"

// Last: <signal.h> defines macros that could clash with names in our headers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace contactuq;
using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

struct shard_dir {
  fs::path dir = fs::temp_directory_path() / ("contactuq-shard-" + std::to_string(::getpid()));
  shard_dir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~shard_dir() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

// The quickstart study with n samples, 60 stroke points per direction and this seed.
std::string quickstart(const shard_dir& d, const std::string& name, std::size_t n, int seed) {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/studies/quickstart.toml");
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (auto [from, to] : {std::pair<std::string, std::string>{"samples = 1000", "samples = " + std::to_string(n)},
                          {"points = 200 ", "points = 60 "},
                          {"seed = 2026", "seed = " + std::to_string(seed)}}) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const std::string path = d / name;
  std::ofstream(path) << text;
  return path;
}

// Runs a shell command line; exit code and output (stdout and stderr).
cli_result run_shell(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

void check_bit_identical(const std::string& merged, const std::string& whole) {
  const io::ensemble a = io::read_ensemble(merged), b = io::read_ensemble(whole);
  CHECK(a.schema.metadata.samples == b.schema.metadata.samples);
  CHECK(a.schema.metadata.shard_count == 0);
  check_same_samples(a, b);
}

// Runs shard k/K of `study` into `part`, paused after its first two blocks (hidden
// --pause-after-blocks: for tests), and kills it with SIGKILL once samples are on disk: the kill
// lands before the shard is done in every run, however fast the machine. Returns whether it was
// killed.
bool run_and_kill(const std::string& study, const std::string& shard, const std::string& part) {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(CONTACTUQ_CLI, CONTACTUQ_CLI, "run", study.c_str(), "--shard", shard.c_str(), "-o", part.c_str(), "-j",
          "1", "-q", "--pause-after-blocks", "2", static_cast<char*>(nullptr));
    _exit(127);
  }
  if (!wait_for_samples(child, part, 300)) return false;  // it ended by itself: a failure
  int status = 0;
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  return WIFSIGNALED(status);
}

}  // namespace

TEST_CASE("three shards, one killed and resumed, merge into the bits of one run", "[cli][merge]") {
  shard_dir d;
  const std::string study = quickstart(d, "study.toml", 4500, 2026);
  REQUIRE(run_cli("run " + study + " -o " + (d / "whole.h5") + " -j 2 -q").exit_code == 0);

  REQUIRE(run_cli("run " + study + " --shard 1/3 -o " + (d / "part_1.h5") + " -j 2 -q").exit_code == 0);
  REQUIRE(run_and_kill(study, "2/3", d / "part_2.h5"));
  const io::ensemble partial = io::read_ensemble(d / "part_2.h5.part", {.curves = false});
  CHECK(partial.rows > 0);
  CHECK(partial.rows < 1500);
  CHECK_FALSE(fs::exists(d / "part_2.h5"));
  // An unfinished part is refused, with the command that finishes it.
  const cli_result early =
      run_cli("merge " + (d / "part_1.h5") + " " + (d / "part_2.h5.part") + " -o " + (d / "early.h5"));
  CHECK(early.exit_code != 0);
  CHECK_THAT(early.output, Contains("shard 2/3 is unfinished") && Contains("--shard 2/3") && Contains("--resume"));
  const cli_result resumed = run_cli("run " + study + " --shard 2/3 -o " + (d / "part_2.h5") + " -j 2 --resume");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("1500 samples, shard 2/3") && Contains("resuming after sample"));
  REQUIRE(run_cli("run " + study + " --shard 3/3 -o " + (d / "part_3.h5") + " -j 1 -q").exit_code == 0);

  const io::ensemble part = io::read_ensemble(d / "part_3.h5", {.curves = false});
  CHECK(part.schema.metadata.shard_index == 3);
  CHECK(part.schema.metadata.shard_count == 3);
  CHECK(part.schema.metadata.shard_first == 3000);
  CHECK(part.rows == 1500);

  // Any order of the parts.
  const cli_result merged = run_cli("merge " + (d / "part_3.h5") + " " + (d / "part_1.h5") + " " +
                                    (d / "part_2.h5") + " -o " + (d / "merged.h5"));
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  CHECK_THAT(merged.output, Contains("4500 samples from 3 shards"));
  check_bit_identical(d / "merged.h5", d / "whole.h5");
  // summarize reads the merged file as any other.
  CHECK(run_cli("summarize " + (d / "merged.h5") + " --bootstrap 0").exit_code == 0);

  SECTION("merge refuses missing, duplicate and foreign parts with a clear message") {
    const cli_result missing =
        run_cli("merge " + (d / "part_1.h5") + " " + (d / "part_3.h5") + " -o " + (d / "bad.h5"));
    CHECK(missing.exit_code != 0);
    CHECK_THAT(missing.output, Contains("shard 2/3 is missing"));

    const cli_result twice = run_cli("merge " + (d / "part_1.h5") + " " + (d / "part_2.h5") + " " +
                                     (d / "part_1.h5") + " " + (d / "part_3.h5") + " -o " + (d / "bad.h5"));
    CHECK(twice.exit_code != 0);
    CHECK_THAT(twice.output, Contains("are both shard 1/3"));

    const std::string other = quickstart(d, "other.toml", 4500, 7);
    REQUIRE(run_cli("run " + other + " --shard 2/3 -o " + (d / "other_2.h5") + " -q").exit_code == 0);
    const cli_result foreign = run_cli("merge " + (d / "part_1.h5") + " " + (d / "other_2.h5") + " " +
                                       (d / "part_3.h5") + " -o " + (d / "bad.h5"));
    CHECK(foreign.exit_code != 0);
    CHECK_THAT(foreign.output, Contains("other_2.h5") && Contains("another run") && Contains("study text"));

    const cli_result whole = run_cli("merge " + (d / "whole.h5") + " -o " + (d / "bad.h5"));
    CHECK(whole.exit_code != 0);
    CHECK_THAT(whole.output, Contains("no shard file"));
    CHECK_FALSE(fs::exists(d / "bad.h5"));
  }
}

TEST_CASE("the Slurm array scripts, driven with the array variables, give the bits of one run", "[cli][merge]") {
  shard_dir d;
  const std::string study = quickstart(d, "slurm.toml", 900, 2026);
  REQUIRE(run_cli("run " + study + " -o " + (d / "whole.h5") + " -q").exit_code == 0);
  const std::string scripts = std::string(CONTACTUQ_SOURCE_DIR) + "/scripts/slurm/";
  const std::string env = "CONTACTUQ=" + std::string(CONTACTUQ_CLI) + " STUDY=" + study + " SHARDS=3 OUT=" +
                          (d / "run") + " ";

  SECTION("one array task at a time, then the merge job") {
    for (int k = 1; k <= 3; ++k) {
      const cli_result task =
          run_shell("env " + env + "SLURM_ARRAY_TASK_ID=" + std::to_string(k) + " bash " + scripts + "shard.sbatch");
      INFO(task.output);
      REQUIRE(task.exit_code == 0);
      CHECK(fs::exists(d / ("run/part_" + std::to_string(k) + ".done")));
    }
    const cli_result merge = run_shell("env " + env + "bash " + scripts + "merge.sbatch");
    INFO(merge.output);
    REQUIRE(merge.exit_code == 0);
    check_bit_identical(d / "run/study.h5", d / "whole.h5");
  }

  SECTION("submit, a failed shard, resubmission of that shard alone") {
    const std::string sbatch = "CONTACTUQ=" + std::string(CONTACTUQ_CLI) + " SBATCH=" +
                               std::string(CONTACTUQ_SOURCE_DIR) + "/tests/cli/fake_sbatch.sh FAKE_SBATCH_LOG=" +
                               (d / "sbatch.log") + " ";
    // Shard 2 fails: its part file is a directory the run cannot replace.
    fs::create_directories(d / "run/part_2.h5/blocked");
    const cli_result first = run_shell("env " + sbatch + "bash " + scripts + "submit.sh " + study + " 3 " + (d / "run"));
    INFO(first.output);
    CHECK(fs::exists(d / "run/part_1.done"));
    CHECK_FALSE(fs::exists(d / "run/part_2.done"));
    CHECK(fs::exists(d / "run/part_3.done"));
    CHECK_FALSE(fs::exists(d / "run/study.h5"));  // the merge depends on every shard

    fs::remove_all(d / "run/part_2.h5");
    const cli_result again =
        run_shell("env " + sbatch + "bash " + scripts + "submit.sh --resubmit " + study + " 3 " + (d / "run"));
    INFO(again.output);
    REQUIRE(again.exit_code == 0);
    CHECK_THAT(again.output, Contains("shards 2: job"));
    check_bit_identical(d / "run/study.h5", d / "whole.h5");
  }
}
