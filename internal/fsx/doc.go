// Package fsx is the one place mcpc touches files it must not get wrong:
// bounded reads that refuse FIFOs, devices and oversized files before
// reading, atomic writes (same-directory temp file, fsync, rename, fsync of
// the directory) that can write through the user's symlinks, private
// directories, and cross-process locks.
package fsx
