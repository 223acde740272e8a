// SPDX-License-Identifier: GPL-2.0
/*
 * insn-per-fault: guest kernel instructions executed between two markers,
 * the measured task's own apart from the rest.
 *
 *   qemu-system-x86_64 -accel tcg ... -plugin insn-per-fault.so,out=PATH
 *       [,switch=ADDR][,apart=NAME:ADDR[:ADDR...]]...
 *
 * A workload brackets what it measures (one page fault, one system call)
 * with insn_mark_start() and insn_mark_stop() from workloads/insn_marker.h:
 * "xchg %bx,%bx" (66 87 db) and "xchg %cx,%cx" (66 87 c9), which do nothing
 * architecturally. Every vCPU counts the instructions of the guest kernel
 * translation blocks it executes (a block starting at or above the x86_64
 * kernel half, 0xffff800000000000); start snapshots the vCPU's count and
 * stop records the difference. Unlike emulated time, the figure does not
 * move with host load.
 *
 * Whatever else the vCPU runs inside an interval lands in some intervals
 * and not in others, and made the median of one cell move between runs.
 * So an interval's kernel instructions are split into classes:
 *  - irq: from the entry of an interrupt (an IDT gate of vector 32 and up
 *    but int $0x80's, or the NMI's) until the interrupted context runs
 *    again, at the interrupted rip with the interrupted rsp: the handler,
 *    its softirqs, and the tasks that ran because it set need_resched;
 *  - other: other tasks, run while the measured task sleeps inside the
 *    interval (the jbd2 thread or xfs log worker a MAP_SYNC fault waits
 *    for, kworkers, the idle loop). Needs switch=ADDR, the address of
 *    __switch_to(prev, next): without it they count as own;
 *  - NAME, for each apart=NAME:ADDR...: the measured task's calls of the
 *    functions at ADDR..., with all they call, from entry to return. The
 *    harness names functions whose cost depends on state that differs
 *    between runs rather than on the path measured (cmd-bench.c);
 *  - own: the rest, the measured task's own kernel work. The first column.
 *
 * Plugin API v4 (QEMU 10.0) has no discontinuity callback, so events are
 * recognised by where they enter, at translation: the interrupt gates'
 * handlers are read from the IDT, which x86_64 Linux maps read-only at the
 * base of the cpu_entry_area, when the first user block is translated (the
 * kernel is up by then); the translation cache is then flushed
 * (qemu_plugin_reset) so that blocks translated during boot get the check
 * too. The interrupted rip and rsp come from the hardware frame at the
 * handler's first block (these vectors push no error code), an apart
 * call's return from the stack at its first block, the tasks from
 * __switch_to's arguments. Where execution returns is found by a
 * condition on every block, "the vCPU waits for this block's address",
 * which costs a compare; the callbacks themselves run only at the events.
 * Addresses are taken as given: a kernel with KASLR needs them relocated.
 *
 * Counting is per block entry: a block counts in full when it is entered,
 * so one that an exception leaves early is over-counted by its untaken
 * tail, and a block counts for the class it starts in. A rep-prefixed
 * string instruction counts once per entry of its block: plain TCG
 * iterates inside the block (clear_page's "rep stosb" counts about 1),
 * -icount re-enters it per iteration (about 4096), so figures are
 * comparable only between runs in the same QEMU mode. Markers sit in user
 * blocks, kernel blocks never contain one, so the per-block granularity
 * does not blur where an interval starts or stops.
 *
 * Output, written once at exit (guest power-off or QMP quit; not SIGKILL):
 *   # insn-per-fault v2 kernel instructions between markers: vcpu own irq other [NAME...]
 *   <vcpu> <own> <irq> <other> [<NAME>...]   one line per start..stop interval
 *   # interrupts: separated, N entry points   (or: not separated: why)
 *   # intervals N
 * A line's sum is what version 1 printed as its one figure. A stop without
 * a start is ignored; a second start restarts the interval. Intervals are
 * listed by vCPU, each vCPU's in the order they ended.
 *
 * Locking: the per-vCPU state is in the scoreboard and only ever touched
 * from that vCPU's thread (MTTCG runs one thread per vCPU; the inline add
 * and the callbacks run on it). QEMU resizes a scoreboard only with all
 * vCPUs stopped, and the atexit callback runs after they have stopped. The
 * interrupt entry points are written once, under idt_lock, before idt_done
 * is set (release), and read only by translations that saw it set
 * (acquire) or under the lock; the arguments are parsed before any vCPU
 * runs.
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
/* The read-only IDT alias at the base of the cpu_entry_area. */
#define CEA_IDT 0xfffffe0000000000ULL
#define IDT_VECTORS 256
#define IDT_GATE 16
#define NMI_VECTOR 2
#define FIRST_EXTERNAL_VECTOR 32
#define IA32_SYSCALL_VECTOR 0x80

#define MARKER_LEN 3
static const uint8_t marker_start[MARKER_LEN] = { 0x66, 0x87, 0xdb }; /* xchg %bx,%bx */
static const uint8_t marker_stop[MARKER_LEN] = { 0x66, 0x87, 0xc9 };  /* xchg %cx,%cx */

enum { OWN, IRQ, OTHER, FIRST_APART };
#define NCLASS 8

struct interval {
	uint64_t insns[NCLASS];
};

struct vcpu_state {
	uint64_t kernel_insns;	/* inline add per kernel block executed */
	uint64_t armed;		/* an interval is open */
	uint64_t watch;		/* the return address waited for, or 0 */
	uint64_t call_ret;	/* set by a block that calls an apart function */
	uint64_t mark;		/* kernel_insns already given to a class */
	uint64_t insns[NCLASS];	/* the open interval's, by class */
	int cls;		/* class of the blocks since mark */
	int in_irq, cls_before_irq;
	int irq_preempts;	/* it interrupted another task */
	uint64_t irq_rip, irq_rsp;
	int apart;		/* class of the apart call in progress, or 0 */
	uint64_t apart_rip, apart_rsp;
	uint64_t own_task;	/* the measured task_struct, once it switched out */
	GByteArray *buf;
	GArray *intervals;	/* struct interval per finished interval */
};

static struct qemu_plugin_scoreboard *state;
static qemu_plugin_u64 kernel_insns, armed, watch, call_ret;
static struct qemu_plugin_register *reg_rsp, *reg_rdi, *reg_rsi;
static char *out_path;
static FILE *out;

/* Sorted handler addresses of the interrupt gates; see read_idt(). */
static GMutex idt_lock;
static int idt_done;
static uint64_t irq_entry[IDT_VECTORS];
static size_t n_irq_entry;
static char idt_why[160];
static unsigned long long stack_unread;

/* From the arguments. */
static uint64_t switch_addr;
struct apart_fn {
	uint64_t addr;
	int cls;
};
static struct apart_fn *apart_fn;
static size_t n_apart_fn;
static const char *class_name[NCLASS] = { "own", "irq", "other" };
static int nclass = FIRST_APART;

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void plugin_exit(qemu_plugin_id_t id, void *udata);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_apart(const void *a, const void *b)
{
	return cmp_u64(&((const struct apart_fn *)a)->addr, &((const struct apart_fn *)b)->addr);
}

/*
 * Which handlers interrupts enter the kernel at. Tried whenever a block
 * below the kernel half is translated until it can be read: the firmware
 * and the decompressor run there too, before the cpu_entry_area exists;
 * the first user block has it mapped, as every page table does, and the
 * IDT final. -1 when it cannot be read (yet), 0 when it was.
 */
static int read_idt(void)
{
	g_autoptr(GByteArray) idt = g_byte_array_new();
	size_t n = 0;

	if (!qemu_plugin_read_memory_vaddr(CEA_IDT, idt, IDT_VECTORS * IDT_GATE) ||
	    idt->len < IDT_VECTORS * IDT_GATE) {
		snprintf(idt_why, sizeof(idt_why), "the IDT at 0x%llx was never readable",
			 (unsigned long long)CEA_IDT);
		return -1;
	}
	for (int v = 0; v < IDT_VECTORS; v++) {
		const uint8_t *g = idt->data + v * IDT_GATE;
		uint64_t handler;

		if (v != NMI_VECTOR && (v < FIRST_EXTERNAL_VECTOR || v == IA32_SYSCALL_VECTOR))
			continue;
		if (!(g[5] & 0x80))	/* not present */
			continue;
		handler = (uint64_t)(g[0] | g[1] << 8) | (uint64_t)(g[6] | g[7] << 8) << 16 |
			  (uint64_t)(g[8] | g[9] << 8 | g[10] << 16 | (uint32_t)g[11] << 24) << 32;
		if (handler < KERNEL_BASE) {
			snprintf(idt_why, sizeof(idt_why),
				 "vector %d of the IDT at 0x%llx points outside the kernel: not x86_64 Linux",
				 v, (unsigned long long)CEA_IDT);
			return 0;
		}
		irq_entry[n++] = handler;
	}
	qsort(irq_entry, n, sizeof(*irq_entry), cmp_u64);
	n_irq_entry = n;
	return 0;
}

static uint64_t read_reg(struct vcpu_state *s, struct qemu_plugin_register *reg)
{
	uint64_t v = 0;
	int n;

	g_byte_array_set_size(s->buf, 0);
	n = qemu_plugin_read_register(reg, s->buf);
	if (n > 0)
		memcpy(&v, s->buf->data, n < 8 ? n : 8);
	return v;
}

static int read_stack(struct vcpu_state *s, uint64_t rsp, uint64_t *v, size_t n)
{
	g_byte_array_set_size(s->buf, 0);
	if (!qemu_plugin_read_memory_vaddr(rsp, s->buf, n * 8) || s->buf->len < n * 8) {
		stack_unread++;
		return -1;
	}
	memcpy(v, s->buf->data, n * 8);
	return 0;
}

/* Blocks before this one go to the class they ran in. */
static void settle(struct vcpu_state *s)
{
	s->insns[s->cls] += s->kernel_insns - s->mark;
	s->mark = s->kernel_insns;
}

/* The measured task runs (again): its own class, or its apart call's. */
static int task_class(struct vcpu_state *s)
{
	return s->apart ? s->apart : OWN;
}

/*
 * The block at an awaited address runs: it is the return if the stack is
 * back where it was too (another task may run the same code meanwhile).
 * Every block has this callback, under the condition watch == its address,
 * and is registered ahead of the inline add, so kernel_insns here excludes
 * this block: from this block on, counts go to the new class.
 */
static void watch_hit(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	uint64_t pc = (uintptr_t)udata, rsp = read_reg(s, reg_rsp);

	if (s->in_irq) {
		if (pc != s->irq_rip || rsp != s->irq_rsp)
			return;
		settle(s);
		s->in_irq = 0;
		s->cls = s->cls_before_irq;
	} else if (s->apart && s->cls == s->apart) {
		if (pc != s->apart_rip || rsp != s->apart_rsp)
			return;
		settle(s);
		s->apart = 0;
		s->cls = OWN;
	} else {
		return;
	}
	s->watch = s->apart ? s->apart_rip : 0;
}

/* An interrupt gate's handler, at its first block. Nested ones stay in it. */
static void irq_hit(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	uint64_t frame[4];	/* rip, cs, rflags, rsp */

	(void)udata;
	if (s->in_irq)
		return;
	settle(s);
	s->in_irq = 1;
	s->cls_before_irq = s->cls;
	s->cls = IRQ;
	s->irq_preempts = s->cls_before_irq == OTHER;
	if (read_stack(s, read_reg(s, reg_rsp), frame, 4) < 0) {
		/* No way to tell the return: the rest of the interval is irq. */
		s->irq_rip = s->irq_rsp = 0;
		return;
	}
	s->irq_rip = frame[0];
	s->irq_rsp = frame[3];
	s->watch = s->irq_rip;
}

/*
 * An apart function, at its first block: udata is its class. The return
 * address is the one the block before stored if that block called it
 * directly (a read of the guest stack costs a page walk), else read.
 */
static void apart_hit(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	uint64_t rsp, ret = s->call_ret;

	/* Only the measured task's own calls; nested ones stay in the outer. */
	if (s->cls != OWN)
		return;
	rsp = read_reg(s, reg_rsp);
	if (!ret && read_stack(s, rsp, &ret, 1) < 0)
		return;	/* counted as own rather than lost to the class */
	settle(s);
	s->apart = s->cls = (int)(uintptr_t)udata;
	s->apart_rip = ret;
	s->apart_rsp = rsp + 8;
	s->watch = ret;
}

/* __switch_to(prev, next), at its first block: next's stack is current. */
static void switch_hit(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	uint64_t prev = read_reg(s, reg_rdi), next = read_reg(s, reg_rsi);

	(void)udata;
	/* The first switch away from the measured task tells which it is. */
	if (!s->own_task && (s->in_irq ? s->cls_before_irq : s->cls) != OTHER)
		s->own_task = prev;
	if (s->in_irq) {
		/*
		 * It interrupted another task, which was preempted on its way
		 * out: the measured task runs again before that frame returns.
		 */
		if (!s->irq_preempts || next != s->own_task)
			return;
		s->in_irq = 0;
		s->watch = s->apart ? s->apart_rip : 0;
	}
	settle(s);
	s->cls = next == s->own_task ? task_class(s) : OTHER;
}

static void mark_start(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);

	(void)udata;
	if (!s->buf)
		s->buf = g_byte_array_new();
	s->mark = s->kernel_insns;
	memset(s->insns, 0, sizeof(s->insns));
	s->cls = OWN;
	s->in_irq = 0;
	s->apart = 0;
	s->own_task = 0;
	s->watch = 0;
	s->armed = 1;
}

static void mark_stop(unsigned int vcpu, void *udata)
{
	struct vcpu_state *s = qemu_plugin_scoreboard_find(state, vcpu);
	struct interval iv;

	(void)udata;
	if (!s->armed)
		return;
	settle(s);
	s->armed = 0;
	s->watch = 0;
	memcpy(iv.insns, s->insns, sizeof(iv.insns));
	if (!s->intervals)
		s->intervals = g_array_new(FALSE, FALSE, sizeof(struct interval));
	g_array_append_val(s->intervals, iv);
}

/* The return address if the block ends in "call rel32" to an apart function, else 0. */
static uint64_t apart_call_ret(struct qemu_plugin_tb *tb, size_t n)
{
	struct qemu_plugin_insn *insn;
	struct apart_fn key;
	uint8_t b[5];
	int32_t rel;
	uint64_t end;

	if (!n_apart_fn || !n)
		return 0;
	insn = qemu_plugin_tb_get_insn(tb, n - 1);
	if (qemu_plugin_insn_size(insn) != 5 || qemu_plugin_insn_data(insn, b, 5) != 5 || b[0] != 0xe8)
		return 0;
	memcpy(&rel, b + 1, 4);
	end = qemu_plugin_insn_vaddr(insn) + 5;
	key.addr = end + (int64_t)rel;
	return bsearch(&key, apart_fn, n_apart_fn, sizeof(*apart_fn), cmp_apart) ? end : 0;
}

static void reinstall(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	struct apart_fn key = { .addr = pc }, *f;

	if (pc < KERNEL_BASE && !__atomic_load_n(&idt_done, __ATOMIC_ACQUIRE)) {
		g_mutex_lock(&idt_lock);
		if (!idt_done && !read_idt()) {
			__atomic_store_n(&idt_done, 1, __ATOMIC_RELEASE);
			/* Retranslate what boot translated without the interrupt check. */
			if (n_irq_entry)
				qemu_plugin_reset(id, reinstall);
		}
		g_mutex_unlock(&idt_lock);
	}
	/* Ahead of the inline add: these see kernel_insns without this block. */
	qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, watch_hit, QEMU_PLUGIN_CB_R_REGS,
						  QEMU_PLUGIN_COND_EQ, watch, pc,
						  (void *)(uintptr_t)pc);
	if (pc >= KERNEL_BASE) {
		if (__atomic_load_n(&idt_done, __ATOMIC_ACQUIRE) && n_irq_entry &&
		    bsearch(&pc, irq_entry, n_irq_entry, sizeof(*irq_entry), cmp_u64))
			qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, irq_hit, QEMU_PLUGIN_CB_R_REGS,
								  QEMU_PLUGIN_COND_NE, armed, 0, NULL);
		f = n_apart_fn ? bsearch(&key, apart_fn, n_apart_fn, sizeof(*apart_fn), cmp_apart) : NULL;
		if (f)
			qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, apart_hit, QEMU_PLUGIN_CB_R_REGS,
								  QEMU_PLUGIN_COND_NE, armed, 0,
								  (void *)(uintptr_t)f->cls);
		if (pc == switch_addr)
			qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, switch_hit, QEMU_PLUGIN_CB_R_REGS,
								  QEMU_PLUGIN_COND_NE, armed, 0, NULL);
		/*
		 * After the callbacks: every kernel block overwrites call_ret,
		 * so apart_hit sees only what the block just before stored.
		 */
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_STORE_U64, call_ret, apart_call_ret(tb, n));
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

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	g_autoptr(GArray) regs = NULL;

	(void)id;
	(void)vcpu;
	if (reg_rsp)
		return;	/* handles are the same on every vCPU of one target */
	regs = qemu_plugin_get_registers();
	for (guint i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *r = &g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(r->name, "rsp"))
			reg_rsp = r->handle;
		else if (!strcmp(r->name, "rdi"))
			reg_rdi = r->handle;
		else if (!strcmp(r->name, "rsi"))
			reg_rsi = r->handle;
	}
	if (!reg_rsp || !reg_rdi || !reg_rsi) {
		fprintf(stderr, "insn-per-fault: QEMU offers no register rsp, rdi or rsi to read\n");
		exit(1);
	}
}

static void free_args(void)
{
	for (int c = FIRST_APART; c < nclass; c++)
		g_free((char *)class_name[c]);
	nclass = FIRST_APART;
	g_free(apart_fn);
	apart_fn = NULL;
	n_apart_fn = 0;
	g_free(out_path);
	out_path = NULL;
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
	int vcpus = qemu_plugin_num_vcpus();
	unsigned long long total = 0;

	(void)id;
	(void)udata;
	fprintf(out, "# insn-per-fault v2 kernel instructions between markers: vcpu");
	for (int c = 0; c < nclass; c++)
		fprintf(out, " %s", class_name[c]);
	fprintf(out, "\n");
	for (int v = 0; v < vcpus; v++) {
		struct vcpu_state *s = qemu_plugin_scoreboard_find(state, v);

		if (s->buf)
			g_byte_array_free(s->buf, TRUE);
		s->buf = NULL;
		if (!s->intervals)
			continue;
		for (guint i = 0; i < s->intervals->len; i++) {
			struct interval *iv = &g_array_index(s->intervals, struct interval, i);

			fprintf(out, "%d", v);
			for (int c = 0; c < nclass; c++)
				fprintf(out, " %" PRIu64, iv->insns[c]);
			fprintf(out, "\n");
		}
		total += s->intervals->len;
		g_array_free(s->intervals, TRUE);
		s->intervals = NULL;
	}
	if (n_irq_entry)
		fprintf(out, "# interrupts: separated, %zu entry points\n", n_irq_entry);
	else
		fprintf(out, "# interrupts: not separated: %s\n",
			idt_why[0] ? idt_why : "no user block ran");
	if (!switch_addr)
		fprintf(out, "# other tasks: not separated: no switch=ADDR\n");
	if (stack_unread)
		fprintf(out, "# stack reads failed: %llu (after an interrupt's the interval is irq; an apart call's is own)\n",
			stack_unread);
	fprintf(out, "# intervals %llu\n", total);
	if (ferror(out) | fclose(out))
		fprintf(stderr, "insn-per-fault: write %s failed; its counts are incomplete\n",
			out_path);
	out = NULL;
	qemu_plugin_scoreboard_free(state);
	state = NULL;
	free_args();
}

static int parse_addr(const char *arg, const char *s, uint64_t *addr)
{
	char *end;

	*addr = g_ascii_strtoull(s, &end, 16);
	if (!*s || *end || *addr < KERNEL_BASE) {
		fprintf(stderr, "insn-per-fault: %s: '%s' is no kernel address in hex\n", arg, s);
		return -1;
	}
	return 0;
}

/* apart=NAME:ADDR[:ADDR...]; a NAME given twice adds to its class. */
static int parse_apart(const char *arg, const char *val)
{
	g_auto(GStrv) f = g_strsplit(val, ":", -1);
	int n = g_strv_length(f), c;

	if (n < 2 || !*f[0] || strspn(f[0], "abcdefghijklmnopqrstuvwxyz_") != strlen(f[0])) {
		fprintf(stderr, "insn-per-fault: %s: want apart=NAME:ADDR[:ADDR...], NAME in [a-z_]\n", arg);
		return -1;
	}
	for (c = 0; c < nclass; c++)
		if (!strcmp(class_name[c], f[0]))
			break;
	if (c < FIRST_APART) {
		fprintf(stderr, "insn-per-fault: %s: '%s' is a class of its own\n", arg, f[0]);
		return -1;
	}
	if (c == nclass) {
		if (nclass == NCLASS) {
			fprintf(stderr, "insn-per-fault: %s: at most %d apart classes\n", arg,
				NCLASS - FIRST_APART);
			return -1;
		}
		class_name[nclass++] = g_strdup(f[0]);
	}
	apart_fn = g_renew(struct apart_fn, apart_fn, n_apart_fn + n - 1);
	for (int i = 1; i < n; i++) {
		apart_fn[n_apart_fn].cls = c;
		if (parse_addr(arg, f[i], &apart_fn[n_apart_fn++].addr) < 0)
			return -1;
	}
	qsort(apart_fn, n_apart_fn, sizeof(*apart_fn), cmp_apart);
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		g_auto(GStrv) kv = g_strsplit(argv[i], "=", 2);
		int rc = 0;

		if (!kv[0] || !kv[1] || !*kv[1])
			rc = -1;
		else if (!strcmp(kv[0], "out")) {
			g_free(out_path);
			out_path = g_strdup(kv[1]);
		} else if (!strcmp(kv[0], "switch"))
			rc = parse_addr(argv[i], kv[1], &switch_addr);
		else if (!strcmp(kv[0], "apart"))
			rc = parse_apart(argv[i], kv[1]);
		else
			rc = -1;
		if (rc < 0) {
			fprintf(stderr, "insn-per-fault: bad argument '%s' (takes out=PATH, switch=ADDR, apart=NAME:ADDR...)\n",
				argv[i]);
			goto fail;
		}
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
	armed = qemu_plugin_scoreboard_u64_in_struct(state, struct vcpu_state, armed);
	watch = qemu_plugin_scoreboard_u64_in_struct(state, struct vcpu_state, watch);
	call_ret = qemu_plugin_scoreboard_u64_in_struct(state, struct vcpu_state, call_ret);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	reinstall(id);
	return 0;

fail:
	free_args();
	return -1;
}
