/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A recording open in the viewer: loaded and analysed on worker threads. */
#include "rsp-document.h"
#include "rsp-testlog.h"

#include <errno.h>
#include <string.h>

struct _RspDocument {
	GObject parent_instance;
	GFile *file;
	char *name;
	GMutex lock; /* the model: one thread at a time */
	struct rsp_trace *trace;
	struct rsp_running_data *running;
	struct rsp_trace_summary summary;
	GPtrArray *warnings;
	GHashTable *comms;   /* pid -> process name */
	GHashTable *targets; /* pid -> RspTarget */
	GHashTable *windows; /* "pid thread start end" -> RspTarget (a window of it) */
	int *target_pids; /* the targets the recorder marked */
	RspTarget *main_target;
	size_t n_targets;
	int target_pid; /* the first */
	gboolean loaded;
	gboolean labelling; /* the running view's labels are being made */
	double load_ms;
};

enum { SIG_LABELLED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_TYPE(RspDocument, rsp_document, G_TYPE_OBJECT)
G_DEFINE_QUARK(rsp - document - error - quark, rsp_document_error)

static void target_free(gpointer p)
{
	RspTarget *t = p;

	if (!t)
		return;
	rsp_flame_data_free(t->flame);
	rsp_analysis_free(t->analysis);
	g_free(t->desc);
	g_free(t);
}

static void rsp_document_finalize(GObject *obj)
{
	RspDocument *doc = RSP_DOCUMENT(obj);

	g_hash_table_destroy(doc->windows);
	g_hash_table_destroy(doc->targets);
	g_free(doc->target_pids);
	g_hash_table_destroy(doc->comms);
	g_ptr_array_unref(doc->warnings);
	rsp_running_data_free(doc->running);
	rsp_trace_free(doc->trace);
	g_mutex_clear(&doc->lock);
	g_clear_object(&doc->file);
	g_free(doc->name);
	G_OBJECT_CLASS(rsp_document_parent_class)->finalize(obj);
}

static void rsp_document_class_init(RspDocumentClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = rsp_document_finalize;
	/* the running view's sleeps have their labels now: lay it out again */
	signals[SIG_LABELLED] = g_signal_new("labelled", G_TYPE_FROM_CLASS(klass),
					     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
					     0);
}

static void rsp_document_init(RspDocument *doc)
{
	g_mutex_init(&doc->lock);
	doc->warnings = g_ptr_array_new_with_free_func(g_free);
	doc->comms = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	doc->targets = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, target_free);
	doc->windows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, target_free);
}

RspDocument *rsp_document_new(GFile *file)
{
	RspDocument *doc = g_object_new(RSP_TYPE_DOCUMENT, NULL);

	doc->file = g_object_ref(file);
	doc->name = g_file_get_basename(file);
	if (!doc->name)
		doc->name = g_strdup("recording");
	return doc;
}

GFile *rsp_document_get_file(RspDocument *doc)
{
	return doc->file;
}

const char *rsp_document_get_name(RspDocument *doc)
{
	return doc->name;
}

gboolean rsp_document_is_loaded(RspDocument *doc)
{
	return doc->loaded;
}

double rsp_document_get_load_ms(RspDocument *doc)
{
	return doc->load_ms;
}

const struct rsp_running_data *rsp_document_get_running(RspDocument *doc)
{
	return doc->running;
}

const struct rsp_trace_summary *rsp_document_get_summary(RspDocument *doc)
{
	return &doc->summary;
}

guint rsp_document_get_n_warnings(RspDocument *doc)
{
	return doc->warnings->len;
}

const char *rsp_document_get_warning(RspDocument *doc, guint i)
{
	return i < doc->warnings->len ? g_ptr_array_index(doc->warnings, i) : NULL;
}

RspTarget *rsp_document_get_main_target(RspDocument *doc)
{
	return doc->main_target;
}

gboolean rsp_document_try_lock(RspDocument *doc)
{
	return doc->loaded && g_mutex_trylock(&doc->lock);
}

void rsp_document_unlock(RspDocument *doc)
{
	g_mutex_unlock(&doc->lock);
}

struct rsp_trace *rsp_document_get_trace(RspDocument *doc)
{
	return doc->trace;
}

/* The recorded target's analysis serves its pid too. */
static int target_key(RspDocument *doc, int pid)
{
	return doc->n_targets == 1 && doc->target_pid == pid ? 0 : pid;
}

/* ---- loading --------------------------------------------------------------------------- */

typedef struct {
	RspProgressFunc progress;
	GObject *progress_data;
	volatile int cancel;
	gint64 last;
	GCancellable *cancellable;
	gulong handler;
	gboolean defer_labels; /* the view first, its sleeps' labels after */
} LoadData;

typedef struct {
	RspProgressFunc progress;
	GObject *data;
	double fraction;
} ProgressMsg;

static gboolean unref_idle(gpointer obj)
{
	g_object_unref(obj);
	return G_SOURCE_REMOVE;
}

/*
 * The task's data may go with the worker thread's last reference to the task.
 * The progress receiver is a widget (the load page): if its tab was closed
 * while loading, this may be its last reference, and GTK objects are finalized
 * on the GTK thread only, so that reference goes back there.
 */
static void load_data_free(gpointer p)
{
	LoadData *ld = p;

	if (ld->cancellable && ld->handler)
		g_cancellable_disconnect(ld->cancellable, ld->handler);
	g_clear_object(&ld->cancellable);
	if (ld->progress_data)
		g_idle_add_full(G_PRIORITY_DEFAULT, unref_idle, ld->progress_data, NULL);
	g_free(ld);
}

static gboolean progress_idle(gpointer p)
{
	ProgressMsg *m = p;

	m->progress(m->fraction, m->data);
	g_clear_object(&m->data);
	g_free(m);
	return G_SOURCE_REMOVE;
}

/* From the worker: at most every 50 ms, to the GTK thread. */
static void report(LoadData *ld, double fraction, gboolean force)
{
	gint64 now = g_get_monotonic_time();
	ProgressMsg *m;

	if (!ld->progress || (!force && now - ld->last < 50000))
		return;
	ld->last = now;
	m = g_new0(ProgressMsg, 1);
	m->progress = ld->progress;
	m->data = ld->progress_data ? g_object_ref(ld->progress_data) : NULL;
	m->fraction = fraction;
	g_idle_add_full(G_PRIORITY_DEFAULT, progress_idle, m, NULL);
}

static void model_progress(double fraction, void *ctx)
{
	report(ctx, fraction * 0.8, FALSE);
}

static void on_cancelled(GCancellable *c, gpointer p)
{
	LoadData *ld = p;

	ld->cancel = 1;
}

static char *describe_targets(RspDocument *doc, struct rsp_trace *t, const int *pids, size_t n)
{
	GString *s = g_string_new(n > 1 ? "processes" : "process");

	for (size_t i = 0; i < n; i++) {
		const char *comm = g_hash_table_lookup(doc->comms, GINT_TO_POINTER(pids[i]));

		g_string_append_printf(s, "%s %d (%s)", i ? "," : "", pids[i], comm ? comm : "?");
	}
	return g_string_free(s, FALSE);
}

static const char *symbol_symfs;
static const char *const *symbol_debug_dirs;

void rsp_document_set_symbol_paths(const char *symfs, const char *const *debug_dirs)
{
	symbol_symfs = symfs;
	symbol_debug_dirs = debug_dirs;
}

void rsp_document_get_symbol_paths(const char **symfs, const char *const **debug_dirs)
{
	*symfs = symbol_symfs;
	*debug_dirs = symbol_debug_dirs;
}

/* The symbol options of every load (rsp_document_set_symbol_paths()); @archive, @jit:
 * buffers for PATH.archive and PATH.jit */
static void symbol_opts(struct rsp_trace_opts *o, const char *path, char **archive, char **jit)
{
	const char *urls = g_getenv("DEBUGINFOD_URLS");

	o->symfs = symbol_symfs;
	o->debug_dirs = symbol_debug_dirs;
	o->n_debug_dirs = symbol_debug_dirs ? g_strv_length((char **)symbol_debug_dirs) : 0;
	o->debuginfod = urls && *urls;
	*archive = g_strconcat(path, ".archive", NULL);
	if (g_file_test(*archive, G_FILE_TEST_IS_REGULAR))
		o->archive = *archive;
	*jit = g_strconcat(path, ".jit", NULL);
	if (g_file_test(*jit, G_FILE_TEST_IS_DIR))
		o->jit_dir = *jit;
}

/* The files the target's stacks need and could not be read, as rsp's warning line says them */
static void missing_files_warning(RspDocument *doc, struct rsp_trace *t)
{
	size_t n = rsp_trace_n_missing_files(t);
	struct rsp_missing_file m;

	rsp_testlog("SYMBOLS missing %zu", n);
	if (!n)
		return;
	rsp_trace_missing_file(t, 0, &m);
	g_ptr_array_add(doc->warnings,
			g_strdup_printf("%s (%s%s%s%s): %" G_GUINT64_FORMAT " frames without symbols, "
					"%.1f ms of the %s's time%s%.0zu%s (rsp-viewer --symfs DIR "
					"or --debug-dir DIR, or `rsp archive` where it was recorded)",
					m.path, *m.build_id ? "build id " : "", m.build_id,
					*m.build_id ? ": " : "", m.why, m.frames, m.ns / 1e6,
					rsp_trace_n_targets(t) ? "target" : "trace",
					n > 1 ? " and " : "", n - 1, n > 1 ? " more files" : ""));
}

static void load_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *c)
{
	RspDocument *doc = source;
	LoadData *ld = task_data;
	struct rsp_trace_opts o = {
	    .progress = model_progress, .progress_ctx = ld, .cancel = &ld->cancel};
	g_autofree char *path = g_file_get_path(doc->file);
	g_autofree char *archive = NULL;
	g_autofree char *jit = NULL;
	struct rsp_trace *t = NULL;
	struct rsp_analysis *a = NULL;
	char err[512];
	gint64 t0 = g_get_monotonic_time();
	int ret, *pids;
	size_t np;

	if (!path) {
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0,
					"%s: only local files can be opened", doc->name);
		return;
	}
	symbol_opts(&o, path, &archive, &jit);
	g_mutex_lock(&doc->lock);
	ret = rsp_trace_open(path, &o, &t, err, sizeof(err));
	if (ret) {
		g_mutex_unlock(&doc->lock);
		if (ret == -ECANCELED)
			g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
						"loading %s was cancelled", doc->name);
		else
			g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s", err);
		return;
	}
	report(ld, 0.8, TRUE);
	rsp_trace_get_summary(t, &doc->summary);
	for (size_t i = 0; i < rsp_trace_n_warnings(t); i++)
		g_ptr_array_add(doc->warnings, g_strdup(rsp_trace_warning(t, i)));
	missing_files_warning(doc, t);
	for (size_t i = 0, n = rsp_trace_n_threads(t); i < n; i++) {
		struct rsp_thread_info ti;

		rsp_trace_thread(t, i, &ti);
		if (ti.tid == ti.pid || !g_hash_table_contains(doc->comms, GINT_TO_POINTER(ti.pid)))
			g_hash_table_insert(doc->comms, GINT_TO_POINTER(ti.pid), g_strdup(ti.comm));
	}
	np = rsp_trace_n_targets(t);
	pids = g_new(int, np + 1);
	for (size_t i = 0; i < np; i++)
		pids[i] = rsp_trace_target(t, i);
	doc->n_targets = np;
	doc->target_pid = np ? pids[0] : 0;
	g_free(doc->target_pids);
	doc->target_pids = g_new(int, np + 1);
	memcpy(doc->target_pids, pids, sizeof(*pids) * np);
	if (np && !ld->cancel) {
		if (rsp_analyze(t, pids, np, 0, NULL, &a, err, sizeof(err)) == 0) {
			RspTarget *tg = g_new0(RspTarget, 1);

			tg->pid = 0;
			tg->desc = describe_targets(doc, t, pids, np);
			tg->analysis = a;
			g_hash_table_insert(doc->targets, GINT_TO_POINTER(0), tg);
			doc->main_target = tg;
		} else {
			g_ptr_array_add(doc->warnings, g_strdup_printf("the target: %s", err));
		}
	}
	g_free(pids);
	report(ld, 0.9, TRUE);
	if (!ld->cancel &&
	    (ld->defer_labels ? rsp_running_data_new_unlabelled(t, a, &doc->running, err, sizeof(err))
			      : rsp_running_data_new(t, a, &doc->running, err, sizeof(err)))) {
		g_mutex_unlock(&doc->lock);
		rsp_trace_free(t);
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s", err);
		return;
	}
	if (ld->cancel) {
		g_mutex_unlock(&doc->lock);
		rsp_trace_free(t);
		g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
					"loading %s was cancelled", doc->name);
		return;
	}
	doc->trace = t;
	doc->loaded = TRUE;
	doc->load_ms = (g_get_monotonic_time() - t0) / 1000.0;
	g_mutex_unlock(&doc->lock);
	report(ld, 1.0, TRUE);
	g_task_return_boolean(task, TRUE);
}

void rsp_document_load_async(RspDocument *doc, GCancellable *cancellable, RspProgressFunc progress,
			     gpointer progress_data, GAsyncReadyCallback callback,
			     gpointer user_data)
{
	GTask *task = g_task_new(doc, cancellable, callback, user_data);
	LoadData *ld = g_new0(LoadData, 1);

	ld->progress = progress;
	ld->progress_data = progress_data ? g_object_ref(G_OBJECT(progress_data)) : NULL;
	ld->defer_labels = TRUE;
	if (cancellable) {
		ld->cancellable = g_object_ref(cancellable);
		ld->handler =
		    g_cancellable_connect(cancellable, G_CALLBACK(on_cancelled), ld, NULL);
	}
	g_task_set_task_data(task, ld, load_data_free);
	g_task_set_return_on_cancel(task, FALSE);
	g_task_run_in_thread(task, load_thread);
	g_object_unref(task);
}

static void label_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *c)
{
	RspDocument *doc = source;

	g_mutex_lock(&doc->lock);
	rsp_running_data_label(doc->running);
	g_mutex_unlock(&doc->lock);
	g_task_return_boolean(task, TRUE);
}

static void on_labelled(GObject *src, GAsyncResult *res, gpointer unused)
{
	RspDocument *doc = RSP_DOCUMENT(src);

	g_task_propagate_boolean(G_TASK(res), NULL);
	doc->labelling = FALSE;
	/* here, on the GTK thread: no layout of the running view runs meanwhile */
	rsp_running_data_publish_labels(doc->running);
	g_signal_emit(doc, signals[SIG_LABELLED], 0);
}

gboolean rsp_document_load_finish(RspDocument *doc, GAsyncResult *result, GError **error)
{
	gboolean ok;

	g_return_val_if_fail(g_task_is_valid(result, doc), FALSE);
	ok = g_task_propagate_boolean(G_TASK(result), error);
	if (ok && doc->running && !rsp_running_data_labelled(doc->running) && !doc->labelling) {
		GTask *task = g_task_new(doc, NULL, on_labelled, NULL);

		doc->labelling = TRUE;
		g_task_run_in_thread(task, label_thread);
		g_object_unref(task);
	}
	return ok;
}

gboolean rsp_document_is_labelled(RspDocument *doc)
{
	return doc->running && rsp_running_data_labelled(doc->running);
}

gboolean rsp_document_load(RspDocument *doc, GError **error)
{
	GTask *task = g_task_new(doc, NULL, NULL, NULL);
	gboolean ok;

	g_task_set_task_data(task, g_new0(LoadData, 1), load_data_free);
	g_task_run_in_thread_sync(task, load_thread);
	ok = g_task_propagate_boolean(task, error);
	g_object_unref(task);
	return ok;
}

/* ---- targets ------------------------------------------------------------------------------- */

static void target_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *c)
{
	RspDocument *doc = source;
	int pid = target_key(doc, GPOINTER_TO_INT(task_data));
	RspTarget *tg;
	char err[512];

	if (!doc->loaded) {
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "the recording is not loaded");
		return;
	}
	g_mutex_lock(&doc->lock);
	tg = g_hash_table_lookup(doc->targets, GINT_TO_POINTER(pid));
	if (!tg && pid == 0) {
		g_mutex_unlock(&doc->lock);
		g_task_return_new_error(
		    task, RSP_DOCUMENT_ERROR, 0,
		    "%s marks no target (rsp record -a, or perf record): click a "
		    "process name to see its flame view",
		    doc->name);
		return;
	}
	if (!tg) {
		struct rsp_analysis *a = NULL;

		if (rsp_analyze(doc->trace, &pid, 1, 0, NULL, &a, err, sizeof(err))) {
			g_mutex_unlock(&doc->lock);
			g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "process %d: %s", pid,
						err);
			return;
		}
		tg = g_new0(RspTarget, 1);
		tg->pid = pid;
		tg->desc = describe_targets(doc, doc->trace, &pid, 1);
		tg->analysis = a;
		g_hash_table_insert(doc->targets, GINT_TO_POINTER(pid), tg);
	}
	if (!tg->flame &&
	    rsp_flame_data_new(doc->trace, tg->analysis, &tg->flame, err, sizeof(err))) {
		g_mutex_unlock(&doc->lock);
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s", err);
		return;
	}
	g_mutex_unlock(&doc->lock);
	g_task_return_pointer(task, tg, NULL);
}

void rsp_document_target_async(RspDocument *doc, int pid, GCancellable *cancellable,
			       GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(doc, cancellable, callback, user_data);

	g_task_set_task_data(task, GINT_TO_POINTER(pid), NULL);
	g_task_run_in_thread(task, target_thread);
	g_object_unref(task);
}

RspTarget *rsp_document_target_finish(RspDocument *doc, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, doc), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

RspTarget *rsp_document_target(RspDocument *doc, int pid, GError **error)
{
	GTask *task = g_task_new(doc, NULL, NULL, NULL);
	RspTarget *tg;

	g_task_set_task_data(task, GINT_TO_POINTER(pid), NULL);
	g_task_run_in_thread_sync(task, target_thread);
	tg = g_task_propagate_pointer(task, error);
	g_object_unref(task);
	return tg;
}

/* ---- one window of a target (a request) ---------------------------------------------------- */

typedef struct {
	int pid;
	struct rsp_window w;
	char *desc;
} WindowData;

static void window_data_free(gpointer p)
{
	WindowData *wd = p;

	g_free(wd->desc);
	g_free(wd);
}

static void window_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *c)
{
	RspDocument *doc = source;
	WindowData *wd = task_data;
	int pid = target_key(doc, wd->pid);
	struct rsp_analysis_opts ao = { .windows = &wd->w, .n_windows = 1 };
	struct rsp_analysis *a = NULL;
	char *key, err[512];
	RspTarget *tg;

	if (!doc->loaded) {
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "the recording is not loaded");
		return;
	}
	if (pid == 0 && !doc->n_targets) {
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s marks no target",
					doc->name);
		return;
	}
	key = g_strdup_printf("%d %zu %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, pid, wd->w.thread,
			      wd->w.start_ns, wd->w.end_ns);
	g_mutex_lock(&doc->lock);
	tg = g_hash_table_lookup(doc->windows, key);
	if (tg) {
		g_mutex_unlock(&doc->lock);
		g_free(key);
		g_task_return_pointer(task, tg, NULL);
		return;
	}
	/* the same processes as the target's own analysis (target_thread), as rsp report
	 * --requests --target gives them */
	if (rsp_analyze(doc->trace, pid ? &pid : doc->target_pids, pid ? 1 : doc->n_targets, 0,
			&ao, &a, err, sizeof(err))) {
		g_mutex_unlock(&doc->lock);
		g_free(key);
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s: %s", wd->desc, err);
		return;
	}
	tg = g_new0(RspTarget, 1);
	tg->pid = pid;
	tg->desc = g_strdup(wd->desc);
	tg->is_window = TRUE;
	tg->window = wd->w;
	tg->analysis = a;
	if (rsp_flame_data_new(doc->trace, a, &tg->flame, err, sizeof(err))) {
		g_mutex_unlock(&doc->lock);
		g_free(key);
		target_free(tg);
		g_task_return_new_error(task, RSP_DOCUMENT_ERROR, 0, "%s: %s", wd->desc, err);
		return;
	}
	g_hash_table_insert(doc->windows, key, tg);
	g_mutex_unlock(&doc->lock);
	g_task_return_pointer(task, tg, NULL);
}

void rsp_document_window_async(RspDocument *doc, int pid, const struct rsp_window *w,
			       const char *desc, GCancellable *cancellable,
			       GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(doc, cancellable, callback, user_data);
	WindowData *wd = g_new0(WindowData, 1);

	wd->pid = pid;
	wd->w = *w;
	wd->desc = g_strdup(desc);
	g_task_set_task_data(task, wd, window_data_free);
	g_task_run_in_thread(task, window_thread);
	g_object_unref(task);
}

RspTarget *rsp_document_window_finish(RspDocument *doc, GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, doc), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}
