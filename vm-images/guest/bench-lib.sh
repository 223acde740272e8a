# shellcheck shell=sh
# A bench unit's helpers in the guest: harness/cmd-bench.c sends a job that
# sources this file, writes its job files to /tmp/jobs and calls writer and
# fio_peer once per mode and job. Each result is a block the host reads:
# "@@begin <kind> <mode> <job>", the JSON, "@@end"; a failure is one
# "@@failed" line.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
# shellcheck disable=SC2119 # its mode is optional: none is plain -o dax
pmem_mount
mkdir -p /mnt/bench /tmp/jobs

result() { # kind mode job file
	echo "@@begin $1 $2 $3"; cat "$4"; echo; echo "@@end"
}

writer() { # mode job [persist]
	rm -rf /mnt/bench/*; sync
	if pmem-writer --map "$1" ${3:+--persist "$3"} --output /tmp/r.json "/tmp/jobs/$2.fio"; then
		result writer "$1${3:++$3}" "$2" /tmp/r.json
	else echo "@@failed writer $1 $2"; fi
}

# fio takes our job file minus our own keys.
fio_peer() { # engine job
	rm -rf /mnt/bench/*; sync
	sed -E '/^(map|persist|persist_every|prealloc|fault_size|verify|ioengine)=/d; s/^\[global\]$/[global]\nioengine='"$1"'\noverwrite=1/' "/tmp/jobs/$2.fio" >/tmp/fio.job
	if fio --output-format=json --output=/tmp/f.json /tmp/fio.job >/tmp/fio.err 2>&1; then
		result fio "fio-$1" "$2" /tmp/f.json
	else echo "@@failed fio-$1 $2"; sed 's/^/fio: /' /tmp/fio.err; fi
}
