#include "contactuq/io/hdf5.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include "io/scratch_dir.hpp"

using namespace contactuq::io::hdf5;
using Catch::Matchers::Contains;
using contactuq::testing::scratch_dir;

namespace {

// Everything written to file descriptor 2 between construction and text().
class stderr_capture {
 public:
  explicit stderr_capture(std::filesystem::path file) : file_(std::move(file)) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~stderr_capture() { restore(); }
  std::string text() {
    restore();
    std::ifstream in(file_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::filesystem::path file_;
  int saved_ = -1;
};

}  // namespace

TEST_CASE("attributes of every kind round-trip on files, groups and datasets", "[io][hdf5]") {
  scratch_dir dir;
  const auto path = dir / "attributes.h5";
  const std::vector<std::string> names{"μ", "theta0", "", "K [N·m/rad]"};
  const std::vector<double> numbers{1.5, -2.25e-300, 6.02214076e23, 0.0};
  constexpr std::uint64_t big_seed = 18446744073709551557ull;  // > 2^63: needs unsigned 64 bit
  {
    file f(path, file_mode::create);
    auto g = f.create_group("metadata");
    auto d = f.write("values", std::vector<double>{1, 2, 3});
    for (node* n : {static_cast<node*>(&f), static_cast<node*>(&g), static_cast<node*>(&d)}) {
      n->set_attribute("text", "μ = 0.20 ± 0.02\nsecond line");
      n->set_attribute("empty_text", "");
      n->set_attribute("names", names);
      n->set_attribute("no_names", std::vector<std::string>{});
      n->set_attribute("numbers", std::span<const double>(numbers));
      n->set_attribute("no_numbers", std::span<const double>());
      n->set_attribute("seed", big_seed);
      n->set_attribute("offset", std::int64_t{-(std::int64_t{1} << 40)});
      n->set_attribute("threads", std::int32_t{-7});
      n->set_attribute("count", std::uint32_t{4000000000u});
      n->set_attribute("x", 0.1);
      n->set_attribute("replaced", "a string first");
      n->set_attribute("replaced", 42.5);  // a later write of another type replaces it
    }
  }
  const file f(path, file_mode::read_only);
  const auto g = f.open_group("metadata");
  const auto d = f.open_dataset("values");
  for (const node* n :
       {static_cast<const node*>(&f), static_cast<const node*>(&g), static_cast<const node*>(&d)}) {
    INFO(n->path());
    CHECK(n->string_attribute("text") == "μ = 0.20 ± 0.02\nsecond line");
    CHECK(n->string_attribute("empty_text").empty());
    CHECK(n->strings_attribute("names") == names);
    CHECK(n->strings_attribute("no_names").empty());
    CHECK(n->doubles_attribute("numbers") == numbers);
    CHECK(n->doubles_attribute("no_numbers").empty());
    CHECK(n->numeric_attribute<std::uint64_t>("seed") == big_seed);
    CHECK(n->numeric_attribute<std::int64_t>("offset") == -(std::int64_t{1} << 40));
    CHECK(n->numeric_attribute<std::int32_t>("threads") == -7);
    CHECK(n->numeric_attribute<std::uint32_t>("count") == 4000000000u);
    CHECK(n->numeric_attribute<double>("x") == 0.1);
    CHECK(n->numeric_attribute<double>("replaced") == 42.5);
    CHECK(n->has_attribute("seed"));
    CHECK_FALSE(n->has_attribute("absent"));
    CHECK(n->attribute_names().size() == 12);
  }
  CHECK(f.member_names() == std::vector<std::string>{"metadata", "values"});
  CHECK(f.contains("metadata"));
  CHECK_FALSE(f.contains("inputs"));
}

TEST_CASE("datasets written in one call read back", "[io][hdf5]") {
  scratch_dir dir;
  const auto path = dir / "datasets.h5";
  std::vector<double> matrix;  // 3 x 4, element (i, j) = 10 i + j
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) matrix.push_back(10.0 * i + j);
  const std::string study = "[study]\nname = \"receptacle – pin\"\nsamples = 100\n";
  {
    file f(path, file_mode::create);
    f.write("vector", std::vector<double>{0.5, -1.0, std::numeric_limits<double>::infinity()});
    f.write("matrix", matrix, 3, 4);
    f.write("nothing", std::vector<double>{});
    f.create_group("text").write_text("study", study);
    f.open_group("text").write_texts("lines", {"first", "", "trois – 3"});
    CHECK_THROWS_AS(f.write("wrong", matrix, 4, 4), error);
  }
  const file f(path, file_mode::read_only);
  const auto v = f.open_dataset("vector");
  CHECK(v.shape() == std::vector<std::size_t>{3});
  CHECK(v.read_doubles() ==
        std::vector<double>{0.5, -1.0, std::numeric_limits<double>::infinity()});
  const auto m = f.open_dataset("matrix");
  CHECK(m.shape() == std::vector<std::size_t>{3, 4});
  CHECK(m.chunk_shape().empty());
  const auto values = m.read_doubles();
  REQUIRE(values.size() == 12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(values[static_cast<std::size_t>(4 * i + j)] == 10.0 * i + j);
  CHECK(m.read_doubles(1, 2) == std::vector<double>(matrix.begin() + 4, matrix.end()));
  CHECK(f.open_dataset("nothing").read_doubles().empty());
  const auto text = f.open_group("text");
  CHECK(text.open_dataset("study").read_text() == study);
  CHECK(text.open_dataset("study").is_variable_text());
  CHECK(text.open_dataset("lines").read_texts() ==
        std::vector<std::string>{"first", "", "trois – 3"});
  CHECK(text.open_dataset("lines").read_texts(2, 1) == std::vector<std::string>{"trois – 3"});
}

TEST_CASE("appendable datasets grow across reopening, with fill values for unwritten rows",
          "[io][hdf5]") {
  scratch_dir dir;
  const auto path = dir / "append.h5";
  const auto row = [](std::size_t first, std::size_t n) {  // rows of (i, i + 0.5, -i)
    std::vector<double> v;
    for (std::size_t i = first; i < first + n; ++i) {
      const auto x = static_cast<double>(i);
      v.push_back(x);
      v.push_back(x + 0.5);
      v.push_back(-x);
    }
    return v;
  };
  {
    file f(path, file_mode::create);
    auto x = f.create_appendable("x", {.type = element::float64, .columns = 3, .chunk_rows = 16});
    auto codes = f.create_appendable(
        "codes", {.type = element::int32, .columns = std::nullopt, .integer_fill = -1});
    auto none = f.create_appendable("none", {.type = element::float64, .columns = 0});
    CHECK(x.rows() == 0);
    x.append_rows(row(0, 10));
    codes.append_rows(std::vector<std::int32_t>{0, 1, 2});
    codes.resize_rows(5);  // two rows never written
    none.resize_rows(7);
  }
  {
    file f(path, file_mode::read_write);
    auto x = f.open_dataset("x");
    CHECK(x.rows() == 10);
    x.append_rows(row(10, 25));
    x.resize_rows(37);  // two rows never written
  }
  const file f(path, file_mode::read_only);
  const auto x = f.open_dataset("x");
  CHECK(x.shape() == std::vector<std::size_t>{37, 3});
  CHECK(x.chunk_shape() == std::vector<std::size_t>{16, 3});
  const auto values = x.read_doubles();
  CHECK(std::vector<double>(values.begin(), values.begin() + 105) == row(0, 35));
  for (std::size_t k = 105; k < values.size(); ++k) CHECK(std::isnan(values[k]));
  CHECK(x.read_doubles(34, 1) == row(34, 1));
  CHECK(f.open_dataset("codes").read_int32s() == std::vector<std::int32_t>{0, 1, 2, -1, -1});
  CHECK(f.open_dataset("none").shape() == std::vector<std::size_t>{7, 0});
  CHECK(f.open_dataset("none").read_doubles().empty());
}

TEST_CASE("shrinking an appendable dataset drops its last rows", "[io][hdf5]") {
  scratch_dir dir;
  file f(dir / "shrink.h5", file_mode::create);
  auto d = f.create_appendable(
      "d", {.type = element::float64, .columns = std::nullopt, .chunk_rows = 8});
  std::vector<double> first(40);
  for (std::size_t i = 0; i < first.size(); ++i) first[i] = static_cast<double>(i);
  d.append_rows(first);
  d.resize_rows(17);
  d.append_rows(std::vector<double>{-1, -2, -3});
  d.resize_rows(22);
  const auto values = d.read_doubles();
  REQUIRE(values.size() == 22);
  for (std::size_t i = 0; i < 17; ++i) CHECK(values[i] == static_cast<double>(i));
  CHECK(values[17] == -1);
  CHECK(values[19] == -3);
  // Rows 20 and 21 held 20 and 21 before the shrink; growing again shows the fill value.
  CHECK(std::isnan(values[20]));
  CHECK(std::isnan(values[21]));
}

TEST_CASE("fixed-width text is cut at whole UTF-8 characters", "[io][hdf5]") {
  scratch_dir dir;
  file f(dir / "text.h5", file_mode::create);
  auto t =
      f.create_appendable("t", {.type = element::text, .columns = std::nullopt, .text_width = 8});
  // "α" is 2 bytes: 5 of them (10 bytes) keep 4; "abcdefgα" (9 bytes) keeps "abcdefg", not
  // half of the α.
  t.append_rows(
      std::vector<std::string>{"ok", "", "exactly8", "longer than eight", "ααααα", "abcdefgα"});
  CHECK(t.read_texts() ==
        std::vector<std::string>{"ok", "", "exactly8", "longer t", "αααα", "abcdefg"});
}

TEST_CASE("deflate compression shrinks chunked data", "[io][hdf5]") {
  scratch_dir dir;
  // 20000 x 8 doubles of a slowly varying signal: 1.28 MB raw.
  std::vector<double> values;
  for (int i = 0; i < 20000; ++i)
    for (int j = 0; j < 8; ++j) values.push_back(std::floor(i / 100.0) + j);
  const double raw = 8.0 * static_cast<double>(values.size());
  const auto write = [&](const std::filesystem::path& path, int level) {
    file f(path, file_mode::create);
    auto d =
        f.create_appendable("d", {.type = element::float64, .columns = 8, .deflate_level = level});
    d.append_rows(values);
  };
  write(dir / "plain.h5", 0);
  write(dir / "deflated.h5", 6);
  CHECK(static_cast<double>(std::filesystem::file_size(dir / "plain.h5")) >= raw);
  CHECK(static_cast<double>(std::filesystem::file_size(dir / "deflated.h5")) < raw / 20);
  const file f(dir / "deflated.h5", file_mode::read_only);
  CHECK(f.open_dataset("d").read_doubles() == values);
}

TEST_CASE("errors name the file and the object, and HDF5 prints nothing", "[io][hdf5]") {
  scratch_dir dir;
  const auto path = dir / "errors.h5";
  {
    file f(path, file_mode::create);
    f.create_group("metadata").set_attribute("seed", std::uint64_t{7});
    f.write("x", std::vector<double>{1, 2});
  }
  // A thread of its own: HDF5's error printing is switched off per thread.
  std::thread([&] {
    stderr_capture capture(dir / "stderr.txt");
    const file f(path, file_mode::read_only);
    try {
      (void)f.open_group("metadata").open_dataset("inputs");
      FAIL("opened a dataset that does not exist");
    } catch (const error& e) {
      CHECK(e.file() == path.string());
      CHECK(e.object() == "/metadata/inputs");
      CHECK_THAT(e.what(), Contains(path.string()) && Contains("/metadata/inputs"));
    }
    try {
      (void)f.open_group("metadata").string_attribute("seed");
      FAIL("read a number as a string");
    } catch (const error& e) {
      CHECK_THAT(e.what(), Contains("/metadata") && Contains("seed") && Contains("not a string"));
    }
    try {
      (void)file(dir / "absent.h5", file_mode::read_only);
      FAIL("opened a file that does not exist");
    } catch (const error& e) {
      CHECK_THAT(e.what(), Contains("absent.h5"));
    }
    CHECK_THROWS_AS(f.open_dataset("x").read_doubles(1, 2), error);
    CHECK_THROWS_AS(file(path, file_mode::read_only).set_attribute("a", 1.0), error);
    CHECK(capture.text().empty());
  }).join();
}

TEST_CASE("a SWMR writer killed mid-run leaves a file that opens and recovers", "[io][hdf5]") {
  scratch_dir dir;
  const auto path = dir / "swmr.h5";
  // Child: SWMR-write 8 flushed blocks of 10 values (value = index), then an unflushed ninth,
  // then die without closing anything.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      file f(path, file_mode::create);
      auto d = f.create_appendable(
          "d", {.type = element::float64, .columns = std::nullopt, .chunk_rows = 16});
      f.start_swmr_write();
      std::vector<double> block(10);
      for (int b = 0; b < 9; ++b) {
        for (int k = 0; k < 10; ++k) block[static_cast<std::size_t>(k)] = 10.0 * b + k;
        d.append_rows(block);
        if (b < 8) {
          d.flush();
          f.flush();
        }
      }
      ::raise(SIGKILL);
    } catch (...) {
    }
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);

  {
    const file f(path, file_mode::read_only, {.latest_format = false, .swmr_read = true});
    const auto values = f.open_dataset("d").read_doubles();
    REQUIRE(values.size() >= 80);  // every flushed block
    for (std::size_t i = 0; i < values.size(); ++i) CHECK(values[i] == static_cast<double>(i));
  }
  file f(path, file_mode::read_write, {.recover = true});
  auto d = f.open_dataset("d");
  d.resize_rows(80);
  d.append_rows(std::vector<double>{80, 81});
  f.close();
  const file again(path, file_mode::read_only);
  const auto values = again.open_dataset("d").read_doubles();
  REQUIRE(values.size() == 82);
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(values[i] == static_cast<double>(i));
}
