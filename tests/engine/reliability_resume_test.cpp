// Interrupted reliability runs (src/engine/reliability_journal.hpp): a run stopped between
// batches (here by run_options::max_new, the same path a signal or the time limit takes) keeps
// its batches in OUT.part, and --resume gives the result file of an uninterrupted run, bit for
// bit; a journal cut short by a kill is trimmed to its last whole batch; a journal of another
// study is refused.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "contactuq/engine/run_study.hpp"
#include "contactuq/io/hdf5.hpp"

namespace eng = contactuq::engine;
namespace io = contactuq::io;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

struct scratch {
  fs::path dir;
  explicit scratch(const std::string& name)
      : dir(fs::temp_directory_path() / ("contactuq_reliability_resume_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }
};

// The shipped subset study (ten standard normals, Pf = Phi(-5)) with 500 samples per level:
// a level-0 batch of 500 points, then batches of 50 (one row per chain), about 60 in all.
std::string subset_study(const std::string& seed = "seed = 1") {
  std::ifstream in(fs::path(CONTACTUQ_SOURCE_DIR) / "studies" / "reliability_linear_subset.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
  };
  replace("samples = 2000", "samples = 500");
  replace("seed = 1", seed);
  return s;
}

struct options {
  bool resume = false;
  std::size_t max_new = 0;
  const std::atomic<bool>* stop = nullptr;
  std::FILE* report = nullptr;
  std::FILE* errors = nullptr;
};

// A temporary stream for a run's report or errors, and what was written to it.
struct captured {
  std::FILE* file = std::tmpfile();
  ~captured() { std::fclose(file); }
  std::string text() const {
    std::rewind(file);
    std::string t(1 << 16, '\0');
    t.resize(std::fread(t.data(), 1, t.size(), file));
    return t;
  }
  // N of "<prefix>N batches" in the text; -1 when absent.
  long batches(const std::string& prefix) const {
    const std::string t = text();
    const auto at = t.find(prefix);
    return at == std::string::npos ? -1 : std::stol(t.substr(at + prefix.size()));
  }
};

eng::run_result run(const std::string& text, const fs::path& out, const options& given = {}) {
  eng::run_options o;
  o.output = out;
  o.threads = 2;
  o.resume = given.resume;
  o.max_new = given.max_new;
  o.stop = given.stop;
  o.report = given.report;
  o.errors = given.errors;
  return eng::run_study(io::study_document::parse(text, "subset.toml"), o);
}

// Every attribute and dataset under `g`, by path, as bytes (doubles bit for bit).
void contents(const io::hdf5::group& g, std::map<std::string, std::string>& to) {
  const auto bytes = [](const std::vector<double>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  };
  for (const std::string& a : g.attribute_names()) {
    std::string& value = to[g.path() + "@" + a];
    if (g.attribute_is_numeric(a)) value = bytes(g.doubles_attribute(a));
    else
      for (const auto& s : g.strings_attribute(a)) value += s + '\n';
  }
  for (const std::string& m : g.member_names()) {
    if (g.is_group(m)) contents(g.open_group(m), to);
    else to[g.path() + "/" + m] = bytes(g.open_dataset(m).read_doubles());
  }
}
std::map<std::string, std::string> reliability_of(const fs::path& file) {
  const io::hdf5::file f(file, io::hdf5::file_mode::read_only);
  std::map<std::string, std::string> c;
  contents(f.open_group("reliability"), c);
  c["/study"] = f.open_dataset("study").read_text();
  return c;
}

void require_same(const fs::path& a, const fs::path& b) {
  const auto x = reliability_of(a), y = reliability_of(b);
  REQUIRE(x.size() > 20);  // attributes and every level's datasets
  CHECK(x.size() == y.size());
  for (const auto& [name, value] : x) {
    INFO(name);
    const auto other = y.find(name);
    REQUIRE(other != y.end());
    CHECK((other->second == value));
  }
}

fs::path part_of(const fs::path& out) { return fs::path(out.string() + ".part"); }

}  // namespace

TEST_CASE("reliability: a run stopped between batches and resumed twice writes an uninterrupted run's file",
          "[engine][reliability]") {
  scratch s("twice");
  const std::string study = subset_study();
  const fs::path whole = s.dir / "whole.h5", out = s.dir / "out.h5";
  REQUIRE(run(study, whole).exit_code == 0);
  CHECK_FALSE(fs::exists(part_of(whole)));

  // Stopped before the batch that would take the model runs above 700.
  captured stopped;
  CHECK(run(study, out, {.max_new = 700, .errors = stopped.file}).exit_code == 130);
  CHECK_FALSE(fs::exists(out));
  REQUIRE(fs::exists(part_of(out)));
  CHECK_THAT(stopped.text(), Contains("--resume"));
  const long first = stopped.batches("interrupted; ");
  CHECK(first >= 2);  // the level-0 batch of 500 points and some chain steps
  // A run without --resume is refused: the unfinished run is kept.
  CHECK_THROWS_WITH(run(study, out), Contains("--resume"));
  // Replayed, then up to 700 more.
  captured again, replayed;
  CHECK(run(study, out, {.resume = true, .max_new = 700, .report = replayed.file, .errors = again.file}).exit_code ==
        130);
  CHECK(replayed.batches("resuming: ") == first);
  const long second = again.batches("interrupted; ");
  CHECK(second > first);
  CHECK_FALSE(fs::exists(out));

  captured report;
  REQUIRE(run(study, out, {.resume = true, .report = report.file}).exit_code == 0);
  CHECK(report.batches("resuming: ") == second);
  CHECK_THAT(report.text(), Contains("model runs replayed from the interrupted run"));
  CHECK_FALSE(fs::exists(part_of(out)));
  require_same(whole, out);

  // Finished: nothing to resume.
  CHECK_THROWS_WITH(run(study, out, {.resume = true}), Contains("finished"));
}

TEST_CASE("reliability: a run interrupted before its first batch resumes from the start", "[engine][reliability]") {
  scratch s("signal");
  const std::string study = subset_study();
  const fs::path whole = s.dir / "whole.h5", out = s.dir / "out.h5";
  REQUIRE(run(study, whole).exit_code == 0);
  const std::atomic<bool> stop = true;  // Ctrl-C before the run began
  CHECK(run(study, out, {.stop = &stop}).exit_code == 130);
  REQUIRE(fs::exists(part_of(out)));
  REQUIRE(run(study, out, {.resume = true}).exit_code == 0);
  require_same(whole, out);
}

TEST_CASE("reliability: a journal cut short by a kill is trimmed to its last whole batch", "[engine][reliability]") {
  // Torn inside the last batch's values, inside its 16-byte header, or after it (a few bytes of
  // the next record's header written).
  const auto [cut, junk] = GENERATE(table<int, int>({{1, 0}, {300, 0}, {0, 5}, {0, 16}}));
  scratch s("torn");
  const std::string study = subset_study();
  const fs::path whole = s.dir / "whole.h5", out = s.dir / "out.h5";
  REQUIRE(run(study, whole).exit_code == 0);
  captured stopped;
  REQUIRE(run(study, out, {.max_new = 700, .errors = stopped.file}).exit_code == 130);
  const long batches = stopped.batches("interrupted; ");
  const fs::path part = part_of(out);
  fs::resize_file(part, fs::file_size(part) - static_cast<std::uintmax_t>(cut));
  {
    std::ofstream tail(part, std::ios::binary | std::ios::app);
    tail << std::string(static_cast<std::size_t>(junk), '\x7f');
  }
  captured report;
  REQUIRE(run(study, out, {.resume = true, .report = report.file}).exit_code == 0);
  CHECK_THAT(report.text(), Contains("cut short by the interruption"));
  CHECK(report.batches("resuming: ") == (cut > 0 ? batches - 1 : batches));
  require_same(whole, out);
}

TEST_CASE("reliability: the journal of another study is refused and kept", "[engine][reliability]") {
  scratch s("other");
  const fs::path out = s.dir / "out.h5";
  REQUIRE(run(subset_study(), out, {.max_new = 700}).exit_code == 130);
  const auto size = fs::file_size(part_of(out));
  CHECK_THROWS_WITH(run(subset_study("seed = 2"), out, {.resume = true}),
                    Contains("different study") && Contains("seed = 2") && Contains("--force"));
  CHECK(fs::file_size(part_of(out)) == size);
  CHECK_FALSE(fs::exists(out));

  // Not a journal at all (another method's unfinished file) is refused too, not replaced.
  std::ofstream(part_of(out), std::ios::binary | std::ios::trunc) << "\x89HDF\r\n\x1a\n";
  CHECK_THROWS_WITH(run(subset_study(), out, {.resume = true}), Contains("not the journal of a reliability run"));
  // Nothing to resume at all.
  CHECK_THROWS_WITH(run(subset_study(), s.dir / "none.h5", {.resume = true}), Contains("no such file"));
}

TEST_CASE("reliability: a batch larger than a journal part is journaled in parts and resumed inside it",
          "[engine][reliability]") {
  scratch s("parts");
  std::string study = subset_study();
  study.replace(study.find("samples = 500"), 13, "samples = 2500");  // level 0: 3 parts of at most 1000
  const fs::path whole = s.dir / "whole.h5", out = s.dir / "out.h5";
  REQUIRE(run(study, whole).exit_code == 0);
  captured stopped;
  CHECK(run(study, out, {.max_new = 1500, .errors = stopped.file}).exit_code == 130);
  CHECK(stopped.batches("interrupted; ") == 1);  // the first 1000 points of level 0
  captured report;
  REQUIRE(run(study, out, {.resume = true, .report = report.file}).exit_code == 0);
  CHECK(report.batches("resuming: ") == 1);
  CHECK_THAT(report.text(), Contains("1000 model runs replayed"));
  require_same(whole, out);
}
