# MAP_PMEM_AWARE benchmarking and crash-injection harness.
#
#   make bench       the benchmark matrix and its summary (QUICK=1: a first look)
#   make crashtest   simulated power loss, verdict per crash image (PROGRAM=..., PLATFORM=adr)
#                    (bench, crashtest, xfstests: SCHEDULER=parallel|slurm runs their units)
#   make adr-cost    what the ADR cache model costs a guest
#   make crashbench  how fast crash images are checked, on a fixed cached set
#   make xfstests    xfstests' DAX and mmap tests on each kernel, aware beside stock (XFSTESTS=checkout)
#   make test        unit tests + guest tests (builds what it needs)
#   make test-long   the slow tests make test leaves out (tests/long/: a kernel
#                    built from a source tree, and others), after make test's set-up
#   make shellcheck  every shell script git knows, through shellcheck
#   make compdb      compile_commands.json for clangd and the like (bear)
#   make kernels     every kernel flavour in vm-images/flavours
#   make bisect-check  every patch of each series builds on its own
#   make fuzz        the parsers of guest and user input under libFuzzer (FUZZ_SECONDS=N)
#   make images      the guest initramfs and a golden NVDIMM image per filesystem
#   make report      a run's HTML page and markdown summary (RUN_ID=<run-id>)
#   make compare     runs side by side (A=<run> B=<run> [HTML=dir])
#   make setup       install missing Debian packages (needs root)
#   make pmdk        PMDK built from source, static data_store and map-driver (PMDK=checkout, MUTANT=id)
#
# Kernels and golden images are cached outside the tree (see README.md).
# FS= names rows of vm-images/filesystems; unset, each run takes those its
# default column gives it (pmem-harness filesystems --default KIND).

MAKEFLAGS += --no-builtin-rules --no-builtin-variables
.DELETE_ON_ERROR:
.SUFFIXES:

# gcc unless the environment or the command line names another compiler.
CC       := $(if $(filter environment command line,$(origin CC)),$(CC),gcc)
# snprintf truncation is checked where it matters; paths are bounded by PATH_MAX.
WARNINGS := -Wall -Wextra -Werror -Wno-format-truncation
# Our own flags, for every program this Makefile builds. CFLAGS and LDLIBS
# belong to the user: on the command line they are a crash-tested
# program's (make crashtest PROGRAM=... CFLAGS=-DNDEBUG), and never reach
# the harness or the guest programs, which a command-line CFLAGS would
# otherwise replace, -Werror and all, in this make and every sub-make.
BUILD_CFLAGS = -std=gnu11 -O2 -g $(WARNINGS) -I$(BUILD_DIR)/gen
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer
BUILD_DIR := build

# Flavours the test suite boots; `make kernels` builds every flavour.
TEST_KERNELS := 6.1-stock 6.1-aware 6.1-aware-nogate 6.1-aware-wpaware \
		6.12-stock 6.12-aware 6.12-aware-nogate 6.12-aware-wpaware 6.12-aware-leakflag \
		6.1-stock-cowflush 6.12-stock-cowflush 6.12-general
ALL_KERNELS   = $(shell vm-images/build-kernel.sh --list)

include mk/plugins.mk

# pmem-harness is every .c of the host's rooms (docs/internals.md), so a new
# file there needs no line here; the TCG plugins among them are not in it:
# QEMU loads those (mk/plugins.mk).
# workloads/pmem_map.c: the mapping modes, one table for host and guest.
HOST_DIRS      := harness lib vm bench crash-inject crash-inject/model crash-inject/judge \
		  crash-inject/run xfstests/host results
HARNESS_SRC    := $(filter-out $(PLUGIN_SRC),$(sort $(wildcard $(addsuffix /*.c,$(HOST_DIRS))))) \
		  workloads/pmem_map.c
HARNESS_OBJ    := $(patsubst %.c,$(BUILD_DIR)/obj/%.o,$(HARNESS_SRC))
HARNESS_LDLIBS := -ljansson -lxxhash -lm

# $(call link,FLAGS,SOURCES,LIBS[,COMPILER]): compile and link one program in
# one call (with $(CC) unless COMPILER is given), then ask the compiler which
# headers it read: $@.d, read by the next make, so no rule lists headers by hand.
link = $(or $(4),$(CC)) $(1) -o $@ $(2) $(3) && \
	$(or $(4),$(CC)) $(filter -I% -D% -std=%,$(1)) -MM -MP -MT $@ $(2) >$@.d

# Guest programs land in the initramfs; one program per line.
GUEST_PROGS := $(BUILD_DIR)/guest/pmem-agent \
	       $(BUILD_DIR)/guest/pmem-ack \
	       $(BUILD_DIR)/guest/semantics \
	       $(BUILD_DIR)/guest/pmem-writer \
	       $(BUILD_DIR)/guest/pmem-peer \
	       $(BUILD_DIR)/guest/pmem-verify \
	       $(BUILD_DIR)/guest/pmem-checker \
	       $(BUILD_DIR)/guest/cow-paths

# The ack protocol for programs built elsewhere (C++, Rust, your own static
# binary): a static library and its header, usable from C and C++.
ACKLIB_SRC := workloads/ack.c workloads/channel.c
ACKLIB     := $(BUILD_DIR)/libpmemack.a $(BUILD_DIR)/include/pmem-ack.h

# The writer: every persistence method is one file in workloads/persist/.
WRITER_SRC := workloads/writer.c workloads/job.c workloads/stats.c workloads/tracefs.c \
	      workloads/record.c workloads/ack.c workloads/channel.c \
	      workloads/pmem_map.c workloads/cpu_flush.c $(wildcard workloads/persist/*.c)
AGENT_SRC     := workloads/agent.c workloads/channel.c
SEMANTICS_SRC := tests/guest/semantics.c workloads/pmem_map.c workloads/cpu_flush.c workloads/tracefs.c
PEER_SRC      := workloads/peer.c workloads/tracefs.c
VERIFY_SRC    := workloads/verify.c workloads/record_verify.c workloads/json_out.c workloads/record.c
CHECKER_SRC   := workloads/checker.c workloads/data_map.c workloads/record_verify.c workloads/json_out.c workloads/record.c workloads/channel.c lib/filesystems.c

# The guest programs' objects live apart from the host's, in
# build/guest-obj/, so that the two sets of flags never mix.
GUEST_CFLAGS := $(BUILD_CFLAGS) -Iworkloads
guest_obj     = $(patsubst %.c,$(BUILD_DIR)/guest-obj/%.o,$(1))
GUEST_OBJ    := $(call guest_obj,$(sort $(WRITER_SRC) $(AGENT_SRC) $(SEMANTICS_SRC) $(PEER_SRC) $(VERIFY_SRC) $(CHECKER_SRC)))
# The tables compiled into the programs that read them: the filesystem table
# (the harness, pmem-checker) and the flavour table (the harness, for its
# default kernels). C string lines, comments and blank lines left out.
$(BUILD_DIR)/gen/%.inc: vm-images/%
	@mkdir -p $(@D)
	sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$$/d' -e 's/[\\"]/\\&/g' -e 's/.*/"&\\n"/' $< >$@
FS_TABLE_INC      := $(BUILD_DIR)/gen/filesystems.inc
FLAVOUR_TABLE_INC := $(BUILD_DIR)/gen/flavours.inc
$(BUILD_DIR)/obj/lib/filesystems.o $(call guest_obj,lib/filesystems.c) $(BUILD_DIR)/tests/unit-filesystems: $(FS_TABLE_INC)
$(BUILD_DIR)/obj/lib/flavours.o $(BUILD_DIR)/tests/unit-flavours: $(FLAVOUR_TABLE_INC)

# How a user's program is built: the harness reads the same file.
include workloads/user-program.mk

.PHONY: all plugins setup pmdk crashtest-pmdk mutants kernels test-kernels images test test-long unit-test guest-test shellcheck compdb compile_commands.json clean bench crashtest compare report adr-cost crashbench bisect-check fuzz xfstests xfstests-image
all: $(BUILD_DIR)/pmem-harness $(GUEST_PROGS) $(BUILD_DIR)/guest/aware-mmap.so $(ACKLIB) plugins

# The instruction counter needs QEMU >= 10; without it bench reports the
# figure as unavailable, and says so here rather than building less silently.
plugins:
ifeq ($(HAVE_PLUGIN_API),yes)
plugins: $(PLUGINS)
else
	@echo "warning: no TCG plugins (no ADR model, no instructions per fault): $(or $(PLUGIN_HEADER_WHY),no QEMU plugin API v4)" >&2
endif

setup:
	vm-images/setup-host.sh

# make pmdk [PMDK=<your PMDK checkout>] [MUTANT=<row of targets/pmdk/mutants>]:
# libpmem and libpmemobj built from source with -g, and static data_store,
# map-driver and map-check linked with them (docs/pmdk.md). build.sh caches
# the build by its inputs and prints its directory; build/pmdk points there.
pmdk:
	@mkdir -p $(BUILD_DIR)
	dir=$$($(if $(PMDK),PMDK='$(PMDK)' )targets/pmdk/build.sh$(if $(MUTANT), --mutant '$(MUTANT)')) && \
		ln -sfn "$$dir" $(BUILD_DIR)/pmdk && echo "$(BUILD_DIR)/pmdk -> $$dir"

# One object per source, so an edit recompiles that file alone; -MMD -MP
# writes beside it (.d) the headers it read, for the next make.
$(BUILD_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(BUILD_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD_DIR)/pmem-harness: $(HARNESS_OBJ)
	$(CC) $(BUILD_CFLAGS) -o $@ $(HARNESS_OBJ) $(HARNESS_LDLIBS)

$(BUILD_DIR)/guest-obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD_DIR)/guest/pmem-agent: $(call guest_obj,$(AGENT_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^

# pmem-ack is built as any program outside this tree would be: with the
# installed header and the library, in the language a user's program is
# built in (workloads/user-program.mk), our warnings on.
$(BUILD_DIR)/guest/pmem-ack: workloads/pmem-ack.c $(ACKLIB) workloads/user-program.mk
	@mkdir -p $(@D)
	$(call link,$(PROGRAM_CFLAGS) $(WARNINGS) -I$(BUILD_DIR)/include,workloads/pmem-ack.c,$(BUILD_DIR)/libpmemack.a)

$(BUILD_DIR)/ackobj/%.o: workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(BUILD_CFLAGS) -fPIC -MMD -MP -c -o $@ $<

$(BUILD_DIR)/libpmemack.a: $(patsubst workloads/%.c,$(BUILD_DIR)/ackobj/%.o,$(ACKLIB_SRC))
	rm -f $@
	ar rcs $@ $^

# Installed under the name programs include; workloads/ack.h is its source.
$(BUILD_DIR)/include/pmem-ack.h: workloads/ack.h
	@mkdir -p $(@D)
	cp $< $@

$(BUILD_DIR)/guest/semantics: $(call guest_obj,$(SEMANTICS_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^

# The CoW write-back trace's program (vm-images/guest/cow-wb-trace.sh).
$(BUILD_DIR)/guest/cow-paths: examples/cow-writeback/cow-paths.c
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

$(BUILD_DIR)/guest/pmem-writer: $(call guest_obj,$(WRITER_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^ -ljansson -linih -lpmem -lm

# fio as the reference peer, under the writer's conditions (workloads/peer.c).
$(BUILD_DIR)/guest/pmem-peer: $(call guest_obj,$(PEER_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^ -ljansson

$(BUILD_DIR)/guest/pmem-verify: $(call guest_obj,$(VERIFY_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^

$(BUILD_DIR)/guest/pmem-checker: $(call guest_obj,$(CHECKER_SRC))
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -o $@ $^

# Unit tests (tests/unit/NAME.c), each as data: the code it tests and the
# libraries that needs. One rule builds them all, with ASan and UBSan;
# headers are included from the top of the tree ("vm/console.h").
UNIT_NAMES := console qemu-argv job-parse noise adr-model judge-parse ack-stream names rundir \
	      unit-docs crash-resume table-escape check-phases check-block record-crc user-program \
	      job-files xfstests-doc filesystems flavours program-line run-error record-place saved-boot
UNIT_TESTS := $(addprefix $(BUILD_DIR)/tests/unit-,$(UNIT_NAMES))
UNIT_CFLAGS := $(BUILD_CFLAGS) $(SANITIZE) -I. -Iworkloads -Itests/guest

UNIT_SRC_console       := vm/console.c vm/guest_events.c
UNIT_LIBS_console      := -ljansson
# accel.c with vm_run() stood in for by the test: the KVM choice without a guest.
UNIT_SRC_qemu-argv     := vm/qemu.c vm/accel.c lib/rundir.c lib/child.c
UNIT_SRC_job-parse     := $(filter-out workloads/writer.c,$(WRITER_SRC))
UNIT_LIBS_job-parse    := -ljansson -linih -lpmem -lm
UNIT_SRC_noise         := results/stats.c
UNIT_LIBS_noise        := -lm
UNIT_SRC_adr-model     := crash-inject/model/adr.c crash-inject/image.c lib/diskfull.c lib/error.c
UNIT_LIBS_adr-model    := -lxxhash
# With the guest's writer of a file's entry, read back by the loader.
UNIT_SRC_judge-parse   := crash-inject/judge/judge.c workloads/record_verify.c workloads/json_out.c workloads/record.c
UNIT_LIBS_judge-parse  := -ljansson -lm
UNIT_SRC_ack-stream    := crash-inject/judge/ack_stream.c
UNIT_SRC_names         := lib/names.c
UNIT_SRC_rundir        := lib/rundir.c
UNIT_SRC_unit-docs     := bench/unit_docs.c lib/names.c
UNIT_LIBS_unit-docs    := -ljansson
UNIT_SRC_crash-resume  := crash-inject/run/crash_resume.c lib/rundir.c
UNIT_LIBS_crash-resume := -ljansson
UNIT_SRC_table-escape  := results/table.c
UNIT_SRC_check-phases  := crash-inject/judge/check_phases.c crash-inject/judge/judge.c results/stats.c
UNIT_LIBS_check-phases := -ljansson -lm
UNIT_SRC_check-block   := crash-inject/judge/check_block.c crash-inject/judge/judge.c
UNIT_LIBS_check-block  := -ljansson
UNIT_SRC_record-crc    := workloads/record.c
UNIT_SRC_user-program  := crash-inject/run/user_program.c lib/make_vars.c lib/child.c lib/rundir.c crash-inject/image.c \
			  lib/diskfull.c lib/error.c
UNIT_LIBS_user-program := -lxxhash
UNIT_SRC_program-line  := crash-inject/run/program_line.c lib/shell_word.c
UNIT_SRC_xfstests-doc  := results/xfstests.c results/table.c
UNIT_LIBS_xfstests-doc := -ljansson -lm
UNIT_SRC_filesystems   := lib/filesystems.c
UNIT_SRC_flavours      := lib/flavours.c
UNIT_SRC_run-error     := lib/error.c lib/diskfull.c
# saved_boot.c with QEMU's version and vm_run() stood in for by the test.
UNIT_SRC_saved-boot    := vm/saved_boot.c
UNIT_LIBS_saved-boot   := -lxxhash
UNIT_SRC_record-place  := crash-inject/judge/place.c crash-inject/judge/judge.c
UNIT_LIBS_record-place := -ljansson

define unit_rule
$(BUILD_DIR)/tests/unit-$(1): tests/unit/$(1).c $(UNIT_SRC_$(1))
	@mkdir -p $$(@D)
	$$(call link,$$(UNIT_CFLAGS),$$(filter %.c,$$^),$$(UNIT_LIBS_$(1)))
endef
$(foreach t,$(UNIT_NAMES),$(eval $(call unit_rule,$(t))))

# Fuzz targets (tests/fuzz/): libFuzzer with ASan and UBSan, Debian's clang.
FUZZ_CC      := clang
FUZZ_FLAGS   := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. -Iworkloads
FUZZ_SECONDS := 60
FUZZ_NAMES   := job check-report ack-line console check-phases results unit-docs bench-resume crash-resume check-block xfstests-doc
FUZZ_TARGETS := $(addprefix $(BUILD_DIR)/fuzz/fuzz-,$(FUZZ_NAMES))

# Each target as data, its sources (the target's own file first), its -I and
# -D flags and its libraries: the rule below builds it, and tests/fuzz.t
# builds its planted twin from the same words (make fuzz-recipe-NAME).
FUZZ_SRC_job              := tests/fuzz/job.c $(filter-out workloads/writer.c,$(WRITER_SRC))
FUZZ_LIBS_job             := -ljansson -linih -lpmem -lm
FUZZ_SRC_check-report     := tests/fuzz/check-report.c crash-inject/judge/judge.c
FUZZ_LIBS_check-report    := -ljansson
FUZZ_SRC_ack-line         := tests/fuzz/ack-line.c crash-inject/judge/ack_stream.c
FUZZ_LIBS_ack-line        :=
FUZZ_SRC_console          := tests/fuzz/console.c vm/console.c
FUZZ_LIBS_console         :=
FUZZ_SRC_check-phases     := tests/fuzz/check-phases.c crash-inject/judge/check_phases.c crash-inject/judge/judge.c results/stats.c
FUZZ_LIBS_check-phases    := -ljansson -lm
FUZZ_SRC_results          := tests/fuzz/results.c results/series.c results/stats.c results/verdicts.c results/table.c lib/rundir.c
FUZZ_LIBS_results         := -ljansson -lm
FUZZ_SRC_unit-docs        := tests/fuzz/unit-docs.c bench/unit_docs.c lib/names.c
FUZZ_LIBS_unit-docs       := -ljansson
FUZZ_SRC_bench-resume     := tests/fuzz/bench-resume.c bench/bench_resume.c lib/names.c lib/rundir.c lib/jsonio.c
FUZZ_LIBS_bench-resume    := -ljansson
FUZZ_SRC_crash-resume     := tests/fuzz/crash-resume.c crash-inject/run/crash_resume.c
FUZZ_LIBS_crash-resume    := -ljansson
FUZZ_SRC_xfstests-doc     := tests/fuzz/xfstests-doc.c results/xfstests.c results/table.c
FUZZ_LIBS_xfstests-doc    := -ljansson -lm
# The report bound made 512 bytes, so that inputs reach it.
FUZZ_SRC_check-block      := tests/fuzz/check-block.c crash-inject/judge/check_block.c crash-inject/judge/judge.c
FUZZ_CFLAGS_check-block   := -DCHECK_BLOCK_MAX=512
FUZZ_LIBS_check-block     := -ljansson

# $(call fuzz_rule,NAME): fuzz-NAME from its sources, and its .d (whose
# headers become prerequisites too: only the .c files are compiled).
define fuzz_rule
$(BUILD_DIR)/fuzz/fuzz-$(1): $(FUZZ_SRC_$(1))
	@mkdir -p $$(@D)
	$$(call link,$$(FUZZ_FLAGS) $$(FUZZ_CFLAGS_$(1)),$$(filter %.c,$$^),$$(FUZZ_LIBS_$(1)),$$(FUZZ_CC))
endef
$(foreach t,$(FUZZ_NAMES),$(eval $(call fuzz_rule,$(t))))

# make fuzz-recipe-NAME: how fuzz-NAME is built, for a copy of its sources to
# be built alike: the compiler and its flags, the sources, the libraries (one
# line each).
fuzz-recipe-%:
	@printf '%s\n' '$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_CFLAGS_$*)' '$(FUZZ_SRC_$*)' '$(FUZZ_LIBS_$*)'

# make fuzz [FUZZ_SECONDS=N]: every target for N seconds (make test: a 5 s smoke run each).
fuzz: $(FUZZ_TARGETS)
	tests/fuzz/run.sh $(BUILD_DIR) $(FUZZ_SECONDS)

kernels:
	vm-images/build-kernel.sh $(ALL_KERNELS)

test-kernels:
	vm-images/build-kernel.sh $(TEST_KERNELS)

# Every patch of each series builds on its own (tests/patches-bisect.t runs it).
bisect-check:
	vm-images/build-kernel.sh 6.1-stock 6.12-stock
	vm-images/check-bisect.sh 6.1 rdfix cow-flush aware
	vm-images/check-bisect.sh 6.12 cow-flush aware

# Every file of vm-images/guest/ goes into both images.
GUEST_SCRIPTS := $(wildcard vm-images/guest/*) vm-images/filesystems
$(BUILD_DIR)/initramfs.cpio: $(GUEST_PROGS) vm-images/build-initramfs.sh $(GUEST_SCRIPTS)
	vm-images/build-initramfs.sh $@ $(BUILD_DIR)/guest

# The crash guests, writer and checkers, boot a small initramfs of their own.
$(BUILD_DIR)/initramfs-crash.cpio: $(BUILD_DIR)/guest/pmem-agent $(BUILD_DIR)/guest/pmem-ack \
		     $(BUILD_DIR)/guest/pmem-writer $(BUILD_DIR)/guest/pmem-checker \
		     vm-images/build-initramfs.sh $(GUEST_SCRIPTS)
	vm-images/build-initramfs.sh --crash $@ $(BUILD_DIR)/guest

# One golden image per row of vm-images/filesystems, made on its kernel.
FILESYSTEMS    = $(shell vm-images/make-golden.sh --list)
GOLDEN_KERNELS = $(shell vm-images/make-golden.sh --kernels)
images: $(BUILD_DIR)/initramfs.cpio $(BUILD_DIR)/initramfs-crash.cpio $(BUILD_DIR)/pmem-harness
	vm-images/build-kernel.sh $(GOLDEN_KERNELS)
	vm-images/make-golden.sh $(FILESYSTEMS)

unit-test: $(UNIT_TESTS)
	prove -v $(UNIT_TESTS)

guest-test: all test-kernels images
	prove -v tests/guest-*.t

# Everything a fresh machine needs comes first: packages (root), then the
# programs, the kernels the suite boots and the images.
test:
	vm-images/setup-host.sh
	$(MAKE) shellcheck
	$(MAKE) all $(UNIT_TESTS) $(FUZZ_TARGETS) test-kernels images
	$(if $(KERNEL),vm-images/build-kernel.sh $(KERNEL))
	$(if $(KERNEL),PMEM_TEST_KERNELS="$(call kernel_names,$(KERNEL))") tests/run.sh $(UNIT_TESTS) tests/*.t

# Tests too slow for make test (a cold CI run has 90 minutes for everything):
# each covers what a short test in tests/ covers more cheaply, and more.
test-long:
	vm-images/setup-host.sh
	$(MAKE) all test-kernels images
	PMEM_TEST_LOG=$(BUILD_DIR)/test-long.log tests/run.sh tests/long/*.t

# Shell scripts: *.sh (sourced ones too, which say their shell to
# shellcheck) and every file whose first line runs sh or bash: tests/*.t,
# .ci/run, the guest's init, the planted xfstests tests. Each script is
# checked as its own shebang or directive says.
shellcheck:
	git ls-files | awk '{ r = (getline line < $$0); close($$0) } \
		r >= 0 && (/\.sh$$/ || (r > 0 && line ~ /^#! *\/(usr\/)?bin\/(env +)?(ba)?sh([ \t]|$$)/))' | \
		xargs -d '\n' shellcheck -f gcc

# make compdb (or make compile_commands.json): how each C file is compiled,
# for clangd and other tools, as bear saw it in a rebuild of the programs
# this Makefile compiles with $(CC) (not the kernels or the fuzz targets).
# Only on request: bear slows every compile down.
compdb compile_commands.json:
	bear --output compile_commands.json -- $(MAKE) -B $(BUILD_DIR)/pmem-harness $(GUEST_PROGS) \
		$(BUILD_DIR)/guest/aware-mmap.so $(ACKLIB) plugins $(UNIT_TESTS)

clean:
	rm -rf $(BUILD_DIR)

# One name per variable, whatever the target: KERNELS (flavours or paths;
# crashtest and crashbench take one), MODES (crashtest's PROGRAM takes one),
# RUN_ID (the run to make, resume or report on) and XFSTESTS_ONLY (make
# xfstests' test names; TESTS= is left to make test). The old spellings are
# taken, with a note: $(call renamed,OLD,NEW).
renamed = $(if $(filter command line,$(origin $(1))),$(if $(filter 0,$(MAKELEVEL)),$(shell \
	echo "make: $(1)= is now $(2)=, taken as such" >&2))$(if $(value $(2)),,$(eval $(2) := $$($(1)))))
$(call renamed,KERNEL,KERNELS)
$(call renamed,MODE,MODES)
$(call renamed,RUN,RUN_ID)
$(if $(filter xfstests,$(MAKECMDGOALS)),$(call renamed,TESTS,XFSTESTS_ONLY))
# make test's recipe reads KERNEL.
KERNEL = $(KERNELS)
# crashtest and crashbench take one kernel, crashtest one mode: a list is refused.
one = $(if $(word 2,$($(1))),$(error make $(3): $(1)= names one $(2) here, not '$($(1))'))
$(foreach g,$(filter crashtest crashbench,$(MAKECMDGOALS)),$(call one,KERNELS,kernel,$(g)))
$(if $(filter crashtest,$(MAKECMDGOALS)),$(call one,MODES,mode,crashtest))

# A kernel is a flavour name or a path to a kernel tree or bzImage of yours
# (anything with a '/'): build-kernel.sh builds or checks a path and publishes it
# under a name of its own, which the harness takes as it takes a flavour's.
# $(call default_kernels,KIND): the flavours a run of KIND takes when given
# none (vm-images/flavours, its default= words).
default_kernels = $(shell vm-images/build-kernel.sh --default $(1))
kernel_names = $(foreach k,$(1),$(if $(findstring /,$(k)),$(shell vm-images/build-kernel.sh --name $(k)),$(k)))

# make bench [QUICK=1] [KERNELS="..."] [FS="..."] [MODES="..."] [JOBS="files"]
#            [REPS=N] [RESUME=run-id] [GUESTS=N] [SCHEDULER=local|parallel|slurm] [HOSTS=sshloginfile]
# GUESTS: guests at once (local and parallel: per host; default: one per CPU).
# SCHEDULER=parallel runs the plan through GNU parallel (on HOSTS' machines
# when given), SCHEDULER=slurm as an sbatch array with collect after it.
# make crashtest and make xfstests take SCHEDULER, GUESTS and HOSTS the same
# way; GUESTS then counts units (a crashtest unit is a writer and a checker
# guest, an xfstests unit one 1.5 GiB guest at a time).
BENCH_KERNELS = $(or $(KERNELS),$(call default_kernels,$(if $(QUICK),quick,bench)))
SCHEDULER ?= local
GUESTS    ?= $(shell nproc)
BENCH_RUN_ID := $(or $(RESUME),$(RUN_ID),$(shell date +%Y%m%d-%H%M%S))
# What schedule.sh takes after RUN_DIR: slurm limits the array only when asked.
schedule_args = $(if $(filter parallel,$(SCHEDULER)),$(GUESTS) $(HOSTS),$(if $(filter command line,$(origin GUESTS)),$(GUESTS)))
bad_scheduler = echo "make $@: SCHEDULER must be local, parallel or slurm, not '$(SCHEDULER)'" >&2; exit 2
# $(call scheduled,KIND,OPTIONS,LOCAL_ARGS,PLAN_RUN_ARGS,RUN_ID): a run of KIND
# (bench, crashtest or xfstests) as one command here, or planned into units
# that schedule.sh hands to GNU parallel or Slurm. One recipe line.
scheduled = $(if $(filter local,$(SCHEDULER)),$(BUILD_DIR)/pmem-harness $(1) $(2) $(3),$\
	$(if $(filter parallel slurm,$(SCHEDULER)),$\
	$(BUILD_DIR)/pmem-harness plan $(1) $(2) $(4) >/dev/null && $\
	harness/schedule.sh $(SCHEDULER) results/runs/$(5) $(schedule_args),$\
	$(bad_scheduler)))
bench_options = $(if $(QUICK),--quick) --kernels "$(call kernel_names,$(BENCH_KERNELS))" $(if $(ACCEL),--accel $(ACCEL)) \
		$(if $(FS),--fs "$(FS)") $(if $(MODES),--modes "$(MODES)") \
		$(if $(JOBS),--jobs "$(JOBS)") $(if $(REPS),--reps $(REPS))
bench:
	vm-images/setup-host.sh
	$(MAKE) all images
	vm-images/build-kernel.sh $(BENCH_KERNELS)
	$(call scheduled,bench,$(bench_options),--guests $(GUESTS) $(if $(RESUME),--resume $(RESUME)),$\
		$(if $(RESUME),--resume,--run-id) $(BENCH_RUN_ID),$(BENCH_RUN_ID))

# make crashtest [FS="..."] [SCENARIOS="..."] [PLATFORM=eadr|adr] [KEEP=1]
#                [SUBSETS=N] [STRUCTURED=N] [TORN=N] [HISTORY=N] [FENCE_POINTS=N]
# Kernels that rows of the scenario table name (their seventh column), for
# the rows SCENARIOS= selects (all by default).
comma := ,
SCENARIO_KERNELS = $(shell awk -v only=" $(subst $(comma), ,$(SCENARIOS)) " \
	'!/^\#/ && NF >= 7 && $$7 != "-" && (only ~ /^ *$$/ || index(only, " " $$1 " ")) { print $$7 }' \
	crash-inject/scenarios | sort -u)

# make crashtest PROGRAM="a.c b.cc" (or a binary, or a #!/bin/sh script) [CHECK=check.c] [CFLAGS=... LDLIBS=...]
#                [MODES=aware] [FS=...] [PLATFORM=adr] [KERNELS=flavour or path]
# make crashtest PROGRAM='prog args' RECOVER='prog args' [CHECK=...]: an unmodified program judged
#                by its own recovery (docs/blackbox.md); data_store, map-driver and
#                map-check are PMDK's, built by make pmdk when build/pmdk has none
# SCHEDULER=parallel|slurm: one unit per scenario and filesystem.
CRASH_RUN_ID := $(or $(RESUME),$(RUN_ID),$(shell date +%Y%m%d-%H%M%S)-crash)
crashtest_options = $(if $(KERNELS),--kernel $(call kernel_names,$(KERNELS))) $(if $(FS),--fs "$(FS)") $(if $(ACCEL),--accel $(ACCEL)) \
		$(if $(SCENARIOS),--scenarios "$(SCENARIOS)") $(if $(KEEP),--keep) \
		$(if $(PROGRAM),--program "$(PROGRAM)") $(if $(RECOVER),--recover "$(RECOVER)") $(if $(CHECK),--check "$(CHECK)") \
		$(if $(filter command line,$(origin CFLAGS)),--cflags "$(CFLAGS)") $(if $(LDLIBS),--ldlibs "$(LDLIBS)") \
		$(if $(MODES),--mode "$(MODES)") $(if $(PLATFORM),--platform $(PLATFORM)) \
		$(if $(SUBSETS),--subsets $(SUBSETS)) $(if $(STRUCTURED),--structured $(STRUCTURED)) $(if $(TORN),--torn $(TORN)) $(if $(HISTORY),--history $(HISTORY)) $(if $(FENCE_POINTS),--fence-points $(FENCE_POINTS))
crashtest:
	vm-images/setup-host.sh
	$(MAKE) all images
	$(if $(filter data_store% map-driver% map-check%,$(firstword $(PROGRAM)) $(firstword $(RECOVER))),$(if $(wildcard $(BUILD_DIR)/pmdk/bin),,$(MAKE) pmdk))
	vm-images/build-kernel.sh $(or $(KERNELS),$(call default_kernels,crashtest)) $(if $(PROGRAM),,$(SCENARIO_KERNELS))
	$(call scheduled,crashtest,$(crashtest_options),$(if $(RESUME),--resume $(RESUME),$(if $(RUN_ID),--run-id $(RUN_ID))),$\
		$(if $(RESUME),--resume,--run-id) $(CRASH_RUN_ID),$(CRASH_RUN_ID))

# make xfstests [XFSTESTS=<your checkout>] [KERNELS="..."] [FS="..."] [XFSTESTS_ONLY="generic/413 ..."]
#               [TIMEOUT=s] [FORCE_AWARE=1]: the tests of xfstests/tests in guests, each
# kernel beside its -stock baseline; fails when a kernel fails a test its baseline
# passes. FORCE_AWARE=1: every shared file mapping asks for MAP_PMEM_AWARE first.
# SCHEDULER=parallel|slurm: one unit per kernel and filesystem.
XFSTESTS_KERNELS = $(or $(KERNELS),$(call default_kernels,xfstests))
XFSTESTS_RUN_ID := $(or $(RUN_ID),$(shell date +%Y%m%d-%H%M%S)-xfstests)
# The LD_PRELOAD library of FORCE_AWARE=1, for the guest's Debian userland.
$(BUILD_DIR)/guest/aware-mmap.so: xfstests/aware-mmap.c
	@mkdir -p $(@D)
	$(CC) $(BUILD_CFLAGS) -shared -fPIC -o $@ $< -ldl

xfstests-image: $(BUILD_DIR)/guest/pmem-agent $(BUILD_DIR)/guest/aware-mmap.so $(BUILD_DIR)/initramfs-crash.cpio
	vm-images/build-xfstests.sh $(XFSTESTS)

xfstests_options = --kernels "$(call kernel_names,$(XFSTESTS_KERNELS))" $(if $(ACCEL),--accel $(ACCEL)) \
		$(if $(FS),--fs "$(FS)") $(if $(XFSTESTS_ONLY),--only "$(XFSTESTS_ONLY)") $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(FORCE_AWARE),--force-aware)
xfstests:
	vm-images/setup-host.sh
	$(MAKE) all xfstests-image
	vm-images/build-kernel.sh $(XFSTESTS_KERNELS)
	$(call scheduled,xfstests,$(xfstests_options),$(if $(RUN_ID),--run-id $(RUN_ID)),--run-id $(XFSTESTS_RUN_ID),$(XFSTESTS_RUN_ID))

# make crashtest-pmdk [PMDK_PROGRAM=data_store|map-driver] [MAPS="btree ..."] [FS="..."]: PMDK's
# example maps crash-tested black-box, each map on each filesystem, with
# images/s per run (targets/pmdk/crashtest-maps.sh, docs/blackbox.md)
crashtest-pmdk: all images
	$(if $(wildcard $(BUILD_DIR)/pmdk/bin),,$(MAKE) pmdk)
	vm-images/build-kernel.sh $(call default_kernels,crashtest)
	MAPS="$(MAPS)" FS="$(FS)" RUN_ID="$(RUN_ID)" targets/pmdk/crashtest-maps.sh $(or $(PMDK_PROGRAM),data_store)

# make mutants [MUTANTS="id ..."]: each PMDK mutant (targets/pmdk/mutants) built and
# crash-tested black-box: which are caught, and whether the mutated line is named
mutants: all images
	vm-images/build-kernel.sh $(call default_kernels,crashtest)
	RUN_ID="$(RUN_ID)" targets/pmdk/run-mutants.sh $(MUTANTS)

# make adr-cost [JOB=file.fio] [REPS=3]: what the ADR model costs a guest (TCG)
adr-cost: all images
	crash-inject/model/adr-cost.sh $(or $(JOB),workloads/crash/alloc-clwb.fio) $(or $(REPS),3)

# make crashbench [REPS=3] [KERNELS=flavour]: images checked per second, per phase,
# on a fixed image set made once and cached (crash-inject/crashbench.sh)
# make crashbench PLATFORM=adr [REPS=3] [KERNELS=flavour] [RECORDS=256] [FS=...]:
# ADR crash testing end to end, images per second and where the time goes
# (crash-inject/adr-speed.sh)
crashbench: all images
ifeq ($(PLATFORM),adr)
	vm-images/build-kernel.sh $(or $(KERNELS),$(call default_kernels,stock))
	KERNEL=$(call kernel_names,$(or $(KERNELS),$(call default_kernels,stock))) $(if $(RECORDS),RECORDS=$(RECORDS) )$(if $(FS),FS=$(FS) )crash-inject/adr-speed.sh $(or $(REPS),3)
else
	vm-images/build-kernel.sh $(or $(KERNELS),$(call default_kernels,crashtest))
	KERNEL=$(call kernel_names,$(or $(KERNELS),$(call default_kernels,crashtest))) $(if $(RUN_ID),RUN_ID=$(RUN_ID) )crash-inject/crashbench.sh $(or $(REPS),3)
endif

# make compare A=results/runs/X B=results/runs/Y [C=...] [HTML=dir] (run ids work too)
# make compare A=<run of several kernels>: its kernels side by side
run_dir = $(if $(wildcard $(1)/run.json),$(1),results/runs/$(1))
compare: $(BUILD_DIR)/pmem-harness
	@if [ -z "$(A)" ]; then \
		echo "make compare: give two runs (A=<run-id> B=<run-id> [C=...]), or one run of several kernels (A=<run-id>)" >&2; exit 2; fi
	$(BUILD_DIR)/pmem-harness compare $(if $(HTML),--html "$(HTML)") $(foreach r,$(A) $(B) $(C) $(D),$(call run_dir,$(r)))

# make report RUN_ID=<run-id>: RUN/report/index.html and report.md, from its JSON only.
report: $(BUILD_DIR)/pmem-harness
	@if [ -z "$(RUN_ID)" ]; then \
		echo "make report: say which run: make report RUN_ID=<run-id> (see results/runs/)" >&2; exit 2; fi
	$(BUILD_DIR)/pmem-harness report $(call run_dir,$(RUN_ID))

# The headers each program and object read, as the compiler wrote them
# down; read last, so that their rules never take the place of all as the
# goal of a bare make.
-include $(wildcard $(HARNESS_OBJ:.o=.d) $(BUILD_DIR)/ackobj/*.d $(GUEST_OBJ:.o=.d) $(BUILD_DIR)/guest/pmem-ack.d $(addsuffix .d,$(UNIT_TESTS) $(FUZZ_TARGETS)) $(BUILD_DIR)/plugins/*.d)
