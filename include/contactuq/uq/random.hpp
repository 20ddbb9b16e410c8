#pragma once
// Random streams derived from a study seed. Every random number in the uq module comes from a
// Boost.Random engine seeded by derive_seed(seed, purpose, index), so a number depends only on
// the study seed and on what it is for (which design column, which Monte Carlo row, which
// bootstrap replicate), never on the order in which threads ask for it.

#include <boost/random/mersenne_twister.hpp>
#include <cstdint>

namespace contactuq::uq {

// What a stream is for. The values are part of the reproducibility contract: changing one
// changes every design generated with it, so they are fixed and never reused.
enum class stream_purpose : std::uint64_t {
  monte_carlo_row = 1,      ///< index = row
  lhs_permutation = 2,      ///< index = column
  lhs_jitter = 3,           ///< index = column
  maximin_swaps = 4,        ///< index = 0
  iman_conover_scores = 5,  ///< index = column
  bootstrap_replicate = 6,  ///< index = replicate
  qmc_scramble = 7,         ///< index = QMC replicate
  ranking_bootstrap = 8,    ///< index = replicate (uq/rankings.hpp)
  morris_trajectory = 9,    ///< index = trajectory (uq/morris.hpp)
  morris_bootstrap = 10,    ///< index = replicate (uq/morris.hpp)
  reliability_form_start = 11,  ///< index = FORM start (uq/reliability.hpp)
  reliability_importance = 12,  ///< index = block of importance samples
  reliability_subset = 13,      ///< index = subset-simulation replicate
  mcmc_step = 0x3501,           ///< index = chain 2^40 + step (uq/mcmc.hpp)
};

// SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words whose outputs
// for consecutive inputs are statistically unrelated. Used to hash (seed, purpose, index).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seed of the stream (seed, purpose, index).
constexpr std::uint64_t derive_seed(std::uint64_t seed, stream_purpose purpose,
                                    std::uint64_t index) noexcept {
  return mix64(mix64(mix64(seed) ^ static_cast<std::uint64_t>(purpose)) ^ index);
}

using engine = boost::random::mt19937_64;

inline engine make_engine(std::uint64_t seed, stream_purpose purpose, std::uint64_t index) {
  return engine(derive_seed(seed, purpose, index));
}

// A uniform number in the open interval (0, 1): the top 53 bits k of one engine output,
//   u = (k + 1/2) 2^-53,
// so u is never 0 or 1 and every quantile function is finite at it. Written out rather than
// taken from a distribution class so the bits are fixed by this file alone.
inline double open_uniform(engine& e) {
  const std::uint64_t k = e() >> 11;
  return (static_cast<double>(k) + 0.5) * 0x1.0p-53;
}

// A uniform integer in [0, n), n >= 1, without bias: Lemire (2019), "Fast random integer
// generation in an interval", ACM TOMACS 29(1), algorithm 5. The high word of the 128-bit
// product r n is the result; products whose low word falls below 2^64 mod n are redrawn.
inline std::uint64_t uniform_index(engine& e, std::uint64_t n) {
  __extension__ using u128 = unsigned __int128;
  u128 m = static_cast<u128>(e()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    while (low < threshold) {
      m = static_cast<u128>(e()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace contactuq::uq
