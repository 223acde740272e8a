// SPDX-License-Identifier: GPL-2.0
/* Unit test: fio-style job files, good and bad, through libinih. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "tap.h"

static char errbuf[4096];

/* Parse text, or the file path when text is NULL, with stderr captured into errbuf. */
static int parse_capture(const char *text, const char *path, struct job_file *jf)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret;
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = text ? job_file_parse_string(text, jf) : job_file_parse(path, jf);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, tmp);
	errbuf[n] = '\0';
	fclose(tmp);
	return ret;
}

static int parse(const char *text, struct job_file *jf)
{
	return parse_capture(text, NULL, jf);
}

static struct job_file jf;

static void good(void)
{
	const char *text =
		"; comment\n"
		"[global]\n"
		"directory=/mnt/bench\n"
		"bs=8k\n"
		"size=2m\n"
		"time_based\n"
		"runtime=3\n"
		"\n"
		"[a]\n"
		"rw=randwrite\n"
		"map=sync+aware\n"
		"persist=clwb\n"
		"persist_every=16\n"
		"[b]\n"
		"readwrite=randrw\n"
		"rwmixread=30\n"
		"size=1m\n"
		"prealloc=fallocate\n"
		"fault_size=pmd\n"
		"ioengine=mmap\n";
	int ok = parse(text, &jf) == 0 && jf.njobs == 2;

	tap_result(ok ? TAP_PASS : TAP_FAIL, "a good file parses into two jobs", NULL);
	if (!ok) {
		tap_diag("stderr: %s", errbuf);
		return;
	}
	tap_result(jf.jobs[0].bs == 8192 && jf.jobs[1].bs == 8192 &&
		   !strcmp(jf.jobs[1].directory, "/mnt/bench") ? TAP_PASS : TAP_FAIL,
		   "jobs inherit [global]", NULL);
	tap_result(jf.jobs[0].time_based == 1 && jf.jobs[0].runtime == 3 ? TAP_PASS : TAP_FAIL,
		   "a bare key (time_based) means 1, as in fio", NULL);
	tap_result(jf.jobs[0].size == 2 << 20 && jf.jobs[1].size == 1 << 20 ? TAP_PASS : TAP_FAIL,
		   "size suffixes, and a job overrides [global]", NULL);
	tap_result(jf.jobs[0].rw == RW_RANDWRITE && jf.jobs[1].rw == RW_RANDRW &&
		   jf.jobs[1].rwmixread == 30 ? TAP_PASS : TAP_FAIL, "rw, its readwrite alias, rwmixread", NULL);
	tap_result(!strcmp(jf.jobs[0].map, "sync+aware") && !strcmp(jf.jobs[0].persist, "clwb") &&
		   jf.jobs[0].persist_every == 16 && !strcmp(jf.jobs[1].map, "shared") ? TAP_PASS : TAP_FAIL,
		   "our keys: map, persist, persist_every, defaults", NULL);
	tap_result(jf.jobs[1].prealloc == PREALLOC_FALLOCATE && jf.jobs[1].fault_size == FAULT_PMD &&
		   jf.jobs[0].prealloc == PREALLOC_NONE && jf.jobs[0].fault_size == FAULT_PTE ? TAP_PASS : TAP_FAIL,
		   "prealloc and fault_size", NULL);
}

/* What fio accepts is accepted, and means what it means in fio. */
static void accepted(void)
{
	char text[512];
	int ok;

	ok = parse("[global]\r\nbs=8k\r\n[a]\r\ntime_based\r\nruntime=3\r\n", &jf) == 0 && jf.njobs == 1 &&
	     jf.jobs[0].bs == 8192 && jf.jobs[0].time_based && jf.jobs[0].runtime == 3;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "CRLF line ends read as LF, as in fio", NULL);
	ok = parse("[a]\nbs=4k\nbs=8k\n", &jf) == 0 && jf.jobs[0].bs == 8192;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a key given twice: the last value wins, as in fio", NULL);
	ok = parse("[a]\n  runtime=3\n\ttime_based\n", &jf) == 0 && jf.jobs[0].runtime == 3 && jf.jobs[0].time_based;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "indented keys, bare or not, as in fio (not a continued value)", NULL);
	ok = parse("[global]\nbs=8k\n[a]\n[global]\nbs=16k\n[b]\n", &jf) == 0 && jf.njobs == 2 &&
	     jf.jobs[0].bs == 8192 && jf.jobs[1].bs == 16384;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "[global] again applies to the jobs after it, as in fio", NULL);
	snprintf(text, sizeof(text), "[a]\n; %0300d\nbs=8k\n", 0);
	ok = parse(text, &jf) == 0 && jf.njobs == 1 && jf.jobs[0].bs == 8192;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a comment longer than a line may be is still a comment", NULL);
	ok = parse("\xEF\xBB\xBF[a] ; the job\nbs=8k\n", &jf) == 0 && jf.njobs == 1 && !strcmp(jf.jobs[0].name, "a") &&
	     jf.jobs[0].bs == 8192;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a byte order mark, a comment after a header", NULL);
	ok = parse("[a23456789012345678901234567890123456789012345678901234]\nbs=8k\n", &jf) == 0 && jf.njobs == 1 &&
	     strlen(jf.jobs[0].name) == 54 && jf.jobs[0].bs == 8192;
	tap_result(ok ? TAP_PASS : TAP_FAIL, "a 54-character section name is one job with its keys (libinih keeps 49)", NULL);
	if (!ok)
		tap_diag("njobs %d: %s", jf.njobs, errbuf);
}
#define NACCEPTED 7

static const struct {
	const char *name, *text, *message;
} bad[] = {
	{ "unknown key names the closest", "[j]\nbss=4k\n", "<string>:2: unknown option 'bss'; did you mean 'bs'?" },
	{ "bad mode lists the modes", "[j]\nmap=awre\n", "map=awre is not valid: expected shared, sync, aware, sync+aware" },
	{ "bad persist lists the methods", "[j]\npersist=nope\n", "expected clwb, clwb-nofence, fsync, libpmem, msync, none, ntstore, ntstore-nofence" },
	{ "bad size", "[j]\nbs=4q\n", "bs=4q is not a size" },
	{ "out of range", "[j]\nrwmixread=101\n", "rwmixread=101 is out of range [0, 100]" },
	{ "negative number", "[j]\nnumjobs=-1\n", "numjobs=-1 is not a number" },
	{ "bad rw", "[j]\nrw=trim\n", "rw=trim is not valid" },
	{ "other ioengine", "[j]\nioengine=libaio\n", "ioengine=libaio is not valid: expected mmap" },
	{ "key outside a section", "size=1m\n[j]\n", "<string>:1: size=1m is outside any section" },
	{ "no job section", "[global]\nsize=1m\n", "no job sections" },
	{ "bs larger than size", "[j]\nsize=4k\nbs=8k\n", "bs=8192 is larger than size=4096" },
	{ "time_based without runtime", "[j]\ntime_based=1\n", "time_based needs runtime" },
	{ "unterminated section header", "[global\nsize=1m\n[j]\n",
	  "<string>:1: section header '[global' has no closing ']'" },
	{ "unterminated job header", "[j]\n[broken\n", "<string>:2: section header '[broken' has no closing ']'" },
	{ "empty section name", "[]\nsize=1m\n", "<string>:1: empty section name" },
	{ "section name too long",
	  "[a234567890123456789012345678901234567890123456789012345678901234]\nsize=1m\n",
	  "<string>:1: section name 'a2345" },
	{ "not an INI line", "[j]\n!!!\n", "<string>:2: not an INI line" },
	{ "empty key", "[j]\n= 3\n", "<string>:2: a value without a key" },
	{ "an empty file", "", "<string>: no job sections" },
	{ "a file of comments only", "; one\n# two\n\n", "<string>: no job sections" },
	{ "a section again, later", "[a]\n[b]\n[a]\n", "<string>:3: section [a] again (first at line 1)" },
	{ "a section again, at once (was merged)", "[a]\nbs=4k\n[a]\nsize=1m\n", "<string>:3: section [a] again (first at line 1)" },
	{ "a line longer than libinih reads (was cut and its rest read as a key)",
	  "[a]\nfilename=/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nbs=4k\n",
	  "<string>:2: line is longer than" },
	{ "a section name with '/'", "[a/b]\nbs=4k\n", "<string>:1: section name 'a/b' is not valid" },
	{ "a section name '..'", "[..]\n", "<string>:1: section name '..' is not valid" },
	{ "a section name with a space", "[a b]\n", "<string>:1: section name 'a b' is not valid" },
	{ "a section name of markup", "[<script>]\n", "<string>:1: section name '<script>' is not valid" },
	{ "a section name with shell syntax", "[$(reboot)]\n", "<string>:1: section name '$(reboot)' is not valid" },
	{ "a section name with a newline", "[a\nb]\n", "<string>:1: section header '[a' has no closing ']'" },
	{ "text after a section header", "[a] b\n", "<string>:1: text after the section header '[a]'" },
};

/* Files the string parser cannot be given: each is refused in one line naming it. */
static char dir[] = "/tmp/unit-job-parse.XXXXXX";

static void put(const char *name, const char *text, size_t len, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		exit(1);
}

static int bad_file(const char *name, const char *path, const char *message)
{
	int ret = parse_capture(NULL, path, &jf), lines = 0;
	char *p;

	for (p = errbuf; *p; p++)
		lines += *p == '\n';
	tap_result(ret < 0 && strstr(errbuf, message) && lines == 1 ? TAP_PASS : TAP_FAIL, name, NULL);
	if (ret == 0 || !strstr(errbuf, message) || lines != 1)
		tap_diag("got: %s", errbuf);
	return 1;
}

static int files(void)
{
	static const char nul[] = "[a]\nbs=4k\n\0\nbs=8k\n";
	static const char *const made[] = { "nul.fio", "huge.fio", "ok.fio" };
	char path[256], want[512];
	int n = 0, fd;
	size_t i;

	if (!mkdtemp(dir))
		exit(1);
	put("nul.fio", nul, sizeof(nul) - 1, path, sizeof(path));
	snprintf(want, sizeof(want), "%s:3: a NUL byte", path);
	n += bad_file("a NUL byte: refused at its line, not read as the end of the file", path, want);

	snprintf(path, sizeof(path), "%s/missing.fio", dir);
	snprintf(want, sizeof(want), "%s: cannot open job file: No such file or directory", path);
	n += bad_file("a file that does not exist", path, want);

	snprintf(want, sizeof(want), "%s: cannot read job file: Is a directory", dir);
	n += bad_file("a directory: refused as one, not read as an empty file", dir, want);

	snprintf(path, sizeof(path), "%s/huge.fio", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || ftruncate(fd, (2 << 20) + 1) < 0 || close(fd) < 0)
		exit(1);
	snprintf(want, sizeof(want), "%s: larger than 1024 KiB: not a job file", path);
	n += bad_file("a file larger than any job file (/dev/zero, an image)", path, want);

	put("ok.fio", "[a]\nbs=8k\n", 10, path, sizeof(path));
	tap_result(parse_capture(NULL, path, &jf) == 0 && jf.njobs == 1 && jf.jobs[0].bs == 8192 ? TAP_PASS : TAP_FAIL,
		   "a good file parses from disk", NULL);
	n++;
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, made[i]);
		unlink(path);
	}
	rmdir(dir);
	return n;
}

#define NFILES 5

int main(void)
{
	size_t i, n = sizeof(bad) / sizeof(bad[0]);

	tap_plan(7 + NACCEPTED + 2 * n + NFILES);
	good();
	accepted();
	for (i = 0; i < n; i++) {
		int ret = parse(bad[i].text, &jf);
		int lines = 0;
		char *p;

		for (p = errbuf; *p; p++)
			lines += *p == '\n';
		tap_result(ret < 0 && strstr(errbuf, bad[i].message) ? TAP_PASS : TAP_FAIL, bad[i].name, NULL);
		if (!strstr(errbuf, bad[i].message))
			tap_diag("got: %s", errbuf);
		tap_result(lines == 1 ? TAP_PASS : TAP_FAIL, "... in exactly one line", NULL);
	}
	if (files() != NFILES)
		tap_diag("the plan counts %d file cases", NFILES);
	return tap_exit();
}
