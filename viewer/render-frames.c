/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interned strings and symbolized stacks, cached per (stack, process, names' epoch). */
#include "render-private.h"

#include <inttypes.h>
#include <string.h>

void _rsp_strtab_init(struct _rsp_strtab *s)
{
	s->chunk = g_string_chunk_new(65536);
	s->set = g_hash_table_new(g_str_hash, g_str_equal);
}

void _rsp_strtab_clear(struct _rsp_strtab *s)
{
	if (s->set)
		g_hash_table_destroy(s->set);
	if (s->chunk)
		g_string_chunk_free(s->chunk);
	s->set = NULL;
	s->chunk = NULL;
}

const char *_rsp_intern(struct _rsp_strtab *s, const char *str)
{
	const char *k;

	if (!str)
		str = "";
	k = g_hash_table_lookup(s->set, str);
	if (k)
		return k;
	k = g_string_chunk_insert(s->chunk, str);
	g_hash_table_add(s->set, (gpointer)k);
	return k;
}

/* keys: (stack << 32 | pid, the names' epoch: rsp_trace_names_epoch(), 0 but
 * where a JIT runtime reused addresses); g_int64_hash would fold the halves
 * together, which collides for stack ids and pids that share bits: mix all bits */
static guint key_hash(gconstpointer v)
{
	const uint64_t *k = v;
	uint64_t x = k[0] ^ k[1] * 0x9e3779b97f4a7c15ull;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (guint)x;
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const uint64_t *x = a, *y = b;

	return x[0] == y[0] && x[1] == y[1];
}

void _rsp_frames_init(struct _rsp_frames *fc, struct rsp_trace *t, struct _rsp_strtab *strs)
{
	fc->t = t;
	fc->strs = strs;
	fc->map = g_hash_table_new(key_hash, key_equal);
	fc->stacks = g_array_new(FALSE, FALSE, sizeof(struct _rsp_fstack));
	fc->frames = g_ptr_array_new();
	/* index 0: the empty stack */
	g_array_set_size(fc->stacks, 0);
}

void _rsp_frames_clear(struct _rsp_frames *fc)
{
	if (fc->map) {
		GHashTableIter it;
		gpointer k;

		g_hash_table_iter_init(&it, fc->map);
		while (g_hash_table_iter_next(&it, &k, NULL))
			g_free(k);
		g_hash_table_destroy(fc->map);
	}
	if (fc->stacks)
		g_array_free(fc->stacks, TRUE);
	if (fc->frames)
		g_ptr_array_free(fc->frames, TRUE);
	memset(fc, 0, sizeof(*fc));
}

static bool artefact(const char *name)
{
	return !strncmp(name, "__traceiter_", 12) || !strncmp(name, "perf_trace_", 11);
}

struct _rsp_fstack _rsp_frames_get(struct _rsp_frames *fc, uint32_t stack, int pid, uint64_t time)
{
	struct _rsp_fstack fs = {(uint32_t)fc->frames->len, 0, 0};
	uint64_t key[2] = { (uint64_t)stack << 32 | (uint32_t)pid, 0 };
	gpointer v;
	size_t n;
	const char *names[512];
	bool kern[512];
	size_t k = 0;

	if (!stack)
		return fs;
	key[1] = rsp_trace_names_epoch(fc->t, pid, time);
	v = g_hash_table_lookup(fc->map, key);
	if (v)
		return g_array_index(fc->stacks, struct _rsp_fstack, GPOINTER_TO_UINT(v) - 1);
	n = rsp_stack_n_frames(fc->t, stack);
	for (size_t i = 0; i < n && k < G_N_ELEMENTS(names); i++) {
		struct rsp_frame_info f;
		char buf[256];
		const char *name;

		rsp_stack_frame(fc->t, stack, i, pid, time, &f);
		name = rsp_frame_name(&f, buf, sizeof(buf));
		if (k == 0 && f.kernel && artefact(name))
			continue;
		names[k] = _rsp_intern(fc->strs, name);
		kern[k] = f.kernel;
		k++;
	}
	/* outermost first */
	for (size_t i = k; i-- > 0;)
		g_ptr_array_add(fc->frames, (gpointer)names[i]);
	fs.n = (uint16_t)k;
	while (fs.n_user < k && !kern[k - 1 - fs.n_user])
		fs.n_user++;
	g_array_append_val(fc->stacks, fs);
	g_hash_table_insert(fc->map, g_memdup2(key, sizeof(key)),
			    GUINT_TO_POINTER(fc->stacks->len));
	return fs;
}

static bool scheduler(const char *f)
{
	return strstr(f, "schedule") || !strcmp(f, "finish_task_switch") ||
	       !strncmp(f, "finish_task_switch", 18) || strstr(f, "wait_woken") ||
	       strstr(f, "__switch_to");
}

const char *_rsp_frames_best(const struct _rsp_frames *fc, struct _rsp_fstack fs)
{
	if (fs.n_user)
		return _rsp_frame(fc, fs.off + fs.n_user - 1);
	for (size_t i = fs.n; i-- > 0;) {
		const char *f = _rsp_frame(fc, fs.off + (uint32_t)i);

		if (!scheduler(f) && strncmp(f, "0x", 2))
			return f;
	}
	return NULL;
}

void _rsp_frames_append(const struct _rsp_frames *fc, struct _rsp_fstack fs, size_t max,
			GString *out)
{
	size_t first = max && fs.n > max ? fs.n - max : 0;

	if (first)
		g_string_append(out, "... > ");
	for (size_t i = first; i < fs.n; i++) {
		if (i > first)
			g_string_append(out, " > ");
		g_string_append(out, _rsp_frame(fc, fs.off + (uint32_t)i));
	}
}

void _rsp_append_time(GString *out, uint64_t t, uint64_t origin)
{
	g_string_append_printf(out, "%.6f ms",
			       t >= origin ? (t - origin) / 1e6 : -((origin - t) / 1e6));
}

void _rsp_append_dur(GString *out, uint64_t ns)
{
	char buf[64];

	rsp_format_duration(buf, sizeof(buf), (double)ns);
	g_string_append(out, buf);
}
