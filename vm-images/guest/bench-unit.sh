# shellcheck shell=sh
# One bench unit in the guest: every mode x job, then the fio peer. The
# host (bench/bench_unit.c) sends the unit's job files as data,
# /tmp/in/<job>.fio (proto/job_files.h), and runs this file with
#   PMEM_BENCH_MODES  the modes, in the order this repetition runs them
#   PMEM_BENCH_JOBS   the job names, in order ("peer" runs only as the peer)
#   PMEM_BENCH_PEER   1: run the peer job with our writer and real fio
# Each answer is one JSON document on one line (bench/unit_docs.h):
#   {"schema":1,"kind":"writer"|"fio","mode":M,"job":J,"result":{...}}
#   {"schema":1,"kind":"failed","tool":T,"mode":M,"job":J}
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
# shellcheck disable=SC2119 # its mode is optional: none is plain -o dax
pmem_mount
mkdir -p /mnt/bench

# A tool's JSON file as one document line: raw newlines only ever separate
# JSON tokens (inside strings they are escaped), so they can go.
answer() { # kind mode job file
	printf '{"schema":1,"kind":"%s","mode":"%s","job":"%s","result":' "$1" "$2" "$3"
	tr -d '\n\r' <"$4"
	echo '}'
}

failed() { # tool mode job
	printf '{"schema":1,"kind":"failed","tool":"%s","mode":"%s","job":"%s"}\n' "$1" "$2" "$3"
}

writer() { # mode job [persist]
	rm -rf /mnt/bench/*; sync
	if pmem-writer --map "$1" ${3:+--persist "$3"} --output /tmp/r.json "/tmp/in/$2.fio"; then
		answer writer "$1${3:++$3}" "$2" /tmp/r.json
	else failed writer "$1" "$2"; fi
}

# fio takes our job file minus our own keys, and does what pmem-writer does
# with it (workloads/jobs/peer.fio): overwrite=1 lays the file out before
# the run, as prealloc=write does; 4 KiB faults unless the job allows 2 MiB
# ones (pmem-peer --no-thp); with ioengine=libpmem, sync=1 drains after
# every pmem_memcpy, as persist=libpmem's pmem_persist does per write (the
# engine's default leaves each write unfenced). pmem-peer adds the fs_dax
# tracepoint counts to fio's JSON, where pmem-writer has its own.
fio_peer() { # engine job
	rm -rf /mnt/bench/*; sync
	extra=
	[ "$1" != libpmem ] || extra='\nsync=1'
	nothp=--no-thp
	! grep -q '^fault_size=pmd' "/tmp/in/$2.fio" || nothp=
	sed -E '/^(map|persist|persist_every|prealloc|fault_size|verify|ioengine)=/d; s/^\[global\]$/[global]\nioengine='"$1"'\noverwrite=1'"$extra"'/' "/tmp/in/$2.fio" >/tmp/fio.job
	if pmem-peer $nothp --json /tmp/f.json -- fio --output-format=json --output=/tmp/f.json /tmp/fio.job >/tmp/fio.err 2>&1; then
		answer fio "fio-$1" "$2" /tmp/f.json
	else failed fio "fio-$1" "$2"; sed 's/^/fio: /' /tmp/fio.err; fi
}

for mode in $PMEM_BENCH_MODES; do
	for job in $PMEM_BENCH_JOBS; do
		[ "$job" = peer ] || writer "$mode" "$job"
	done
done
if [ "$PMEM_BENCH_PEER" = 1 ]; then
	for job in $PMEM_BENCH_JOBS; do
		[ "$job" = peer ] || continue
		writer shared peer
		fio_peer mmap peer
		# fio's libpmem engine maps with MAP_SYNC (pmem_map_file tries it first).
		writer sync peer libpmem
		fio_peer libpmem peer
	done
fi
pmem_umount
