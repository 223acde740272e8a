// SPDX-License-Identifier: GPL-2.0
/* gnuplot scripts rendered to SVG: see plot.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

void plot_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
	}
	fputc('"', f);
}

void plot_label(char *dst, size_t len, const char *s)
{
	size_t n = 0;

	if (len < 3) {
		if (len)
			dst[0] = '\0';
		return;
	}
	dst[n++] = '"';
	for (; *s && n < len - 2; s++)
		dst[n++] = *s == '"' ? '\'' : (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
	dst[n++] = '"';
	dst[n] = '\0';
}

int plot_begin(struct plot *p, const char *dir, const char *name, const char *title,
	       const char *xlabel, const char *ylabel)
{
	char path[PATH_MAX], id[128];
	size_t i;

	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	p->f = fopen(path, "w");
	if (!p->f) {
		fprintf(stderr, "report: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* The SVG's name is its <title> and must be an identifier. */
	snprintf(id, sizeof(id), "%s", name);
	for (i = 0; id[i]; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= 'A' && id[i] <= 'Z') || (id[i] >= '0' && id[i] <= '9')))
			id[i] = '_';
	fprintf(p->f, "# %s: made by pmem-harness report; render with: gnuplot %s.gp\n", name, name);
	fprintf(p->f, "set terminal svg size 760,440 noenhanced name '%s' font 'DejaVu Sans,11' background '#ffffff'\n", id);
	fprintf(p->f, "set output '%s.svg'\n", name);
	fprintf(p->f, "set title ");
	plot_quote(p->f, title);
	fprintf(p->f, "\nset xlabel ");
	plot_quote(p->f, xlabel);
	fprintf(p->f, "\nset ylabel ");
	plot_quote(p->f, ylabel);
	fprintf(p->f, "\nset grid\nset key outside right top box opaque\n");
	return 0;
}

void plot_set(struct plot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
	fputc('\n', p->f);
}

int plot_block(struct plot *p)
{
	fprintf(p->f, "$d%d << EOD\n", p->blocks);
	return p->blocks++;
}

void plot_block_end(struct plot *p)
{
	fputs("EOD\n", p->f);
}

void plot_series(struct plot *p, int block, const char *spec, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	fprintf(m, "%s$d%d %s title ", p->len ? ", \\\n     " : "", block, spec);
	plot_quote(m, title ? title : "");
	fclose(m);
	p->clauses = realloc(p->clauses, p->len + len + 1);
	if (!p->clauses)
		abort();
	memcpy(p->clauses + p->len, buf, len + 1);
	p->len += len;
	free(buf);
}

/* gnuplot runs in the report directory so the script names only NAME.svg. */
static int run_gnuplot(const char *dir, const char *script, const char *errpath)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		if (chdir(dir) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int plot_end(struct plot *p)
{
	char script[160], errpath[PATH_MAX], line[256] = "";
	FILE *e;
	int rc;

	fprintf(p->f, "plot %s\n", p->len ? p->clauses : "NaN notitle");
	free(p->clauses);
	p->clauses = NULL;
	if (fclose(p->f)) {
		fprintf(stderr, "report: cannot write %s/%s.gp\n", p->dir, p->name);
		return -1;
	}
	snprintf(script, sizeof(script), "%s.gp", p->name);
	snprintf(errpath, sizeof(errpath), "%s/%s.err", p->dir, p->name);
	rc = run_gnuplot(p->dir, script, errpath);
	if (rc == 127) {
		unlink(errpath);
		fprintf(stderr, "report: gnuplot not found: run 'make setup' (Debian package gnuplot-nox)\n");
		return PLOT_NO_GNUPLOT;
	}
	e = fopen(errpath, "r");
	if (rc != 0) {
		/* gnuplot's own message names the line; show the last one. */
		char tmp[256];

		while (e && fgets(tmp, sizeof(tmp), e))
			if (strspn(tmp, " \t\n^") != strlen(tmp))
				snprintf(line, sizeof(line), "%.*s", (int)strcspn(tmp, "\n"), tmp);
		if (!line[0])
			snprintf(line, sizeof(line), rc == 126 ? "cannot enter the directory" : "exit status %d", rc);
		fprintf(stderr, "report: gnuplot failed on %s/%s.gp: %s\n", p->dir, p->name, line);
	}
	if (e)
		fclose(e);
	if (rc == 0)
		unlink(errpath);
	return rc == 0 ? 0 : -1;
}
