/* SPDX-License-Identifier: MIT */
/*
 * marker.h - the formats of lt_tracef's markers (lowtrace/tracepoint.h):
 * their grammar, the check of a marker's fields against its format (the
 * registry's, as the marker's object loads), and where the format goes
 * in the metadata (an event's model.emf.uri, which babeltrace2 reads
 * without a word, behind LT_MARKER_URI).  The reader formats the text
 * with them (lt_event_format_marker(), src/tool/ctf/reader.c).
 */
#ifndef LT_FORMAT_MARKER_H
#define LT_FORMAT_MARKER_H

#include <lowtrace/types.h>
#include <stddef.h>
#include <stdint.h>

/* model.emf.uri = "lowtrace-format:FORMAT" */
#define LT_MARKER_URI "lowtrace-format:"

/* Length modifiers, as printf reads them. */
enum lt_marker_len {
	LT_LEN_NONE = 0,
	LT_LEN_HH,
	LT_LEN_H,
	LT_LEN_L,
	LT_LEN_LL,
	LT_LEN_J,
	LT_LEN_Z,
	LT_LEN_T,
};

/* One piece of a format: text, or one conversion. */
struct lt_marker_piece {
	size_t start, len; /* in the format; "%%" is the text "%" */
	char conv; /* 0 for text; else d i u o x X c s p f F e E g G */
	uint8_t length; /* enum lt_marker_len */
};

/*
 * The piece of fmt at *pos, and *pos moved past it: 1, or 0 at the end,
 * or -1 at a conversion that is not supported (p->start says where).
 */
int lt_marker_next(const char *fmt, size_t *pos, struct lt_marker_piece *p);

/*
 * 0 if fmt's conversions are supported and match the n fields one by one
 * (integers for d i u o x X c p, floats for f e g, strings for s); else
 * -EINVAL with why in err.
 */
int lt_marker_check(const char *fmt, const struct lt_field_desc *f, uint32_t n,
		    char *err, size_t errlen);

#endif
