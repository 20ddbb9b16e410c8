#!/usr/bin/env bash
# How many samples Monte Carlo, Latin hypercube and scrambled Sobol'/Halton designs need for the
# same confidence-interval width on the quickstart's mean and 95th percentile of the peak
# insertion force (bench/qmc_bench.cpp; table in docs/sampling.md).
# Override with N=... REPS=... (the run evaluates 4 x REPS x N samples).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
"$BUILD/bench/qmc_bench" studies/quickstart.toml "${N:-1024}" "${REPS:-24}" peak_insertion
