# bash completion for mcpc. Load it with:  source <(mcpc completion bash)
# or save it as mcpc in ~/.local/share/bash-completion/completions/.
#
# The words before the cursor go to `mcpc __complete`, which prints one
# candidate per line (a word, a tab, a description), or :files to ask for
# file names. The line is split on blanks only and nothing in it is
# evaluated.
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
	out=$("$prog" __complete -- "${words[@]:1}" 2>/dev/null) || return 0
	COMPREPLY=()
	if [[ $out == ":files" ]]; then
		compopt -o filenames 2>/dev/null
		local f
		while IFS= read -r f; do
			COMPREPLY+=("$f")
		done < <(compgen -f -- "$cur")
		return 0
	fi
	# bash replaces only what follows the last word-break character (: and
	# = among them) of the word, so that part is taken off each candidate.
	local trim="" i
	for ((i = ${#cur} - 1; i >= 0; i--)); do
		if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
			trim=${cur:0:i+1}
			break
		fi
	done
	local v
	while IFS= read -r v; do
		v=${v%%$'\t'*}
		[[ -n $v ]] && COMPREPLY+=("${v#"$trim"}")
	done <<<"$out"
	return 0
}
complete -F _mcpc mcpc
