# SPDX-License-Identifier: GPL-2.0-or-later
# zsh's completion of rsp as a user gets it: an interactive zsh in a pty (zpty) with
# compinit and _rsp's directory in fpath; each LINE is typed, TAB pressed, and what
# the terminal shows is printed between "=== LINE" and "=== end" (escapes removed).
#
#   zsh -f zsh-complete.zsh FPATH_DIR LINE...
zmodload zsh/zpty || exit 1
fp=$1; shift
zpty z zsh -f -i
zpty -w z "PS1='> '; fpath=($fp \$fpath); autoload -U compinit; compinit -u -D; setopt nolistambiguous; unsetopt beep; LISTMAX=0"
for line in "$@"; do
  zpty -w z "echo BEGIN"
  zpty -w -n z "$line"$'\t'
  sleep 1
  zpty -w -n z $'\C-u'
  zpty -w z "echo END"
  out=""
  for i in 1 2 3 4 5 6 7 8 9 10; do
    while zpty -r -t z chunk; do out+=$chunk; done
    [[ $out == *$'\nEND'* ]] && break
    sleep 0.3
  done
  print -r -- "=== $line"
  print -r -- "${${out#*BEGIN}%END*}" | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/.\x08//g'
  print -r -- "=== end"
done
zpty -d z
