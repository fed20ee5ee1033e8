// Package discovery is curator-x-discovery for Go: service instances
// registered under a base path in Curator's layout and JSON, so that Go and
// Java services find each other.
package discovery
