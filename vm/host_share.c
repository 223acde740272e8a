// SPDX-License-Identifier: GPL-2.0
/* How many guests shared the host with a unit's guest, sampled once a second. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_share.h"

unsigned long host_qemu_count(void)
{
	unsigned long n = 0;
	struct dirent *de;
	char path[300], comm[64];
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "qemu-system-", 12))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static void *sampler(void *arg)
{
	struct host_share *hs = arg;
	struct timespec tick = { 1, 0 };
	unsigned long n;

	for (;;) {
		pthread_mutex_lock(&hs->lock);
		if (hs->stop) {
			pthread_mutex_unlock(&hs->lock);
			return NULL;
		}
		pthread_mutex_unlock(&hs->lock);
		n = host_qemu_count();
		/* Only while our own guest runs: boot and teardown see none. */
		if (n) {
			pthread_mutex_lock(&hs->lock);
			hs->samples++;
			hs->sum += n;
			hs->max = n > hs->max ? n : hs->max;
			pthread_mutex_unlock(&hs->lock);
		}
		nanosleep(&tick, NULL);
	}
}

void host_share_start(struct host_share *hs)
{
	memset(hs, 0, sizeof(*hs));
	pthread_mutex_init(&hs->lock, NULL);
	hs->started = !pthread_create(&hs->thread, NULL, sampler, hs);
}

json_t *host_share_stop(struct host_share *hs)
{
	char host[256] = "unknown";

	if (hs->started) {
		pthread_mutex_lock(&hs->lock);
		hs->stop = 1;
		pthread_mutex_unlock(&hs->lock);
		pthread_join(hs->thread, NULL);
	}
	pthread_mutex_destroy(&hs->lock);
	gethostname(host, sizeof(host) - 1);
	return json_pack("{s:s, s:i, s:I, s:f, s:I}", "host", host, "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN),
			 "guests_max", (json_int_t)hs->max,
			 "guests_mean", hs->samples ? (double)hs->sum / hs->samples : 0.0,
			 "samples", (json_int_t)hs->samples);
}
