// Package input answers what a server asks while one of mcpc's requests
// runs, over either era: 2026-07-28 input_required rounds, 2025
// elicitation/create and URL elicitations, log messages at --log-level.
// The connection (client/conn) makes a State with its label and era and
// hands the SDK its handlers and middleware.
package input
