/* SPDX-License-Identifier: MIT */
/*
 * metadata.h - a trace's metadata read whichever its version: CTF 2's
 * JSON (ctf2.h) or CTF 1.8's TSDL (tsdl.h), both into struct lt_tsdl.
 */
#ifndef LT_CTF_METADATA_H
#define LT_CTF_METADATA_H

#include "ctf/tsdl.h"

#include <stddef.h>

/* lt_ctf2_parse() or lt_tsdl_parse(), as the metadata's first bytes
 * say. */
int lt_metadata_parse(const char *text, size_t len, const char *path,
		      struct lt_tsdl *m, char *err, size_t errlen);

#endif
