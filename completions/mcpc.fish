# fish completion for mcpc. Load it with:  mcpc completion fish | source
# or save it as ~/.config/fish/completions/mcpc.fish
#
# The words up to the cursor go to `mcpc __complete`, which prints one
# candidate per line (a word, a tab, a description), or :files to ask for
# file names. fish quotes what it puts on the line: a value a server
# offers is one word, never an expansion or a command.
function __mcpc_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($words[1] __complete -- $words[2..-1] $cur 2>/dev/null)
    if test "$out" = ":files"
        __fish_complete_path $cur
        return
    end
    printf '%s\n' $out
end

complete -c mcpc -e
complete -c mcpc -f -a '(__mcpc_complete)'
