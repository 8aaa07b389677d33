// Package testscripts holds mcpc's end-to-end tests: txtar scripts under
// testdata/ that run the real mcpc binary against real servers (the in-repo
// test server, the npm reference server, a TypeScript SDK v2 server, the
// official conformance suite) over real pipes and sockets.
package testscripts
