package config

import (
	"os"
	"path/filepath"
)

// Where other MCP hosts keep their server lists, per OS. Each app's own
// documentation is the reference: Claude Desktop (modelcontextprotocol.io
// "connect local servers"), Claude Code ("MCP" docs: ~/.claude.json and the
// project's .mcp.json), Cursor (docs "Model Context Protocol"), VS Code
// ("MCP servers": .vscode/mcp.json and the user profile's mcp.json),
// Windsurf ("Cascade MCP": ~/.codeium/windsurf/mcp_config.json), Codex
// (docs/config.md: $CODEX_HOME, ~/.codex/config.toml) and Gemini CLI
// (docs/cli/configuration.md: ~/.gemini/settings.json).

// Import apps, in the order listings show them.
const (
	AppClaudeDesktop = "claude-desktop"
	AppClaudeCode    = "claude-code"
	AppCursor        = "cursor"
	AppVSCode        = "vscode"
	AppWindsurf      = "windsurf"
	AppCodex         = "codex"
	AppGemini        = "gemini"
)

// ImportApps are the hosts 'mcpc config import' reads.
var ImportApps = []string{AppClaudeDesktop, AppClaudeCode, AppCursor, AppVSCode, AppWindsurf, AppCodex, AppGemini}

// ImportEnv is what locates other apps' files: the home directory and
// environment (tests set HOME, XDG_CONFIG_HOME, APPDATA), the working
// directory (project files) and the OS whose layout applies.
type ImportEnv struct {
	Home   string
	Cwd    string
	Getenv func(string) string
	GOOS   string
}

// ImportSource is one file of another app, and which part of it holds
// servers.
type ImportSource struct {
	App  string
	Path string
	// Scope is "user", "project", or "local" (Claude Code's per-project
	// entries in ~/.claude.json, under projects[Project]).
	Scope   string
	Project string
}

// userConfigDir is the per-user settings directory of desktop apps
// (Electron's appData): %APPDATA% on Windows, ~/Library/Application
// Support on macOS, $XDG_CONFIG_HOME (else ~/.config) elsewhere.
func (e ImportEnv) userConfigDir() string {
	switch e.GOOS {
	case "windows":
		if d := e.Getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	}
	if d := e.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(e.Home, ".config")
}

// ImportSources are the files app keeps servers in, whether or not they
// exist: user files first, project files (found from the working directory
// up to the repository root) after, as the app lets a project's entry
// replace a user's.
func ImportSources(app string, e ImportEnv) []ImportSource {
	user := func(parts ...string) ImportSource {
		return ImportSource{App: app, Path: filepath.Join(append([]string{e.Home}, parts...)...), Scope: "user"}
	}
	project := func(parts ...string) []ImportSource {
		if p := findUpwards(e.Cwd, e.Home, filepath.Join(parts...)); p != "" {
			return []ImportSource{{App: app, Path: p, Scope: "project"}}
		}
		return nil
	}
	switch app {
	case AppClaudeDesktop:
		return []ImportSource{{App: app, Path: filepath.Join(e.userConfigDir(), "Claude", "claude_desktop_config.json"), Scope: "user"}}
	case AppClaudeCode:
		u := user(".claude.json")
		local := u
		local.Scope, local.Project = "local", e.Cwd
		return append(append([]ImportSource{u}, project(".mcp.json")...), local)
	case AppCursor:
		return append([]ImportSource{user(".cursor", "mcp.json")}, project(".cursor", "mcp.json")...)
	case AppVSCode:
		u := ImportSource{App: app, Path: filepath.Join(e.userConfigDir(), "Code", "User", "mcp.json"), Scope: "user"}
		return append([]ImportSource{u}, project(".vscode", "mcp.json")...)
	case AppWindsurf:
		return []ImportSource{user(".codeium", "windsurf", "mcp_config.json")}
	case AppCodex:
		u := user(".codex", "config.toml")
		if d := e.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
			u.Path = filepath.Join(d, "config.toml")
		}
		return append([]ImportSource{u}, project(".codex", "config.toml")...)
	case AppGemini:
		return append([]ImportSource{user(".gemini", "settings.json")}, project(".gemini", "settings.json")...)
	}
	return nil
}

// findUpwards is the first dir/rel from cwd upwards, stopping after the
// repository root (a directory holding .git) or at the home directory,
// whose own files are the user's, not a project's.
func findUpwards(cwd, home, rel string) string {
	for dir := filepath.Clean(cwd); ; {
		if home != "" && dir == filepath.Clean(home) {
			return ""
		}
		if st, err := os.Stat(filepath.Join(dir, rel)); err == nil && st.Mode().IsRegular() {
			return filepath.Join(dir, rel)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
