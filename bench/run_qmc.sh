#!/usr/bin/env bash
# How many samples Monte Carlo, Latin hypercube and scrambled Sobol'/Halton designs need for the
# same confidence-interval width on the quickstart's mean and 95th percentile of the peak
# insertion force (bench/qmc_bench.cpp; table in docs/sampling.md): the quickstart as shipped
# (with its Iman-Conover rank correlation), then without the correlation (independent inputs).
# Override with N=... REPS=... (each study evaluates 4 x REPS x N samples).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$BUILD/bench/qmc_bench" studies/quickstart.toml "${N:-1024}" "${REPS:-24}" peak_insertion qmc_sample_gain
# The same study with independent inputs: everything from [[sampling.correlation]] on removed.
sed '/^\[\[sampling.correlation\]\]/,$d' studies/quickstart.toml > "$work/independent.toml"
"$BUILD/bench/qmc_bench" "$work/independent.toml" "${N:-1024}" "${REPS:-24}" peak_insertion \
  qmc_sample_gain_independent_inputs
