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
	v, err := DecodeDuration(b, time.Second, `use seconds or a duration like "90s"`)
	*d = Duration(v)
	return err
}

// DecodeDuration reads a JSON duration: a Go duration string, or a number
// of unit (seconds in mcpc's own keys; milliseconds where other hosts
// write them). The JSON type decides, so neither spelling is ambiguous;
// use says, in an error, what to write instead.
func DecodeDuration(b []byte, unit time.Duration, use string) (time.Duration, error) {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("invalid duration %q (%s)", s, use)
		}
		return v, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f < 0 || f > float64(time.Duration(1<<62)/unit) {
		return 0, fmt.Errorf("invalid timeout %s (%s)", b, use)
	}
	return time.Duration(f * float64(unit)), nil
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
