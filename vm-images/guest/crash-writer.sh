# shellcheck shell=sh
# The crash writer guest: the scenario's writer on the mounted NVDIMM, then
# "done", on which the host kills QEMU (the last crash image). The host's
# (crash-inject/run/crash_writer.c) sends the writer's input as data
# (proto/job_files.h), the job file as /tmp/in/job.fio or a user's program
# as /tmp/in/prog, and runs this file with
#   PMEM_FS             the filesystem on the NVDIMM
#   PMEM_CRASH_MODE     the mapping mode ("-": as the job file says)
#   PMEM_CRASH_ADR      1: the ADR model runs, so ASLR is off
#   PMEM_CRASH_PROGRAM  1: run /tmp/in/prog; 0: pmem-writer with /tmp/in/job.fio
#   PMEM_CRASH_ARGS     the program's arguments, as sh words
#   PMEM_CRASH_PRINT    1: a black-box program; each line of its stdout goes to
#                       the host (pmem-agent print, proto/print_line.h)
# The job's exit status is the writer's: 128 + N when signal N killed it.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
mode=$PMEM_CRASH_MODE adr=$PMEM_CRASH_ADR program=$PMEM_CRASH_PROGRAM
args=${PMEM_CRASH_ARGS:-} print=${PMEM_CRASH_PRINT:-0}
# A user's program sees no more of ours than PMEM_FS and PMEM_MODE.
unset PMEM_CRASH_MODE PMEM_CRASH_ADR PMEM_CRASH_PROGRAM PMEM_CRASH_ARGS PMEM_CRASH_PRINT
# The ADR model instruments nothing until this (proto/adr_marker.h): the
# boot ran at TCG's own speed, and the mount and the writer are modelled.
[ "$adr" != 1 ] || pmem-agent model-start
# shellcheck disable=SC2119 # its mode is optional: none is plain -o dax
pmem_mount
mkdir -p /mnt/crash
# ADR attribution names user PCs: a PIE must load where addr2line is told.
[ "$adr" != 1 ] || echo 0 >/proc/sys/kernel/randomize_va_space
if [ "$program" = 1 ]; then
	# The host quoted each argument as one sh word (lib/shell_word.c).
	eval "set -- $args"
	# A program linked with xfstests/aware-mmap.c (-aware) notes each mapping
	# it made with MAP_PMEM_AWARE here; the host is told how many.
	export PMEM_AWARE_LOG=/tmp/aware.log
	if [ "$print" = 1 ]; then
		mkdir -p /dev/pts
		grep -q " /dev/pts " /proc/mounts || mount -t devpts devpts /dev/pts
		(cd /mnt/crash && PMEM_MODE=$mode exec pmem-agent print /tmp/in/prog "$@") || exit $?
	else
		(cd /mnt/crash && PMEM_MODE=$mode exec /tmp/in/prog "$@") || exit $?
	fi
else
	[ "$mode" != - ] || mode=
	pmem-writer --no-trace ${mode:+--map "$mode"} --output /tmp/r.json /tmp/in/job.fio || exit 1
fi
[ ! -s /tmp/aware.log ] || pmem-agent ask "aware $(wc -l </tmp/aware.log)" >/dev/null
# The host kills QEMU on "done": nothing after this line runs. A black box
# goes on: the host took its crash right after the exit and answered, and
# the state after a clean exit (synced, unmounted) is the oracle's reference.
pmem-agent ask "done" >/dev/null
if [ "$print" = 1 ]; then
	sync
	# Busy (a child the program left behind): the synced state still counts.
	umount "$PMEM_MNT" || sync
	pmem-agent ask "clean" >/dev/null
fi
sleep 60
