package transport

// read takes what the pipe holds. Windows pipes are not polled, so the
// count follows the read; Mark can miss bytes in flight, and what waits
// in the pipe is not looked at.
func (p *stderrPipe) read(buf []byte) (int, error) {
	n, err := p.f.Read(buf)
	p.mu.Lock()
	p.took += int64(n)
	p.mu.Unlock()
	return n, err
}

func (p *stderrPipe) pending() int64 { return 0 }
