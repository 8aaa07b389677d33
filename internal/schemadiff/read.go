package schemadiff

import (
	"encoding/json"

	"github.com/mcpc-dev/mcpc/internal/fail"
	"github.com/mcpc-dev/mcpc/internal/fsx"
	"github.com/mcpc-dev/mcpc/internal/jsonpos"
)

// readHint is what to do about a file that is not a snapshot.
const readHint = "give a file written by: mcpc snapshot SERVER > FILE"

// ReadFile reads the snapshot file at path through the bounded reader (no
// FIFO, device or file over MaxSize). name is the file as the user gave
// it, for messages; every failure is a usage error (exit 2).
func ReadFile(path, name string) (*Snapshot, error) {
	data, err := fsx.ReadFile(path, MaxSize)
	if err != nil {
		return nil, fail.New(fail.Usage, readHint, "cannot read snapshot file %s: %v", name, fsx.Reason(err))
	}
	if !json.Valid(data) {
		// Decoded only to say where the text goes wrong: a valid
		// document is decoded once, by Load.
		var skip struct{}
		if err := jsonpos.Decode(data, &skip); err != nil {
			return nil, fail.New(fail.Usage, readHint, "snapshot file %s is not valid JSON: %v", name, err)
		}
	}
	snap, err := Load(data)
	if err != nil {
		return nil, fail.New(fail.Usage, readHint, "snapshot file %s: %v", name, err)
	}
	return snap, nil
}
