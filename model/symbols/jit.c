/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of JIT-compiled code: the two files perf reads for code a runtime
 * generates into anonymous executable memory.
 *
 *  - perf-PID.map (V8's --perf-basic-prof, Java's perf-map-agent and
 *    -XX:+DumpPerfMapAtExit, Python 3.12's -X perf): text, a line per
 *    function, "START SIZE NAME" with START and SIZE in hex (0x optional).
 *    It has no times: where two lines cover an address, the later one (the
 *    runtime wrote it after it reused the memory) names it, for the whole
 *    trace.
 *  - jit-PID.dump (perf's jitdump, tools/perf/Documentation/
 *    jitdump-specification.txt; V8's --perf-prof, Java's libperf-jvmti): a
 *    40-byte header, then records of a 16-byte header (id, total size,
 *    timestamp).  JIT_CODE_LOAD names [code_addr, code_addr + code_size)
 *    from its timestamp on, until a later load over the same addresses or a
 *    JIT_CODE_MOVE of the same code index (which names the new place from
 *    then on).  Timestamps are CLOCK_MONOTONIC nanoseconds, the trace's clock;
 *    a file that says they are the CPU's counter (flag ARCH_TIMESTAMP) has
 *    its names taken as valid from the start.
 *
 * Per process, the functions are kept in one array sorted by start, with the
 * running maximum of their ends, so that a lookup finds every function that
 * covers an address by a binary search and a walk back.  Of those valid at
 * the lookup's time, the one loaded last (the latest timestamp, then the
 * later in the files) names it.
 *
 * Both files are written by the recorded program and copied by rsp record:
 * every length is checked against what remains; a damaged file gives one
 * warning (rsp_sym_warning()) and what could be read before the damage.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols-private.h"

#define JITDUMP_MAGIC 0x4A695444u /* "JiTD" as the writer's u32 */
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
#define JITDUMP_HEADER 40
#define JITDUMP_RECORD 16
#define JITDUMP_FLAG_ARCH_TIMESTAMP 1ull
#define JIT_FILE_MAX (1ull << 30) /* a larger map or dump is not read */

enum jit_record { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_CLOSE = 3 };

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* One warning line, kept for rsp_sym_warning() (nothing kept without memory). */
static void jit_warn(struct rsp_sym *sym, const char *fmt, ...)
{
	char buf[512], **v, *s;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v = realloc(sym->warnings, (sym->n_warnings + 1) * sizeof(*v));
	if (!v)
		return;
	sym->warnings = v;
	s = strdup(buf);
	if (s)
		sym->warnings[sym->n_warnings++] = s;
}

static struct _rsp_jit *jit_get(struct rsp_sym *sym, int pid, bool create)
{
	struct _rsp_jit *v;

	for (size_t i = 0; i < sym->n_jits; i++)
		if (sym->jits[i].pid == pid)
			return &sym->jits[i];
	if (!create)
		return NULL;
	v = realloc(sym->jits, (sym->n_jits + 1) * sizeof(*v));
	if (!v)
		return NULL;
	sym->jits = v;
	v = &sym->jits[sym->n_jits++];
	*v = (struct _rsp_jit){ .pid = pid };
	return v;
}

static int jit_add(struct rsp_sym *sym, struct _rsp_jit *j, uint64_t start, uint64_t size,
		   uint64_t from, uint64_t code_index, const char *name, const char *source)
{
	struct _rsp_jit_func *f;

	if (!size || start + size < start)
		return -EINVAL;
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 64;

		f = realloc(j->v, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		j->v = f;
		j->cap = cap;
	}
	free(j->max_end); /* sorted again at the next lookup */
	j->max_end = NULL;
	free(j->changes);
	j->changes = NULL;
	j->n_changes = 0;
	j->v[j->n++] = (struct _rsp_jit_func){ .start = start, .end = start + size, .from = from,
					       .until = _RSP_TIME_END, .code_index = code_index,
					       .seq = sym->jit_seq++, .name = name,
					       .source = source };
	return 0;
}

/* @path's last component, interned: a frame's dso */
static const char *source_name(struct rsp_sym *sym, const char *path)
{
	const char *base = strrchr(path, '/');

	return _rsp_sym_intern(sym, base && base[1] ? base + 1 : path, false);
}

/* --- perf-PID.map ------------------------------------------------------------------ */

/* "START SIZE NAME": false if the line is not one */
static bool map_line(const char *s, size_t len, uint64_t *start, uint64_t *size, size_t *name_at)
{
	size_t i = 0;

	for (int field = 0; field < 2; field++) {
		uint64_t v = 0;
		size_t digits = 0;

		if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
			i += 2;
		for (; i < len; i++, digits++) {
			int c = s[i], d = c >= '0' && c <= '9'   ? c - '0'
					  : c >= 'a' && c <= 'f' ? c - 'a' + 10
					  : c >= 'A' && c <= 'F' ? c - 'A' + 10
								 : -1;

			if (d < 0)
				break;
			if (v >> 60)
				return false; /* more than 64 bits */
			v = v << 4 | (uint64_t)d;
		}
		if (!digits || i >= len || s[i] != ' ')
			return false;
		while (i < len && s[i] == ' ')
			i++;
		if (field == 0)
			*start = v;
		else
			*size = v;
	}
	*name_at = i;
	return i < len;
}

int rsp_sym_add_perf_map(struct rsp_sym *sym, int pid, const char *text, size_t len,
			 const char *path)
{
	const char *source;
	struct _rsp_jit *j;
	size_t lines = 0, bad = 0, first_bad = 0;
	int added = 0;

	if (!sym || !path || (len && !text))
		return -EINVAL;
	source = source_name(sym, path);
	j = jit_get(sym, pid, true);
	if (!source || !j)
		return -ENOMEM;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at), *name;
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at, name_at;
		uint64_t start = 0, size = 0;
		char buf[1024];

		lines++;
		if (n && text[at + n - 1] == '\r')
			n--;
		if (n && map_line(text + at, n, &start, &size, &name_at) && size &&
		    start + size > start && !memchr(text + at + name_at, '\0', n - name_at)) {
			snprintf(buf, sizeof(buf), "%.*s", (int)(n - name_at), text + at + name_at);
			name = _rsp_sym_intern(sym, buf, false);
			if (!name || jit_add(sym, j, start, size, 0, 0, name, source))
				return -ENOMEM;
			added++;
		} else if (n) {
			if (!bad++)
				first_bad = lines;
		}
		at = nl ? (size_t)(nl - text) + 1 : len;
	}
	if (bad)
		jit_warn(sym,
			 "%s: %zu of %zu lines are not \"START SIZE NAME\" (hex), the first "
			 "line %zu: the names of the other lines are used",
			 path, bad, lines, first_bad);
	else if (!added)
		jit_warn(sym, "%s: no functions in it: the JIT frames of process %d stay "
			      "addresses", path, pid);
	return added;
}

/* --- jit-PID.dump ------------------------------------------------------------------- */

/* the function of code index @index at @addr valid at @time, NULL if none */
static struct _rsp_jit_func *jit_find_index(struct _rsp_jit *j, uint64_t index, uint64_t addr,
					    uint64_t time)
{
	struct _rsp_jit_func *best = NULL;

	for (size_t i = 0; i < j->n; i++) {
		struct _rsp_jit_func *f = &j->v[i];

		if (f->code_index == index && f->start == addr && f->from <= time &&
		    time < f->until && (!best || f->seq > best->seq))
			best = f;
	}
	return best;
}

int rsp_sym_add_jitdump(struct rsp_sym *sym, int pid, const void *data, size_t len,
			const char *path)
{
	const unsigned char *p = data;
	const char *source, *damage = NULL;
	struct _rsp_jit *j;
	uint32_t hsize, version;
	uint64_t flags;
	size_t at;
	bool arch_time;
	int added = 0;

	if (!sym || !path || (len && !data))
		return -EINVAL;
	if (len < JITDUMP_HEADER || (u32_at(p) != JITDUMP_MAGIC)) {
		jit_warn(sym, "%s: not a jitdump file (%s): the JIT frames of process %d stay "
			      "addresses",
			 path,
			 len >= 4 && u32_at(p) == JITDUMP_MAGIC_SWAPPED
				 ? "written on a machine of the other byte order"
				 : len < JITDUMP_HEADER ? "shorter than its header" : "no JiTD magic",
			 pid);
		return 0;
	}
	version = u32_at(p + 4);
	hsize = u32_at(p + 8);
	flags = u64_at(p + 32);
	if (version != 1 || hsize < JITDUMP_HEADER || hsize > len) {
		jit_warn(sym, "%s: jitdump version %" PRIu32 " with a header of %" PRIu32
			      " bytes (version 1, 40 bytes or more, read): not read",
			 path, version, hsize);
		return 0;
	}
	arch_time = flags & JITDUMP_FLAG_ARCH_TIMESTAMP;
	if (arch_time)
		jit_warn(sym, "%s: its times are the CPU's counter, not the trace's clock: each "
			      "name taken as valid from the start of the trace",
			 path);
	source = source_name(sym, path);
	j = jit_get(sym, pid, true);
	if (!source || !j)
		return -ENOMEM;
	for (at = hsize; at < len;) {
		uint32_t id, size;
		uint64_t ts;
		const unsigned char *r = p + at;

		if (len - at < JITDUMP_RECORD) {
			damage = "a record header cut short";
			break;
		}
		id = u32_at(r);
		size = u32_at(r + 4);
		ts = arch_time ? 0 : u64_at(r + 8);
		if (size < JITDUMP_RECORD || size > len - at) {
			damage = size < JITDUMP_RECORD ? "a record shorter than its header"
						       : "a record cut short";
			break;
		}
		if (id == JIT_CODE_CLOSE)
			break;
		if (id == JIT_CODE_LOAD) {
			/* pid, tid, vma, code_addr, code_size, code_index, name\0, code */
			const unsigned char *name = r + JITDUMP_RECORD + 40, *nul;
			uint64_t addr, csize, index;
			const char *iname;

			if (size < JITDUMP_RECORD + 40 + 1 ||
			    !(nul = memchr(name, '\0', size - (JITDUMP_RECORD + 40)))) {
				damage = "a code load without its name";
				break;
			}
			addr = u64_at(r + JITDUMP_RECORD + 16);
			csize = u64_at(r + JITDUMP_RECORD + 24);
			index = u64_at(r + JITDUMP_RECORD + 32);
			if ((uint64_t)(size - (JITDUMP_RECORD + 40)) - (uint64_t)(nul - name + 1) <
				    csize ||
			    !csize || addr + csize < addr) {
				damage = "a code load whose code does not fit it";
				break;
			}
			iname = _rsp_sym_intern(sym, (const char *)name, false);
			if (!iname || jit_add(sym, j, addr, csize, ts, index, iname, source))
				return -ENOMEM;
			added++;
		} else if (id == JIT_CODE_MOVE) {
			/* pid, tid, vma, old_code_addr, new_code_addr, code_size, code_index */
			uint64_t old_addr, new_addr, csize, index;
			struct _rsp_jit_func *f;

			if (size < JITDUMP_RECORD + 48) {
				damage = "a code move cut short";
				break;
			}
			old_addr = u64_at(r + JITDUMP_RECORD + 16);
			new_addr = u64_at(r + JITDUMP_RECORD + 24);
			csize = u64_at(r + JITDUMP_RECORD + 32);
			index = u64_at(r + JITDUMP_RECORD + 40);
			f = jit_find_index(j, index, old_addr, ts);
			if (f && csize && new_addr + csize > new_addr) {
				const char *fname = f->name;

				f->until = ts; /* f may move in memory below */
				if (jit_add(sym, j, new_addr, csize, ts, index, fname, source))
					return -ENOMEM;
				added++;
			}
		}
		/* JIT_CODE_DEBUG_INFO, JIT_CODE_UNWINDING_INFO, later types: not needed */
		at += size;
	}
	if (damage)
		jit_warn(sym, "%s: %s at byte %zu: the %d functions before it are used", path,
			 damage, at, added);
	return added;
}

/* --- the files beside a trace -------------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || (uint64_t)n > JIT_FILE_MAX ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	} else {
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* "perf-PID.map" or "jit-PID.dump": 1 and 2 (the pid in *pid), else 0 */
static int jit_file_kind(const char *name, int *pid)
{
	char tail[8];
	int n = 0;

	if (sscanf(name, "perf-%d.ma%1[p]%n", pid, tail, &n) == 2 && n && !name[n] && *pid > 0)
		return 1;
	n = 0;
	if (sscanf(name, "jit-%d.dum%1[p]%n", pid, tail, &n) == 2 && n && !name[n] && *pid > 0)
		return 2;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool jit_sort(struct _rsp_jit *j);

int _rsp_jit_load_dir(struct rsp_sym *sym, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int err = 0;

	if (!d) {
		jit_warn(sym, "%s: cannot be read (%s): JIT frames stay addresses", dir,
			 strerror(errno));
		return 0;
	}
	while ((e = readdir(d))) {
		char **v;
		int pid;

		if (!jit_file_kind(e->d_name, &pid))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(e->d_name))) {
			names = v ? v : names;
			err = -ENOMEM;
			break;
		}
		names = v;
		n++;
	}
	closedir(d);
	/* maps before dumps of a process, whatever order the directory lists them */
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n && !err; i++) {
		char path[4096];
		size_t len = 0;
		char *buf;
		int pid, kind = jit_file_kind(names[i], &pid);

		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		buf = read_file(path, &len);
		if (!buf) {
			jit_warn(sym, "%s: cannot be read (%s): the JIT frames of process %d stay "
				      "addresses",
				 path, errno ? strerror(errno) : "too large", pid);
			continue;
		}
		err = kind == 1 ? rsp_sym_add_perf_map(sym, pid, buf, len, path)
				: rsp_sym_add_jitdump(sym, pid, buf, len, path);
		err = err < 0 ? err : 0;
		free(buf);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* sorted now: lookups and epochs then only read (the viewer's threads) */
	for (size_t i = 0; i < sym->n_jits && !err; i++)
		if (!sym->jits[i].max_end && !jit_sort(&sym->jits[i]))
			err = -ENOMEM;
	return err;
}

/* --- lookups -------------------------------------------------------------------------- */

static int cmp_func(const void *a, const void *b)
{
	const struct _rsp_jit_func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the times names change (struct _rsp_jit): a later load over another's
 * addresses, the end of a moved function's old place */
static bool jit_changes(struct _rsp_jit *j)
{
	size_t n = 0, cap = 16;
	uint64_t *v = malloc(cap * sizeof(*v));

	for (size_t i = 0; v && i < j->n; i++) {
		const struct _rsp_jit_func *f = &j->v[i];

		for (size_t k = i + 1; v && k-- > 0;) {
			uint64_t t;

			if (k == i) {
				t = f->until; /* a move ended it */
				if (t == _RSP_TIME_END)
					continue;
			} else if (j->max_end[k] <= f->start) {
				break;
			} else if (j->v[k].end > f->start) {
				t = f->from > j->v[k].from ? f->from : j->v[k].from;
				if (!t)
					continue; /* two map lines: the later names it all along */
			} else {
				continue;
			}
			if (n == cap) {
				uint64_t *g = realloc(v, 2 * cap * sizeof(*v));

				if (!g) {
					free(v);
					v = NULL;
					break;
				}
				v = g;
				cap *= 2;
			}
			v[n++] = t;
		}
	}
	if (!v)
		return false;
	qsort(v, n, sizeof(*v), cmp_u64);
	j->n_changes = 0;
	for (size_t i = 0; i < n; i++)
		if (!j->n_changes || v[j->n_changes - 1] != v[i])
			v[j->n_changes++] = v[i];
	j->changes = v;
	return true;
}

static bool jit_sort(struct _rsp_jit *j)
{
	uint64_t m = 0;

	if (j->n) /* v is NULL without functions */
		qsort(j->v, j->n, sizeof(*j->v), cmp_func);
	j->max_end = malloc((j->n ? j->n : 1) * sizeof(*j->max_end));
	if (!j->max_end)
		return false;
	for (size_t i = 0; i < j->n; i++) {
		if (j->v[i].end > m)
			m = j->v[i].end;
		j->max_end[i] = m;
	}
	if (!jit_changes(j)) {
		free(j->max_end);
		j->max_end = NULL;
		return false;
	}
	return true;
}

uint32_t _rsp_jit_epoch(struct rsp_sym *sym, int pid, uint64_t time)
{
	struct _rsp_jit *j = sym->n_jits ? jit_get(sym, pid, false) : NULL;
	size_t lo = 0, hi;

	if (!j || !j->n || (!j->max_end && !jit_sort(j)))
		return 0;
	hi = j->n_changes;
	while (lo < hi) { /* the changes at or before @time */
		size_t mid = lo + (hi - lo) / 2;

		if (j->changes[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > UINT32_MAX ? UINT32_MAX : (uint32_t)lo;
}

bool _rsp_jit_lookup(struct rsp_sym *sym, int pid, uint64_t time, uint64_t addr,
		     struct rsp_sym_frame *out)
{
	struct _rsp_jit *j = jit_get(sym, pid, false);
	const struct _rsp_jit_func *best = NULL;
	size_t lo = 0, hi;

	if (!j || !j->n || (!j->max_end && !jit_sort(j)))
		return false;
	/* the first function starting above addr; those before it may cover it */
	hi = j->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && j->max_end[i] > addr;) {
		const struct _rsp_jit_func *f = &j->v[i];

		if (addr < f->end && f->from <= time && time < f->until &&
		    (!best || f->from > best->from || (f->from == best->from && f->seq > best->seq)))
			best = f;
	}
	if (!best)
		return false;
	out->func = best->name;
	out->dso = best->source;
	out->offset = addr - best->start;
	out->rel_addr = addr;
	return true;
}

size_t rsp_sym_n_warnings(const struct rsp_sym *sym)
{
	return sym ? sym->n_warnings : 0;
}

const char *rsp_sym_warning(const struct rsp_sym *sym, size_t i)
{
	return sym && i < sym->n_warnings ? sym->warnings[i] : NULL;
}

void _rsp_jit_free(struct rsp_sym *sym)
{
	for (size_t i = 0; i < sym->n_jits; i++) {
		free(sym->jits[i].v);
		free(sym->jits[i].max_end);
		free(sym->jits[i].changes);
	}
	free(sym->jits);
	for (size_t i = 0; i < sym->n_warnings; i++)
		free(sym->warnings[i]);
	free(sym->warnings);
}
