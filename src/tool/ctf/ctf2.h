/* SPDX-License-Identifier: MIT */
/*
 * ctf2.h - CTF 2's metadata: a JSON text sequence of fragments (RFC 7464,
 * each fragment after a record separator, 0x1E), plain or packetized,
 * read into the classes the TSDL front end builds (struct lt_tsdl,
 * tsdl.h), so that one decoder reads both versions.
 */
#ifndef LT_CTF_CTF2_H
#define LT_CTF_CTF2_H

#include "ctf/tsdl.h"

#include <stddef.h>

/* Whether the len bytes of metadata at text are CTF 2's: metadata
 * packets of version 2.0, or a text whose first byte not blank is the
 * record separator (or not TSDL's comment, with a record separator
 * after it). */
int lt_ctf2_is_ctf2(const char *text, size_t len);

/*
 * Parses CTF 2 metadata (len bytes at text) into m, as lt_tsdl_parse()
 * does TSDL.  Messages: "PATH:LINE: FRAGMENT: what", LINE the line of
 * the fragment's record separator.  Returns 0, -EINVAL or -ENOMEM.
 */
int lt_ctf2_parse(const char *text, size_t len, const char *path,
		  struct lt_tsdl *m, char *err, size_t errlen);

#endif
