/* SPDX-License-Identifier: MIT */
/*
 * streams.c - stream files (streams.h).
 */
#include "session/streams.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void lt_stream_init(struct lt_stream_out *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

int lt_stream_write(struct lt_stream_out *o, const char *dir, const char *name,
		    const void *data, size_t len)
{
	if (o->failed)
		goto lost;
	if (o->fd < 0) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
		if (o->fd < 0) {
			o->failed = errno;
			fprintf(stderr,
				"lowtrace: cannot create %s: %s (check the "
				"trace directory)\n",
				path, strerror(errno));
			goto lost;
		}
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = write(o->fd, (const char *)data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->failed = n < 0 ? errno : EIO;
			/* a torn packet would make the whole file unreadable */
			if (ftruncate(o->fd, (off_t)o->good) < 0)
				o->failed = errno;
			fprintf(stderr,
				"lowtrace: writing %s/%s: %s; this stream stops "
				"here, its %llu packets already written stay "
				"readable (free space, or trace fewer "
				"events)\n",
				dir, name, strerror(o->failed),
				(unsigned long long)o->packets);
			goto lost;
		}
		done += (size_t)n;
	}
	o->good += len;
	o->packets++;
	return 0;
lost:
	o->lost++;
	return -(o->failed ? o->failed : EIO);
}

int lt_stream_close(struct lt_stream_out *o)
{
	int rc = 0;
	if (o->fd >= 0 && close(o->fd) < 0)
		rc = -errno;
	o->fd = -1;
	return rc;
}
