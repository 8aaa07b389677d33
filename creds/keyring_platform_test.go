package creds

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every build for the platforms mcpc ships has a keyring: the file that
// provides OSStore for darwin (with cgo and without: the released binaries
// and `go install` are CGO_ENABLED=0) and for windows is the platform's
// own, and its OSStore never returns the noStore. The platform files
// cannot run here; this reads what each build would compile.
func TestOSStorePerPlatform(t *testing.T) {
	for _, c := range []struct {
		goos, goarch, cgo, file string
		// always: OSStore never returns the noStore (Linux does,
		// without a session bus).
		always bool
	}{
		{"darwin", "arm64", "0", "keychain_darwin.go", true},
		{"darwin", "amd64", "0", "keychain_darwin.go", true},
		{"darwin", "arm64", "1", "keychain_darwin.go", true},
		{"windows", "amd64", "0", "keyring_windows.go", true},
		{"windows", "arm64", "0", "keyring_windows.go", true},
		{"linux", "amd64", "0", "secretservice_linux.go", false},
		{"freebsd", "amd64", "0", "keyring_other.go", false},
	} {
		name := c.goos + "/" + c.goarch + " CGO_ENABLED=" + c.cgo
		providers := osStoreFiles(t, name, c.always, "GOOS="+c.goos, "GOARCH="+c.goarch, "CGO_ENABLED="+c.cgo)
		if len(providers) != 1 || providers[0] != c.file {
			t.Errorf("%s: OSStore comes from %v, want %s", name, providers, c.file)
		}
	}
}

// TestOSStorePerPlatformColdCache: with a module cache to fill, go list
// says "go: downloading ..." on stderr, which is no file of the package
// (the test read stdout and stderr as one, and failed on a fresh machine).
// The cache is filled from the warm one, through a file proxy: no network.
func TestOSStorePerPlatformColdCache(t *testing.T) {
	warm, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	download := filepath.Join(strings.TrimSpace(string(warm)), "cache", "download")
	if _, err := os.Stat(download); err != nil {
		t.Skipf("no module download cache to fill a cold one from: %v", err)
	}
	// -modcacherw: the cache's files can be removed with the test's
	// directory.
	providers := osStoreFiles(t, "a cold module cache", false, "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0",
		"GOMODCACHE="+t.TempDir(), "GOPROXY=file://"+filepath.ToSlash(download), "GOFLAGS=-modcacherw")
	if len(providers) != 1 || providers[0] != "secretservice_linux.go" {
		t.Errorf("a cold module cache: OSStore comes from %v, want secretservice_linux.go", providers)
	}
}

// osStoreFiles lists the files of this package's build under env that
// provide OSStore, from go list's JSON on stdout; its stderr (progress,
// downloads) only explains a failure. always: such a file must not
// return the noStore.
func osStoreFiles(t *testing.T, name string, always bool, env ...string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the files of other platforms' builds: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-json=GoFiles", ".")
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: go list: %v\n%s", name, err, stderr.String())
	}
	var pkg struct{ GoFiles []string }
	if err := json.Unmarshal(out, &pkg); err != nil {
		t.Fatalf("%s: go list -json: %v\n%s", name, err, out)
	}
	var providers []string
	for _, f := range pkg.GoFiles {
		if body := osStoreBody(t, f); body != "" {
			providers = append(providers, f)
			if always && strings.Contains(body, "noStore{") {
				t.Errorf("%s: OSStore in %s is no keyring", name, f)
			}
		}
	}
	return providers
}

// osStoreBody is the source of the package-level func OSStore in file, or
// "" when the file has none.
func osStoreBody(t *testing.T, file string) string {
	src, err := os.ReadFile(filepath.Clean(file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "OSStore" {
			return string(src[fd.Body.Pos()-f.FileStart : fd.Body.End()-f.FileStart])
		}
	}
	return ""
}
