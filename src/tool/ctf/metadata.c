/* SPDX-License-Identifier: MIT */
/*
 * metadata.c - the metadata's version told by its first bytes: CTF 2
 * (a record separator, or metadata packets of version 2.0) goes to the
 * JSON front end, anything else to the TSDL parser, which says what it
 * expected.
 */
#include "ctf/metadata.h"
#include "ctf/ctf2.h"

int lt_metadata_parse(const char *text, size_t len, const char *path,
		      struct lt_tsdl *m, char *err, size_t errlen)
{
	if (lt_ctf2_is_ctf2(text, len))
		return lt_ctf2_parse(text, len, path, m, err, errlen);
	return lt_tsdl_parse(text, len, path, m, err, errlen);
}
