// SPDX-License-Identifier: GPL-2.0
/*
 * insn-per-fault: guest kernel instructions executed between two markers.
 *
 *   qemu-system-x86_64 -accel tcg ... -plugin insn-per-fault.so,out=PATH
 *
 * A workload brackets what it measures (one page fault, one system call)
 * with insn_mark_start() and insn_mark_stop() from workloads/insn_marker.h:
 * "xchg %bx,%bx" (66 87 db) and "xchg %cx,%cx" (66 87 c9), which do nothing
 * architecturally. Every vCPU counts the instructions of the guest kernel
 * translation blocks it executes (a block starting at or above the x86_64
 * kernel half, 0xffff800000000000); start snapshots the vCPU's count and
 * stop records the difference. Unlike emulated time, the figure does not
 * move with host load. It does include whatever else the kernel does on
 * that vCPU inside the interval (a timer interrupt, a context switch, the
 * periodic drain of a per-CPU batch), so summarise intervals by their
 * median, not by one interval.
 *
 * Counting is per block entry: a block counts in full when it is entered,
 * so one that an exception leaves early is over-counted by its untaken
 * tail. A rep-prefixed string instruction counts once per entry of its
 * block: plain TCG iterates inside the block (clear_page's "rep stosb"
 * counts about 1), -icount re-enters it per iteration (about 4096), so
 * figures are comparable only between runs in the same QEMU mode. Markers
 * sit in user blocks, kernel blocks never contain one, so the per-block
 * granularity does not blur where an interval starts or stops.
 *
 * Output, written once at exit (guest power-off or QMP quit; not SIGKILL):
 *   # insn-per-fault v1 kernel instructions between markers
 *   <vcpu> <kernel_insns>            one line per start..stop interval
 *   # intervals N
 * A stop without a start is ignored; a second start restarts the interval.
 * Intervals are listed by vCPU, each vCPU's in the order they ended.
 *
 * Locking: none. Every piece of mutable state below is per vCPU, in the
 * scoreboard, and only ever touched from that vCPU's thread (MTTCG runs one
 * thread per vCPU; the inline add and the marker callbacks run on it). QEMU
 * resizes a scoreboard only with all vCPUs stopped, and the atexit callback
 * runs after they have stopped. Were the intervals collected in one shared
 * list instead, appending to it would need a GMutex.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86_64: the kernel owns the upper canonical half. */
#define KERNEL_BASE 0xffff800000000000ULL

#define MARKER_LEN 3
static const uint8_t marker_start[MARKER_LEN] = { 0x66, 0x87, 0xdb }; /* xchg %bx,%bx */
static const uint8_t marker_stop[MARKER_LEN] = { 0x66, 0x87, 0xc9 };  /* xchg %cx,%cx */

struct vcpu_state {
	uint64_t kernel_insns;	/* inline add per kernel block executed */
	uint64_t start;		/* kernel_insns at the last start marker */
	uint64_t armed;		/* a start marker is open */
	GArray *intervals;	/* uint64_t per finished interval */
};

static struct qemu_plugin_scoreboard *state;
static qemu_plugin_u64 kernel_insns;
static char *out_path;
static FILE *out;

static void mark_start(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);

	(void)udata;
	s->start = s->kernel_insns;
	s->armed = 1;
}

static void mark_stop(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	uint64_t n;

	(void)udata;
	if (!s->armed)
		return;
	s->armed = 0;
	n = s->kernel_insns - s->start;
	if (!s->intervals)
		s->intervals = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	g_array_append_val(s->intervals, n);
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (qemu_plugin_tb_vaddr(tb) >= KERNEL_BASE) {
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, kernel_insns, n);
		return;
	}
	/* Markers count only in user space, where the workload runs. */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[MARKER_LEN];

		if (qemu_plugin_insn_size(insn) != MARKER_LEN ||
		    qemu_plugin_insn_data(insn, bytes, MARKER_LEN) != MARKER_LEN)
			continue;
		if (!memcmp(bytes, marker_start, MARKER_LEN))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_start,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (!memcmp(bytes, marker_stop, MARKER_LEN))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_stop,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
	int vcpus = qemu_plugin_num_vcpus();
	unsigned long long total = 0;

	(void)id;
	(void)udata;
	fprintf(out, "# insn-per-fault v1 kernel instructions between markers\n");
	for (int v = 0; v < vcpus; v++) {
		struct vcpu_state *s = qemu_plugin_scoreboard_find(state, v);

		if (!s->intervals)
			continue;
		for (guint i = 0; i < s->intervals->len; i++)
			fprintf(out, "%d %" PRIu64 "\n", v,
				g_array_index(s->intervals, uint64_t, i));
		total += s->intervals->len;
		g_array_free(s->intervals, TRUE);
		s->intervals = NULL;
	}
	fprintf(out, "# intervals %llu\n", total);
	if (ferror(out) | fclose(out))
		fprintf(stderr, "insn-per-fault: write %s failed; its counts are incomplete\n",
			out_path);
	out = NULL;
	qemu_plugin_scoreboard_free(state);
	state = NULL;
	g_free(out_path);
	out_path = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		g_auto(GStrv) kv = g_strsplit(argv[i], "=", 2);

		if (g_strcmp0(kv[0], "out") || !kv[1] || !*kv[1]) {
			fprintf(stderr, "insn-per-fault: unknown argument '%s' (takes out=PATH)\n",
				argv[i]);
			goto fail;
		}
		g_free(out_path);
		out_path = g_strdup(kv[1]);
	}
	if (!out_path) {
		fprintf(stderr, "insn-per-fault: out=PATH is required (the result file)\n");
		goto fail;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn-per-fault: needs qemu-system-x86_64, not %s%s\n",
			info->system_emulation ? "" : "user-mode ", info->target_name);
		goto fail;
	}
	/* Opened now so that a bad path fails the boot, not the end of a run. */
	out = fopen(out_path, "w");
	if (!out) {
		fprintf(stderr, "insn-per-fault: open %s: %s\n", out_path, strerror(errno));
		goto fail;
	}

	state = qemu_plugin_scoreboard_new(sizeof(struct vcpu_state));
	kernel_insns = qemu_plugin_scoreboard_u64_in_struct(state, struct vcpu_state,
							     kernel_insns);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;

fail:
	g_free(out_path);
	out_path = NULL;
	return -1;
}
