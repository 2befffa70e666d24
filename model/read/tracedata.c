/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing-data payload of a perf.data (perf's trace-event-info layout):
 * event formats into a libtraceevent handle, so fields are found by name
 * from what the *recording* kernel said; kallsyms and printk formats kept.
 * rsp record's kallsyms is one zstd frame (collector/tracing-data.c),
 * inflated here; perf's is text or empty.
 */
#include "read/tracedata.h"

#include "rsp-errf.h"
#include "rsp-perf-format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* kallsyms is ~10 MiB; model/symbols/kallsyms.c takes up to 1 GiB */
#define KALLSYMS_MAX (256u << 20)

struct cursor {
	const unsigned char *p, *end;
};

static int need(struct cursor *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n ? 0 : -EINVAL;
}

static int get_u32(struct cursor *c, uint32_t *v)
{
	if (need(c, 4))
		return -EINVAL;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int get_u64(struct cursor *c, uint64_t *v)
{
	if (need(c, 8))
		return -EINVAL;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

/* A NUL-terminated string inside the payload. */
static const char *get_str(struct cursor *c)
{
	const unsigned char *nul = memchr(c->p, '\0', c->end - c->p);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

static bool ident_char(char c, bool type)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '[' || c == ']' || (type && (c == ' ' || c == '*'));
}

/* "field:TYPE NAME;" then offset, size and signed: every character checked. */
static bool valid_field_line(const char *l, size_t n)
{
	static const char *const keys[] = { "offset:", "size:", "signed:" };
	const char *p = l, *end = l + n, *semi;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 6 || memcmp(p, "field:", 6))
		return false;
	p += 6;
	semi = memchr(p, ';', end - p);
	if (!semi || semi - p < 3 || semi - p > 200)
		return false;
	for (const char *q = p; q < semi; q++)
		if (!ident_char(*q, true))
			return false;
	p = semi + 1;
	for (int k = 0; k < 3; k++) {
		size_t kl = strlen(keys[k]);
		int digits = 0;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) < kl || memcmp(p, keys[k], kl)) {
			/* "signed:" is missing from very old kernels */
			return k == 2;
		}
		p += kl;
		while (p < end && *p >= '0' && *p <= '9' && digits < 9) {
			p++;
			digits++;
		}
		if (!digits || p >= end || *p != ';')
			return false;
		p++;
	}
	return true;
}

/*
 * libtraceevent parses this text, and crashes on some malformed formats a
 * crafted file can hold.  The decoder needs only the field lines, so the
 * format handed to it is rebuilt from checked parts: the name, the id, the
 * field lines that pass valid_field_line(), and a trivial print format.
 */
static char *sanitize_format(const unsigned char *p, uint64_t len)
{
	const char *t = (const char *)p, *end = t + len;
	char *out = malloc(len + 64), *o = out;
	bool have_name = false, have_id = false, fields = false, split = false;

	if (!out)
		return NULL;
	while (t < end) {
		const char *nl = memchr(t, '\n', end - t);
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);

		if (n > 5 && !memcmp(t, "name:", 5) && !have_name) {
			const char *q = t + 5;

			while (q < t + n && *q == ' ')
				q++;
			if (q < t + n && (size_t)(t + n - q) < 128) {
				bool ok = true;

				for (const char *c = q; c < t + n; c++)
					ok &= ident_char(*c, false) && *c != '[' && *c != ']';
				if (ok) {
					o += sprintf(o, "name: %.*s\n", (int)(t + n - q), q);
					have_name = true;
				}
			}
		} else if (n > 3 && !memcmp(t, "ID:", 3) && have_name && !have_id) {
			long id = strtol(t + 3, NULL, 10);

			if (id > 0 && id < 65536) {
				o += sprintf(o, "ID: %ld\nformat:\n", id);
				have_id = true;
			}
		} else if (have_id && valid_field_line(t, n)) {
			memcpy(o, t, n);
			o += n;
			*o++ = '\n';
			fields = true;
		} else if (have_id && fields && !split && n == strspn(t, " \t")) {
			/* the blank line that ends the common fields: libtraceevent
			 * tells the event's own fields from the common ones by it */
			*o++ = '\n';
			split = true;
		}
		t += n + (nl ? 1 : 0);
	}
	if (!have_id) {
		free(out);
		return NULL;
	}
	o += sprintf(o, "\nprint fmt: \"\"\n");
	return out;
}

static int parse_one(struct tep_handle *tep, const unsigned char *p, uint64_t len,
		     const char *sys, unsigned *bad)
{
	char *text = sanitize_format(p, len);
	enum tep_errno e;

	if (!text) {
		(*bad)++;
		return 0;
	}
	e = tep_parse_event(tep, text, strlen(text), sys);
	free(text);
	if (e != TEP_ERRNO__SUCCESS)
		(*bad)++;
	return 0;
}

static int parse_formats(struct tracedata *td, struct cursor *c, const char *sys, char *err,
			 size_t errlen)
{
	uint32_t count;

	if (get_u32(c, &count))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: event count of %s cut short",
		                sys);
	if (count > 100000)
		return rsp_errf(err, errlen, -EINVAL, "tracing data: %u events in %s", count, sys);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t len;
		int ret;

		if (get_u64(c, &len) || need(c, len))
			return rsp_errf(err, errlen, -EINVAL,
			                "tracing data: a format of %s is cut short", sys);
		ret = parse_one(td->tep, c->p, len, sys, &td->bad_formats);
		if (ret)
			return ret;
		td->n_formats++;
		c->p += len;
	}
	return 0;
}

/* A zstd frame of kallsyms text: inflated, or marked damaged (no symbols from it). */
static void inflate_kallsyms(struct tracedata *td, const void *z, size_t zlen)
{
	unsigned long long n = ZSTD_getFrameContentSize(z, zlen);
	char *text;
	size_t got;

	td->kallsyms_bad = true;
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || !n ||
	    n > KALLSYMS_MAX || ZSTD_findFrameCompressedSize(z, zlen) != zlen)
		return;
	text = malloc(n);
	if (!text)
		return;
	got = ZSTD_decompress(text, n, z, zlen);
	if (ZSTD_isError(got) || got != n) {
		free(text);
		return;
	}
	td->kallsyms_bad = true;
	td->kallsyms_own = text;
	td->kallsyms = text;
	td->kallsyms_len = n;
}

int rsp_tracedata_parse(struct tracedata *td, const void *data, size_t len, char *err,
			size_t errlen)
{
	struct cursor c = { data, (const unsigned char *)data + len };
	const char *version, *sys;
	uint64_t size;
	uint32_t u32, nsys;
	uint8_t endian, lsize;

	memset(td, 0, sizeof(*td));
	if (need(&c, RSP_PF_TRACING_MAGIC_LEN) ||
	    memcmp(c.p, RSP_PF_TRACING_MAGIC, RSP_PF_TRACING_MAGIC_LEN))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: bad magic");
	c.p += RSP_PF_TRACING_MAGIC_LEN;
	version = get_str(&c);
	if (!version || need(&c, 2 + 4))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: header cut short");
	td->version = strtod(version, NULL);
	endian = c.p[0];
	lsize = c.p[1];
	c.p += 2;
	get_u32(&c, &td->page_size);
	if (endian != 0)
		return rsp_errf(err, errlen, -EINVAL,
		                "tracing data from a big-endian machine: not supported");
	if (lsize != 4 && lsize != 8)
		return rsp_errf(err, errlen, -EINVAL, "tracing data: long size %u", lsize);
	td->long_size = lsize;
	td->tep = tep_alloc();
	if (!td->tep)
		return -ENOMEM;
	tep_set_long_size(td->tep, lsize);
	tep_set_page_size(td->tep, (int)td->page_size);
	tep_set_file_bigendian(td->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(td->tep, TEP_LITTLE_ENDIAN);

	/* header_page, header_event */
	if (need(&c, 12) || memcmp(c.p, "header_page", 12))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: no header_page");
	c.p += 12;
	if (get_u64(&c, &size) || need(&c, size))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: header_page cut short");
	/* not parsed: only ftrace ring-buffer pages need it, and the model reads none */
	c.p += size;
	if (need(&c, 13) || memcmp(c.p, "header_event", 13))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: no header_event");
	c.p += 13;
	if (get_u64(&c, &size) || need(&c, size))
		return rsp_errf(err, errlen, -EINVAL, "tracing data: header_event cut short");
	c.p += size;

	if (parse_formats(td, &c, "ftrace", err, errlen))
		return -EINVAL;
	if (get_u32(&c, &nsys) || nsys > 10000)
		return rsp_errf(err, errlen, -EINVAL, "tracing data: system count cut short");
	for (uint32_t i = 0; i < nsys; i++) {
		sys = get_str(&c);
		if (!sys)
			return rsp_errf(err, errlen, -EINVAL,
			                "tracing data: system name cut short");
		for (const char *q = sys; *q; q++)
			if (!ident_char(*q, false) || *q == '[' || *q == ']')
				return rsp_errf(err, errlen, -EINVAL,
				                "tracing data: bad system name");
		if (parse_formats(td, &c, sys, err, errlen))
			return -EINVAL;
	}

	/* kallsyms (perf >= 5.x stores none), printk formats, saved cmdlines */
	if (get_u32(&c, &u32) || need(&c, u32))
		return 0; /* older or cut: the formats are what matters */
	if (u32 >= 4 && !memcmp(c.p, "\x28\xb5\x2f\xfd", 4))
		inflate_kallsyms(td, c.p, u32);
	else {
		td->kallsyms = u32 ? (const char *)c.p : NULL;
		td->kallsyms_len = u32;
	}
	c.p += u32;
	/* printk formats and saved cmdlines follow: only text printing needs them */
	return 0;
}

void rsp_tracedata_clear(struct tracedata *td)
{
	if (td && td->tep)
		tep_free(td->tep);
	if (td)
		free(td->kallsyms_own);
	if (td)
		memset(td, 0, sizeof(*td));
}

/* ---- field access ----------------------------------------------------------------- */

int rsp_field_resolve(struct tep_event *ev, const char *name, struct rsp_field *f)
{
	struct tep_format_field *tf = ev ? tep_find_any_field(ev, name) : NULL;

	memset(f, 0, sizeof(*f));
	if (!tf || tf->offset < 0 || tf->size < 0)
		return -ENOENT;
	f->offset = (unsigned)tf->offset;
	f->size = (unsigned)tf->size;
	f->is_signed = !!(tf->flags & TEP_FIELD_IS_SIGNED);
	f->is_dynamic = !!(tf->flags & TEP_FIELD_IS_DYNAMIC);
	f->is_relative = !!(tf->flags & TEP_FIELD_IS_RELATIVE);
	f->found = true;
	/* an integer of 1, 2, 4 or 8 bytes in place: read by rsp_field_u64() */
	f->end = f->offset + f->size;
	if (f->end < f->offset)
		f->end = UINT32_MAX;
	if (!f->is_dynamic)
		switch (f->size) {
		case 1:
			f->load = f->is_signed ? RSP_LOAD_S8 : RSP_LOAD_U8;
			break;
		case 2:
			f->load = f->is_signed ? RSP_LOAD_S16 : RSP_LOAD_U16;
			break;
		case 4:
			f->load = f->is_signed ? RSP_LOAD_S32 : RSP_LOAD_U32;
			break;
		case 8:
			f->load = RSP_LOAD_64;
			break;
		default:
			break;
		}
	return 0;
}

size_t rsp_field_bytes(const struct rsp_field *f, const void *raw, size_t len, const void **out)
{
	const unsigned char *base = raw;
	uint32_t loc, off, n;

	*out = NULL;
	if (!f->found || f->offset + f->size > len)
		return 0;
	if (!f->is_dynamic) {
		*out = base + f->offset;
		return f->size;
	}
	if (f->size != 4)
		return 0;
	memcpy(&loc, base + f->offset, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (f->is_relative)
		off += f->offset + 4;
	if (off > len || n > len - off)
		return 0;
	*out = base + off;
	return n;
}

size_t rsp_field_str(const struct rsp_field *f, const void *raw, size_t len, char *buf,
		     size_t buflen)
{
	const void *p;
	size_t n = rsp_field_bytes(f, raw, len, &p);

	if (!buflen)
		return 0;
	if (n >= buflen)
		n = buflen - 1;
	if (p)
		n = strnlen(p, n);
	else
		n = 0;
	memcpy(buf, p ? p : "", n);
	buf[n] = '\0';
	return n;
}
