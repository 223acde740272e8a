# shellcheck shell=sh
# The crash checker guest's job (crash-inject/run/checker.c runs this file,
# after sending a user's checker as data, /tmp/in/check, when there is
# one): the loop over crash images is one program, workloads/checker.c.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
if [ -x /tmp/in/check ]; then
	exec pmem-checker "$PMEM_DEV" "$PMEM_MNT" /tmp/in/check
fi
exec pmem-checker "$PMEM_DEV" "$PMEM_MNT"
