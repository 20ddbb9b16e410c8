#include "contactuq/study/ensemble_runner.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <chrono>
#include <cstring>
#include <thread>
#include <fstream>
#include <sstream>

#include "contactuq/error.hpp"
#include "contactuq/model/registry.hpp"

using namespace contactuq;
using namespace contactuq::study;
using Catch::Matchers::Contains;

namespace {

const std::string source_dir = CONTACTUQ_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The quickstart study made small (N = 40, 60 stroke points each way) with edits.
ensemble_study small_study(std::vector<std::pair<std::string, std::string>> edits = {}) {
  model::register_builtin_models();
  std::string text = read_text(source_dir + "/studies/quickstart.toml");
  edits.insert(edits.begin(), {{"samples = 1000", "samples = 40"}, {"points = 200 ", "points = 60 "}});
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return read_ensemble_study(io::study_document::parse(text, "quickstart.toml"));
}

// Friction up to 5: large values lock the arms (Williams (1.4): Lmn - mu Lmt changes sign).
const std::pair<std::string, std::string> large_mu{"high = 0.21", "high = 5.0"};

run_options opts(std::size_t threads, std::size_t block_size, std::size_t first = 0,
                 const std::atomic<bool>* stop = nullptr) {
  run_options o;
  o.threads = threads;
  o.block_size = block_size;
  o.first = first;
  o.stop = stop;
  return o;
}

bool same_bits(const io::sample_matrix& a, const io::sample_matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

io::ensemble_block run(const ensemble_study& s, run_options options) {
  memory_sink sink;
  const run_summary summary = run_ensemble(s, sample_inputs(s), sink, options);
  CHECK(summary.completed == s.sampling.samples);
  return sink.samples();
}

// y = x^2 that throws when two threads call the same object at once: declares itself not thread
// safe. A copy has its own guard.
struct single_threaded_square {
  std::shared_ptr<std::atomic<int>> active = std::make_shared<std::atomic<int>>(0);
  single_threaded_square() = default;
  single_threaded_square(const single_threaded_square&) : active(std::make_shared<std::atomic<int>>(0)) {}
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  model::evaluation evaluate(std::span<const double> x) const {
    if (active->fetch_add(1) != 0) {
      active->fetch_sub(1);
      throw model_error("called concurrently");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // widen the window for a race
    active->fetch_sub(1);
    return {{x[0] * x[0]}, {}};
  }
};

// x squared; raises `cancel` at its `after`-th evaluation, as a time limit would.
struct cancelling_square {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::atomic<bool>* cancel = nullptr;
  int after = 0;
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    if (calls->fetch_add(1) + 1 == after) *cancel = true;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    return {{x[0] * x[0]}, {}};
  }
};

// y = x^2 and the curve (x, 2x), failing above x = 1.9; with a batch entry point when Batched.
template <bool Batched>
struct square_with_curve {
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  std::vector<model::curve_output> curves() const { return {{"c", units::length, "s", units::length, {1.0, 2.0}}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    if (x[0] > 1.9) throw model_error(fmt::format("x = {} > 1.9", x[0]));
    return {{x[0] * x[0]}, {{x[0], 2 * x[0]}}};
  }
  void evaluate_batch(const model::batch& b) const
    requires Batched
  {
    for (std::size_t r = 0; r < b.rows; ++r) {
      if (b.inputs[r] > 1.9) {
        b.errors[r] = "failed in the batch";
        b.outputs[r] = 123.0;  // written before failing: must not be kept
        continue;
      }
      b.outputs[r] = b.inputs[r] * b.inputs[r];
      b.curves[0][2 * r] = b.inputs[r];
      b.curves[0][2 * r + 1] = 2 * b.inputs[r];
    }
  }
};

// y = x^2 with a note on the samples above x = 1.5; with a batch entry point that writes the notes
// when Batched.
template <bool Batched>
struct square_with_note {
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  bool thread_safe() const { return true; }
  static std::string note(double x) { return x > 1.5 ? fmt::format("x = {} is high", x) : ""; }
  model::evaluation evaluate(std::span<const double> x) const { return {{x[0] * x[0]}, {}, note(x[0])}; }
  void evaluate_batch(const model::batch& b) const
    requires Batched
  {
    for (std::size_t r = 0; r < b.rows; ++r) {
      b.outputs[r] = b.inputs[r] * b.inputs[r];
      if (!b.notes.empty()) b.notes[r] = note(b.inputs[r]);
    }
  }
};

// x squared after sleeping `delay`: a model whose samples take measurable time.
struct slow_square {
  std::chrono::microseconds delay{0};
  std::vector<model::variable> inputs() const { return {{"x", units::length, 1.0}}; }
  std::vector<model::variable> outputs() const { return {{"y", units::length * units::length}}; }
  bool thread_safe() const { return true; }
  model::evaluation evaluate(std::span<const double> x) const {
    std::this_thread::sleep_for(delay);
    return {{x[0] * x[0]}, {}};
  }
};

ensemble_study slow_study(std::chrono::microseconds delay, std::size_t samples) {
  ensemble_study s{"", model::model(slow_square{delay}),
                   {{"x", "m", io::input_role::aleatoric, 0.0, uq::make_uniform(1.0, 2.0)}}, {}, {}, {}};
  s.sampling.samples = samples;
  return s;
}

// The blocks a run hands on, in order.
struct block_log : memory_sink {
  std::vector<std::pair<std::size_t, std::size_t>> blocks;  // first, size
  void append(const io::ensemble_block& b) override {
    blocks.emplace_back(b.first, b.size());
    memory_sink::append(b);
  }
};

}  // namespace

TEST_CASE("every sample equals the model evaluated at its inputs", "[ensemble_runner]") {
  const ensemble_study s = small_study();
  const io::ensemble_block b = run(s, opts(2, 7));
  const io::sample_matrix x = sample_inputs(s);
  CHECK(same_bits(b.inputs, x));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const model::evaluation e = s.model.evaluate(std::span(x.row(i).data(), static_cast<std::size_t>(x.cols())));
    CHECK(b.status[static_cast<std::size_t>(i)] == 0);
    CHECK(b.outputs.row(i) == Eigen::Map<const Eigen::RowVectorXd>(e.outputs.data(), 5));
    CHECK(b.curves[0].row(i) == Eigen::Map<const Eigen::RowVectorXd>(e.curves[0].data(), 120));
  }
}

TEST_CASE("outputs are bit-identical at 1 and 2 threads and any block size", "[ensemble_runner]") {
  const ensemble_study s = small_study({large_mu});
  const io::ensemble_block one = run(s, opts(1, 256));
  const io::ensemble_block two = run(s, opts(2, 3));
  CHECK(same_bits(one.inputs, two.inputs));
  CHECK(same_bits(one.outputs, two.outputs));  // NaN rows compare by bits too
  CHECK(same_bits(one.curves[0], two.curves[0]));
  CHECK(one.status == two.status);
  CHECK(one.messages == two.messages);
}

TEST_CASE("a model that fails on some samples records them, the others are intact", "[ensemble_runner]") {
  const ensemble_study s = small_study({large_mu});
  memory_sink sink;
  const io::sample_matrix x = sample_inputs(s);
  const run_summary summary = run_ensemble(s, x, sink, opts(2, 8));
  const io::ensemble_block& b = sink.samples();
  std::size_t failed = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::span<const double> row(x.row(i).data(), static_cast<std::size_t>(x.cols()));
    try {
      const model::evaluation e = s.model.evaluate(row);
      CHECK(b.status[k] == static_cast<std::int32_t>(io::sample_status::ok));
      CHECK(b.messages[k].empty());
      CHECK(b.outputs.row(i) == Eigen::Map<const Eigen::RowVectorXd>(e.outputs.data(), 5));
    } catch (const model_error& e) {
      ++failed;
      CHECK(b.status[k] == static_cast<std::int32_t>(io::sample_status::failed));
      CHECK(b.messages[k] == e.what());
      CHECK_THAT(b.messages[k], Contains("friction lock"));
      CHECK(b.outputs.row(i).array().isNaN().all());
      CHECK(b.curves[0].row(i).array().isNaN().all());
    }
  }
  // Friction locks for mu above about 1 on this geometry: a good share of U(0.02, 5) fails.
  CHECK(failed > 5);
  CHECK(failed < 40);
  CHECK(summary.failed == failed);
  CHECK_FALSE(summary.aborted);
  CHECK(summary.completed == 40);
}

TEST_CASE("failure policies: abort stops at the block of the first failure, retry reports attempts",
          "[ensemble_runner]") {
  const ensemble_study recorded = small_study({large_mu});
  const io::ensemble_block all = run(recorded, opts(1, 5));
  const auto first_failure = static_cast<std::size_t>(
      std::find(all.status.begin(), all.status.end(), 1) - all.status.begin());
  REQUIRE(first_failure < 40);

  const ensemble_study aborting = small_study({large_mu, {"failures = \"record\"", "failures = \"abort\""}});
  memory_sink sink;
  const run_summary summary = run_ensemble(aborting, sample_inputs(aborting), sink, opts(2, 5));
  CHECK(summary.aborted);
  CHECK(summary.completed == (first_failure / 5 + 1) * 5);
  CHECK(sink.samples().size() == summary.completed);
  CHECK_THAT(summary.abort_message, Contains(fmt::format("sample {} failed: friction lock", first_failure)));

  const ensemble_study retrying =
      small_study({large_mu, {"failures = \"record\"", "failures = \"retry\"\nretries = 2"}});
  const io::ensemble_block r = run(retrying, opts(2, 5));
  CHECK(r.status == all.status);  // a deterministic model fails again
  CHECK_THAT(r.messages[first_failure], Contains("friction lock") && Contains("(after 3 attempts)"));
}

TEST_CASE("a resumed run hands on exactly the samples an uninterrupted run would", "[ensemble_runner]") {
  const ensemble_study s = small_study();
  const io::ensemble_block all = run(s, opts(2, 4));
  memory_sink tail;
  const run_summary summary = run_ensemble(s, sample_inputs(s), tail, opts(2, 4, 26));
  CHECK(summary.first == 26);
  CHECK(summary.completed == 40);
  REQUIRE(tail.samples().first == 26);
  CHECK(same_bits(tail.samples().outputs, all.outputs.bottomRows(14)));
  CHECK(same_bits(tail.samples().curves[0], all.curves[0].bottomRows(14)));
}

TEST_CASE("a stop request starts no new block", "[ensemble_runner]") {
  const ensemble_study s = small_study();
  std::atomic<bool> stop = true;
  memory_sink sink;
  const run_summary summary = run_ensemble(s, sample_inputs(s), sink, opts(2, 256, 10, &stop));
  CHECK(summary.stopped);
  CHECK(summary.completed == 10);
  CHECK(sink.samples().size() == 0);
}

TEST_CASE("a pause after N blocks hands on exactly those blocks, then waits for the stop request",
          "[ensemble_runner]") {
  const ensemble_study s = small_study();
  const io::ensemble_block all = run(s, opts(2, 4));
  const std::size_t threads = GENERATE(1, 2);
  INFO(threads << " threads");
  // With neither a stop nor a cancel flag, there is nothing to wait for: it returns stopped.
  run_options o = opts(threads, 4, 2);
  o.pause_after_blocks = 3;
  memory_sink alone;
  const run_summary first = run_ensemble(s, sample_inputs(s), alone, o);
  CHECK(first.stopped);
  CHECK(first.completed == 14);
  CHECK(alone.samples().size() == 12);

  // With a stop flag it waits, every block started already in the sink, until the flag is set.
  std::atomic<bool> stop = false, returned = false;
  std::atomic<std::size_t> appended = 0;
  o.stop = &stop;
  o.progress = [&appended](std::size_t done, std::size_t) { appended = done; };
  memory_sink sink;
  run_summary summary;
  std::thread runner([&] {
    summary = run_ensemble(s, sample_inputs(s), sink, o);
    returned = true;
  });
  for (int i = 0; i < 6000 && appended.load() < 14; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(appended.load() == 14);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(returned.load());  // paused, not finished: 26 samples are left
  stop = true;
  runner.join();
  CHECK(summary.stopped);
  CHECK(summary.completed == 14);
  REQUIRE(sink.samples().first == 2);
  CHECK(same_bits(sink.samples().outputs, all.outputs.middleRows(2, 12)));
  CHECK(same_bits(alone.samples().outputs, all.outputs.middleRows(2, 12)));
}

TEST_CASE("a cancel request drops the blocks in flight: no sample starts after it", "[ensemble_runner]") {
  std::atomic<bool> cancel = false;
  cancelling_square model{.cancel = &cancel, .after = 70};
  const auto calls = model.calls;
  ensemble_study s{"", model::model(model), {{"x", "m", io::input_role::aleatoric, 0.0, uq::make_uniform(1.0, 2.0)}},
                   {}, {}, {}};
  s.sampling.samples = 1000;
  run_options o = opts(2, 32);
  o.cancel = &cancel;
  memory_sink sink;
  const run_summary summary = run_ensemble(s, sample_inputs(s), sink, o);
  CHECK(summary.stopped);
  CHECK_FALSE(summary.aborted);
  // Samples already running when it came finish; none starts after it (2 threads).
  CHECK(calls->load() <= 70 + 2);
  // The sink has every sample up to the first one not run, in order, and nothing after. How many
  // that is depends on scheduling: a thread descheduled in the first block leaves a gap there.
  CHECK(summary.completed <= 72);
  const io::ensemble_block& b = sink.samples();
  CHECK(b.size() == summary.completed);
  CHECK(std::count(b.status.begin(), b.status.end(), 0) == static_cast<std::ptrdiff_t>(summary.completed));
  CHECK(b.outputs.col(0) == b.inputs.col(0).array().square().matrix());
}

TEST_CASE("the first block can be shorter: a resumed run realigns with its file's chunks", "[ensemble_runner]") {
  struct block_sizes : sample_sink {
    std::vector<std::size_t> sizes;
    void append(const io::ensemble_block& b) override { sizes.push_back(b.size()); }
  };
  const ensemble_study s = small_study();
  run_options o = opts(2, 16, 3);
  o.first_block = 13;
  block_sizes sink;
  run_ensemble(s, sample_inputs(s), sink, o);
  CHECK(sink.sizes == std::vector<std::size_t>{13, 16, 8});
}

TEST_CASE("a model's batch entry point gives the samples evaluate gives, failures included", "[ensemble_runner]") {
  const auto run_with = [](const model::model& m, const std::string& policy) {
    ensemble_study s{"", m, {{"x", "m", io::input_role::aleatoric, 0.0, uq::make_uniform(1.0, 2.0)}}, {}, {}, {}};
    s.sampling.samples = 300;
    s.sampling.failures = policy == "retry" ? failure_policy::retry : failure_policy::record;
    memory_sink sink;
    const run_summary summary = run_ensemble(s, sample_inputs(s), sink, opts(2, 50));
    return std::pair{summary, sink.samples()};
  };
  const model::model batched(square_with_curve<true>{}), single(square_with_curve<false>{});
  REQUIRE(batched.has_batch());
  REQUIRE_FALSE(single.has_batch());
  for (const std::string policy : {"record", "retry"}) {
    INFO(policy);
    const auto [a, x] = run_with(batched, policy);
    const auto [b, y] = run_with(single, policy);
    CHECK(a.failed == b.failed);
    CHECK(a.failed > 0);
    CHECK(same_bits(x.outputs, y.outputs));  // NaN where failed, in both
    CHECK(same_bits(x.curves[0], y.curves[0]));
    CHECK(x.status == y.status);
    CHECK(x.messages == y.messages);
  }
}

TEST_CASE("models that are not thread safe are evaluated on per-thread clones", "[ensemble_runner]") {
  model::model m(single_threaded_square{});
  REQUIRE_FALSE(m.thread_safe());
  ensemble_study s{"", m, {{"x", "m", io::input_role::aleatoric, 0.0, uq::make_uniform(1.0, 2.0)}}, {}, {}, {}};
  s.sampling.samples = 500;
  const io::sample_matrix x = sample_inputs(s);
  memory_sink sink;
  run_ensemble(s, x, sink, opts(2, 50));
  CHECK(std::count(sink.samples().status.begin(), sink.samples().status.end(), 0) == 500);
  CHECK(sink.samples().outputs.col(0) == x.col(0).array().square().matrix());
}

TEST_CASE("a valid sample's note is stored with its row, through evaluate and the batch entry point",
          "[ensemble_runner]") {
  const auto run_with = [](const model::model& m) {
    ensemble_study s{"", m, {{"x", "m", io::input_role::aleatoric, 0.0, uq::make_uniform(1.0, 2.0)}}, {}, {}, {}};
    s.sampling.samples = 200;
    memory_sink sink;
    const run_summary summary = run_ensemble(s, sample_inputs(s), sink, opts(2, 30));
    CHECK(summary.failed == 0);
    return sink.samples();
  };
  const model::model batched(square_with_note<true>{}), single(square_with_note<false>{});
  REQUIRE(batched.has_batch());
  const io::ensemble_block x = run_with(batched), y = run_with(single);
  std::size_t noted = 0;
  for (std::size_t r = 0; r < x.size(); ++r) {
    const double v = x.inputs(static_cast<Eigen::Index>(r), 0);
    CHECK(x.status[r] == static_cast<std::int32_t>(io::sample_status::ok));
    CHECK(x.messages[r] == square_with_note<true>::note(v));
    noted += x.messages[r].empty() ? 0 : 1;
  }
  CHECK(noted > 50);
  CHECK(noted < 150);
  CHECK(x.messages == y.messages);
}

TEST_CASE("blocks sized by cost: a slow model's blocks hold a few seconds of work and tile the chunks",
          "[ensemble_runner][block_seconds]") {
  // 10 ms a sample, blocks of 0.05 s on 2 threads: about 10 samples, in chunks of 32.
  const ensemble_study s = slow_study(std::chrono::milliseconds(10), 100);
  run_options o = opts(2, 32);
  o.block_seconds = 0.05;
  block_log sink;
  const run_summary summary = run_ensemble(s, sample_inputs(s), sink, o);
  CHECK(summary.completed == 100);
  REQUIRE(sink.blocks.size() > 4);
  // Until a sample has been timed, a block is one sample per thread.
  CHECK(sink.blocks.front() == std::pair<std::size_t, std::size_t>{0, 2});
  for (const auto& [first, size] : sink.blocks) {
    INFO("block [" << first << ", " << first + size << ")");
    CHECK(size >= 1);
    CHECK(first / 32 == (first + size - 1) / 32);  // within one chunk
    CHECK(size < 32);  // a whole chunk would be 0.16 s of work
  }
  // The values do not depend on the blocks.
  const io::ensemble_block fixed = run(s, opts(1, 32));
  CHECK(same_bits(sink.samples().inputs, fixed.inputs));
  CHECK(same_bits(sink.samples().outputs, fixed.outputs));
  CHECK(sink.samples().status == fixed.status);
}

TEST_CASE("blocks sized by cost: a cheap model's blocks are whole chunks after the first few",
          "[ensemble_runner][block_seconds]") {
  const ensemble_study s = slow_study(std::chrono::microseconds(0), 1000);
  const std::size_t first = GENERATE(0, 50);
  run_options o = opts(2, 64, first);
  o.block_seconds = 2.0;
  o.first_block = 64 - first % 64;  // as a resumed run realigns with its file's chunks
  block_log sink;
  run_ensemble(s, sample_inputs(s), sink, o);
  REQUIRE(sink.samples().size() == 1000 - first);
  CHECK(sink.blocks.front() == std::pair<std::size_t, std::size_t>{first, 2});
  for (const auto& [begin, size] : sink.blocks) {
    INFO("block [" << begin << ", " << begin + size << ")");
    CHECK(begin / 64 == (begin + size - 1) / 64);
    if (begin >= 128 && begin + size < 1000) CHECK(size == 64);  // the first chunk's probes are a few samples
  }
}

TEST_CASE("blocks sized by cost: a pause after the first block lands at one sample per thread",
          "[ensemble_runner][block_seconds]") {
  const ensemble_study s = slow_study(std::chrono::milliseconds(2), 100);
  const std::size_t threads = GENERATE(1, 2);
  run_options o = opts(threads, 32, 10);
  o.block_seconds = 1.0;
  o.pause_after_blocks = 1;
  memory_sink sink;
  const run_summary summary = run_ensemble(s, sample_inputs(s), sink, o);
  CHECK(summary.stopped);
  CHECK(summary.completed == 10 + threads);
  const io::ensemble_block fixed = run(s, opts(2, 32));
  CHECK(same_bits(sink.samples().outputs, fixed.outputs.middleRows(10, static_cast<Eigen::Index>(threads))));
}

TEST_CASE("block_evaluator times its samples", "[ensemble_runner][block_seconds]") {
  const ensemble_study s = slow_study(std::chrono::milliseconds(5), 8);
  const io::sample_matrix x = sample_inputs(s);
  const sample_plan plan(s, x);
  const block_evaluator evaluate(s, plan);
  CHECK(evaluate.seconds_per_sample() == 0.0);
  evaluate(0, 8);
  CHECK(evaluate.seconds_per_sample() >= 0.005);
  CHECK(evaluate.seconds_per_sample() < 1.0);
}
