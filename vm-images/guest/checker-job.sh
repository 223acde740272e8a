# shellcheck shell=sh
# The crash checker guest's job (crash-inject/run/checker.c runs this file,
# after sending a user's checker as data, /tmp/in/check, and a black-box
# program's recovery, /tmp/in/recover, with its arguments as sh words in
# PMEM_RECOVER_ARGS): the loop over crash images is one program,
# workloads/checker.c.
set -u
# shellcheck source=vm-images/guest/pmem-lib.sh
. /usr/share/pmem/lib.sh
check=-
[ ! -x /tmp/in/check ] || check=/tmp/in/check
if [ -x /tmp/in/recover ]; then
	eval "set -- ${PMEM_RECOVER_ARGS:-}"
	unset PMEM_RECOVER_ARGS
	exec pmem-checker "$PMEM_DEV" "$PMEM_MNT" "$check" /tmp/in/recover "$@"
fi
exec pmem-checker "$PMEM_DEV" "$PMEM_MNT" "$check"
