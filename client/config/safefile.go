package config

// MaxConfigFile bounds a config or trust file: real ones are a few KiB, and
// a file planted to exhaust memory must not be read in full.
const MaxConfigFile = 4 << 20
