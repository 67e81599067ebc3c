/* SPDX-License-Identifier: MIT */
/*
 * marker.c - the grammar of lt_tracef's formats, and the check of a
 * marker's fields against its format (marker.h).  The header's C++
 * compile-time check (lt__cxx::tf_count) follows the same grammar.
 */
#include "format/marker.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int lt_marker_next(const char *fmt, size_t *pos, struct lt_marker_piece *p)
{
	size_t i = *pos;
	memset(p, 0, sizeof(*p));
	p->start = i;
	if (!fmt[i])
		return 0;
	if (fmt[i] != '%' || fmt[i + 1] == '%') {
		if (fmt[i] == '%') { /* "%%": the text "%" */
			p->start = i + 1;
			p->len = 1;
			*pos = i + 2;
			return 1;
		}
		while (fmt[i] && fmt[i] != '%')
			i++;
		p->len = i - p->start;
		*pos = i;
		return 1;
	}
	i++;
	while (fmt[i] && strchr("-+ #0'", fmt[i]))
		i++;
	while (fmt[i] >= '0' && fmt[i] <= '9')
		i++;
	if (fmt[i] == '.') {
		i++;
		while (fmt[i] >= '0' && fmt[i] <= '9')
			i++;
	}
	if ((fmt[i] == 'h' && fmt[i + 1] == 'h') ||
	    (fmt[i] == 'l' && fmt[i + 1] == 'l')) {
		p->length = fmt[i] == 'h' ? LT_LEN_HH : LT_LEN_LL;
		i += 2;
	} else if (fmt[i] && strchr("hljzt", fmt[i])) {
		static const char mods[] = "hljzt";
		static const uint8_t lens[] = { LT_LEN_H, LT_LEN_L, LT_LEN_J,
						LT_LEN_Z, LT_LEN_T };
		p->length = lens[strchr(mods, fmt[i]) - mods];
		i++;
	}
	char c = fmt[i];
	int ok = c && strchr("diuoxXpfFeEgGsc", c);
	/* no wide characters or strings, and no length on %s %c %p but l
	 * (refused above for s and c) */
	if ((c == 's' || c == 'c') && p->length != LT_LEN_NONE)
		ok = 0;
	if (c == 'p' && p->length != LT_LEN_NONE)
		ok = 0;
	if (!ok)
		return -1;
	p->conv = c;
	p->len = i + 1 - p->start;
	*pos = i + 1;
	return 1;
}

int lt_marker_check(const char *fmt, const struct lt_field_desc *f, uint32_t n,
		    char *err, size_t errlen)
{
	struct lt_marker_piece p;
	size_t pos = 0;
	uint32_t k = 0;
	int r;
	while ((r = lt_marker_next(fmt, &pos, &p)) > 0) {
		if (!p.conv)
			continue;
		if (k == n) {
			snprintf(err, errlen,
				 "\"%s\": more conversions than the %u "
				 "arguments",
				 fmt, n);
			return -EINVAL;
		}
		uint8_t t = f[k].type;
		int fits = strchr("fFeEgG", p.conv) ? t == LT_FT_FLOAT :
			   p.conv == 's'	    ? t == LT_FT_STRING :
						      t == LT_FT_INT;
		if (!fits) {
			snprintf(err, errlen,
				 "\"%s\": argument %u does not fit %%%c (%s)",
				 fmt, k, p.conv,
				 t == LT_FT_STRING ? "a string: %p needs a "
						     "void *" :
				 t == LT_FT_FLOAT  ? "a float" :
						     "an integer");
			return -EINVAL;
		}
		k++;
	}
	if (r < 0) {
		snprintf(err, errlen,
			 "\"%s\": conversion at offset %zu not supported", fmt,
			 p.start);
		return -EINVAL;
	}
	if (k != n) {
		snprintf(err, errlen, "\"%s\": %u conversions for %u arguments",
			 fmt, k, n);
		return -EINVAL;
	}
	return 0;
}
