"""The scripts `kubelite completion SHELL` prints. Each one hands the words before the cursor and the
word being typed to `kubelite __complete` (or `__completeNoDesc`) and offers the candidate lines it
answers; the last line, `:<directive>`, says whether the shell may fall back to file names (bit 4
off) and whether to add a space after the word (bit 2: no space)."""
from __future__ import annotations

_BASH = r"""# bash completion for kubelite; load it with: source <(kubelite completion bash)
_kubelite_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" out directive line
    out=$("${COMP_WORDS[0]}" __completeNoDesc "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null) || return
    directive=${out##*$'\n'}
    directive=${directive#:}
    if [[ $out == *$'\n'* ]]; then out=${out%$'\n'*}; else out=""; fi
    COMPREPLY=()
    while IFS= read -r line; do
        [[ -n $line ]] && COMPREPLY+=("$line")
    done <<< "$out"
    if (( (directive & 2) != 0 )); then
        compopt -o nospace 2>/dev/null
    fi
    if (( ${#COMPREPLY[@]} == 0 && (directive & 4) == 0 )); then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -F _kubelite_complete kubelite
"""

_ZSH = r"""#compdef kubelite
# zsh completion for kubelite; load it with: source <(kubelite completion zsh)
_kubelite() {
    local -a lines candidates
    local line name description directive
    lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
    directive=${lines[-1]#:}
    for line in "${(@)lines[1,-2]}"; do
        name=${line%%$'\t'*}
        description=${line#*$'\t'}
        [[ $description == "$line" ]] && description=""
        candidates+=("${name//:/\\:}${description:+:$description}")
    done
    if (( ${#candidates} )); then
        if (( (directive & 2) != 0 )); then
            _describe -t kubelite 'kubelite' candidates -S ''
        else
            _describe -t kubelite 'kubelite' candidates
        fi
    elif (( (directive & 4) == 0 )); then
        _files
    fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _kubelite "$@"
else
    compdef _kubelite kubelite
fi
"""

_FISH = r"""# fish completion for kubelite; load it with: kubelite completion fish | source
function __kubelite_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l out (kubelite __complete $words (commandline -ct) 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (count $out) -gt 0
        printf '%s\n' $out
    else if test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path (commandline -ct)
    end
end
complete -c kubelite -f -a '(__kubelite_complete)'
"""

_POWERSHELL = r"""# powershell completion for kubelite; load it with: kubelite completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName 'kubelite' -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)
    $before = @($CommandAst.CommandElements | Where-Object { $_.Extent.EndOffset -le $CursorPosition } |
        Select-Object -Skip 1 | ForEach-Object { $_.ToString() })
    if ($WordToComplete -ne '') { $before = @($before | Select-Object -SkipLast 1) }
    $word = $WordToComplete
    # before 7.3, PowerShell drops an empty argument to a native command
    if ($word -eq '' -and $PSVersionTable.PSVersion -lt [version]'7.3') { $word = '""' }
    $out = @(& kubelite __complete @before $word 2>$null)
    if ($out.Count -eq 0) { return }
    $directive = [int]($out[-1].TrimStart(':'))
    $candidates = @($out | Select-Object -SkipLast 1)
    foreach ($line in $candidates) {
        $name, $description = $line -split "`t", 2
        if (-not $description) { $description = $name }
        [System.Management.Automation.CompletionResult]::new($name, $name, 'ParameterValue', $description)
    }
    if ($candidates.Count -eq 0 -and ($directive -band 4) -eq 0) { return $null }
}
"""

_SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH, "powershell": _POWERSHELL}


def script(shell: str) -> str:
    return _SCRIPTS[shell]
