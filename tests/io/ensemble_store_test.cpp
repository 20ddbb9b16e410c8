#include "contactuq/io/ensemble_store.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "contactuq/error.hpp"
#include "contactuq/io/hdf5.hpp"
#include "io/scratch_dir.hpp"

using namespace contactuq::io;
using Catch::Matchers::Contains;
using contactuq::testing::scratch_dir;

namespace {

// The test ensemble. Its values follow formulas that tests/io/read_with_h5py_test.py repeats:
//   input(i, j)    = i + 0.125 (j + 1)
//   status(i)      = failed if i % 7 == 3, else not_run if i % 13 == 12, else ok
//   output(i, k)   = 10 i + k + 0.25              (NaN unless ok)
//   curve(c, i, p) = 1000 c + i + p / 64           (NaN unless ok)
//   message(i)     = "sample <i>: friction lock, μ too large" if failed,
//                    "not run: the study aborted"             if not_run, else ""
constexpr std::uint64_t test_seed = 18446744073709551557ull;  // > 2^63
const std::string test_study =
    "# receptacle–pin quickstart\n[study]\nmodel = \"receptacle_pin\"\nsamples = 60\n"
    "[inputs.mu]\ndistribution = \"normal(0.2, 0.02)\"\n";

ensemble_schema test_schema(std::size_t samples = 60) {
  ensemble_schema s;
  s.inputs = {
      {"mu", "", input_role::aleatoric, {{"distribution", "normal(mean=0.2, sd=0.02)"}}},
      {"theta0",
       "rad",
       input_role::aleatoric,
       {{"distribution", "uniform(0.01, 0.03)"}, {"note", "initial angle – gap"}}},
      {"contact_law", "", input_role::epistemic, {{"distribution", "choices(hertz, flores)"}}},
      {"d0", "m", input_role::fixed, {}},
      {"width", "m", input_role::design, {{"bounds", "[0.001, 0.002]"}}},
  };
  s.outputs = {{"peak_force", "N"}, {"peak_rotation", "rad"}, {"insertion_energy", "J"}};
  ensemble_curve force{"insertion_force", 40, "pin displacement", "m", "N", {}};
  for (std::size_t p = 0; p < force.points; ++p)
    force.abscissa.push_back(1e-4 * static_cast<double>(p));
  s.curves = {force, {"receptacle_rotation", 9, "step", "", "rad", {}}};
  s.metadata.study_text = test_study;
  s.metadata.study_path = "studies/quickstart.toml";
  s.metadata.model = "receptacle_pin";  // as the engine writes it: every result names its model
  s.metadata.git_commit = "0123abc";
  s.metadata.seed = test_seed;
  s.metadata.design = "lhs";
  s.metadata.samples = samples;
  s.metadata.start_time = "2024-05-01T12:00:00Z";
  s.metadata.host = "test-host";
  s.metadata.threads = 2;
  return s;
}

sample_status status_of(std::size_t i) {
  if (i % 7 == 3) return sample_status::failed;
  if (i % 13 == 12) return sample_status::not_run;
  return sample_status::ok;
}

double nan() { return std::numeric_limits<double>::quiet_NaN(); }
double input_value(std::size_t i, std::size_t j) {
  return static_cast<double>(i) + 0.125 * static_cast<double>(j + 1);
}
double output_value(std::size_t i, std::size_t k) {
  return status_of(i) == sample_status::ok
             ? 10.0 * static_cast<double>(i) + static_cast<double>(k) + 0.25
             : nan();
}
double curve_value(std::size_t c, std::size_t i, std::size_t p) {
  return status_of(i) == sample_status::ok
             ? 1000.0 * static_cast<double>(c) + static_cast<double>(i) +
                   static_cast<double>(p) / 64
             : nan();
}
std::string message_of(std::size_t i) {
  switch (status_of(i)) {
    case sample_status::failed:
      return "sample " + std::to_string(i) + ": friction lock, μ too large";
    case sample_status::not_run:
      return "not run: the study aborted";
    default:
      return "";
  }
}

ensemble_block test_block(const ensemble_schema& s, std::size_t first, std::size_t size) {
  auto block = make_block(s, first, size);
  for (std::size_t r = 0; r < size; ++r) {
    const std::size_t i = first + r;
    const auto row = static_cast<Eigen::Index>(r);
    for (std::size_t j = 0; j < s.inputs.size(); ++j)
      block.inputs(row, static_cast<Eigen::Index>(j)) = input_value(i, j);
    for (std::size_t k = 0; k < s.outputs.size(); ++k)
      block.outputs(row, static_cast<Eigen::Index>(k)) = output_value(i, k);
    for (std::size_t c = 0; c < s.curves.size(); ++c)
      for (std::size_t p = 0; p < s.curves[c].points; ++p)
        block.curves[c](row, static_cast<Eigen::Index>(p)) = curve_value(c, i, p);
    block.status[r] = static_cast<std::int32_t>(status_of(i));
    block.messages[r] = message_of(i);
  }
  return block;
}

// Appends samples [writer.completed(), end) in blocks of `block_size`; with `flush_each`, each
// block is made complete on disk at once (as the writer does when 250 ms have passed).
void write_samples(ensemble_writer& writer, std::size_t end, std::size_t block_size = 7, bool flush_each = false) {
  while (writer.completed() < end) {
    const std::size_t first = writer.completed();
    writer.append(test_block(writer.schema(), first, std::min(block_size, end - first)));
    if (flush_each) writer.flush();
  }
}

// Blocks of whole chunks compressed as worker threads do (precompress), then appended.
void write_precompressed(ensemble_writer& writer, std::size_t end) {
  while (writer.completed() < end) {
    const std::size_t first = writer.completed();
    auto block = test_block(writer.schema(), first, std::min(writer.chunk_rows(), end - first));
    writer.precompress(block);
    const bool whole = block.size() == writer.chunk_rows();
    CHECK(block.filtered_chunks.size() == (whole ? 2 + writer.schema().curves.size() + 1 : 0));
    writer.append(block);
  }
}

// The version in the project() line of the top-level CMakeLists.txt.
std::string project_version() {
  std::ifstream in(std::string(CONTACTUQ_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string key = "project(contactuq VERSION ";
  const auto at = text.find(key);
  REQUIRE(at != std::string::npos);
  const auto begin = at + key.size();
  return text.substr(begin, text.find_first_of(" )", begin) - begin);
}

bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Checks every value of `e` against the formulas above.
void check_values(const ensemble& e, std::size_t rows) {
  REQUIRE(e.rows == rows);
  const auto& s = e.schema;
  REQUIRE(e.inputs.rows() == static_cast<Eigen::Index>(rows));
  REQUIRE(e.inputs.cols() == static_cast<Eigen::Index>(s.inputs.size()));
  REQUIRE(e.outputs.rows() == static_cast<Eigen::Index>(rows));
  REQUIRE(e.outputs.cols() == static_cast<Eigen::Index>(s.outputs.size()));
  REQUIRE(e.curves.size() == s.curves.size());
  REQUIRE(e.status.size() == rows);
  REQUIRE(e.messages.size() == rows);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    for (std::size_t j = 0; j < s.inputs.size(); ++j)
      wrong += e.inputs(r, static_cast<Eigen::Index>(j)) != input_value(i, j);
    for (std::size_t k = 0; k < s.outputs.size(); ++k)
      wrong += !same_value(e.outputs(r, static_cast<Eigen::Index>(k)), output_value(i, k));
    for (std::size_t c = 0; c < s.curves.size(); ++c) {
      REQUIRE(e.curves[c].rows() == static_cast<Eigen::Index>(rows));
      REQUIRE(e.curves[c].cols() == static_cast<Eigen::Index>(s.curves[c].points));
      for (std::size_t p = 0; p < s.curves[c].points; ++p)
        wrong += !same_value(e.curves[c](r, static_cast<Eigen::Index>(p)), curve_value(c, i, p));
    }
    wrong += e.status[i] != static_cast<std::int32_t>(status_of(i));
    wrong += e.messages[i] != message_of(i);
  }
  CHECK(wrong == 0);
}

// Bit-for-bit equality of two ensembles' datasets (NaN payloads included).
bool same_bits(const sample_matrix& a, const sample_matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}
void check_identical(const ensemble& a, const ensemble& b) {
  REQUIRE(a.rows == b.rows);
  CHECK(same_bits(a.inputs, b.inputs));
  CHECK(same_bits(a.outputs, b.outputs));
  REQUIRE(a.curves.size() == b.curves.size());
  for (std::size_t c = 0; c < a.curves.size(); ++c) CHECK(same_bits(a.curves[c], b.curves[c]));
  CHECK(a.status == b.status);
  CHECK(a.messages == b.messages);
}

std::filesystem::path write_uninterrupted(const scratch_dir& dir, std::size_t samples = 60) {
  const auto path = dir / "reference.h5";
  auto writer = ensemble_writer::create(path, test_schema(samples));
  write_samples(writer, samples);
  writer.finish("2024-05-01T12:05:00Z");
  return path;
}

// Version byte of the HDF5 superblock (byte 8, after the signature): 3 for files written in
// the SWMR-capable 1.10 format, 2 or less for files HDF5 1.8 reads.
int superblock_version(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[9] = {};
  in.read(head, sizeof head);
  REQUIRE(std::string(head, 8) == "\x89HDF\r\n\x1a\n");
  return head[8];
}

// Runs `body` in a child process and waits for it; returns the wait status.
template <class Body>
int in_child(Body body) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      body();
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

bool killed(int wait_status) {
  return WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL;
}

}  // namespace

TEST_CASE("an ensemble written in blocks reads back with its schema and metadata", "[io]") {
  scratch_dir dir;
  const auto path = dir / "ensemble.h5";
  const auto schema = test_schema();
  {
    auto writer = ensemble_writer::create(path, schema, {.chunk_rows = 16});
    CHECK(writer.completed() == 0);
    CHECK(writer.samples() == 60);
    write_samples(writer, 60);  // 8 blocks of 7 and one of 4
    CHECK(writer.completed() == 60);
    writer.finish("2024-05-01T12:05:00Z");
  }
  const auto e = read_ensemble(path);
  check_values(e, 60);

  const auto& s = e.schema;
  REQUIRE(s.inputs.size() == schema.inputs.size());
  for (std::size_t j = 0; j < s.inputs.size(); ++j) {
    CHECK(s.inputs[j].name == schema.inputs[j].name);
    CHECK(s.inputs[j].unit == schema.inputs[j].unit);
    CHECK(s.inputs[j].role == schema.inputs[j].role);
    CHECK(s.inputs[j].attributes == schema.inputs[j].attributes);
  }
  REQUIRE(s.outputs.size() == 3);
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(s.outputs[k].name == schema.outputs[k].name);
    CHECK(s.outputs[k].unit == schema.outputs[k].unit);
  }
  REQUIRE(s.curves.size() == 2);
  for (std::size_t c = 0; c < 2; ++c) {
    CHECK(s.curves[c].name == schema.curves[c].name);
    CHECK(s.curves[c].points == schema.curves[c].points);
    CHECK(s.curves[c].abscissa_name == schema.curves[c].abscissa_name);
    CHECK(s.curves[c].abscissa_unit == schema.curves[c].abscissa_unit);
    CHECK(s.curves[c].ordinate_unit == schema.curves[c].ordinate_unit);
    CHECK(s.curves[c].abscissa == schema.curves[c].abscissa);
  }
  const auto& m = s.metadata;
  CHECK(m.study_text == test_study);
  CHECK(m.study_path == "studies/quickstart.toml");
  CHECK(m.contactuq_version == project_version());
  CHECK(m.git_commit == "0123abc");
  CHECK(m.seed == test_seed);
  CHECK(m.design == "lhs");
  CHECK(m.samples == 60);
  CHECK(m.start_time == "2024-05-01T12:00:00Z");
  CHECK(m.end_time == "2024-05-01T12:05:00Z");
  CHECK(m.host == "test-host");
  CHECK(m.threads == 2);
  CHECK(e.resume_log.empty());

  CHECK(e.input_index("theta0") == 1);
  CHECK(e.output_index("insertion_energy") == 2);
  CHECK(e.curve_index("receptacle_rotation") == 1);
  CHECK_THROWS_WITH(e.output_index("peak"), Contains("peak_force, peak_rotation"));
}

TEST_CASE("the layout is the documented one: chunked, compressed, named paths", "[io]") {
  scratch_dir dir;
  const auto path = dir / "layout.h5";
  auto writer = ensemble_writer::create(path, test_schema(), {.chunk_rows = 16});
  write_samples(writer, 60);
  writer.finish("2024-05-01T12:05:00Z");
  // Read with the plain wrapper, the way docs/hdf5-schema.md describes the file.
  using namespace contactuq::io::hdf5;
  const file f(path, file_mode::read_only);
  CHECK(f.string_attribute("format") == "contactuq-ensemble");
  CHECK(f.numeric_attribute<std::int64_t>("format_version") == 1);
  CHECK(f.open_dataset("study").read_text() == test_study);
  CHECK(f.open_dataset("inputs").shape() == std::vector<std::size_t>{60, 5});
  CHECK(f.open_dataset("inputs").chunk_shape() == std::vector<std::size_t>{16, 5});
  CHECK(f.open_dataset("inputs").strings_attribute("roles") ==
        std::vector<std::string>{"aleatoric", "aleatoric", "epistemic", "fixed", "design"});
  CHECK(f.open_dataset("inputs").strings_attribute("column_attributes") ==
        std::vector<std::string>{"distribution", "note", "bounds"});
  CHECK(f.open_dataset("inputs").strings_attribute("bounds") ==
        std::vector<std::string>{"", "", "", "", "[0.001, 0.002]"});
  CHECK(f.open_dataset("outputs").shape() == std::vector<std::size_t>{60, 3});
  CHECK(f.open_group("curves").strings_attribute("names") ==
        std::vector<std::string>{"insertion_force", "receptacle_rotation"});
  CHECK(f.open_group("curves").open_dataset("insertion_force").shape() ==
        std::vector<std::size_t>{60, 40});
  CHECK(f.open_dataset("status").strings_attribute("codes") ==
        std::vector<std::string>{"ok", "failed", "not_run"});
  CHECK(f.open_dataset("messages").shape() == std::vector<std::size_t>{60});
  CHECK_FALSE(f.open_dataset("messages").is_variable_text());
  CHECK(f.open_group("metadata").numeric_attribute<std::uint64_t>("seed") == test_seed);
}

TEST_CASE("every dataset has chunks of the same samples, ~256 KiB for the widest", "[io]") {
  scratch_dir dir;
  const auto path = dir / "chunks.h5";
  auto schema = test_schema(5000);
  schema.curves[0].points = 1000;  // 8000-byte rows: the widest
  schema.curves[0].abscissa.clear();
  std::size_t rows = 0;
  {
    auto writer = ensemble_writer::create(path, schema);
    rows = writer.chunk_rows();
    const double chunk_bytes = 8000.0 * static_cast<double>(rows);
    CHECK(chunk_bytes <= 256 * 1024);
    CHECK(chunk_bytes > 128 * 1024);
    write_samples(writer, 1);
  }
  CHECK(ensemble_writer::resume(path, schema).chunk_rows() == rows);
  using namespace contactuq::io::hdf5;
  const file f(path, file_mode::read_only, {.latest_format = false, .swmr_read = false});
  for (const char* name : {"inputs", "outputs", "status", "messages"})
    CHECK(f.open_dataset(name).chunk_shape().at(0) == rows);
  CHECK(f.open_group("curves").open_dataset("insertion_force").chunk_shape() ==
        std::vector<std::size_t>{rows, 1000});
  CHECK(f.open_group("curves").open_dataset("receptacle_rotation").chunk_shape().at(0) == rows);
}

TEST_CASE("a study with no scalar outputs, no curves and one sample round-trips", "[io]") {
  scratch_dir dir;
  auto schema = test_schema(1);
  schema.outputs.clear();
  schema.curves.clear();
  const auto path = dir / "bare.h5";
  auto writer = ensemble_writer::create(path, schema);
  write_samples(writer, 1);
  writer.finish("2024-05-01T12:05:00Z");
  const auto e = read_ensemble(path);
  check_values(e, 1);
  CHECK(e.outputs.cols() == 0);
}

TEST_CASE("appending continues across a clean close and reopening", "[io]") {
  scratch_dir dir;
  const auto reference = read_ensemble(write_uninterrupted(dir));
  const auto path = dir / "reopened.h5";
  {
    auto writer = ensemble_writer::create(path, test_schema());
    write_samples(writer, 21);
  }  // closed without finish(): an interrupted run (Ctrl-C)
  CHECK(read_ensemble(path).rows == 21);
  CHECK(read_ensemble(path).schema.metadata.end_time.empty());
  {
    auto writer = ensemble_writer::resume(path, test_schema());
    CHECK(writer.completed() == 21);
    write_samples(writer, 40, 5);
  }
  auto writer = ensemble_writer::resume(path, test_schema());
  CHECK(writer.completed() == 40);
  write_samples(writer, 60, 11);
  writer.finish("2024-05-01T13:00:00Z");

  const auto e = read_ensemble(path);
  check_values(e, 60);
  check_identical(e, reference);
  REQUIRE(e.resume_log.size() == 2);
  CHECK_THAT(e.resume_log[0], Contains("resumed at sample 21 of 60"));
  CHECK_THAT(e.resume_log[1], Contains("resumed at sample 40 of 60"));
  CHECK(e.schema.metadata.start_time == "2024-05-01T12:00:00Z");  // the first run's
  CHECK(e.schema.metadata.end_time == "2024-05-01T13:00:00Z");
}

TEST_CASE("a writer killed after a flushed block loses nothing, resume equals an uninterrupted run",
          "[io]") {
  scratch_dir dir;
  const auto reference = read_ensemble(write_uninterrupted(dir));
  const std::size_t blocks = GENERATE(1, 4, 8);
  const auto path = dir / ("killed-" + std::to_string(blocks) + ".h5");
  const int status = in_child([&] {
    auto writer = ensemble_writer::create(path, test_schema());
    write_samples(writer, 7 * blocks);
    writer.flush();  // appends are flushed every 250 ms; the test kills right after a flush
    ::raise(SIGKILL);
  });
  REQUIRE(killed(status));

  // The killed writer's file reads as it was after its last flush; nothing is at `path` yet.
  CHECK_FALSE(std::filesystem::exists(path));
  check_values(read_ensemble(unfinished_path(path)), 7 * blocks);
  auto writer = ensemble_writer::resume(path, test_schema());
  CHECK(writer.completed() == 7 * blocks);
  write_samples(writer, 60);
  writer.finish("2024-05-01T12:05:00Z");
  const auto e = read_ensemble(path);
  check_values(e, 60);
  check_identical(e, reference);
}

TEST_CASE("a writer killed at an arbitrary moment resumes to the uninterrupted result", "[io]") {
  scratch_dir dir;
  constexpr std::size_t samples = 600, block = 5;
  const auto reference = read_ensemble(write_uninterrupted(dir, samples));
  const int reported = GENERATE(1, 9, 40);
  const auto path = dir / ("killed-" + std::to_string(reported) + ".h5");

  // The child reports each flushed block on a pipe and goes on writing; the parent kills it
  // with SIGKILL as soon as it has `reported` reports, in the middle of whatever it does then.
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    try {
      auto writer = ensemble_writer::create(path, test_schema(samples));
      while (writer.completed() < samples) {
        writer.append(test_block(writer.schema(), writer.completed(), block));
        writer.flush();
        const char done = 1;
        if (::write(pipe_fds[1], &done, 1) != 1) ::_exit(4);
      }
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  for (int k = 0; k < reported; ++k) {
    char done = 0;
    REQUIRE(::read(pipe_fds[0], &done, 1) == 1);
  }
  ::kill(child, SIGKILL);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE((killed(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)));

  const auto partial = read_ensemble(std::filesystem::exists(unfinished_path(path)) ? unfinished_path(path) : path);
  INFO("complete samples after the kill: " << partial.rows);
  CHECK(partial.rows >= block * static_cast<std::size_t>(reported));  // every reported block
  CHECK(partial.rows % block == 0);                                   // no half block
  check_values(partial, partial.rows);
  auto writer = ensemble_writer::resume(path, test_schema(samples));
  CHECK(writer.completed() == partial.rows);
  write_samples(writer, samples, 23);
  writer.finish("2024-05-01T12:05:00Z");
  const auto e = read_ensemble(path);
  check_values(e, samples);
  check_identical(e, reference);
}

TEST_CASE("rows written after the last complete sample are dropped on resume", "[io]") {
  scratch_dir dir;
  const auto reference = read_ensemble(write_uninterrupted(dir));
  const auto path = dir / "partial.h5";
  {
    auto writer = ensemble_writer::create(path, test_schema());
    write_samples(writer, 21);
  }
  {
    // What a block in flight leaves: some datasets longer than others, junk values, and
    // status rows that grew but were never written.
    using namespace contactuq::io::hdf5;
    file f(path, file_mode::read_write);
    f.open_dataset("inputs").append_rows(std::vector<double>(5 * 5, -999.0));
    f.open_dataset("outputs").append_rows(std::vector<double>(3 * 3, -999.0));
    f.open_group("curves")
        .open_dataset("insertion_force")
        .append_rows(std::vector<double>(40, 1.0));
    f.open_dataset("messages").append_rows(std::vector<std::string>(4, "junk"));
    f.open_dataset("status").resize_rows(25);
  }
  CHECK(read_ensemble(path).rows == 21);
  auto writer = ensemble_writer::resume(path, test_schema());
  CHECK(writer.completed() == 21);
  write_samples(writer, 60);
  writer.finish("2024-05-01T12:05:00Z");
  const auto e = read_ensemble(path);
  check_values(e, 60);
  check_identical(e, reference);
}

TEST_CASE("resuming with another study is refused with the first difference", "[io]") {
  scratch_dir dir;
  const auto path = dir / "other.h5";
  {
    auto writer = ensemble_writer::create(path, test_schema());
    write_samples(writer, 14);
  }
  auto changed = test_schema();
  changed.metadata.study_text.replace(changed.metadata.study_text.find("60"), 2, "61");
  CHECK_THROWS_MATCHES(ensemble_writer::resume(path, changed), ensemble_error,
                       Catch::Matchers::Predicate<ensemble_error>(
                           [](const ensemble_error& e) {
                             const std::string what = e.what();
                             return what.find("different study") != std::string::npos &&
                                    what.find("line 4") != std::string::npos &&
                                    what.find("samples = 61") != std::string::npos &&
                                    what.find("other.h5") != std::string::npos;
                           },
                           "names the file, the study and line 4"));
  auto renamed = test_schema();
  renamed.inputs[1].name = "theta_0";
  CHECK_THROWS_WITH(ensemble_writer::resume(path, renamed),
                    Contains("inputs are [mu, theta0,") && Contains("[mu, theta_0,"));
  auto truncated = test_schema();
  truncated.metadata.study_text.pop_back();  // even a missing final newline is another study
  CHECK_THROWS_AS(ensemble_writer::resume(path, truncated), ensemble_error);

  // The refusals left the file as it was.
  auto writer = ensemble_writer::resume(path, test_schema());
  CHECK(writer.completed() == 14);
}

TEST_CASE("a file another process is writing cannot be resumed", "[io]") {
  scratch_dir dir;
  const auto path = dir / "busy.h5";
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      auto writer = ensemble_writer::create(path, test_schema());
      write_samples(writer, 7);
      writer.flush();
      const char c = 1;
      if (::write(ready[1], &c, 1) != 1) ::_exit(4);
      char d = 0;
      if (::read(done[0], &d, 1) != 1) ::_exit(4);  // hold the file until told
      write_samples(writer, 14);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_WITH(ensemble_writer::resume(path, test_schema()),
                    Contains("busy.h5") && Contains("being written by another process"));
  CHECK(read_ensemble(unfinished_path(path)).rows == 7);  // reading while it is written is fine
  REQUIRE(::write(done[1], &c, 1) == 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(ensemble_writer::resume(path, test_schema()).completed() == 14);
}

TEST_CASE("blocks out of order or of the wrong shape are refused", "[io]") {
  scratch_dir dir;
  auto writer = ensemble_writer::create(dir / "blocks.h5", test_schema());
  const auto& s = writer.schema();
  CHECK_THROWS_WITH(writer.append(test_block(s, 7, 7)), Contains("next sample to write is 0"));
  CHECK_THROWS_AS(writer.append(test_block(s, 0, 0)), std::invalid_argument);
  auto wide = test_block(s, 0, 7);
  wide.outputs.conservativeResize(7, 4);
  CHECK_THROWS_WITH(writer.append(wide), Contains("outputs are 7 x 4, expected 7 x 3"));
  auto short_curve = test_block(s, 0, 7);
  short_curve.curves[0].conservativeResize(7, 39);
  CHECK_THROWS_WITH(writer.append(short_curve), Contains("insertion_force"));
  auto few_messages = test_block(s, 0, 7);
  few_messages.messages.pop_back();
  CHECK_THROWS_AS(writer.append(few_messages), std::invalid_argument);
  write_samples(writer, 56);
  CHECK_THROWS_WITH(writer.append(test_block(s, 56, 5)), Contains("60 samples"));
  CHECK(writer.completed() == 56);
}

TEST_CASE("schema errors name the field", "[io]") {
  const auto field_of = [](const ensemble_schema& s) {
    try {
      s.validate();
    } catch (const contactuq::parameter_error& e) {
      return e.field();
    }
    return std::string("(valid)");
  };
  CHECK(field_of(test_schema()) == "(valid)");
  auto s = test_schema();
  s.inputs[3].name = "mu";
  CHECK(field_of(s) == "inputs[3].name");
  s = test_schema();
  s.inputs[0].attributes.emplace_back("units", "m");
  CHECK(field_of(s) == "inputs[0].attributes");
  s = test_schema();
  s.outputs[1].name.clear();
  CHECK(field_of(s) == "outputs[1].name");
  s = test_schema();
  s.curves[1].name = "a/b";
  CHECK(field_of(s) == "curves[1].name");
  s = test_schema();
  s.curves[0].abscissa.pop_back();
  CHECK(field_of(s) == "curves[0].abscissa");
  s = test_schema();
  s.curves[1].points = 0;
  CHECK(field_of(s) == "curves[1].points");
  s = test_schema(0);
  CHECK(field_of(s) == "metadata.samples");
  CHECK_THROWS_AS(ensemble_options{.deflate_level = 10}.validate(), contactuq::parameter_error);
  CHECK(parse_input_role("epistemic") == input_role::epistemic);
  CHECK_THROWS_WITH(parse_input_role("random"), Contains("fixed, design, aleatoric or epistemic"));
}

TEST_CASE("a finished complete file is converted for HDF5 1.8 readers, resuming it is refused",
          "[io]") {
  scratch_dir dir;
  const auto path = dir / "finished.h5";
  auto writer = ensemble_writer::create(path, test_schema());
  write_samples(writer, 30);
  CHECK(superblock_version(unfinished_path(path)) == 3);  // SWMR writing needs the 1.10 format
  write_samples(writer, 60);
  writer.finish("2024-05-01T12:05:00Z");
  CHECK(superblock_version(path) <= 2);
  CHECK_THROWS_AS(writer.append(test_block(test_schema(), 60, 1)), std::logic_error);

  CHECK_THROWS_WITH(ensemble_writer::resume(path, test_schema()),
                    Contains("finished.h5") && Contains("the run is finished (all 60 samples") &&
                        Contains("nothing to resume"));
  const auto e = read_ensemble(path);
  check_values(e, 60);
  CHECK(e.schema.metadata.end_time == "2024-05-01T12:05:00Z");
}

TEST_CASE("a finish interrupted before its rename leaves a file that resumes and finishes",
          "[io]") {
  scratch_dir dir;
  const auto path = dir / "unfinished.h5";
  {
    auto writer = ensemble_writer::create(path, test_schema());
    write_samples(writer, 60);
  }  // every sample written, finish() never ran to its end
  // What a finish killed before its rename leaves next to the file: a half-made copy.
  std::ofstream(dir / "unfinished.h5.new") << "half a copy";
  CHECK(read_ensemble(path).schema.metadata.end_time.empty());
  auto writer = ensemble_writer::resume(path, test_schema());
  CHECK(writer.completed() == 60);
  writer.finish("2024-05-01T12:07:00Z");
  CHECK_FALSE(std::filesystem::exists(dir / "unfinished.h5.new"));
  const auto e = read_ensemble(path);
  check_values(e, 60);
  CHECK(e.schema.metadata.end_time == "2024-05-01T12:07:00Z");
  CHECK(superblock_version(path) <= 2);
}

TEST_CASE("chunks compressed off the writer read back as the same values", "[io]") {
  scratch_dir dir;
  for (const int level : {1, 6}) {
    const auto direct = dir / "direct.h5", plain = dir / "plain.h5";
    {
      auto writer = ensemble_writer::create(direct, test_schema(), {.chunk_rows = 16, .deflate_level = level});
      write_precompressed(writer, 60);  // 3 whole chunks written directly, the last 12 rows not
      writer.finish("2024-05-01T12:05:00Z");
      auto other = ensemble_writer::create(plain, test_schema(), {.chunk_rows = 16, .deflate_level = level});
      write_samples(other, 60, 16);
      other.finish("2024-05-01T12:05:00Z");
    }
    const auto e = read_ensemble(direct);
    check_values(e, 60);
    // Compressed as well as HDF5's own shuffle and deflate filters do, give or take.
    const auto uncompressed = dir / "uncompressed.h5";
    {
      auto writer = ensemble_writer::create(uncompressed, test_schema(), {.chunk_rows = 16, .deflate_level = 0});
      write_samples(writer, 60, 16);
      writer.finish("2024-05-01T12:05:00Z");
    }
    const auto size = static_cast<double>(std::filesystem::file_size(direct));
    CHECK(size < 0.8 * static_cast<double>(std::filesystem::file_size(uncompressed)));
    CHECK(size == Approx(static_cast<double>(std::filesystem::file_size(plain))).epsilon(0.05));
  }
  // A block that is not one whole chunk is left to the writer.
  auto writer = ensemble_writer::create(dir / "partial.h5", test_schema(), {.chunk_rows = 16});
  auto block = test_block(writer.schema(), 0, 7);
  writer.precompress(block);
  CHECK(block.filtered_chunks.empty());
  // Uncompressed datasets have nothing to move off the writer.
  auto raw = ensemble_writer::create(dir / "raw.h5", test_schema(), {.chunk_rows = 16, .deflate_level = 0});
  auto whole = test_block(raw.schema(), 0, 16);
  raw.precompress(whole);
  CHECK(whole.filtered_chunks.empty());
}

TEST_CASE("a write that fails (file size limit) exits cleanly, keeps what was complete, resumes bit-identical",
          "[io]") {
  scratch_dir dir;
  constexpr std::size_t samples = 3000;
  const auto reference = read_ensemble(write_uninterrupted(dir, samples));
  const auto path = dir / "limited.h5";
  std::ofstream(path) << "the previous result";
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // EFBIG from write(), as on a full disk, instead of the SIGXFSZ that would kill the child.
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{256 * 1024, 256 * 1024};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(4);
    int code = 5;
    try {
      auto writer = ensemble_writer::create(path, test_schema(samples));
      write_samples(writer, samples, 50, true);
    } catch (const ensemble_error& e) {
      const std::string what = e.what();
      code = what.find("cannot write samples") != std::string::npos && what.find("--resume") != std::string::npos ? 10
                                                                                                                : 6;
    } catch (...) {
      code = 7;
    }
    // exit, not _exit: the exit handlers run, where closing the failed file used to fault.
    std::exit(code);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 10);

  // The previous result is untouched; the samples written before the failure are complete.
  std::ifstream previous(path);
  CHECK(std::string(std::istreambuf_iterator<char>(previous), {}) == "the previous result");
  const auto partial = read_ensemble(unfinished_path(path));
  CHECK(partial.rows > 0);
  CHECK(partial.rows < samples);
  CHECK(partial.rows % 50 == 0);
  check_values(partial, partial.rows);

  auto writer = ensemble_writer::resume(path, test_schema(samples));
  CHECK(writer.completed() == partial.rows);
  write_samples(writer, samples, 50);
  writer.finish("2024-05-01T12:05:00Z");
  CHECK_FALSE(std::filesystem::exists(unfinished_path(path)));
  check_identical(read_ensemble(path), reference);
}

TEST_CASE("a run that stops before its first sample leaves the previous file as it was", "[io]") {
  scratch_dir dir;
  const auto path = dir / "kept.h5";
  std::ofstream(path) << "the previous result";
  { auto writer = ensemble_writer::create(path, test_schema()); }
  std::ifstream previous(path);
  CHECK(std::string(std::istreambuf_iterator<char>(previous), {}) == "the previous result");
  CHECK_FALSE(std::filesystem::exists(unfinished_path(path)));
  // Closed with samples written, the run replaces it.
  auto writer = ensemble_writer::create(path, test_schema());
  write_samples(writer, 14);
  writer.close();
  CHECK(read_ensemble(path).rows == 14);
}

namespace {

std::vector<char> file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Offset of the size field of the first object of the first global heap collection (where
// variable-length strings live): "GCOL", version, 3 reserved, 8-byte collection size, then
// per object index (2), references (2), reserved (4), size (8).
std::size_t first_heap_object_size(const std::vector<char>& bytes) {
  const std::string_view view(bytes.data(), bytes.size());
  const auto at = view.find(std::string_view("GCOL\x01\0\0\0", 8));
  REQUIRE(at != std::string_view::npos);
  return at + 16 + 8;
}

}  // namespace

TEST_CASE("damaged files are a clear error at once, never a hang or a crash", "[io]") {
  scratch_dir dir;
  const auto good = write_uninterrupted(dir);
  const auto bytes = file_bytes(good);

  SECTION("a flipped byte in the superblock fails its checksum") {
    auto damaged = bytes;
    REQUIRE(damaged.size() > 48);
    damaged[20] = static_cast<char>(damaged[20] ^ 0x01);  // the end-of-file address, checksummed
    const auto path = dir / "superblock.h5";
    write_bytes(path, damaged);
    CHECK_THROWS_WITH(read_ensemble(path), Contains("superblock.h5") && Contains("checksum"));
    CHECK_THROWS_AS(file_format(path), hdf5::error);
    CHECK_THROWS(ensemble_writer::resume(path, test_schema()));
  }
  SECTION("a changed string length in the global heap") {
    // Each flip changes the padded size of the first string (the format attribute) so that
    // its end no longer falls on the start of another object. The check cannot see a change
    // that lands exactly on a later object's start (the heap then still tiles, and HDF5 reads
    // inside it); which flips do depends on the strings that follow, here those of the root
    // attributes every result file has (io::write_result_header).
    for (const int flip : {0x08, 0x40, 0x80}) {
      auto damaged = bytes;
      const std::size_t at = first_heap_object_size(damaged);
      damaged[at] = static_cast<char>(damaged[at] ^ flip);
      const auto path = dir / "heap.h5";
      write_bytes(path, damaged);
      CHECK_THROWS_WITH(read_ensemble(path), Contains("heap.h5") && Contains("damaged file") && Contains("global heap"));
      CHECK_THROWS_AS(file_format(path), hdf5::error);
      CHECK_THROWS_AS(ensemble_writer::resume(path, test_schema()), hdf5::error);
    }
  }
  SECTION("status codes and shapes are checked before they are trusted") {
    const auto path = dir / "codes.h5";
    std::filesystem::copy_file(good, path);
    {
      hdf5::file f(path, hdf5::file_mode::read_write, {.latest_format = false});
      f.open_dataset("status").write_rows(5, std::vector<std::int32_t>{7});
      f.close();
    }
    CHECK_THROWS_WITH(read_ensemble(path), Contains("/status[5] = 7"));
    const auto samples = dir / "samples.h5";
    std::filesystem::copy_file(good, samples);
    {
      hdf5::file f(samples, hdf5::file_mode::read_write, {.latest_format = false});
      f.open_group("metadata").set_attribute("samples", std::uint64_t{0});
      f.close();
    }
    CHECK_THROWS_WITH(read_ensemble(samples), Contains("damaged file") && Contains("metadata.samples"));
  }
}

TEST_CASE("python3-h5py reads the ensemble without contactuq", "[io][python]") {
  scratch_dir dir;
  const auto finished = dir / "finished.h5";
  const auto interrupted_result = dir / "interrupted.h5";
  const auto interrupted = unfinished_path(interrupted_result);  // where a killed run leaves it
  {
    auto writer = ensemble_writer::create(finished, test_schema(), {.chunk_rows = 16});
    write_precompressed(writer, 60);
    writer.finish("2024-05-01T12:05:00Z");
  }
  REQUIRE(killed(in_child([&] {
    auto writer = ensemble_writer::create(interrupted_result, test_schema());
    write_samples(writer, 35);
    writer.flush();
    ::raise(SIGKILL);
  })));
  const std::string source = CONTACTUQ_SOURCE_DIR;
  const std::string command = "PYTHONPATH='" + source + "/python' /usr/bin/python3 '" + source +
                              "/tests/io/read_with_h5py_test.py' '" + finished.string() + "' '" +
                              interrupted.string() + "' 35";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

namespace {
std::size_t interrupt_at = 0;  // the change of the file at which the finish is interrupted
void interrupt_finish(std::size_t k) {
  if (k == interrupt_at) throw std::runtime_error("killed while finishing");
}
}  // namespace

TEST_CASE("a finish interrupted while it changes the file is undone, then resumed and finished",
          "[io]") {
  for (const bool moved : {false, true}) {
    for (const std::size_t at : {0, 1, 3}) {
      scratch_dir dir;
      const auto path = dir / "interrupted.h5";
      // Every sample written, the run closed without finishing (which moves the file to
      // `path`). moved: resumed there; else as a killed run leaves it, at the working name.
      {
        auto writer = ensemble_writer::create(path, test_schema());
        write_samples(writer, 60);
      }
      if (!moved) std::filesystem::rename(path, unfinished_path(path));
      const auto working = moved ? path : unfinished_path(path);
      auto undo_log = working;
      undo_log += ".undo";
      {
        auto writer = ensemble_writer::resume(path, test_schema());
        CHECK(writer.completed() == 60);
        interrupt_at = at;
        detail::before_finish_write = interrupt_finish;
        CHECK_THROWS_WITH(writer.finish("2024-05-01T12:05:00Z"), Contains("killed while finishing"));
        detail::before_finish_write = nullptr;
      }  // the writer goes without touching the file again
      CHECK(std::filesystem::exists(undo_log));
      recover_interrupted_finish(path);
      CHECK_FALSE(std::filesystem::exists(undo_log));
      // As before the finish, but for the resume it logged.
      const auto e = read_ensemble(working);
      check_values(e, 60);
      CHECK(e.schema.metadata.end_time.empty());
      CHECK(superblock_version(working) == 3);
      CHECK(e.resume_log.size() == 1);

      auto writer = ensemble_writer::resume(path, test_schema());
      CHECK(writer.completed() == 60);
      writer.finish("2024-05-01T12:07:00Z");
      CHECK_FALSE(std::filesystem::exists(undo_log));
      CHECK_FALSE(std::filesystem::exists(unfinished_path(path)));
      const auto finished = read_ensemble(path);
      check_values(finished, 60);
      CHECK(finished.schema.metadata.end_time == "2024-05-01T12:07:00Z");
      CHECK(superblock_version(path) <= 2);
    }
  }
}

TEST_CASE("a new run drops the undo log of an interrupted finish, resume undoes it itself", "[io]") {
  scratch_dir dir;
  const auto path = dir / "restarted.h5";
  auto undo_log = unfinished_path(path);
  undo_log += ".undo";
  const auto interrupted = [&] {
    {
      auto writer = ensemble_writer::create(path, test_schema());
      write_samples(writer, 60);
    }
    std::filesystem::rename(path, unfinished_path(path));
    auto writer = ensemble_writer::resume(path, test_schema());
    interrupt_at = 1;
    detail::before_finish_write = interrupt_finish;
    CHECK_THROWS(writer.finish("2024-05-01T12:05:00Z"));
    detail::before_finish_write = nullptr;
  };
  interrupted();
  REQUIRE(std::filesystem::exists(undo_log));
  {
    auto writer = ensemble_writer::resume(path, test_schema());  // undoes it first
    CHECK_FALSE(std::filesystem::exists(undo_log));
    CHECK(writer.completed() == 60);
    writer.finish("2024-05-01T12:06:00Z");
  }
  CHECK(read_ensemble(path).schema.metadata.end_time == "2024-05-01T12:06:00Z");
  std::filesystem::remove(path);
  interrupted();
  {
    auto writer = ensemble_writer::create(path, test_schema());  // --force
    CHECK_FALSE(std::filesystem::exists(undo_log));
    write_samples(writer, 60);
    writer.finish("2024-05-01T12:08:00Z");
  }
  const auto e = read_ensemble(path);
  check_values(e, 60);
  CHECK(e.schema.metadata.end_time == "2024-05-01T12:08:00Z");
  CHECK(e.resume_log.empty());
}

TEST_CASE("a chunk assembled from many small blocks, each made complete on disk, reads back the same values",
          "[io][block_seconds]") {
  // A costly study's blocks are a few samples each, flushed as they come (the runner's
  // block_seconds): every chunk is written many times, a little fuller each time.
  scratch_dir dir;
  const auto whole = dir / "whole.h5", small = dir / "small.h5";
  {
    auto writer = ensemble_writer::create(whole, test_schema(600), {.chunk_rows = 256});
    write_precompressed(writer, 600);
    writer.finish("2024-05-01T12:05:00Z");
    auto other = ensemble_writer::create(small, test_schema(600), {.chunk_rows = 256});
    write_samples(other, 600, 4, true);
    other.finish("2024-05-01T12:05:00Z");
  }
  check_identical(read_ensemble(small), read_ensemble(whole));
  // Each rewrite of a chunk leaves part of its last version's space behind (io/ensemble_writer.cpp):
  // with blocks of 1/64 of a chunk, the runner's smallest, the file stays within a bound.
  const auto bytes = [](const std::filesystem::path& p) { return static_cast<double>(std::filesystem::file_size(p)); };
  INFO(bytes(small) << " bytes in blocks of 4, " << bytes(whole) << " in whole chunks");
  CHECK(bytes(small) < 16.0 * bytes(whole));
}
