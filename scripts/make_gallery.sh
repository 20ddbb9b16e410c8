#!/usr/bin/env bash
# Regenerates docs/gallery.md and docs/figures/gallery/: one or two figures of every method, drawn
# by `contactuq plot` from the shipped studies (about two minutes on 2 cores).
#
#   scripts/make_gallery.sh        # uses build/release/contactuq
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${CONTACTUQ_CLI:-$root/build/release/contactuq}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
figures="$root/docs/figures/gallery"
rm -rf "$figures"
mkdir -p "$figures"

# study | figures to keep | what they show
entries=(
  "williams_sweep_mu|curve_force|sweep: the insertion force along the stroke for five friction coefficients (Williams Fig. 16), peaks marked"
  "impact_models|impact_restitution|impact: the coefficient of restitution of every contact law against approach speed"
  "switch_evaluate|trace_contact_force|evaluate: the switch's contact force at every integrator step, with located events"
  "pinslot_validation|pinslot_validation_fy|pin-slot: the joint reaction of the pin-slot, revolute-clearance and ideal joints (Skrinjar et al. Fig. 10)"
  "quickstart|peak_insertion_cdf rankings|sample: a CDF with its DKW band, and which inputs drive each output"
  "switch_nominal|chatter_proportion contact_force_band|sample: a 0/1 output as a proportion, a time history as a median and band"
  "switch_epistemic|settling_time_horsetail settling_time_prcc_by_model|nested: each contact model's CDF with the specification limit and P(violation), and which inputs drive the output under each model"
  "calibrate_switch|calibration_outputs calibration_estimates|calibrate: measured against fitted outputs over the preload, and each estimate's intervals"
  "fit_williams|fit_curves|calibrate ([fit]): five measured insertions and the fitted model"
  "receptacle_robust_design|convergence|optimize: the robust design's convergence"
)
{
  echo "# Figure gallery"
  echo
  echo "What \`contactuq plot\` draws for each method, from the shipped studies. Regenerate with"
  echo "\`scripts/make_gallery.sh\` after changing a plots module (\`python/contactuq/plots/\`)."
  echo
} > "$work/gallery.md"
cd "$root"  # relative study paths: the figures' titles name studies/<name>.toml, not this machine's folders
for entry in "${entries[@]}"; do
  IFS='|' read -r study keep what <<< "$entry"
  "$cli" run "studies/$study.toml" -o "$work/$study.h5" -q > /dev/null
  "$cli" plot "$work/$study.h5" -o "$work/${study}_plots" > /dev/null
  echo "## \`studies/$study.toml\`" >> "$work/gallery.md"
  echo >> "$work/gallery.md"
  echo "$what." >> "$work/gallery.md"
  echo >> "$work/gallery.md"
  for figure in $keep; do
    cp "$work/${study}_plots/$figure.png" "$figures/${study}_$figure.png"
    echo "![$study: $figure](figures/gallery/${study}_$figure.png)" >> "$work/gallery.md"
    echo >> "$work/gallery.md"
  done
done
cp "$work/gallery.md" "$root/docs/gallery.md"
echo "wrote docs/gallery.md and $(ls "$figures" | wc -l) figures in docs/figures/gallery/"
