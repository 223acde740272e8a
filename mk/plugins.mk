# QEMU TCG plugins, one self-contained .c file each (included by the main
# Makefile, which defines BUILD_DIR).
#
# Plugins compile against qemu-plugin.h of the QEMU that loads them (the API
# version is checked at load time). No Debian binary package ships it, so
# vm-images/fetch-qemu-plugin-header.sh takes it from QEMU's source package
# once and caches it; the header includes <glib.h> (libglib2.0-dev).
#
# QEMU older than 10 has no plugin API v4: then PLUGIN_HEADER_DIR is empty,
# HAVE_PLUGIN_API is "no", and building a plugin fails with one line saying
# why. The main Makefile checks HAVE_PLUGIN_API to warn, with that line,
# instead of building a silently smaller harness; the tests that need a
# plugin fail without it (set-up provides QEMU 10 and the header).

BUILD_DIR ?= build

# Expanded on first use, then kept: the script runs at most once per make,
# and not at all for targets that need no plugin. Its one line saying why
# there is no header is kept in PLUGIN_HEADER_WHY, for the messages below.
PLUGIN_HEADER_LOG = $(BUILD_DIR)/plugins/header.err
PLUGIN_HEADER_DIR = $(eval PLUGIN_HEADER_DIR := $(shell mkdir -p $(BUILD_DIR)/plugins && \
	vm-images/fetch-qemu-plugin-header.sh 2>$(PLUGIN_HEADER_LOG)))$(PLUGIN_HEADER_DIR)
PLUGIN_HEADER_WHY = $(strip $(shell tail -n 1 $(PLUGIN_HEADER_LOG) 2>/dev/null))
HAVE_PLUGIN_API = $(if $(PLUGIN_HEADER_DIR),yes,no)

PLUGIN_GLIB_CFLAGS = $(eval PLUGIN_GLIB_CFLAGS := $(shell pkg-config --cflags glib-2.0 2>/dev/null))$(PLUGIN_GLIB_CFLAGS)
PLUGIN_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Werror -shared -fPIC

# One plugin per line, each beside the code that reads what it writes.
PLUGIN_SRC := bench/insn-per-fault.c \
	      crash-inject/model/adr-cache.c
PLUGINS    := $(patsubst %.c,$(BUILD_DIR)/plugins/%.so,$(notdir $(PLUGIN_SRC)))

# plugins/NAME.so from the one NAME.c of PLUGIN_SRC.
$(foreach s,$(PLUGIN_SRC),$(eval $(BUILD_DIR)/plugins/$(basename $(notdir $(s))).so: $(s)))
$(PLUGINS):
	@if [ -z "$(PLUGIN_HEADER_DIR)" ]; then \
		echo "plugins need QEMU >= 10 and its qemu-plugin.h (TCG plugin API v4): $(or $(PLUGIN_HEADER_WHY),run vm-images/fetch-qemu-plugin-header.sh to see why)" >&2; \
		exit 1; \
	fi
	@if [ -z "$(PLUGIN_GLIB_CFLAGS)" ]; then \
		echo "plugins need glib headers (qemu-plugin.h includes glib.h): apt-get install libglib2.0-dev" >&2; \
		exit 1; \
	fi
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) $(PLUGIN_GLIB_CFLAGS) -I$(PLUGIN_HEADER_DIR) -o $@ $<
	$(CC) $(PLUGIN_GLIB_CFLAGS) -I$(PLUGIN_HEADER_DIR) -MM -MP -MT $@ $< >$@.d
