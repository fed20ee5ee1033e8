#!/usr/bin/env bash
# Builds and vets each module under contrib/ as a user's module would be
# built: outside this repository, without the workspace (go.work) and without
# any replace, against the root module at the version the contrib module's
# go.mod requires. That version is not fetched from the internet: the working
# tree's root module is packed at it into a file-based module proxy
# (scripts/modproxy), which comes first in GOPROXY; every other module comes
# from the module cache or the Go module proxy, as usual.
#
# The packed version goes through the shared module cache (a private one
# would recompile every dependency: a minute more), so the cache's copy of
# the root module at that version is removed before and after, under a lock
# that keeps two runs on one machine apart, and the go command's module
# index is off for it (see user_env).
#
# It also checks that every contrib module requires the same version of the
# root module, that no contrib go.mod has a replace, that a user's build
# leaves each go.mod as it is (nothing missing), and that go.work's
# version-scoped replace names that version (workspace mode needs it until
# the version is published).
#
# With --tidy it runs go mod tidy in each contrib module the same way
# instead (go mod tidy ignores go.work, and the version is not published
# yet), leaving the root module's own lines out of go.sum.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PATH:/usr/local/go/bin"
export GOWORK=off

root=$(go list -m) || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The version each contrib module requires (require line, or inside a block).
required() { sed -nE "s#^(require[[:space:]]+|[[:space:]]+)$root[[:space:]]+(v[^[:space:]]+).*#\2#p" "$1/go.mod"; }

version=""
mods=()
for gomod in contrib/*/go.mod; do
	dir=$(dirname "$gomod")
	mods+=("$dir")
	v=$(required "$dir")
	if [ -z "$v" ]; then
		echo "check-contrib-user: FAIL: $dir/go.mod does not require $root" >&2
		exit 1
	fi
	if grep -qE "^replace[[:space:]]|^[[:space:]]*$root[[:space:]]+(v[^[:space:]]+[[:space:]]+)?=>" "$gomod"; then
		echo "check-contrib-user: FAIL: $dir/go.mod has a replace: a user's build does not see it" >&2
		exit 1
	fi
	if [ -n "$version" ] && [ "$v" != "$version" ]; then
		echo "check-contrib-user: FAIL: contrib modules require $root at $version and $v: release them together" >&2
		exit 1
	fi
	version=$v
done
if ! grep -qE "^replace[[:space:]]+$root[[:space:]]+$version[[:space:]]+=>[[:space:]]+\./?$" go.work; then
	echo "check-contrib-user: FAIL: go.work must replace $root $version => ./ (the version contrib requires)" >&2
	exit 1
fi

tidy=false
[ "${1:-}" = "--tidy" ] && tidy=true

proxy="$work/proxy"
go run ./scripts/modproxy -dir . -version "$version" -out "$proxy" || exit 1
cache=$(go env GOMODCACHE)
mkdir -p "$cache" || exit 1
exec 9>"$cache/.zkrecipes-contrib-user.lock"
flock 9 || exit 1
forget() { # the module cache's copy of the root module at $version
	local d
	for d in "$cache/$root@$version" "$cache/cache/download/$root/@v"; do
		[ -e "$d" ] && chmod -R u+w "$d"
	done
	rm -rf "$cache/$root@$version" "$cache/cache/download/$root/@v/$version".*
}
forget
trap 'forget; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
# GODEBUG=goindex=0: the go command keeps an index of each module in the
# module cache, keyed by its directory alone (a module there never changes);
# the packed version does change, so its index must be neither read nor
# written.
user_env=(GOPROXY="file://$proxy,https://proxy.golang.org" GONOSUMDB="$root" GOFLAGS="-mod=mod -buildvcs=false"
	GODEBUG="${GODEBUG:+$GODEBUG,}goindex=0")

if $tidy; then
	for dir in "${mods[@]}"; do
		echo "check-contrib-user: go mod tidy in $dir against $root@$version (packed)"
		(cd "$dir" && env "${user_env[@]}" go mod tidy) || exit 1
		sed -i "\#^$root #d" "$dir/go.sum"
	done
	exit 0
fi

status=0
for dir in "${mods[@]}"; do
	copy="$work/$(basename "$dir")"
	cp -R "$dir" "$copy"
	# A user's go.sum gets the root module's sums from its own download: the
	# packed working tree is not the released zip, whatever go.sum says of it.
	sed -i "\#^$root #d" "$copy/go.sum"
	echo "check-contrib-user: $dir as a user's module: go build and go vet against $root@$version, no workspace, no replace"
	if ! (cd "$copy" && env "${user_env[@]}" go build ./... && env "${user_env[@]}" go vet ./...); then
		echo "check-contrib-user: FAIL: $dir does not build as a user's module" >&2
		status=1
		continue
	fi
	if ! cmp -s "$dir/go.mod" "$copy/go.mod"; then
		echo "check-contrib-user: FAIL: $dir/go.mod is not complete: a user's build changed it:" >&2
		diff "$dir/go.mod" "$copy/go.mod" >&2
		status=1
	fi
done
exit $status
