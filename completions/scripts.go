package completions

import (
	_ "embed"
	"fmt"
)

var (
	//go:embed mcpc.bash
	bash string
	//go:embed mcpc.zsh
	zsh string
	//go:embed mcpc.fish
	fish string
	//go:embed mcpc.ps1
	pwsh string
)

// Shells are the shells with a completion script.
var Shells = []string{"bash", "zsh", "fish", "pwsh"}

// Script returns the completion script for shell.
func Script(shell string) (string, error) {
	switch shell {
	case "bash":
		return bash, nil
	case "zsh":
		return zsh, nil
	case "fish":
		return fish, nil
	case "pwsh", "powershell":
		return pwsh, nil
	}
	return "", fmt.Errorf("no completion script for %q", shell)
}
