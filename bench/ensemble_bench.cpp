// Where the time of `contactuq run` goes, for bench/run_ensemble_peer.sh: the study's samples
// evaluated by the runner with THREADS threads (1) into a sink that drops them and (2) into the
// HDF5 ensemble, as `contactuq run` does. Writing costs the difference; the write stage (the
// writer's append, on the runner's sink thread, overlapping the evaluation), the time the
// evaluation waited for it, and finishing the file are timed on their own as well.
//   ensemble_bench STUDY.toml THREADS OUT.h5 [COMPRESSION]
// prints: samples N threads T evaluate_s A write_run_s B append_s C wait_s D finish_s E
#include <fmt/format.h>

#include <chrono>
#include <string>

#include "contactuq/io/ensemble_store.hpp"
#include "contactuq/model/registry.hpp"
#include "contactuq/study/ensemble_runner.hpp"

using namespace contactuq;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

class drop_sink : public study::sample_sink {
 public:
  void append(const io::ensemble_block& b) override { samples_ += b.size(); }
  std::size_t samples_ = 0;
};

// The writer sink with its append timed.
class timed_writer_sink : public study::sample_sink {
 public:
  explicit timed_writer_sink(io::ensemble_writer& w) : writer_(w) {}
  void prepare(io::ensemble_block& b) const override { writer_.precompress(b); }
  void append(const io::ensemble_block& b) override {
    const auto start = clock_type::now();
    writer_.append(b);
    append_seconds += seconds_since(start);
  }
  double append_seconds = 0.0;

 private:
  io::ensemble_writer& writer_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    fmt::print(stderr, "usage: {} STUDY.toml THREADS OUT.h5 [COMPRESSION 0..9, default 1]\n", argv[0]);
    return 2;
  }
  model::register_builtin_models();
  const auto doc = io::study_document::load(argv[1]);
  const study::ensemble_study s = study::read_ensemble_study(doc);
  const io::sample_matrix inputs = study::sample_inputs(s);
  study::run_options ro;
  ro.threads = static_cast<std::size_t>(std::stoul(argv[2]));

  io::ensemble_schema schema = study::ensemble_schema_for(s, doc);
  schema.metadata.threads = ro.threads;
  io::ensemble_writer writer = io::ensemble_writer::create(argv[3], schema, {.deflate_level = argc == 5 ? std::stoi(argv[4]) : 1});
  ro.block_size = writer.chunk_rows();

  drop_sink dropped;
  auto start = clock_type::now();
  study::run_ensemble(s, inputs, dropped, ro);
  const double evaluate = seconds_since(start);

  timed_writer_sink written(writer);
  start = clock_type::now();
  const study::run_summary run = study::run_ensemble(s, inputs, written, ro);
  const auto finish_start = clock_type::now();
  writer.finish(io::iso8601_now());
  const double finish = seconds_since(finish_start);
  const double write_run = seconds_since(start);

  fmt::print("compression {} samples {} threads {} evaluate_s {:.4f} write_run_s {:.4f} append_s {:.4f} wait_s {:.4f} "
             "finish_s {:.4f}\n",
             argc == 5 ? argv[4] : "1", s.rows(), ro.threads, evaluate, write_run, written.append_seconds,
             run.sink_wait_seconds, finish);
  return 0;
}
