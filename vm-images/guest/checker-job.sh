# shellcheck shell=sh
# The crash checker guest's job (crash-inject/run/checker.c sends "sh" this file,
# after carrying a user's checker to /tmp/check when there is one): the loop
# over crash images is one program, workloads/checker.c.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
if [ -x /tmp/check ]; then
	exec pmem-checker "$PMEM_DEV" "$PMEM_MNT" /tmp/check
fi
exec pmem-checker "$PMEM_DEV" "$PMEM_MNT"
