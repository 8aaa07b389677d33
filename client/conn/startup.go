package conn

import (
	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/termui"
)

// startUp is o while a stdio server starts: the live line says so, with
// the server's last stderr line (o.stderrLine), and what else writes to
// stderr meanwhile (the server's stderr passed on, a note, a trace line)
// clears it first. stop ends it once the server answered, or failed.
func (o ConnectOptions) startUp(e *config.Entry) (_ ConnectOptions, stop func()) {
	if o.StartUp == nil || e.Server.URL != "" || o.Held != nil {
		return o, func() {}
	}
	what := "starting the server" // a --stdio command line is too long to show
	if e.File != nil {
		what = "starting " + e.Label()
	}
	status, stop := o.StartUp.Begin(what)
	pause := o.StartUp.Display.Pause
	if o.ServerStderr != nil {
		o.ServerStderr = &termui.Pausing{W: o.ServerStderr, Pause: pause}
		o.stderrLine = status
	}
	if o.Input != nil && o.Input.Note != nil {
		in := *o.Input
		note := in.Note
		in.Note = func(msg string) { defer pause()(); note(msg) }
		o.Input = &in
	}
	if v := o.Verbose; v != nil {
		o.Verbose = func(line string) { defer pause()(); v(line) }
	}
	return o, stop
}
