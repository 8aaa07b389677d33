// Package tasks runs long-running tools as tasks, a tool call the server
// runs in the background. In 2025-11-25 the client asks for one (a "task"
// field on tools/call, for tools whose execution.taskSupport allows it)
// and the server answers with a task; the result comes from tasks/result.
// In 2026-07-28 tasks are an extension (io.modelcontextprotocol/tasks): a
// client that declares it may get a task (resultType "task") for any
// tools/call, and tasks/get carries the final result. Either way mcpc
// polls tasks/get, answers what the task asks for, and cancels the task
// with tasks/cancel when the user stops.
//
// A detached task (--detach) is remembered in a client/state record with
// what the server scopes it to, so that later invocations reach it; the
// records' lifecycle (settled, cancelled by the user, the 2025 HTTP session
// ended once all its tasks are settled) is kept here too.
//
// It works through Conn, the few things it needs of a connection, made
// or resumed, which client/conn implements: this package never imports
// it.
package tasks
