/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RSP_MODEL_TRACEDATA_H
#define RSP_MODEL_TRACEDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <traceevent/event-parse.h>

struct tracedata {
	struct tep_handle *tep;
	double version;
	uint32_t page_size;
	uint8_t long_size;
	const char *kallsyms; /* inside the payload, not NUL-terminated */
	size_t kallsyms_len;
	unsigned n_formats, bad_formats;
};

int rsp_tracedata_parse(struct tracedata *td, const void *data, size_t len, char *err,
			size_t errlen);
void rsp_tracedata_clear(struct tracedata *td);

/* A tracepoint field, found by name in the recording kernel's format. */
struct rsp_field {
	unsigned offset, size;
	bool found, is_signed, is_dynamic, is_relative;
};

int rsp_field_resolve(struct tep_event *ev, const char *name, struct rsp_field *f);
/* Integer fields of 1, 2, 4 or 8 bytes (sign-extended if signed).  false if absent. */
bool rsp_field_u64(const struct rsp_field *f, const void *raw, size_t len, uint64_t *v);
/* Bytes of a fixed or __data_loc field; 0 if absent or out of bounds. */
size_t rsp_field_bytes(const struct rsp_field *f, const void *raw, size_t len, const void **out);
/* A char array or __data_loc string, NUL-terminated into @buf. */
size_t rsp_field_str(const struct rsp_field *f, const void *raw, size_t len, char *buf,
		     size_t buflen);

#endif /* RSP_MODEL_TRACEDATA_H */
