# shared functions, sourced by deploy
log() { printf '[%s] %s\n' "$(date +%T)" "$*"; }
