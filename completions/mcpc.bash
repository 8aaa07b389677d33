# bash completion for mcpc. Load it with:  source <(mcpc completion bash)
# or save it as mcpc in ~/.local/share/bash-completion/completions/.
#
# The words before the cursor go to `mcpc __complete`, which prints one
# candidate per line (a word, a tab, a description), or :files to ask for
# file names. The line is split on blanks only and nothing in it is
# evaluated. bash puts a candidate on the line as written, replacing only
# what follows the word's last COMP_WORDBREAKS character, so mcpc prints
# each candidate from there on, quoted: a value a server offers is one
# word, never an expansion or a command.
_mcpc() {
	local line=${COMP_LINE:0:COMP_POINT}
	local -a words
	read -r -a words <<<"$line"
	if [[ -z $line || $line == *[[:blank:]] ]]; then
		words+=("")
	fi
	local cur=${words[${#words[@]}-1]}
	local prog=${words[0]}
	[[ $prog == "~/"* ]] && prog=$HOME/${prog:2}
	local out
	out=$("$prog" __complete --shell bash --wordbreaks "$COMP_WORDBREAKS" -- "${words[@]:1}" 2>/dev/null) || return 0
	COMPREPLY=()
	if [[ $out == ":files" ]]; then
		compopt -o filenames 2>/dev/null
		local f
		while IFS= read -r f; do
			COMPREPLY+=("$f")
		done < <(compgen -f -- "$cur")
		return 0
	fi
	local v
	while IFS= read -r v; do
		v=${v%%$'\t'*}
		[[ -n $v ]] && COMPREPLY+=("$v")
	done <<<"$out"
	return 0
}
complete -F _mcpc mcpc
