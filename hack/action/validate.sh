#!/usr/bin/env bash
# The validate step of action.yml. FILES and CRDS are space-separated
# paths; SARIF, when set, is where the SARIF report goes. The exit status
# is validate's with -o github: 0 valid, 1 invalid, 2 input that cannot be
# read or checked.
set -uo pipefail
args=(--offline --strict-kinds -R)
for path in $CRDS; do args+=(--crds "$path"); done
for path in $FILES; do args+=(-f "$path"); done
status=0
"$RUNNER_TEMP/kubectl-crd" validate "${args[@]}" -o github || status=$?
if [ -n "$SARIF" ]; then
	# An invalid object is a finding of the report, not a failure to write it.
	"$RUNNER_TEMP/kubectl-crd" validate "${args[@]}" -o sarif > "$SARIF"
	sarif_status=$?
	if [ "$sarif_status" -gt 1 ]; then exit "$sarif_status"; fi
fi
exit "$status"
