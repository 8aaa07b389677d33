// Package format prints one MCP result to stdout without letting a server flood
// the terminal or a pipeline: JSON stays one valid document, text is stripped of
// terminal control sequences, output is bounded in bytes and lines, and what does
// not fit (full results, images, audio, blobs) goes to private overflow files
// whose paths the output names.
//
// It works on raw JSON bytes rather than SDK types so that it renders exactly
// what the server sent, key order included, and can be tested without a server.
package format
