/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rsp view: start the GTK viewer (a separate binary, so rsp needs no GTK). */
#include "cli.h"

#include "rsp-config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rsp_cmd_view(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	const char *candidates[3];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t nc = 0;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: rsp view [FILE]\n\nOpen FILE (default rsp.data) in the viewer "
		       "(rsp-viewer).\n");
		return 0;
	}
	/* next to this rsp (a build tree: ../viewer/rsp-viewer), else installed */
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../viewer/rsp-viewer", self);
			candidates[nc++] = strdup(path);
			snprintf(path, sizeof(path), "%s/rsp-viewer", self);
			candidates[nc++] = strdup(path);
		}
	}
	candidates[nc++] = strdup(RSP_BINDIR "/rsp-viewer");
	for (size_t i = 0; i < nc; i++) {
		if (candidates[i] && access(candidates[i], X_OK) == 0) {
			argv[0] = (char *)candidates[i];
			execv(candidates[i], argv);
			rsp_cli_error("view", "cannot start %s: %s", candidates[i], strerror(errno));
			return 1;
		}
	}
	rsp_cli_error("view", "the viewer (rsp-viewer) is not built: install libgtk-4-dev and "
			      "rebuild (./setup.sh does both)");
	return 1;
}
