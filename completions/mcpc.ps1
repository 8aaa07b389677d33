# PowerShell completion for mcpc. Load it with:
#   mcpc completion pwsh | Out-String | Invoke-Expression
# or add that line to $PROFILE.
#
# The words up to the cursor go to `mcpc __complete`, which prints one
# candidate per line (a word, a tab, a description), or :files to ask for
# file names (PowerShell's own path completion then applies). PowerShell
# puts a completion on the line as written, so mcpc prints each word
# quoted for it (--shell pwsh): a value a server offers is one argument,
# never an expression.
Register-ArgumentCompleter -Native -CommandName mcpc -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @()
    foreach ($e in ($commandAst.CommandElements | Select-Object -Skip 1)) {
        if ($e.Extent.StartOffset -ge $cursorPosition) { break }
        $words += $e.Extent.Text
    }
    if ($wordToComplete -eq '') { $words += '' }
    $prog = $commandAst.CommandElements[0].Extent.Text
    $out = & $prog __complete --shell pwsh -- @words 2>$null
    foreach ($line in $out) {
        if ($line -eq ':files') { return }
        $parts = $line -split "`t", 2
        $desc = if ($parts.Count -gt 1 -and $parts[1]) { $parts[1] } else { $parts[0] }
        [System.Management.Automation.CompletionResult]::new($parts[0], $parts[0], 'ParameterValue', $desc)
    }
}
