#include "contactuq/io/ensemble_merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "contactuq/error.hpp"

namespace contactuq::io {

shard_spec parse_shard(std::string_view text) {
  const auto bad = [&] {
    throw parameter_error("shard", fmt::format("shard = '{}': must be k/K with integers 1 <= k <= K, e.g. 2/8",
                                               text));
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) bad();
  shard_spec s;
  const auto parse = [&](std::string_view part, std::size_t& value) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty()) bad();
  };
  parse(text.substr(0, slash), s.index);
  parse(text.substr(slash + 1), s.count);
  if (s.count < 1 || s.index < 1 || s.index > s.count) bad();
  return s;
}

std::pair<std::size_t, std::size_t> shard_range(shard_spec shard, std::size_t n) {
  if (shard.count < 1 || shard.index < 1 || shard.index > shard.count)
    throw parameter_error("shard", fmt::format("shard {}/{}: must be k/K with 1 <= k <= K", shard.index,
                                               shard.count));
  if (shard.count > n)
    throw parameter_error("shard", fmt::format("{} shards of a plan of {} samples: at most one shard per sample",
                                               shard.count, n));
  __extension__ using u128 = unsigned __int128;  // k N overflows 64 bits only for absurd plans
  const auto at = [&](std::size_t k) {
    return static_cast<std::size_t>(static_cast<u128>(k) * n / shard.count);
  };
  return {at(shard.index - 1), at(shard.index)};
}

ensemble_schema shard_schema(ensemble_schema whole, shard_spec shard) {
  auto& m = whole.metadata;
  const auto [first, end] = shard_range(shard, m.plan());
  m.plan_samples = m.plan();
  m.shard_index = shard.index;
  m.shard_count = shard.count;
  m.shard_first = first;
  m.samples = end - first;
  return whole;
}

namespace {

// Copies rows [from, from + count) of `e` into rows [at, at + count) of `b`.
void copy_rows(const ensemble& e, std::size_t from, ensemble_block& b, std::size_t at, std::size_t count) {
  const auto f = static_cast<Eigen::Index>(from), a = static_cast<Eigen::Index>(at),
             c = static_cast<Eigen::Index>(count);
  b.inputs.middleRows(a, c) = e.inputs.middleRows(f, c);
  b.outputs.middleRows(a, c) = e.outputs.middleRows(f, c);
  for (std::size_t k = 0; k < b.curves.size(); ++k) b.curves[k].middleRows(a, c) = e.curves[k].middleRows(f, c);
  std::copy_n(e.status.begin() + f, count, b.status.begin() + a);
  std::copy_n(e.messages.begin() + f, count, b.messages.begin() + a);
}

}  // namespace

merge_summary merge_ensembles(std::span<const std::filesystem::path> parts, const std::filesystem::path& output,
                              const ensemble_options& options) {
  if (parts.empty()) throw ensemble_error("merge: no part files given");
  // First pass, metadata only: which shard each part is, and that they are one study's.
  std::map<std::size_t, std::filesystem::path> by_index;
  ensemble_schema first_schema;
  std::filesystem::path first_path;
  for (const auto& path : parts) {
    const ensemble e = read_ensemble(path, {.curves = false});
    const auto& m = e.schema.metadata;
    if (m.shard_count == 0)
      throw ensemble_error(fmt::format("{}: no shard file (it has no shard attribute); merge takes the files "
                                       "written by contactuq run --shard k/K",
                                       path.string()));
    if (first_path.empty()) {
      first_schema = e.schema;
      first_path = path;
    } else {
      const auto& f = first_schema.metadata;
      const auto foreign = [&](std::string_view what) {
        throw ensemble_error(fmt::format("{}: belongs to another run than {} ({} differs); merge takes the shards "
                                         "of one study",
                                         path.string(), first_path.string(), what));
      };
      if (m.study_text != f.study_text) foreign("the study text");
      if (m.seed != f.seed) foreign(fmt::format("the seed, {} against {}", m.seed, f.seed));
      if (m.design != f.design) foreign("the design");
      if (m.shard_count != f.shard_count)
        foreign(fmt::format("the number of shards, {} against {}", m.shard_count, f.shard_count));
      if (m.plan_samples != f.plan_samples) foreign("the number of samples");
    }
    const auto [begin, end] = shard_range({m.shard_index, m.shard_count}, m.plan_samples);
    if (m.shard_first != begin || m.samples != end - begin)
      throw ensemble_error(fmt::format("{}: shard {}/{} holds samples [{}, {}), expected [{}, {})", path.string(),
                                       m.shard_index, m.shard_count, m.shard_first, m.shard_first + m.samples, begin,
                                       end));
    if (e.rows != m.samples)
      throw ensemble_error(fmt::format("{}: shard {}/{} is unfinished ({} of {} samples); finish it with "
                                       "contactuq run STUDY --shard {}/{} -o {} --resume",
                                       path.string(), m.shard_index, m.shard_count, e.rows, m.samples,
                                       m.shard_index, m.shard_count, path.string()));
    const auto [at, inserted] = by_index.emplace(m.shard_index, path);
    if (!inserted)
      throw ensemble_error(fmt::format("{} and {} are both shard {}/{}: give each shard once", at->second.string(),
                                       path.string(), m.shard_index, m.shard_count));
  }
  const std::size_t count = first_schema.metadata.shard_count;
  std::vector<std::string> missing;
  for (std::size_t k = 1; k <= count; ++k)
    if (!by_index.contains(k)) missing.push_back(fmt::format("{}/{}", k, count));
  if (!missing.empty())
    throw ensemble_error(fmt::format("merge: shard{} {} {} missing: every shard 1/{} .. {}/{} is needed",
                                     missing.size() > 1 ? "s" : "", fmt::join(missing, ", "),
                                     missing.size() > 1 ? "are" : "is", count, count, count));

  // The whole plan's schema: the shard fields cleared.
  ensemble_schema whole = first_schema;
  auto& m = whole.metadata;
  m.samples = m.plan_samples;
  m.shard_index = m.shard_count = m.shard_first = m.plan_samples = 0;
  m.end_time.clear();
  ensemble_writer writer = ensemble_writer::create(output, whole, options);
  const std::size_t chunk = writer.chunk_rows();

  // Second pass: rows in plan order, appended in whole chunks (the last one shorter).
  ensemble_block pending = make_block(whole, 0, chunk);
  std::size_t filled = 0, written = 0;
  std::string end_time;
  const auto flush = [&](std::size_t size) {
    if (size < chunk) pending.keep_first(size);
    pending.first = written;
    pending.filtered_chunks.clear();
    writer.precompress(pending);
    writer.append(pending);
    written += size;
    filled = 0;
  };
  for (const auto& [index, path] : by_index) {
    const ensemble e = read_ensemble(path);
    end_time = std::max(end_time, e.schema.metadata.end_time);
    for (std::size_t from = 0; from < e.rows;) {
      const std::size_t take = std::min(chunk - filled, e.rows - from);
      copy_rows(e, from, pending, filled, take);
      filled += take;
      from += take;
      if (filled == chunk) flush(chunk);
    }
  }
  if (filled > 0) flush(filled);
  writer.finish(end_time.empty() ? iso8601_now() : end_time);
  return {by_index.size(), written};
}

}  // namespace contactuq::io
