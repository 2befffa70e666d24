/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recording open in the viewer: the model, and what the views need from it.
 *
 * The model is not thread-safe: it is loaded, analysed and prepared on
 * worker threads (GTask), one at a time, under the document's lock; the GTK
 * thread never blocks on it.  The views draw from prepared data that needs
 * no model; what does need it (a tooltip's stack, a frame's waker) takes the
 * lock with rsp_document_try_lock() and says "busy" when it cannot.
 */
#ifndef RSP_DOCUMENT_H
#define RSP_DOCUMENT_H

#include "rsp-views.h"

#include <gio/gio.h>

G_BEGIN_DECLS

#define RSP_TYPE_DOCUMENT (rsp_document_get_type())
G_DECLARE_FINAL_TYPE(RspDocument, rsp_document, RSP, DOCUMENT, GObject)

#define RSP_DOCUMENT_ERROR (rsp_document_error_quark())
GQuark rsp_document_error_quark(void);

/* An analysed target: immutable once made, owned by the document. */
typedef struct {
	int pid;    /* 0: the targets the recorder marked */
	char *desc; /* "process 5626 (rpcchain)" */
	gboolean is_window; /* one window explained (rsp_document_window_async()) */
	struct rsp_window window; /* then: which */
	struct rsp_analysis *analysis;
	struct rsp_flame_data *flame;
} RspTarget;

typedef void (*RspProgressFunc)(double fraction, gpointer user_data);

RspDocument *rsp_document_new(GFile *file);
/*
 * Where every document looks for the files its trace names (rsp-viewer's
 * --symfs and --debug-dir; NULL-terminated @debug_dirs, borrowed for the
 * process's life), besides FILE.archive beside it and debuginfod when
 * DEBUGINFOD_URLS is set.
 */
void rsp_document_set_symbol_paths(const char *symfs, const char *const *debug_dirs);
/* What rsp_document_set_symbol_paths() set last (NULL: none). */
void rsp_document_get_symbol_paths(const char **symfs, const char *const **debug_dirs);
GFile *rsp_document_get_file(RspDocument *doc);
/* "rpcchain.data" */
const char *rsp_document_get_name(RspDocument *doc);

/* Load: the trace, the recorded target's analysis, the running view's data. */
void rsp_document_load_async(RspDocument *doc, GCancellable *cancellable, RspProgressFunc progress,
			     gpointer progress_data, GAsyncReadyCallback callback,
			     gpointer user_data);
/*
 * Loading in the background draws the running view before its sleeps are
 * labelled: finishing it starts that, and the document emits "labelled" when
 * done (rsp_document_load, synchronous, does it all).
 */
gboolean rsp_document_load_finish(RspDocument *doc, GAsyncResult *result, GError **error);
gboolean rsp_document_is_labelled(RspDocument *doc);
gboolean rsp_document_load(RspDocument *doc, GError **error);
gboolean rsp_document_is_loaded(RspDocument *doc);
double rsp_document_get_load_ms(RspDocument *doc);

/* Loaded: what needs no lock. */
const struct rsp_running_data *rsp_document_get_running(RspDocument *doc);
const struct rsp_trace_summary *rsp_document_get_summary(RspDocument *doc);
guint rsp_document_get_n_warnings(RspDocument *doc);
const char *rsp_document_get_warning(RspDocument *doc, guint i);
/* The recorded target (NULL if the file marks none, or it could not be analysed). */
RspTarget *rsp_document_get_main_target(RspDocument *doc);

/* The model: hold the lock to use it on the GTK thread. */
gboolean rsp_document_try_lock(RspDocument *doc);
void rsp_document_unlock(RspDocument *doc);
struct rsp_trace *rsp_document_get_trace(RspDocument *doc);

/*
 * A target's analysis and flame data (pid 0, or the pid of the one target the
 * recorder marked: that target, analysed when loading); cached.
 */
void rsp_document_target_async(RspDocument *doc, int pid, GCancellable *cancellable,
			       GAsyncReadyCallback callback, gpointer user_data);
RspTarget *rsp_document_target_finish(RspDocument *doc, GAsyncResult *result, GError **error);
RspTarget *rsp_document_target(RspDocument *doc, int pid, GError **error);

/*
 * One window of a target's thread explained alone (a server's request: the
 * analysis rsp report --requests gives each of the slowest), with its flame
 * data: the processes of target @pid (as rsp_document_target()), the window
 * @w as their one control path.  @desc names it ("request #3 of process 42
 * (srv)").  Cached per pid and window, owned by the document.
 */
void rsp_document_window_async(RspDocument *doc, int pid, const struct rsp_window *w,
			       const char *desc, GCancellable *cancellable,
			       GAsyncReadyCallback callback, gpointer user_data);
RspTarget *rsp_document_window_finish(RspDocument *doc, GAsyncResult *result, GError **error);

G_END_DECLS

#endif /* RSP_DOCUMENT_H */
