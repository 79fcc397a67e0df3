# bash completion for vfiowiz(8)                           -*- shell-script -*-
# shellcheck shell=bash disable=SC2207  # COMPREPLY=($(compgen ...)), as usual
# Installed as $(completionsdir)/vfiowiz (bash-completion loads it on
# demand); works with plain bash too (`. completion/vfiowiz.bash`).

_vfiowiz()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -n = || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi

    local commands="wizard check groups snapshot guest-check plan apply undo"
    local global="--sysroot --demo --help --version"

    # The command given so far, and the root for undo's journal ids.
    local cmd="" root="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --sysroot) root=${words[i + 1]} ;;
            --sysroot=*) root=${words[i]#--sysroot=} ;;
        esac
        if [[ -z $cmd && " $commands " == *" ${words[i]} "* ]]; then
            case ${words[i - 1]} in
                --sysroot | --answers | -o | --output | --start-at | --script | --dump | --size | --format | --force-file | --skip-file) ;;
                *) cmd=${words[i]} ;;
            esac
        fi
    done

    case $prev in
        --sysroot)
            # A host tree, or a snapshot archive.
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.@(tar.gz|tgz|tar)' -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        --answers)
            COMPREPLY=($(compgen -f -X '!*.conf' -- "$cur") $(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        -o | --output | --force-file | --skip-file)
            COMPREPLY=($(compgen -f -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        --dump)
            COMPREPLY=($(compgen -d -- "$cur"))
            compopt -o filenames 2>/dev/null
            return
            ;;
        --start-at)
            COMPREPLY=($(compgen -W "checks gpu groups isolation vm access review apply verify" -- "$cur"))
            return
            ;;
        --format)
            COMPREPLY=($(compgen -W "text ansible" -- "$cur"))
            return
            ;;
        --size)
            COMPREPLY=($(compgen -W "80x24 100x30 120x40" -- "$cur"))
            return
            ;;
        --script)
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        local opts
        case $cmd in
            "" | wizard) opts="$global --start-at --mono --script --dump --size" ;;
            check | groups) opts="$global --json --all" ;;
            guest-check) opts="$global --json" ;;
            snapshot) opts="$global --output --list --yes" ;;
            plan) opts="$global --answers --format --output" ;;
            apply) opts="$global --answers --yes --dry-run" ;;
            undo) opts="$global --list --yes --dry-run --force-file --skip-file" ;;
        esac
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi

    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    if [[ $cmd == undo ]]; then
        # Journal ids, newest last (readable as root).
        local dir=${root:-}/var/lib/vfiowiz/journal
        [[ -d $dir && -r $dir ]] &&
            COMPREPLY=($(compgen -W "$(command ls "$dir" 2>/dev/null)" -- "$cur"))
    fi
} &&
    complete -F _vfiowiz vfiowiz

# ex: filetype=sh
