/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small streaming JSON writer for the CLI's --json outputs. */
#ifndef RSP_CLI_JSON_H
#define RSP_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool first[64]; /* per depth: no comma needed yet */
	bool pretty;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_begin_object(struct json *j, const char *key); /* key NULL inside arrays / at top */
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_string(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
void json_finish(struct json *j); /* final newline */

#endif /* RSP_CLI_JSON_H */
