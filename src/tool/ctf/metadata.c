/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - the metadata's version told by its first bytes: CTF 2
 * (a record separator, or metadata packets of version 2.0) goes to the
 * JSON front end, anything else to the TSDL parser, which says what it
 * expected.  A build without jansson (LT_JSON 0: a cross build without
 * the target's libjansson-dev) reads TSDL only and says so of CTF 2.
 */
#include "ctf/metadata.h"
#include "ctf/ctf2.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef LT_JSON
#define LT_JSON 1
#endif

/* RFC 7464's record separator, which starts each CTF 2 fragment */
#define RS 0x1e

int lt_ctf2_is_ctf2(const char *text, size_t len)
{
	const unsigned char *b = (const unsigned char *)text;
	if (lt_tsdl_packetized(b, len))
		return len > 36 && b[35] == 2;
	while (len && (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t')) {
		b++;
		len--;
	}
	/* or a text that is not TSDL's, with a record separator further
	 * on: CTF 2 that something came before, which its parser reports */
	return len && (*b == RS || (*b != '/' && memchr(b, RS, len)));
}

int lt_metadata_parse(const char *text, size_t len, const char *path,
		      struct lt_tsdl *m, char *err, size_t errlen)
{
	if (lt_ctf2_is_ctf2(text, len)) {
#if LT_JSON
		return lt_ctf2_parse(text, len, path, m, err, errlen);
#else
		snprintf(err, errlen,
			 "%s: CTF 2 metadata, and this lowtrace was built "
			 "without jansson, which reads it (install "
			 "libjansson-dev for the target and rebuild)",
			 path);
		return -EINVAL;
#endif
	}
	return lt_tsdl_parse(text, len, path, m, err, errlen);
}
