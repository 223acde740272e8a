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
# The job's exit status is the writer's: 128 + N when signal N killed it.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
mode=$PMEM_CRASH_MODE adr=$PMEM_CRASH_ADR program=$PMEM_CRASH_PROGRAM
# A user's program sees no more of ours than PMEM_FS and PMEM_MODE.
unset PMEM_CRASH_MODE PMEM_CRASH_ADR PMEM_CRASH_PROGRAM
# shellcheck disable=SC2119 # its mode is optional: none is plain -o dax
pmem_mount
mkdir -p /mnt/crash
# ADR attribution names user PCs: a PIE must load where addr2line is told.
[ "$adr" != 1 ] || echo 0 >/proc/sys/kernel/randomize_va_space
if [ "$program" = 1 ]; then
	(cd /mnt/crash && PMEM_MODE=$mode exec /tmp/in/prog) || exit $?
else
	[ "$mode" != - ] || mode=
	pmem-writer --no-trace ${mode:+--map "$mode"} --output /tmp/r.json /tmp/in/job.fio || exit 1
fi
# The host kills QEMU on "done": nothing after this line runs.
pmem-agent ask "done"
sleep 60
