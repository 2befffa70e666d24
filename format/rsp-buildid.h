/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GNU build ids (NT_GNU_BUILD_ID notes): of ELF files and of the running kernel. */
#ifndef RSP_FORMAT_BUILDID_H
#define RSP_FORMAT_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* Each returns the id's length, or -errno (-ENOENT: no build id). */
int rsp_build_id_from_notes(const void *buf, size_t len, uint8_t *id, size_t max);
int rsp_build_id_of_file(const char *path, uint8_t *id, size_t max);
int rsp_build_id_of_kernel(uint8_t *id, size_t max);

#endif /* RSP_FORMAT_BUILDID_H */
