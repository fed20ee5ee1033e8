#!/usr/bin/env bash
# Fails when a library package (client, retry, internal, recipes; tests
# excluded) depends, directly or not, on anything but the standard library,
# the module's own packages, go-zookeeper/zk, cenkalti/backoff/v4 and
# google/uuid: a service that imports zkrecipes must never compile
# testcontainers, docker or a test library. Each offender is named with the
# library packages that import it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
# The root module as a user gets it: without the workspace (go.work), whose
# other modules would also be listed by go list -m, and whose build list
# has the contrib modules' dependencies in it.
export GOWORK=off

module=$(go list -m) || exit 1
libs=(./client/... ./retry/... ./internal/... ./recipes/...)
allowed="^($module(/|\$)|github\.com/go-zookeeper/zk(/|\$)|github\.com/cenkalti/backoff/v4(/|\$)|github\.com/google/uuid(/|\$))"

# -deps without -test: only what the library packages' non-test files pull in.
deps=$(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' "${libs[@]}") || {
	echo "check-imports: go list failed" >&2
	exit 1
}
bad=$(grep -vE "$allowed" <<<"$deps" | grep -v '^$' | sort -u)
if [ -z "$bad" ]; then
	echo "check-imports: library packages import only the standard library, go-zookeeper/zk, backoff/v4, uuid and $module"
	exit 0
fi

echo "check-imports: FAIL: library packages depend on packages outside the allowed set:" >&2
# Name the offenders the library packages import themselves, with their
# importers; count what those pull in. When none is imported directly (an
# allowed dependency grew a new one), list them all.
importers=$(go list -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}' "${libs[@]}")
direct=0
while read -r pkg; do
	by=$(awk -v p="$pkg" '{for (i = 2; i <= NF; i++) if ($i == p) print $1}' <<<"$importers" | paste -sd' ' -)
	if [ -n "$by" ]; then
		echo "  $pkg, imported by $by" >&2
		direct=$((direct + 1))
	fi
done <<<"$bad"
total=$(wc -l <<<"$bad")
if [ "$direct" -eq 0 ]; then
	sed 's/^/  /' <<<"$bad" >&2
elif [ "$total" -gt "$direct" ]; then
	echo "  and $((total - direct)) more packages that those pull in" >&2
fi
exit 1
