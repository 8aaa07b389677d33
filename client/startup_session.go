package client

import (
	"time"

	"github.com/mcpc-dev/mcpc/client/config"
	"github.com/mcpc-dev/mcpc/internal/termui"
)

// showSessionStart shows session name's start on the live line while
// its holder starts the server, with the last line of the session's log
// (the server's stderr) as it grows. stop ends it.
func (c *Connector[S]) showSessionStart(entry *config.Entry, name string) (stop func()) {
	u := c.Options(entry).StartUp
	if u == nil || !u.Term.Live() {
		return func() {}
	}
	status, end := u.Begin("starting session " + name)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if l := termui.LogTail(c.Sessions.Store.LogFile(name)); l != "" {
					status(l)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		end()
	}
}
