// SPDX-License-Identifier: GPL-2.0
/*
 * adr-cache: an ADR persistence model of the emulated NVDIMM.
 *
 *   qemu-system-x86_64 -accel tcg ... -plugin adr-cache.so,base=PHYS,size=BYTES,
 *       media=NV.img,durable=NV.durable,state=NV.state[,sock=PATH][,fence_max=N,
 *       fence_period=N,fence_any=0|1,seed=N][,wait_start=0|1][,capacity=LINES]
 *
 * QEMU models no CPU cache: every store the guest executes is in the backing
 * file at once, which is what an eADR platform guarantees. On an ADR
 * platform only what reached the memory controller survives power loss: a
 * store stays in the cache until it is written back and that write-back is
 * fenced. This plugin keeps that difference for the NVDIMM region
 * [base, base+size): which 64-byte lines are pending, and, in the durable
 * file, what each line held when it was last durable. The harness builds
 * crash images from the two files (crash-inject/model/adr-state.h says how).
 *
 * The rules, from the Intel SDM (Vol. 2A/2B instruction pages for CLFLUSH,
 * CLFLUSHOPT, CLWB, MOVNTI, MOVNTDQ, SFENCE, MFENCE; Vol. 3A 9.2.2 "Memory
 * Ordering in P6 and More Recent Processor Families" and 12.3 on the
 * write-combining buffers that non-temporal stores use):
 *  - a store into the region makes its line(s) pending;
 *  - clwb (66 0F AE /6) and clflushopt (66 0F AE /7) write the line back as
 *    it is at that moment; the write-back is durable at the next fence of
 *    the same vCPU: sfence, mfence, a LOCK-prefixed instruction or xchg with
 *    memory ("CLWB is ordered only by store-fencing operations ... SFENCE,
 *    MFENCE, XCHG, or LOCK-prefixed instructions");
 *  - clflush (0F AE /7) is ordered with stores to the line: durable at once;
 *  - non-temporal stores (movnti 0F C3, movntps/pd [66] 0F 2B, movntq 0F E7,
 *    movntdq 66 0F E7, maskmovq/maskmovdqu [66] 0F F7, AMD movntss/sd
 *    F2/F3 0F 2B, and the VEX forms of 2B, E7, F7) are durable at the
 *    vCPU's next fence, as if written back at the store, but only their own
 *    bytes: earlier cached bytes of the same line that no clwb/clflushopt
 *    wrote back stay pending. The SDM says that a non-temporal store to a
 *    location present in the caches evicts it (Vol. 1 10.4.6.2, "Caching
 *    of Temporal vs. Non-Temporal Data"), not that the eviction is ordered
 *    by the next sfence, and the kernel's __memcpy_flushcache() and PMDK's
 *    memmove_movnt write the cached head of a non-temporal copy back
 *    explicitly. Such a line names the cached store, not the non-temporal
 *    one (ADR_LINE_NT_EVICTED);
 *  - at a fence, a line whose durable bytes still differ from its current
 *    ones (stored again after its write-back, or left behind by a
 *    non-temporal store) stays pending, holding the written-back bytes in
 *    the durable file;
 *  - wbinvd (0F 09) and wbnoinvd (F3 0F 09) make every pending line durable;
 *  - a cache may write a line back between any two of its stores: a store
 *    that changes bytes already stored since the line was last durable
 *    leaves the value the line held before it as one that may survive
 *    (kept per line, the first ADR_VERSIONS, with the store that wrote
 *    the changed bytes; the harness builds images from them).
 * Not modelled (so a program relying on them is judged strictly): the
 * write-back of a line the cache evicts by itself (a non-temporal store
 * to a cached line among them), serializing instructions and interrupts as
 * fences for write-backs, and a clwb or clflushopt that carries only part
 * of its line.
 *
 * Flushes make no memory access under TCG, so no memory callback fires for
 * them: the operand is decoded from the instruction bytes and computed from
 * the registers at run time. Plugin API v4 cannot translate a virtual
 * address, so the plugin translates it as the page tables map it at that
 * moment: an address in the kernel's direct map by the map's offset, which
 * the kernel's own stores into the region give, and any other address,
 * user or kernel, by walking the current address space's page tables from
 * CR3, read through the direct map. Nothing is remembered from one flush to
 * the next: after munmap, mremap, a copy on write, or an exit that hands
 * the CR3 to another process, a virtual page maps another physical page. A
 * flush of a user page that is not present writes nothing back (a CPU
 * faults on it first; TCG gives it no memory access, so it does not fault
 * and is not run again). A flush resolved by none of these (a kernel address
 * outside the direct map whose walk finds no page, say) is counted in the
 * state (unresolved_flushes, last_unresolved_pc), never guessed.
 *
 * A store's physical address is the one QEMU's TLB translated it to. A
 * store that crosses a page boundary is split there: the second page need
 * not follow the first physically, and its address is the TLB's entry for
 * that page (else the page tables', else the store is counted unresolved).
 *
 * Crash points: the plugin holds the vCPU, says "point ..." on sock, and
 * waits for "go" while the harness copies the two files. It does so at
 *  - the ack marker (66 87 d2, xchg %dx,%dx; workloads/ack.h): a program
 *    acknowledges a record there, with rdi = sequence, rsi = the record's
 *    address, rcx = its length; the plugin adds where the record lies in the
 *    region, so the harness can say which dropped line lost it;
 *  - a fence that leaves lines pending, sampled: each with probability
 *    1/fence_period, at most fence_max times (seeded, reproducible);
 *    with fence_any=1, also a fence that leaves nothing pending;
 *  - the next store into the region after the harness asks with "time".
 *
 * Locking: one mutex guards the model; every callback that touches it takes
 * the mutex (MTTCG runs vCPUs in parallel). A vCPU held at a crash point
 * waits on a condition variable with the mutex released, so the socket
 * reader thread can deliver "go".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>

#include <qemu-plugin.h>

#include "adr-state.h"
#include "../../proto/adr_marker.h"

/* Linux's, which glibc declares only under _GNU_SOURCE; that would also
 * declare REG_RIP and the like, which this file names itself. */
#ifndef SEEK_DATA
#define SEEK_DATA 3
#define SEEK_HOLE 4
#endif

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * Kernel addresses have bit 63 set, user ones not, with 4-level paging
 * (kernel from 0xffff800000000000) and 5-level alike (from
 * 0xff00000000000000: the direct map at 0xff11000000000000 under
 * nokaslr). Our guests boot with LA57 under -cpu max.
 */
#define KERNEL_BASE 0x8000000000000000ULL
#define PAGE 4096ULL
/* Where the kernel's direct map starts, five- and four-level paging,
 * unrandomized; it maps at most 64 TiB of physical memory. */
#define DIRECT_MAP_L5 0xff11000000000000ULL
#define DIRECT_MAP_L4 0xffff888000000000ULL
#define PHYS_MAX (1ULL << 46)
/* The largest record whose lines the ack marker reports. */
#define ACK_MAX_LEN (1ULL << 20)

enum insn_kind { INSN_STORE, INSN_NT_STORE, INSN_FLUSH, INSN_CLFLUSH, INSN_FENCE,
		 INSN_WBINVD, INSN_ACK };

/* What translation found out about one instruction; kept for good. */
struct insn_desc {
	uint64_t pc;
	enum insn_kind kind;
	/* INSN_FLUSH, INSN_CLFLUSH: the memory operand. */
	int base, index;	/* register numbers 0-15, -1 none, 16 = rip */
	int scale;
	int64_t disp;
	int seg;		/* 0, 4 = fs, 5 = gs */
	int addr32;		/* 67 prefix */
	unsigned int len;
};

/* A write-back issued (clwb, clflushopt, NT store) and not yet fenced. */
struct flush_rec {
	uint64_t line;		/* line number in the region */
	uint64_t at_store;	/* the region's store count when it was written back */
	unsigned int vcpu;
	int user;		/* written back by user code (clwb, clflushopt or an NT store) */
	uint8_t bytes[ADR_LINE];
};

static uint64_t base, size;
static int media_fd = -1, durable_fd = -1, state_fd = -1;
static uint8_t *media, *durable;
static struct adr_state *st;
static size_t state_bytes;

static GMutex lock;
static GHashTable *pending;	/* line number -> slot + 1 */
/*
 * What the plugin alone needs of each pending line, by slot as st->lines:
 * the line as the last store left it (a store's callback comes after its
 * bytes landed, so this is how the value it overwrote is known), which
 * bytes were stored since the line was last durable, and the last store to
 * each 8-byte word.
 */
struct line_shadow {
	uint8_t bytes[ADR_LINE];
	uint64_t stored;	/* bit b: byte b stored since last durable */
	uint64_t pc[ADR_LINE / 8], caller[ADR_LINE / 8];
};
static struct line_shadow *shadows;

/* Slot s's earlier values in the state file. */
static struct adr_version *slot_versions(size_t s)
{
	return (struct adr_version *)((char *)st + adr_state_versions(st->capacity, s));
}
static GHashTable *descs;	/* (pc, kind) -> struct insn_desc */
static GArray *flushes;		/* struct flush_rec, in no order */
/* (line, vCPU) -> its write-back's index in flushes + 1. A fence's window
 * can hold hundreds of lines (the pmem driver copies a journal block with
 * non-temporal stores, 64 lines each), and every store into one looks its
 * line up: a scan of the list made that quadratic. */
static GHashTable *flush_index;
static int64_t linear_delta;	/* kernel vaddr - guest physical addr of the region */
static int have_linear;

/* Registers, numbered as in ModRM (0 rax ... 15 r15), then rip, fs/gs base, cr3, cr4. */
enum { REG_RIP = 16, REG_FS_BASE, REG_GS_BASE, REG_CR3, REG_CR4, NREGS };
static struct qemu_plugin_register *regs[NREGS];
static const char *const reg_names[NREGS] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "fs_base", "gs_base", "cr3", "cr4",
};

/* Crash points. */
static int sock_fd = -1;
static GCond go_cond;
static int go_count;		/* "go" lines received */
static volatile int time_requested;
static uint64_t fence_max, fence_period = 1000, fence_points, rng = 1;
/* fence_any=1: a fence that wrote lines back qualifies even when none stay
 * pending (a black box: its recovery is tested at every durable step). */
static int fence_any;
/*
 * wait_start=1: the model starts when a user-mode process runs the start
 * marker (proto/adr_marker.h); until then only that instruction is
 * instrumented, so the guest boots without a callback on every store.
 * The stores before it are taken as durable (the durable file is made the
 * media's copy then), the plugin says "start" on sock, and it is reset to
 * instrument everything.
 */
static int started = 1;
static qemu_plugin_id_t plugin_id;

static uint64_t read_reg(int r)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;
	int n;

	if (r < 0 || r >= NREGS || !regs[r])
		return 0;
	n = qemu_plugin_read_register(regs[r], buf);
	if (n > 0)
		memcpy(&v, buf->data, n < 8 ? n : 8);
	return v;
}

/* The 8 bytes at the stack top: a leaf function's return address. */
static uint64_t stack_top(uint64_t rsp)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;

	if (rsp && rsp < KERNEL_BASE && qemu_plugin_read_memory_vaddr(rsp, buf, 8) && buf->len == 8)
		memcpy(&v, buf->data, 8);
	return v;
}

static uint64_t next_random(void)
{
	/* xorshift64: seeded by the harness, the same points every run. */
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* --- the pending-line table (lock held) --- */

static struct adr_line *pending_find(uint64_t line)
{
	gpointer v = g_hash_table_lookup(pending, GSIZE_TO_POINTER(line));

	return v ? &st->lines[GPOINTER_TO_SIZE(v) - 1] : NULL;
}

static void pending_drop(uint64_t line)
{
	gpointer v = g_hash_table_lookup(pending, GSIZE_TO_POINTER(line));
	size_t slot, last;

	if (!v)
		return;
	slot = GPOINTER_TO_SIZE(v) - 1;
	last = st->npending - 1;
	g_hash_table_remove(pending, GSIZE_TO_POINTER(line));
	if (slot != last) {
		st->lines[slot] = st->lines[last];
		shadows[slot] = shadows[last];
		memcpy(slot_versions(slot), slot_versions(last), ADR_VERSIONS * sizeof(struct adr_version));
		g_hash_table_insert(pending, GSIZE_TO_POINTER(st->lines[slot].off / ADR_LINE),
				    GSIZE_TO_POINTER(slot + 1));
	}
	st->npending--;
}

/* A vCPU number takes the key's low 16 bits; a line number, the rest. */
static gpointer flush_key(uint64_t line, unsigned int vcpu)
{
	return GSIZE_TO_POINTER((gsize)(line << 16 | (vcpu & 0xffff)));
}

/* Write-back i is done with: the last takes its place in the list. */
static void flush_remove(guint i)
{
	struct flush_rec *f = &g_array_index(flushes, struct flush_rec, i);
	guint last = flushes->len - 1;

	g_hash_table_remove(flush_index, flush_key(f->line, f->vcpu));
	if (i != last) {
		struct flush_rec *l = &g_array_index(flushes, struct flush_rec, last);

		g_hash_table_insert(flush_index, flush_key(l->line, l->vcpu), GUINT_TO_POINTER(i + 1));
	}
	g_array_remove_index_fast(flushes, i);
}

/* The line's current bytes are now what survives a power loss. */
static void line_durable(uint64_t line)
{
	guint i = 0;

	/* A write-back still in flight would be older than this. */
	while (i < flushes->len) {
		if (g_array_index(flushes, struct flush_rec, i).line == line)
			flush_remove(i);
		else
			i++;
	}
	memcpy(durable + line * ADR_LINE, media + line * ADR_LINE, ADR_LINE);
	pending_drop(line);
}

/* The line's slot in the pending table, added if it was durable; NULL when
 * the table is full. */
static struct adr_line *line_pending(uint64_t line)
{
	struct adr_line *l = pending_find(line);

	if (l)
		return l;
	if (st->npending == st->capacity) {
		st->overflow++;
		return NULL;
	}
	l = &st->lines[st->npending++];
	memset(l, 0, sizeof(*l));
	l->off = line * ADR_LINE;
	/* Not pending until now: the durable copy holds what the store overwrote. */
	memset(&shadows[l - st->lines], 0, sizeof(shadows[0]));
	memcpy(shadows[l - st->lines].bytes, durable + line * ADR_LINE, ADR_LINE);
	g_hash_table_insert(pending, GSIZE_TO_POINTER(line), GSIZE_TO_POINTER(st->npending));
	return l;
}

/* One more store to the line, and where it falls among the region's stores
 * (st->stores counts it first): the harness orders the pending lines by
 * their last store for the prefixes in store order (adr_subsets()). */
static void line_count_store(struct adr_line *l)
{
	if (!l->stores++)
		l->first_store = st->stores;
	l->last_store = st->stores;
}

/*
 * A store of bytes [from, to) of the line has landed. Where it changed
 * bytes already stored since the line was last durable, the line held a
 * value until now that a cache could have written back, and that neither
 * the durable copy nor the line as it is now shows: keep it (the first
 * ADR_VERSIONS of them). The shadow then takes the line as it is now.
 */
static void line_remember(struct adr_line *l, uint64_t line, unsigned int from, unsigned int to, uint64_t pc,
			  uint64_t caller)
{
	struct line_shadow *s = &shadows[l - st->lines];
	const uint8_t *now = media + line * ADR_LINE;
	int changed = -1;

	for (unsigned int b = from; b < to && changed < 0; b++)
		if ((s->stored >> b & 1) && s->bytes[b] != now[b])
			changed = b;
	if (changed >= 0 && l->versions_seen++ < ADR_VERSIONS) {
		struct adr_version *v = &slot_versions(l - st->lines)[l->nversions++];

		v->pc = s->pc[changed / 8];
		v->caller = s->caller[changed / 8];
		v->at_store = st->stores;
		memcpy(v->bytes, s->bytes, ADR_LINE);
	} else if (changed >= 0) {
		st->versions_dropped++;
	}
	memcpy(s->bytes, now, ADR_LINE);
	for (unsigned int b = from; b < to; b++)
		s->stored |= 1ULL << b;
	for (unsigned int w = from / 8; w <= (to - 1) / 8; w++) {
		s->pc[w] = pc;
		s->caller[w] = caller;
	}
}

/*
 * A fence made the line's write-back of store count at durable and the
 * line stays pending (stored again since): the values it held before the
 * write-back are older than what is durable now, and only the bytes that
 * differ from it count as stored since.
 */
static void line_durable_up_to(struct adr_line *l, uint64_t line, uint64_t at)
{
	struct line_shadow *s = &shadows[l - st->lines];
	struct adr_version *v = slot_versions(l - st->lines);
	uint32_t kept = 0;

	for (uint32_t i = 0; i < l->nversions; i++)
		if (v[i].at_store > at)
			v[kept++] = v[i];
	l->nversions = l->versions_seen = kept;
	s->stored = 0;
	for (unsigned int b = 0; b < ADR_LINE; b++)
		if (durable[line * ADR_LINE + b] != media[line * ADR_LINE + b])
			s->stored |= 1ULL << b;
}

/* The line names its last store. */
static void line_names(struct adr_line *l, uint64_t pc, uint64_t caller, int nt)
{
	l->pc = pc;
	l->caller = caller;
	l->flags = (l->flags & ~(ADR_LINE_USER | ADR_LINE_NT | ADR_LINE_NT_EVICTED)) |
		   (pc < KERNEL_BASE ? ADR_LINE_USER : 0) | (nt ? ADR_LINE_NT : 0);
}

/* A cached store: the line is pending until written back and fenced. */
static void line_stored(uint64_t line, unsigned int from, unsigned int to, uint64_t pc, uint64_t caller)
{
	struct adr_line *l = line_pending(line);

	if (!l)
		return;
	line_remember(l, line, from, to, pc, caller);
	line_count_store(l);
	line_names(l, pc, caller, 0);
}

/* The vCPU's write-back of the line not yet fenced, or a new one holding
 * the 64 bytes at start. */
static struct flush_rec *flush_of(uint64_t line, unsigned int vcpu, const uint8_t *start)
{
	guint at = GPOINTER_TO_UINT(g_hash_table_lookup(flush_index, flush_key(line, vcpu)));
	struct flush_rec *f;

	if (at)
		return &g_array_index(flushes, struct flush_rec, at - 1);
	g_array_set_size(flushes, flushes->len + 1);
	g_hash_table_insert(flush_index, flush_key(line, vcpu), GUINT_TO_POINTER(flushes->len));
	f = &g_array_index(flushes, struct flush_rec, flushes->len - 1);
	f->line = line;
	f->vcpu = vcpu;
	f->user = 0;
	memcpy(f->bytes, start, ADR_LINE);
	return f;
}

/* clwb, clflushopt: a write-back of the whole line as it is now, durable
 * at the vCPU's next fence. */
static void line_written_back(uint64_t line, unsigned int vcpu, int user)
{
	struct adr_line *l = pending_find(line);
	struct flush_rec *f;

	if (!l)
		return; /* nothing pending: durable already */
	/* Every cached byte is carried now, those left behind too. */
	l->flags = (l->flags | ADR_LINE_FLUSHING) & ~ADR_LINE_NT_EVICTED;
	f = flush_of(line, vcpu, media + line * ADR_LINE);
	memcpy(f->bytes, media + line * ADR_LINE, ADR_LINE);
	f->at_store = st->stores;
	f->user |= user;
}

/*
 * A non-temporal store of bytes [from, to) of the line: written back with
 * its own bytes only, durable at the vCPU's next fence. Cached bytes of the
 * line that no write-back carries stay pending after that fence, and the
 * line goes on naming the cached store that wrote them.
 */
static void line_nt_stored(uint64_t line, unsigned int from, unsigned int to, unsigned int vcpu,
			   uint64_t pc, uint64_t caller)
{
	struct adr_line *l = line_pending(line);
	const uint8_t *now = media + line * ADR_LINE;
	struct flush_rec *f;
	int cached;

	if (!l)
		return;
	/* Whether the line names a cached store, whose bytes may be left behind. */
	line_remember(l, line, from, to, pc, caller);
	cached = l->stores && (!(l->flags & ADR_LINE_NT) || (l->flags & ADR_LINE_NT_EVICTED));
	line_count_store(l);
	f = flush_of(line, vcpu, durable + line * ADR_LINE);
	memcpy(f->bytes + from, now + from, to - from);
	f->at_store = st->stores;
	f->user |= pc < KERNEL_BASE;
	if (cached && memcmp(f->bytes, now, ADR_LINE))
		l->flags |= ADR_LINE_NT | ADR_LINE_NT_EVICTED;
	else
		line_names(l, pc, caller, 1);
	l->flags |= ADR_LINE_FLUSHING;
}

/* Returns how many write-backs the fence made durable; *user: whether user
 * code issued one of them. */
static unsigned int fence(unsigned int vcpu, int *user)
{
	unsigned int done = 0;

	*user = 0;
	guint i = 0;

	while (i < flushes->len) {
		struct flush_rec *f = &g_array_index(flushes, struct flush_rec, i);
		struct adr_line *l;

		if (f->vcpu != vcpu) {
			i++;
			continue;
		}
		l = pending_find(f->line);
		if (l) {
			memcpy(durable + f->line * ADR_LINE, f->bytes, ADR_LINE);
			/* Bytes stored after the write-back, or that no write-back
			 * carried, keep the line pending. */
			if (memcmp(durable + f->line * ADR_LINE, media + f->line * ADR_LINE, ADR_LINE)) {
				l->flags &= ~ADR_LINE_FLUSHING;
				line_durable_up_to(l, f->line, f->at_store);
			}
			else
				pending_drop(f->line);
		}
		*user |= f->user;
		flush_remove(i);
		done++;
	}
	if (done)
		st->fences++;
	return done;
}

/* --- from a virtual address to the region --- */

/*
 * The kernel's first store into the region gives the offset of the linear
 * map it went through (the pmem driver and DAX reach the region through
 * the direct map), and page tables are read through that map.
 */
static void linear_seen(uint64_t vaddr, uint64_t region_off)
{
	if (vaddr < KERNEL_BASE || have_linear)
		return;
	linear_delta = (int64_t)(vaddr - (base + region_off));
	have_linear = 1;
}

/*
 * Whether a kernel address lies in the direct map, whose translation is the
 * offset: only where that offset is where the direct map starts without
 * memory randomization (CONFIG_RANDOMIZE_MEMORY, which our guest kernels do
 * not set; __PAGE_OFFSET_BASE_L5/_L4), so that the 64 TiB above it hold
 * nothing else. Any other kernel address is walked.
 */
static int in_direct_map(uint64_t vaddr)
{
	uint64_t delta = (uint64_t)linear_delta;

	return have_linear && (delta == DIRECT_MAP_L5 || delta == DIRECT_MAP_L4) && vaddr >= delta &&
	       vaddr - delta < PHYS_MAX;
}

/* Eight bytes of guest-physical memory, read through the kernel's linear map. */
static int read_phys_u64(uint64_t pa, uint64_t *v)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();

	if (!have_linear || pa >= PHYS_MAX ||
	    !qemu_plugin_read_memory_vaddr(pa + (uint64_t)linear_delta, buf, 8) || buf->len < 8)
		return -1;
	memcpy(v, buf->data, 8);
	return 0;
}

/* Why a walk stopped, for the first few: a flush left unresolved is a
 * finding about the model, and this is its evidence (QEMU's stderr). */
static void walk_failed(uint64_t vaddr, uint64_t cr3, int level, int levels, uint64_t entry)
{
	static int said;

	if (said++ < 4)
		fprintf(stderr, "adr-cache: page walk of 0x%" PRIx64 " (cr3 0x%" PRIx64 ", %d levels) stopped at level %d, entry 0x%" PRIx64 "%s\n",
			vaddr, cr3, levels, level, entry, have_linear ? "" : ": no linear map known yet");
}

/*
 * Walk the current address space's page tables from CR3, four or five
 * levels (CR4.LA57), as the MMU would (SDM Vol. 3A 4.5, "4-Level Paging
 * and 5-Level Paging"). Returns 0 with the guest-physical address, -2
 * where a level is not present, or -1 where a table cannot be read.
 */
static int walk_page_tables(uint64_t vaddr, uint64_t *pa)
{
	const uint64_t addr_mask = 0x000ffffffffff000ULL;
	int levels = read_reg(REG_CR4) & (1ULL << 12) ? 5 : 4;
	uint64_t cr3 = read_reg(REG_CR3), table = cr3 & addr_mask, e = 0;

	for (int l = levels; l >= 1; l--) {
		int shift = 12 + 9 * (l - 1);

		if (read_phys_u64(table + ((vaddr >> shift) & 511) * 8, &e) < 0) {
			walk_failed(vaddr, cr3, l, levels, e);
			return -1;
		}
		if (!(e & 1)) {
			/* A user page not present is no finding (resolve()). */
			if (vaddr >= KERNEL_BASE)
				walk_failed(vaddr, cr3, l, levels, e);
			return -2;
		}
		/* A 4 KiB page, or a 1 GiB / 2 MiB one (PS in a PDPTE or PDE). */
		if (l == 1 || (l <= 3 && (e & 0x80))) {
			uint64_t in_page = (1ULL << shift) - 1;

			*pa = (e & addr_mask & ~in_page) | (vaddr & in_page);
			return 0;
		}
		table = e & addr_mask;
	}
	return -1;
}

/*
 * Region offset of a virtual address, as the page tables map it now: 0
 * resolved, 1 outside the region, 2 a user page not present (a flush of
 * it writes nothing back through that mapping: a CPU faults on it first),
 * -1 unknown.
 * A kernel address is the direct map's offset away from its physical one
 * (in_direct_map()), any other address is walked: nothing remembered of an
 * earlier mapping is trusted, since munmap, mremap, copy on write, exit
 * and CR3 reuse change what a virtual page maps.
 */
static int resolve(uint64_t vaddr, uint64_t *region_off)
{
	uint64_t pa;

	if (in_direct_map(vaddr)) {
		pa = vaddr - (uint64_t)linear_delta;
	} else {
		int w = walk_page_tables(vaddr, &pa);

		if (w == -2 && vaddr < KERNEL_BASE)
			return 2;
		if (w < 0)
			return -1;
	}
	if (pa - base >= size)
		return 1;
	*region_off = pa - base;
	return 0;
}

/* --- crash points --- */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (sock_fd >= 0 && n > 0 && write(sock_fd, buf, n) != n) {
		close(sock_fd);
		sock_fd = -1;
	}
}

/* Announce a crash point (at a user-space fence: user) and hold this vCPU
 * until the harness says "go". */
static void crash_point_by(const char *kind, int user)
{
	int want;

	if (sock_fd < 0)
		return;
	st->points++;
	want = go_count + 1;
	say("point %s %" PRIu64 " %" PRIu64 "%s\n", kind, st->points, st->npending, user ? " user" : "");
	while (sock_fd >= 0 && go_count < want)
		g_cond_wait(&go_cond, &lock);
}

static void crash_point(const char *kind)
{
	crash_point_by(kind, 0);
}

static gpointer sock_reader(gpointer unused)
{
	char buf[256];
	size_t len = 0;

	(void)unused;
	for (;;) {
		ssize_t n = read(sock_fd, buf + len, sizeof(buf) - len);
		char *nl;

		if (n <= 0)
			break;
		len += n;
		while ((nl = memchr(buf, '\n', len))) {
			size_t line = nl - buf + 1;

			g_mutex_lock(&lock);
			if (!strncmp(buf, "go\n", line))
				go_count++;
			else if (!strncmp(buf, "time\n", line))
				time_requested = 1;
			g_cond_broadcast(&go_cond);
			g_mutex_unlock(&lock);
			memmove(buf, buf + line, len - line);
			len -= line;
		}
		if (len == sizeof(buf))
			len = 0; /* not a line of ours */
	}
	g_mutex_lock(&lock);
	if (sock_fd >= 0)
		close(sock_fd);
	sock_fd = -1;
	g_cond_broadcast(&go_cond);
	g_mutex_unlock(&lock);
	return NULL;
}

/* --- callbacks --- */

/*
 * Where one page of a store went: 1 into the region (*off), 0 elsewhere,
 * -1 unknown. QEMU's TLB holds the translation the store itself used, for
 * each page of it (tlb_plugin_lookup() looks up the address it is given),
 * so the second page of a store that crosses a page boundary is found
 * there too: the two pages need not be next to each other physically.
 */
static int store_page(qemu_plugin_meminfo_t info, uint64_t vaddr, uint64_t *off)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	uint64_t pa;

	if (!hw)
		return -1;
	if (qemu_plugin_hwaddr_is_io(hw))
		return 0;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa - base >= size)
		return 0;
	*off = pa - base;
	return 1;
}

static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	const struct insn_desc *d = udata;
	uint64_t len, off[2] = { 0, 0 }, n[2], line, caller = 0;
	int in[2];

	if (!qemu_plugin_mem_is_store(info))
		return;
	len = 1ULL << qemu_plugin_mem_size_shift(info);
	/* The bytes on the store's first page, and those on the next one. */
	n[0] = MIN(len, PAGE - (vaddr & (PAGE - 1)));
	n[1] = len - n[0];
	in[0] = store_page(info, vaddr, &off[0]);
	in[1] = n[1] ? store_page(info, vaddr + n[0], &off[1]) : 0;
	if (!in[0] && !in[1])
		return;
	if (d->pc < KERNEL_BASE)
		caller = stack_top(read_reg(4));
	g_mutex_lock(&lock);
	for (int i = 0; i < 2; i++) {
		int r;

		if (in[i] >= 0)
			continue;
		/* Not in the TLB: the page tables say, or it counts as unresolved. */
		r = resolve(vaddr + (i ? n[0] : 0), &off[i]);
		in[i] = r == 0;
		if (r < 0 || r == 2) {
			st->unresolved_flushes++;
			st->last_unresolved_pc = d->pc;
		}
	}
	if (in[0] || in[1]) {
		st->stores++;
		st->nt_stores += d->kind == INSN_NT_STORE;
	}
	for (int i = 0; i < 2; i++) {
		if (!in[i])
			continue;
		linear_seen(vaddr + (i ? n[0] : 0), off[i]);
		for (line = off[i] / ADR_LINE; line <= (off[i] + n[i] - 1) / ADR_LINE && line < size / ADR_LINE;
		     line++) {
			uint64_t from = MAX(off[i], line * ADR_LINE), to = MIN(off[i] + n[i], (line + 1) * ADR_LINE);

			if (d->kind == INSN_NT_STORE)
				line_nt_stored(line, from - line * ADR_LINE, to - line * ADR_LINE, vcpu, d->pc, caller);
			else
				line_stored(line, from - line * ADR_LINE, to - line * ADR_LINE, d->pc, caller);
		}
	}
	if (time_requested && (in[0] || in[1])) {
		time_requested = 0;
		crash_point("time");
	}
	g_mutex_unlock(&lock);
}

static uint64_t operand_address(const struct insn_desc *d)
{
	uint64_t a = d->disp;

	if (d->base == REG_RIP)
		a += d->pc + d->len;
	else if (d->base >= 0)
		a += read_reg(d->base);
	if (d->index >= 0)
		a += read_reg(d->index) << d->scale;
	if (d->addr32)
		a &= 0xffffffffULL;
	if (d->seg == 4)
		a += read_reg(REG_FS_BASE);
	else if (d->seg == 5)
		a += read_reg(REG_GS_BASE);
	return a;
}

static void on_flush(unsigned int vcpu, void *udata)
{
	const struct insn_desc *d = udata;
	uint64_t va = operand_address(d), off;
	int r;

	g_mutex_lock(&lock);
	r = resolve(va, &off);
	if (r < 0) {
		st->unresolved_flushes++;
		st->last_unresolved_pc = d->pc;
	} else if (r == 0) {
		st->flushes++;
		if (d->kind == INSN_CLFLUSH)
			line_durable(off / ADR_LINE);
		else
			line_written_back(off / ADR_LINE, vcpu, d->pc < KERNEL_BASE);
	}
	g_mutex_unlock(&lock);
}

static void on_fence(unsigned int vcpu, void *udata)
{
	const struct insn_desc *d = udata;
	unsigned int done;
	int user;

	/* Most fences (every lock in the kernel) have nothing to do. */
	if (!__atomic_load_n(&flushes->len, __ATOMIC_RELAXED) && d->kind != INSN_WBINVD)
		return;
	g_mutex_lock(&lock);
	if (d->kind == INSN_WBINVD) {
		while (st->npending)
			line_durable(st->lines[0].off / ADR_LINE);
		g_array_set_size(flushes, 0);
		g_hash_table_remove_all(flush_index);
		st->fences++;
	} else {
		done = fence(vcpu, &user);
		if (done && (st->npending || fence_any) && fence_points < fence_max &&
		    next_random() % fence_period == 0) {
			fence_points++;
			/* Whose write-backs it completed: a black box that never
			 * wrote back a line of its own is told so. The fence itself
			 * may be anyone's (a lock in the kernel completes a clwb). */
			crash_point_by("fence", user);
		}
	}
	g_mutex_unlock(&lock);
}

/* The ack marker: rdi = sequence, rsi = record address, rcx = length. */
static void on_ack(unsigned int vcpu, void *udata)
{
	uint64_t seq = read_reg(7), addr = read_reg(6), len = read_reg(1);
	uint64_t p, off, run_start = 0, run_off = 0, run_len = 0;

	(void)vcpu, (void)udata;
	g_mutex_lock(&lock);
	if (sock_fd < 0 || addr >= KERNEL_BASE || len > ACK_MAX_LEN) {
		g_mutex_unlock(&lock);
		return;
	}
	say("record %" PRIu64 " %" PRIu64 "\n", seq, len);
	/* Where the record lies, as runs of contiguous region offsets. */
	for (p = addr; p < addr + len; p = (p | (PAGE - 1)) + 1) {
		uint64_t chunk = ((p | (PAGE - 1)) + 1 < addr + len ? (p | (PAGE - 1)) + 1 : addr + len) - p;

		if (resolve(p, &off) != 0)
			continue;
		if (run_len && run_off + run_len == off) {
			run_len += chunk;
			continue;
		}
		if (run_len)
			say("extent %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", run_start - addr, run_off, run_len);
		run_start = p;
		run_off = off;
		run_len = chunk;
	}
	if (run_len)
		say("extent %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", run_start - addr, run_off, run_len);
	crash_point("ack");
	g_mutex_unlock(&lock);
}

/* --- translation --- */

static struct insn_desc *desc_for(uint64_t pc, enum insn_kind kind, const struct insn_desc *tmpl)
{
	uint64_t key = pc * 8 + kind;
	struct insn_desc *d;

	g_mutex_lock(&lock);
	d = g_hash_table_lookup(descs, &key);
	if (!d) {
		uint64_t *k = g_new(uint64_t, 1);

		d = g_new0(struct insn_desc, 1);
		if (tmpl)
			*d = *tmpl;
		d->pc = pc;
		d->kind = kind;
		*k = key;
		g_hash_table_insert(descs, k, d);
	}
	g_mutex_unlock(&lock);
	return d;
}

/* Decode the ModRM memory operand at b[i]; fills d, returns 0 or -1. */
static int decode_modrm(const uint8_t *b, size_t n, size_t i, int rex, struct insn_desc *d)
{
	int mod, rm;

	if (i >= n)
		return -1;
	mod = b[i] >> 6;
	rm = b[i] & 7;
	i++;
	if (mod == 3)
		return -1;
	d->base = -1;
	d->index = -1;
	d->scale = 0;
	d->disp = 0;
	if (rm == 4) {
		int s;

		if (i >= n)
			return -1;
		s = b[i++];
		d->scale = s >> 6;
		d->index = ((s >> 3) & 7) | ((rex & 2) << 2);
		if (d->index == 4)
			d->index = -1;
		d->base = (s & 7) | ((rex & 1) << 3);
		if ((s & 7) == 5 && mod == 0) {
			d->base = -1;
			mod = 2; /* disp32, no base */
		}
	} else if (rm == 5 && mod == 0) {
		d->base = REG_RIP;
		mod = 2;
	} else {
		d->base = rm | ((rex & 1) << 3);
	}
	if (mod == 1) {
		if (i >= n)
			return -1;
		d->disp = (int8_t)b[i];
	} else if (mod == 2) {
		int32_t v;

		if (i + 4 > n)
			return -1;
		memcpy(&v, b + i, 4);
		d->disp = v;
	}
	return 0;
}

/*
 * Classify one instruction. Returns its kind; INSN_STORE for anything else
 * (its stores, if any, are ordinary cached stores). Fills d for flushes.
 */
static enum insn_kind classify(const uint8_t *b, size_t n, struct insn_desc *d)
{
	size_t i = 0;
	int p66 = 0, pf2 = 0, pf3 = 0, lock_prefix = 0, rex = 0;
	uint8_t op;

	d->seg = 0;
	d->addr32 = 0;
	for (; i < n; i++) {
		switch (b[i]) {
		case 0xf0: lock_prefix = 1; continue;
		case 0xf2: pf2 = 1; continue;
		case 0xf3: pf3 = 1; continue;
		case 0x66: p66 = 1; continue;
		case 0x67: d->addr32 = 1; continue;
		case 0x64: d->seg = 4; continue;
		case 0x65: d->seg = 5; continue;
		case 0x26: case 0x2e: case 0x36: case 0x3e: continue;
		}
		break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++] & 0xf;
	if (i >= n)
		return INSN_STORE;
	if (lock_prefix)
		return INSN_FENCE;
	op = b[i++];
	if ((op == 0x86 || op == 0x87) && i < n && (b[i] >> 6) != 3)
		return INSN_FENCE; /* xchg with memory is locked */
	if (op == 0xc5 || op == 0xc4) {
		/* VEX: map 0F only; pp gives the implied prefix. */
		int map = 1, pp;

		if (op == 0xc4) {
			if (i + 2 > n)
				return INSN_STORE;
			map = b[i] & 0x1f;
			pp = b[i + 1] & 3;
			i += 2;
		} else {
			if (i + 1 > n)
				return INSN_STORE;
			pp = b[i] & 3;
			i += 1;
		}
		if (map != 1 || i >= n)
			return INSN_STORE;
		op = b[i];
		if (op == 0x2b || (op == 0xe7 && pp == 1) || (op == 0xf7 && pp == 1))
			return INSN_NT_STORE;
		return INSN_STORE;
	}
	if (op != 0x0f || i >= n)
		return INSN_STORE;
	op = b[i++];
	switch (op) {
	case 0xc3: /* movnti */
	case 0x2b: /* movntps/pd, movntss/sd */
	case 0xe7: /* movntq, movntdq */
	case 0xf7: /* maskmovq, maskmovdqu */
		return INSN_NT_STORE;
	case 0x09:
		return INSN_WBINVD; /* wbinvd, wbnoinvd */
	case 0xae:
		if (i >= n)
			return INSN_STORE;
		if ((b[i] >> 6) == 3) {
			int reg = (b[i] >> 3) & 7;

			if (!pf3 && !pf2 && !p66 && (reg == 6 || reg == 7))
				return INSN_FENCE; /* mfence, sfence */
			return INSN_STORE;
		}
		switch ((b[i] >> 3) & 7) {
		case 6: /* 66: clwb; none: xsaveopt */
			if (!p66 || decode_modrm(b, n, i, rex, d) < 0)
				return INSN_STORE;
			return INSN_FLUSH;
		case 7: /* 66: clflushopt; none: clflush */
			if (pf2 || pf3 || decode_modrm(b, n, i, rex, d) < 0)
				return INSN_STORE;
			return p66 ? INSN_FLUSH : INSN_CLFLUSH;
		}
		return INSN_STORE;
	}
	return INSN_STORE;
}

static void plugin_exit(qemu_plugin_id_t id, void *udata);
static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

/* The reset is done: every block is translated again, instrumented. */
static void model_reset_done(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
}

/*
 * Make the durable file the media's copy. Only the media's data extents
 * are read, and only pages that differ are written: the region is mostly
 * holes, and touching them would fill both files. The durable file began
 * as the media's copy and the guest only writes, so its data lies inside
 * the media's.
 */
static void media_to_durable(void)
{
	off_t pos = 0, end = (off_t)size;

	while (pos < end) {
		off_t data = lseek(media_fd, pos, SEEK_DATA), hole;

		if (data < 0 || data >= end)
			break;
		hole = lseek(media_fd, data, SEEK_HOLE);
		if (hole < 0 || hole > end)
			hole = end;
		for (off_t p = data & ~(off_t)(PAGE - 1); p < hole; p += PAGE)
			if (memcmp(durable + p, media + p, PAGE))
				memcpy(durable + p, media + p, PAGE);
		pos = hole;
	}
}

/* The start marker ran: what is in the media now is durable, and the model starts. */
static void on_start(unsigned int vcpu, void *udata)
{
	(void)vcpu, (void)udata;
	g_mutex_lock(&lock);
	if (!started) {
		media_to_durable();
		started = 1;
		say("start\n");
		/* Asynchronous, with every vCPU stopped: no store goes unseen
		 * between the reset and the callbacks it installs. */
		qemu_plugin_reset(plugin_id, model_reset_done);
	}
	g_mutex_unlock(&lock);
}

/* Before the start marker: that instruction alone, in user mode. */
static void tb_trans_until_start(struct qemu_plugin_tb *tb)
{
	static const uint8_t start_marker[3] = ADR_START_MARKER_BYTES;

	for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[3];

		if (qemu_plugin_insn_vaddr(insn) < KERNEL_BASE &&
		    qemu_plugin_insn_data(insn, bytes, sizeof(bytes)) == 3 && !memcmp(bytes, start_marker, 3))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
		tb_trans_until_start(tb);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint8_t bytes[16];
		size_t len = qemu_plugin_insn_data(insn, bytes, sizeof(bytes));
		struct insn_desc tmpl = { .len = len };
		enum insn_kind kind = classify(bytes, len, &tmpl);
		static const uint8_t ack_marker[3] = { 0x66, 0x87, 0xd2 };

		if (len == 3 && !memcmp(bytes, ack_marker, 3) && pc < KERNEL_BASE) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_ack, QEMU_PLUGIN_CB_R_REGS, NULL);
			continue;
		}
		switch (kind) {
		case INSN_FLUSH:
		case INSN_CLFLUSH:
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_flush, QEMU_PLUGIN_CB_R_REGS,
							       desc_for(pc, kind, &tmpl));
			break;
		case INSN_FENCE:
		case INSN_WBINVD:
			/* Before the instruction: its own store, if locked, is a new pending store. */
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_fence, QEMU_PLUGIN_CB_NO_REGS,
							       desc_for(pc, kind, NULL));
			qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_W, desc_for(pc, INSN_STORE, NULL));
			break;
		case INSN_NT_STORE:
		case INSN_STORE:
			qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_R_REGS,
							 QEMU_PLUGIN_MEM_W, desc_for(pc, kind, NULL));
			break;
		case INSN_ACK:
			break;
		}
	}
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	g_autoptr(GArray) list = NULL;

	(void)id, (void)vcpu;
	if (regs[0])
		return; /* handles are the same on every vCPU of one target */
	list = qemu_plugin_get_registers();
	for (guint i = 0; list && i < list->len; i++) {
		qemu_plugin_reg_descriptor *r = &g_array_index(list, qemu_plugin_reg_descriptor, i);

		for (int k = 0; k < NREGS; k++)
			if (!strcmp(r->name, reg_names[k]))
				regs[k] = r->handle;
	}
	for (int k = 0; k < NREGS; k++)
		if (!regs[k])
			fprintf(stderr, "adr-cache: no register '%s' to read: flushes through it stay unresolved\n",
				reg_names[k]);
}

static void plugin_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id, (void)udata;
	if (st)
		msync(st, state_bytes, MS_SYNC);
	if (durable)
		msync(durable, size, MS_SYNC);
}

static void *map_file(const char *path, int *fd, size_t len, int writable)
{
	struct stat s;
	void *p;

	*fd = open(path, writable ? O_RDWR : O_RDONLY);
	if (*fd < 0 || fstat(*fd, &s) < 0 || (uint64_t)s.st_size < len) {
		fprintf(stderr, "adr-cache: %s: %s\n", path, *fd < 0 ? strerror(errno) : "smaller than the region");
		return NULL;
	}
	p = mmap(NULL, len, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "adr-cache: mmap %s: %s\n", path, strerror(errno));
		return NULL;
	}
	return p;
}

static int connect_sock(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "adr-cache: connect %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *media_path = NULL, *durable_path = NULL, *state_path = NULL, *sock_path = NULL;
	uint64_t capacity = 1 << 20;

	for (int i = 0; i < argc; i++) {
		g_auto(GStrv) kv = g_strsplit(argv[i], "=", 2);
		const char *k = kv[0], *v = kv[1];

		if (!v || !*v) {
			fprintf(stderr, "adr-cache: '%s' needs a value (key=value)\n", argv[i]);
			return -1;
		}
		if (!strcmp(k, "base"))
			base = g_ascii_strtoull(v, NULL, 0);
		else if (!strcmp(k, "size"))
			size = g_ascii_strtoull(v, NULL, 0);
		else if (!strcmp(k, "media"))
			media_path = argv[i] + 6;
		else if (!strcmp(k, "durable"))
			durable_path = argv[i] + 8;
		else if (!strcmp(k, "state"))
			state_path = argv[i] + 6;
		else if (!strcmp(k, "sock"))
			sock_path = argv[i] + 5;
		else if (!strcmp(k, "fence_max"))
			fence_max = g_ascii_strtoull(v, NULL, 0);
		else if (!strcmp(k, "fence_period"))
			fence_period = g_ascii_strtoull(v, NULL, 0);
		else if (!strcmp(k, "fence_any"))
			fence_any = g_ascii_strtoull(v, NULL, 0) != 0;
		else if (!strcmp(k, "wait_start"))
			started = g_ascii_strtoull(v, NULL, 0) == 0;
		else if (!strcmp(k, "seed"))
			rng = g_ascii_strtoull(v, NULL, 0) * 2654435761ULL + 1;
		else if (!strcmp(k, "capacity"))
			capacity = g_ascii_strtoull(v, NULL, 0);
		else {
			fprintf(stderr, "adr-cache: unknown argument '%s' (base, size, media, durable, state, "
				"sock, fence_max, fence_period, fence_any, wait_start, seed, capacity)\n", argv[i]);
			return -1;
		}
	}
	if (!size || size % PAGE || !media_path || !durable_path || !state_path || !fence_period || !capacity) {
		fprintf(stderr, "adr-cache: base=, size= (a multiple of 4096), media=, durable= and state= are required\n");
		return -1;
	}
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "adr-cache: needs qemu-system-x86_64, not %s\n", info->target_name);
		return -1;
	}
	media = map_file(media_path, &media_fd, size, 0);
	durable = map_file(durable_path, &durable_fd, size, 1);
	state_bytes = adr_state_bytes(capacity);
	state_fd = open(state_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!media || !durable || state_fd < 0 || ftruncate(state_fd, state_bytes) < 0) {
		fprintf(stderr, "adr-cache: cannot set up the model files (%s)\n", strerror(errno));
		return -1;
	}
	st = mmap(NULL, state_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, state_fd, 0);
	if (st == MAP_FAILED) {
		fprintf(stderr, "adr-cache: mmap %s: %s\n", state_path, strerror(errno));
		return -1;
	}
	memcpy(st->magic, ADR_STATE_MAGIC, 8);
	st->version = ADR_STATE_VERSION;
	st->line_size = ADR_LINE;
	st->region_size = size;
	st->capacity = capacity;
	shadows = calloc(capacity, sizeof(*shadows));
	if (!shadows) {
		fprintf(stderr, "adr-cache: no memory for %" PRIu64 " lines\n", capacity);
		return -1;
	}
	pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	descs = g_hash_table_new(g_int64_hash, g_int64_equal);
	flushes = g_array_new(FALSE, FALSE, sizeof(struct flush_rec));
	flush_index = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (sock_path) {
		sock_fd = connect_sock(sock_path);
		if (sock_fd < 0)
			return -1;
		g_thread_unref(g_thread_new("adr-cache-sock", sock_reader, NULL));
	}
	plugin_id = id;
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
