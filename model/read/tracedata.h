/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_MODEL_TRACEDATA_H
#define RSP_MODEL_TRACEDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <traceevent/event-parse.h>

struct tracedata {
	struct tep_handle *tep;
	double version;
	uint32_t page_size;
	uint8_t long_size;
	const char *kallsyms; /* inside the payload or kallsyms_own, not NUL-terminated */
	size_t kallsyms_len;
	char *kallsyms_own; /* rsp record's, inflated */
	bool kallsyms_bad; /* a zstd frame that did not inflate: none kept */
	unsigned n_formats, bad_formats;
};

int rsp_tracedata_parse(struct tracedata *td, const void *data, size_t len, char *err,
			size_t errlen);
void rsp_tracedata_clear(struct tracedata *td);

/* A tracepoint field, found by name in the recording kernel's format. */
struct rsp_field {
	unsigned offset, size;
	bool found, is_signed, is_dynamic, is_relative;
	/* rsp_field_u64()'s: how it reads (enum rsp_field_load), and where the field ends */
	uint8_t load;
	uint32_t end;
};

/* An integer field's read: its size and sign (RSP_LOAD_NONE: not one to read as such). */
enum rsp_field_load {
	RSP_LOAD_NONE,
	RSP_LOAD_U8,
	RSP_LOAD_S8,
	RSP_LOAD_U16,
	RSP_LOAD_S16,
	RSP_LOAD_U32,
	RSP_LOAD_S32,
	RSP_LOAD_64,
};

int rsp_field_resolve(struct tep_event *ev, const char *name, struct rsp_field *f);
/*
 * Integer fields of 1, 2, 4 or 8 bytes (sign-extended if signed).  false if
 * absent.  Inline: the walk reads six of each socket event's, ~15 M a second
 * on a saturated machine's file (a call each was a tenth of its decoding).
 */
static inline bool rsp_field_u64(const struct rsp_field *f, const void *raw, size_t len,
				 uint64_t *v)
{
	const unsigned char *p = (const unsigned char *)raw + f->offset;

	if (f->end > len)
		return false;
	switch ((enum rsp_field_load)f->load) {
	case RSP_LOAD_U8:
		*v = p[0];
		return true;
	case RSP_LOAD_S8:
		*v = (uint64_t)(int64_t)(int8_t)p[0];
		return true;
	case RSP_LOAD_U16: {
		uint16_t x;

		memcpy(&x, p, 2);
		*v = x;
		return true;
	}
	case RSP_LOAD_S16: {
		int16_t x;

		memcpy(&x, p, 2);
		*v = (uint64_t)(int64_t)x;
		return true;
	}
	case RSP_LOAD_U32: {
		uint32_t x;

		memcpy(&x, p, 4);
		*v = x;
		return true;
	}
	case RSP_LOAD_S32: {
		int32_t x;

		memcpy(&x, p, 4);
		*v = (uint64_t)(int64_t)x;
		return true;
	}
	case RSP_LOAD_64:
		memcpy(v, p, 8);
		return true;
	case RSP_LOAD_NONE:
	default:
		return false;
	}
}

/* Bytes of a fixed or __data_loc field; 0 if absent or out of bounds. */
size_t rsp_field_bytes(const struct rsp_field *f, const void *raw, size_t len, const void **out);
/* A char array or __data_loc string, NUL-terminated into @buf. */
size_t rsp_field_str(const struct rsp_field *f, const void *raw, size_t len, char *buf,
		     size_t buflen);

#endif /* RSP_MODEL_TRACEDATA_H */
