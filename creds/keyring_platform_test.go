package creds

import (
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
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the files of other platforms' builds: %v", err)
	}
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
		cmd := exec.Command(goTool, "list", "-f", "{{.GoFiles}}", ".")
		cmd.Env = append(os.Environ(), "GOOS="+c.goos, "GOARCH="+c.goarch, "CGO_ENABLED="+c.cgo)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: go list: %v\n%s", name, err, out)
		}
		var providers []string
		for _, f := range strings.Fields(strings.Trim(strings.TrimSpace(string(out)), "[]")) {
			if body := osStoreBody(t, f); body != "" {
				providers = append(providers, f)
				if c.always && strings.Contains(body, "noStore{") {
					t.Errorf("%s: OSStore in %s is no keyring", name, f)
				}
			}
		}
		if len(providers) != 1 || providers[0] != c.file {
			t.Errorf("%s: OSStore comes from %v, want %s", name, providers, c.file)
		}
	}
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
