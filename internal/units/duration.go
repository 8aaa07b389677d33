package units

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Duration accepts either a number of seconds or a Go duration string
// ("90s", "2m"), because both spellings appear in the configs users copy.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return fmt.Errorf("invalid duration %q (use seconds or a duration like \"90s\")", s)
		}
		*d = Duration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 {
		return fmt.Errorf("invalid timeout %s (use seconds or a duration like \"90s\")", b)
	}
	*d = Duration(f * float64(time.Second))
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
