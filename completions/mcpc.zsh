#compdef mcpc
# zsh completion for mcpc. Load it with:  source <(mcpc completion zsh)
# after compinit, or save it as _mcpc in a directory on $fpath.
#
# The words up to the cursor go to `mcpc __complete`, which prints one
# candidate per line (a word, a tab, a description), or :files to ask for
# file names. zsh quotes what it puts on the line: a value a server offers
# is one word, never an expansion or a command.
_mcpc() {
	local out line v d
	local -a cands
	out=$(${words[1]} __complete -- "${(@Q)words[2,CURRENT]}" 2>/dev/null) || return 1
	if [[ $out == ":files" ]]; then
		_files
		return
	fi
	for line in "${(@f)out}"; do
		[[ -z $line ]] && continue
		v=${line%%$'\t'*}
		d=${line#*$'\t'}
		[[ $d == "$line" ]] && d=""
		# _describe reads a backslash as an escape and a colon as the end
		# of the word: both are escaped, so the word is the value as it
		# is, which compadd then quotes for the line.
		v=${v//\\/\\\\}
		v=${v//:/\\:}
		if [[ -n $d ]]; then
			cands+=("$v:$d")
		else
			cands+=("$v")
		fi
	done
	(( ${#cands} )) || return 1
	_describe -t mcpc mcpc cands
}

if [[ ${funcstack[1]} == _mcpc ]]; then
	_mcpc "$@"
else
	compdef _mcpc mcpc
fi
