#pragma once
// Shards of a sampling plan and their merge into one ensemble file.
//
//   shard k of K (k in [1, K]) of a plan of N samples holds the contiguous samples
//     [floor((k - 1) N / K), floor(k N / K)),
//   so the K shards cover the plan once, in order, whatever N and K (a shard may be empty only
//   when K > N, which parse_shard's callers refuse).
//
// A shard file is an ensemble file (ensemble_store.hpp) whose metadata names the shard (root and
// /metadata attribute `shard` = "k/K", `shard_first`, `plan_samples`); it is written and resumed
// like any other. merge_ensembles checks that the parts are the K shards of one study (same study
// text, seed and design; each exactly once; each finished) and writes the whole plan: its
// datasets hold, bit for bit, what one process running the whole study writes.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>

#include "contactuq/io/ensemble_store.hpp"

namespace contactuq::io {

struct shard_spec {
  std::size_t index = 0;  ///< k in [1, K]
  std::size_t count = 0;  ///< K >= 1
};

// "k/K" with 1 <= k <= K; throws parameter_error (field "shard") saying what is allowed.
shard_spec parse_shard(std::string_view text);

// [first, end) of shard k/K of a plan of n samples (header); parameter_error if K > n.
std::pair<std::size_t, std::size_t> shard_range(shard_spec shard, std::size_t n);

// The schema of shard k/K of the plan that `whole` describes: samples = the shard's size, the
// shard fields set.
ensemble_schema shard_schema(ensemble_schema whole, shard_spec shard);

struct merge_summary {
  std::size_t parts = 0;
  std::size_t samples = 0;  ///< samples of the merged file (the plan's N)
};

// Merges the shard files `parts` (any order) into a new ensemble file at `output`. Throws
// ensemble_error naming the file when a part is no shard, belongs to another study or seed, is
// unfinished, or when a shard is given twice or missing. Memory: one part at a time.
merge_summary merge_ensembles(std::span<const std::filesystem::path> parts, const std::filesystem::path& output,
                              const ensemble_options& options = {});

}  // namespace contactuq::io
