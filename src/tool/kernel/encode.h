/* SPDX-License-Identifier: MIT */
/*
 * encode.h - re-encoding a raw tracepoint record, laid out as its tracefs
 * format says, as the payload of a CTF event of the kernel stream: the
 * part of the kernel channel (kernel.h) that speaks CTF.  Exposed for
 * tests.
 */
#ifndef LT_KERNEL_ENCODE_H
#define LT_KERNEL_ENCODE_H

#include <lowtrace/types.h>
#include <stdint.h>

#include "kernel/tracefs.h"

/* The field list of an event's re-encoded payload (common_tid, common_tgid,
 * then the format's fields), NULL-terminated; malloc'd; names point into
 * f, which must outlive it. */
struct lt_field_desc *lt_kencode_fields(const struct lt_kformat *f,
					uint32_t *nfields);

/* Bytes of the payload lt_kencode() writes for this raw record. */
uint32_t lt_kencode_size(const struct lt_kformat *f, const unsigned char *raw,
			 uint32_t raw_size);

/* Writes the payload: tid, tgid, then each field as lt_kencode_fields()
 * describes it; fields that lie outside the record are zeros. */
void lt_kencode(const struct lt_kformat *f, uint32_t tid, uint32_t tgid,
		const unsigned char *raw, uint32_t raw_size, char *out);

#endif
