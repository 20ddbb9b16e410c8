#!/bin/sh
# Test driver of the external model in plain sh: y = 3 x + 2 and the curve c(s) = x s over
# s in [0, 4], from params.json's "x".
set -eu
x=$(sed -n 's/.*"x": *\([-+0-9.eE]*\).*/\1/p' params.json)
awk -v x="$x" 'BEGIN { printf "{\"outputs\": {\"y\": %.17g}, \"curves\": {\"c\": {\"x\": [0, 4], \"y\": [0, %.17g]}}}\n", 3 * x + 2, 4 * x }' > results.json
