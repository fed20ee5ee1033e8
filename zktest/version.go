package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// DefaultVersion is the ZooKeeper version the local backend runs without
// WithVersion or ZK_VERSION: Debian bookworm's zookeeper package, from its
// jars in /usr/share/java (or ZK_CLASSPATH's).
const DefaultVersion = "3.8.0"

// The other versions the project's install script (scripts/install-deps.sh,
// through scripts/fetch-zk-jars.sh) fetches into VersionsDir.
const (
	// Version39 is ZooKeeper 3.9.3, Debian trixie's libzookeeper-java.
	Version39 = "3.9.3"
	// Version34 is ZooKeeper 3.4.13, Debian bullseye's libzookeeper-java:
	// a server without addWatch (3.6), create2, container and TTL nodes
	// (3.5), for the per-node fallbacks. It has no TLS port either.
	Version34 = "3.4.13"
)

// VersionsDir holds the jars of every version but DefaultVersion, in
// VersionsDir/zookeeper-VERSION/lib/*.jar, where scripts/fetch-zk-jars.sh
// puts them. ZK_VERSIONS_DIR overrides it.
const VersionsDir = "/opt/zkrecipes"

// versionRE is what WithVersion and ZK_VERSION accept: digits and dots.
var versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+){1,3}$`)

// VersionFromEnv returns the version Start runs without WithVersion:
// ZK_VERSION when set, else DefaultVersion.
func VersionFromEnv() string {
	if v := strings.TrimSpace(os.Getenv(EnvVersion)); v != "" {
		return v
	}
	return DefaultVersion
}

// versionDir returns the directory of version v's jars.
func versionDir(v string) string {
	root := VersionsDir
	if d := strings.TrimSpace(os.Getenv(EnvVersionsDir)); d != "" {
		root = d
	}
	return filepath.Join(root, "zookeeper-"+v, "lib")
}

// versionClasspath returns the class path of version v: every jar of its
// directory, in name order.
func versionClasspath(v string) (string, error) {
	dir := versionDir(v)
	fetch := fmt.Sprintf("run scripts/fetch-zk-jars.sh %s as root, or scripts/install-deps.sh", v)
	if _, err := os.Stat(filepath.Join(dir, "zookeeper.jar")); err != nil {
		return "", fmt.Errorf("ZooKeeper %s's jars missing: no %s (%s)", v, filepath.Join(dir, "zookeeper.jar"), fetch)
	}
	jars, err := filepath.Glob(filepath.Join(dir, "*.jar"))
	if err != nil {
		return "", fmt.Errorf("ZooKeeper %s's jars: %w", v, err)
	}
	return strings.Join(jars, string(os.PathListSeparator)), nil
}

// checkVersion validates a version string and returns it with
// DefaultVersion for "".
func checkVersion(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultVersion, nil
	}
	if !versionRE.MatchString(v) {
		return "", fmt.Errorf("%w: version %q (want digits and dots, such as %q)", ErrInvalidOption, v, Version39)
	}
	return v, nil
}

// versionBelow reports whether version v is older than major.minor.
func versionBelow(v string, major, minor int) bool {
	parts := strings.Split(v, ".")
	maj, _ := strconv.Atoi(parts[0])
	mnr := 0
	if len(parts) > 1 {
		mnr, _ = strconv.Atoi(parts[1])
	}
	return maj < major || (maj == major && mnr < minor)
}

// parseSrvrVersion extracts the version from a srvr reply's first line,
// "Zookeeper version: 3.9.3-<commit>, built on ...".
func parseSrvrVersion(reply string) (string, error) {
	for line := range strings.Lines(reply) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Zookeeper version:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		end := strings.IndexFunc(rest, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			break
		}
		return rest[:end], nil
	}
	return "", fmt.Errorf("srvr reply has no version line: %q", truncate(reply, 200))
}

// VersionAtLeast reports whether version v ("3.9.3") is major.minor or newer.
func VersionAtLeast(v string, major, minor int) bool { return !versionBelow(v, major, minor) }
