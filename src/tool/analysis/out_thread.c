/* SPDX-License-Identifier: MIT */
/*
 * out_thread.c - the writer thread of out_thread.h: it sleeps until a
 * buffer is handed to it, writes it whole, and says so; one hand-over
 * per buffer (FLUSH_BYTES of the caller's), so the two CPUs meet rarely.
 */
#include "analysis/out_thread.h"

#include <errno.h>
#include <string.h>

static void *writer(void *arg)
{
	struct lt_out_thread *o = arg;
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (!o->len && !o->stop)
			pthread_cond_wait(&o->cv, &o->mu);
		if (!o->len)
			break;
		size_t n = o->len;
		pthread_mutex_unlock(&o->mu);
		int bad = fwrite(o->spare.p, 1, n, o->f) != n;
		int e = errno;
		pthread_mutex_lock(&o->mu);
		if (bad && !o->err) {
			o->err = -EIO;
			o->errnum = e;
		}
		o->len = 0;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

void lt_out_thread_start(struct lt_out_thread *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	o->started = pthread_create(&o->th, NULL, writer, o) == 0;
}

int lt_out_thread_write(struct lt_out_thread *o, struct lt_pb *b)
{
	if (!b->len)
		return o->err;
	if (!o->started) {
		if (!o->err && fwrite(b->p, 1, b->len, o->f) != b->len) {
			o->err = -EIO;
			o->errnum = errno;
		}
		b->len = 0;
		return o->err;
	}
	pthread_mutex_lock(&o->mu);
	while (o->len)
		pthread_cond_wait(&o->cv, &o->mu);
	int err = o->err;
	if (!err) {
		struct lt_pb full = *b;
		b->p = o->spare.p;
		b->cap = o->spare.cap;
		o->spare = full;
		o->len = full.len;
		pthread_cond_broadcast(&o->cv);
	}
	pthread_mutex_unlock(&o->mu);
	b->len = 0;
	return err;
}

int lt_out_thread_finish(struct lt_out_thread *o)
{
	if (o->started) {
		pthread_mutex_lock(&o->mu);
		o->stop = 1;
		pthread_cond_broadcast(&o->cv);
		pthread_mutex_unlock(&o->mu);
		pthread_join(o->th, NULL);
		o->started = 0;
	}
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	lt_pb_free(&o->spare);
	if (o->err)
		errno = o->errnum;
	return o->err;
}
