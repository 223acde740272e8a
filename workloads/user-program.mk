# How a user's program (crashtest PROGRAM= and CHECK=) is built from its
# sources, and with it every program that speaks the ack protocol: the
# harness compiles with these words (crash-inject/run/user_program.c reads this file,
# relative to the top of the tree), and the Makefile includes it for
# pmem-ack. Data only: one "NAME := words" per line, no $, no other make
# syntax, so that C and make read the same words.

# C with $(CC), C++ with $(CXX); with any C++ source, $(CXX) links.
PROGRAM_CFLAGS   := -std=gnu11 -O2 -g
PROGRAM_CXXFLAGS := -O2 -g

# The headers a program includes ("ack.h", "record.h", "cpu_flush.h",
# "pmem_map.h") and the helpers behind them, compiled with the program.
PROGRAM_INCLUDE  := -Iworkloads
PROGRAM_HELPERS  := workloads/ack.c workloads/channel.c workloads/record.c workloads/cpu_flush.c workloads/pmem_map.c

# The guest carries few libraries: static, except against PMDK (Debian has
# no static libndctl or libdaxctl for its libpmem.a). libstdc++ and libgcc
# are static always.
PROGRAM_STATIC   := -static
PROGRAM_CXXLINK  := -static-libstdc++ -static-libgcc
