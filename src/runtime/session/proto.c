/* SPDX-License-Identifier: MIT */
/*
 * proto.c - encoding, decoding and checking the messages of proto.h.
 */
#include "session/proto.h"
#include "format/metadata.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void lt_proto_init(struct lt_msg_hdr *h, enum lt_msg_type type, size_t len)
{
	memset(h, 0, sizeof(*h));
	h->magic = LT_PROTO_MAGIC;
	h->type = (uint16_t)type;
	h->version = LT_PROTO_VERSION;
	h->len = (uint32_t)len;
}

static size_t min_len(enum lt_msg_type t)
{
	switch (t) {
	case LT_MSG_HELLO:
		return sizeof(struct lt_msg_hello);
	case LT_MSG_CONFIG:
		return sizeof(struct lt_msg_config);
	case LT_MSG_EVENT:
		return sizeof(struct lt_msg_hdr) + 16;
	case LT_MSG_CTL:
		return sizeof(struct lt_msg_ctl);
	case LT_MSG_REPLY:
		return sizeof(struct lt_msg_reply);
	case LT_MSG_TRIGGER:
		return sizeof(struct lt_msg_trigger);
	case LT_MSG_ATTACH:
		return sizeof(struct lt_msg_attach);
	case LT_MSG_NOTE:
		return sizeof(struct lt_msg_note);
	}
	return SIZE_MAX;
}

int lt_proto_check(const void *buf, size_t len, enum lt_msg_type *type)
{
	struct lt_msg_hdr h;
	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != LT_PROTO_MAGIC || h.version != LT_PROTO_VERSION ||
	    h.len != len || len > LT_PROTO_MAX)
		return -EPROTO;
	if (h.type < LT_MSG_HELLO || h.type > LT_MSG_NOTE)
		return -EPROTO;
	if (len < min_len((enum lt_msg_type)h.type))
		return -EPROTO;
	/* fixed-size messages have exactly their size */
	if (h.type != LT_MSG_EVENT && len != min_len((enum lt_msg_type)h.type))
		return -EPROTO;
	*type = (enum lt_msg_type)h.type;
	return 0;
}

int lt_proto_str_ok(const char *s, size_t cap)
{
	return memchr(s, 0, cap) != NULL;
}

int lt_proto_send(int sock, const void *msg, size_t len, const int *fds,
		  int nfds)
{
	struct iovec iov = { (void *)msg, len };
	union {
		char buf[CMSG_SPACE(sizeof(int) * LT_PROTO_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > LT_PROTO_MAX_FDS)
		return -EINVAL;
	if (nfds > 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		return (size_t)n == len ? 0 : -EIO;
	}
}

ssize_t lt_proto_recv(int sock, void *buf, size_t cap, int *fds, int max_fds,
		      int *nfds)
{
	struct iovec iov = { buf, cap };
	union {
		char buf[CMSG_SPACE(sizeof(int) * LT_PROTO_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	if (nfds)
		*nfds = 0;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		int got[LT_PROTO_MAX_FDS];
		if (k > LT_PROTO_MAX_FDS)
			k = LT_PROTO_MAX_FDS;
		memcpy(got, CMSG_DATA(c), sizeof(int) * (size_t)k);
		for (int i = 0; i < k; i++) {
			if (fds && nfds && *nfds < max_fds)
				fds[(*nfds)++] = got[i];
			else
				close(got[i]); /* not asked for */
		}
	}
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	return n;
}

/* EVENT body: u32 id, i32 level, u32 nfields, str name, then per field:
 * str name, u8 type, size, signed, base, u32 length, u32 nenum, then per
 * label: str label, i64 lo, i64 hi.  str = u16 length + bytes (no NUL). */
struct wbuf {
	char *p;
	size_t len, cap;
	int full;
};

static void w_bytes(struct wbuf *w, const void *v, size_t n)
{
	if (w->full || n > w->cap - w->len) {
		w->full = 1;
		return;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

static void w_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);
	uint16_t l = (uint16_t)n;
	if (n > 4096) {
		w->full = 1;
		return;
	}
	w_bytes(w, &l, 2);
	w_bytes(w, s, n);
}

ssize_t lt_proto_event_encode(void *buf, size_t cap,
			      const struct lt_ctf_event *ev)
{
	struct wbuf w = { buf, sizeof(struct lt_msg_hdr), cap, 0 };
	const struct lt_field_desc *f = ev->fields;
	int32_t lvl = ev->loglevel;

	if (cap < sizeof(struct lt_msg_hdr) || cap > LT_PROTO_MAX)
		return -E2BIG;
	w_bytes(&w, &ev->id, 4);
	w_bytes(&w, &lvl, 4);
	w_bytes(&w, &ev->nfields, 4);
	w_str(&w, ev->name);
	for (uint32_t i = 0; i < ev->nfields; i++) {
		uint8_t b[4] = { f[i].type, f[i].size, f[i].is_signed,
				 f[i].base };
		uint32_t ne = f[i].enumd ? f[i].enumd->n : 0;
		w_str(&w, f[i].name);
		w_bytes(&w, b, 4);
		w_bytes(&w, &f[i].length, 4);
		w_bytes(&w, &ne, 4);
		for (uint32_t k = 0; k < ne; k++) {
			const struct lt_enum_entry *e = &f[i].enumd->entries[k];
			w_str(&w, e->label);
			w_bytes(&w, &e->lo, 8);
			w_bytes(&w, &e->hi, 8);
		}
	}
	/* a marker's format, last: an older agent's message ends before */
	if (ev->format)
		w_str(&w, ev->format);
	if (w.full)
		return -E2BIG;
	lt_proto_init(buf, LT_MSG_EVENT, w.len);
	return (ssize_t)w.len;
}

uint64_t lt_proto_event_key(const void *msg, size_t len)
{
	/* FNV-1a over what follows the header and the id */
	const unsigned char *p = msg;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = sizeof(struct lt_msg_hdr) + 4; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1; /* 0 is no key (idtab.h) */
}

struct rbuf {
	const char *p;
	size_t off, len;
	int bad;
};

static void r_bytes(struct rbuf *r, void *v, size_t n)
{
	if (r->bad || n > r->len - r->off) {
		r->bad = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p + r->off, n);
	r->off += n;
}

static char *r_str(struct rbuf *r)
{
	uint16_t n = 0;
	r_bytes(r, &n, 2);
	if (r->bad || n == 0 || n > r->len - r->off) {
		r->bad = 1;
		return NULL;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		r->bad = 1;
		return NULL;
	}
	memcpy(s, r->p + r->off, n);
	s[n] = 0;
	r->off += n;
	if (strlen(s) != n) { /* an embedded NUL */
		free(s);
		r->bad = 1;
		return NULL;
	}
	return s;
}

/* A field name must be an identifier; an event name printable. */
static int ident_ok(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static int printable(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\')
			return 0;
	return s != NULL;
}

void lt_proto_event_free(struct lt_ctf_event *ev)
{
	for (uint32_t i = 0; ev->fields && i < ev->nfields; i++) {
		free((char *)ev->fields[i].name);
		const struct lt_enum_desc *e = ev->fields[i].enumd;
		if (e) {
			for (uint32_t k = 0; k < e->n; k++)
				free((char *)e->entries[k].label);
			free((void *)e->entries);
			free((void *)e);
		}
	}
	free((void *)ev->fields);
	free((char *)ev->name);
	free((char *)ev->format);
	memset(ev, 0, sizeof(*ev));
}

static int field_ok(const struct lt_field_desc *f)
{
	switch (f->type) {
	case LT_FT_INT:
	case LT_FT_ENUM:
	case LT_FT_ARRAY:
	case LT_FT_SEQUENCE:
		if (f->size != 1 && f->size != 2 && f->size != 4 &&
		    f->size != 8)
			return 0;
		break;
	case LT_FT_FLOAT:
		if (f->size != 4 && f->size != 8)
			return 0;
		break;
	case LT_FT_STRING:
	case LT_FT_CHARS:
		break;
	default:
		return 0;
	}
	if ((f->type == LT_FT_ARRAY || f->type == LT_FT_CHARS) &&
	    (f->length == 0 || f->length > LT_EVENT_MAX))
		return 0;
	return (f->base == 10 || f->base == 16) && f->is_signed <= 1;
}

int lt_proto_event_decode(const void *buf, size_t len, struct lt_ctf_event *ev)
{
	struct rbuf r = { buf, sizeof(struct lt_msg_hdr), len, 0 };
	uint32_t nf = 0;
	int32_t lvl = 0;
	struct lt_field_desc *fields;

	memset(ev, 0, sizeof(*ev));
	r_bytes(&r, &ev->id, 4);
	r_bytes(&r, &lvl, 4);
	r_bytes(&r, &nf, 4);
	ev->loglevel = lvl;
	ev->name = r_str(&r);
	if (r.bad || nf > 256 || !printable(ev->name) || ev->loglevel < 0 ||
	    ev->loglevel > LT_DEBUG || ev->id > 65535)
		goto bad;
	ev->fields = fields = calloc(nf + 1, sizeof(*fields));
	if (!fields)
		goto bad;
	for (uint32_t i = 0; i < nf; i++) {
		struct lt_field_desc *f = &fields[i];
		uint8_t b[4];
		uint32_t ne = 0;
		f->name = r_str(&r);
		ev->nfields = i + 1;
		r_bytes(&r, b, 4);
		r_bytes(&r, &f->length, 4);
		r_bytes(&r, &ne, 4);
		f->type = b[0];
		f->size = b[1];
		f->is_signed = b[2];
		f->base = b[3];
		if (r.bad || !ident_ok(f->name) || !field_ok(f) || ne > 4096 ||
		    (ne && f->type != LT_FT_ENUM))
			goto bad;
		if (!ne)
			continue;
		struct lt_enum_desc *e = calloc(1, sizeof(*e));
		struct lt_enum_entry *en = calloc(ne, sizeof(*en));
		if (!e || !en) {
			free(e);
			free(en);
			goto bad;
		}
		e->entries = en;
		f->enumd = e;
		for (uint32_t k = 0; k < ne; k++) {
			en[k].label = r_str(&r);
			e->n = k + 1;
			r_bytes(&r, &en[k].lo, 8);
			r_bytes(&r, &en[k].hi, 8);
			if (r.bad || !printable(en[k].label) ||
			    !lt_ctf_enum_range_ok(f->size, f->is_signed,
						  en[k].lo, en[k].hi))
				goto bad;
		}
	}
	if (r.off < len && !(ev->format = r_str(&r)))
		goto bad;
	if (r.off != len || !lt_ctf_field_names_ok(ev->fields, ev->nfields))
		goto bad;
	return 0;
bad:
	lt_proto_event_free(ev);
	return -EPROTO;
}

int lt_proto_socket_dir(char *out, size_t cap)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int n;

	if (x && *x && x[0] == '/')
		n = snprintf(out, cap, "%s/lowtrace", x);
	else
		n = snprintf(out, cap, "/tmp/lowtrace-%u", (unsigned)getuid());
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return -errno;
	/* someone else's directory, or one others may write, is refused */
	if (lstat(out, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int lt_proto_attach_check(const void *buf, size_t len, struct lt_msg_attach *m)
{
	enum lt_msg_type type;
	if (lt_proto_check(buf, len, &type) || type != LT_MSG_ATTACH)
		return -EPROTO;
	memcpy(m, buf, sizeof(*m));
	if (!lt_proto_str_ok(m->session, sizeof(m->session)) ||
	    !lt_proto_str_ok(m->sock, sizeof(m->sock)) ||
	    (m->op != LT_ATTACH_JOIN && m->op != LT_ATTACH_QUERY))
		return -EPROTO;
	return 0;
}

unsigned lt_proto_app_addr(int pid, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* abstract: sun_path[0] stays 0 and the name is not NUL-terminated */
	int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1,
			 LT_PROTO_APP_PREFIX "%d", pid);
	return (unsigned)(offsetof(struct sockaddr_un, sun_path) + 1 +
			  (size_t)n);
}

int lt_proto_socket_live(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	int e = errno;
	close(fd);
	if (rc == 0)
		return 1; /* the recorder sees a connection that closes */
	if (e == ECONNREFUSED) {
		/* a socket file nobody listens on: its recorder is gone */
		unlink(path);
		return 0;
	}
	return e == ENOENT ? 0 : -e;
}
