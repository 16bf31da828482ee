/**
 * The watchdog, a `/bin/sh` script (a few ms and under 2 MB to start, where Node would take 40 ms
 * and 40 MB). Arguments: the owner's pid, the temp directory, the grace period in tenths of a
 * second, the owner's cgroup and this process's cgroup folder in it ('' without cgroups).
 *
 * It first sweeps what killed runs left: temp folders named `agentv-<kind>-<pid>-XXXXXX` and
 * cgroup folders named `agentv-<pid>-<random>` whose process is gone (the processes left in
 * those cgroups are killed). Then it reads lines from its stdin, a pipe from the owner:
 * `+<pgid>` and `-<pgid>` (a process group started and ended; sent only for processes not in a
 * cgroup), and `bye` (the owner stopped its processes itself). When the pipe closes without
 * `bye` (the owner was killed), it sends SIGTERM to the recorded groups and to every process in
 * its cgroup folder, SIGKILL after the grace period, removes the cgroup folders and, once the
 * owner is gone, its temp folders. After `bye` it only removes cgroup folders the owner could
 * not. Its output goes nowhere, so it holds none of the owner's pipes or terminal.
 */
export const WATCHDOG_SCRIPT = `
trap '' HUP INT PIPE
owner=$1 tmp=$2 tenths=$3 parent=$4 root=$5

alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  read -r s <"/proc/$1/stat" || return 0
  case \${s##*) } in Z* | X*) return 1 ;; esac
  return 0
} 2>/dev/null

populated() {
  while read -r key value; do
    [ "$key" = populated ] && [ "$value" = 1 ] && return 0
  done <"$1/cgroup.events"
  return 1
} 2>/dev/null

term_cgroup() {
  for d in "$1"/*/; do [ -d "$d" ] && term_cgroup "\${d%/}"; done
  while read -r p; do kill -s TERM "$p"; done <"$1/cgroup.procs"
} 2>/dev/null

remove_tree() {
  for d in "$1"/*/; do [ -d "$d" ] && remove_tree "\${d%/}"; done
  rmdir "$1"
} 2>/dev/null

drop_cgroup() {
  [ -d "$1" ] || return 0
  populated "$1" && echo 1 >"$1/cgroup.kill"
  i=0
  while populated "$1" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  remove_tree "$1"
} 2>/dev/null

for d in "$tmp"/agentv-*-[0-9]*-??????; do
  [ -d "$d" ] && [ -O "$d" ] || continue
  p=\${d%-??????}
  p=\${p##*-}
  case $p in '' | *[!0-9]*) continue ;; esac
  [ "$p" = "$owner" ] || alive "$p" || rm -rf "$d"
done 2>/dev/null
if [ -n "$parent" ]; then
  for d in "$parent"/agentv-[0-9]*-*; do
    p=\${d##*/agentv-}
    p=\${p%%-*}
    case $p in '' | *[!0-9]*) continue ;; esac
    [ "$p" = "$owner" ] || alive "$p" || drop_cgroup "$d"
  done
fi

groups=' '
bye=
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*)
      p=\${line#-}
      case $groups in *" $p "*) groups="\${groups%% $p *} \${groups#* $p }" ;; esac
      ;;
    bye)
      bye=1
      break
      ;;
  esac
done

if [ -z "$bye" ]; then
  for g in $groups; do kill -s TERM -- "-$g"; done 2>/dev/null
  [ -n "$root" ] && term_cgroup "$root"
  i=0
  while [ $i -lt "$tenths" ]; do
    left=
    for g in $groups; do kill -0 -- "-$g" 2>/dev/null && left=1; done
    [ -n "$root" ] && populated "$root" && left=1
    [ -n "$left" ] || break
    sleep 0.1
    i=$((i + 1))
  done
  for g in $groups; do kill -s KILL -- "-$g"; done 2>/dev/null
fi
[ -n "$root" ] && drop_cgroup "$root"
if [ -z "$bye" ]; then
  i=0
  while alive "$owner" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  alive "$owner" || for d in "$tmp"/agentv-*-"$owner"-??????; do
    [ -d "$d" ] && rm -rf "$d"
  done 2>/dev/null
fi
`;
