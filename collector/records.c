/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "records.h"

#include "rsp-perf-format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* perf pads header strings to this */
#define NAME_ALIGN 64

static void *rec_begin(struct rsp_writer *w, uint32_t type, size_t size)
{
	struct perf_event_header *h;

	if (size > UINT16_MAX)
		return NULL;
	h = rsp_writer_reserve(w, size);
	if (!h)
		return NULL;
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	return h;
}

int rsp_rec_attr(struct rsp_writer *w, const struct perf_event_attr *attr, const uint64_t *ids,
		 size_t n_ids)
{
	size_t size = sizeof(struct perf_event_header) + attr->size + n_ids * sizeof(uint64_t);
	struct rsp_pf_header_attr *r = rec_begin(w, RSP_PF_RECORD_HEADER_ATTR, size);

	if (!r)
		return -ENOMEM;
	memcpy(r->attr, attr, attr->size);
	memcpy(r->attr + attr->size, ids, n_ids * sizeof(uint64_t));
	return 0;
}

int rsp_rec_event_name(struct rsp_writer *w, uint64_t id, const char *name)
{
	size_t len = strlen(name) + 1;
	size_t size = RSP_PF_ALIGN(sizeof(struct rsp_pf_event_update) + len);
	struct rsp_pf_event_update *r = rec_begin(w, RSP_PF_RECORD_EVENT_UPDATE, size);

	if (!r)
		return -ENOMEM;
	r->type = RSP_PF_EVENT_UPDATE_NAME;
	r->id = id;
	memcpy(r->data, name, len);
	return 0;
}

int rsp_rec_feature(struct rsp_writer *w, int feat, const void *data, size_t len)
{
	size_t size = RSP_PF_ALIGN(sizeof(struct rsp_pf_feature_rec) + len);
	struct rsp_pf_feature_rec *r = rec_begin(w, RSP_PF_RECORD_HEADER_FEATURE, size);

	if (!r)
		return -ENOMEM;
	r->feat_id = feat;
	memcpy(r->data, data, len);
	return 0;
}

static size_t header_string_size(const char *s)
{
	size_t olen = strlen(s) + 1;

	return sizeof(uint32_t) + (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

static unsigned char *put_header_string(unsigned char *p, const char *s)
{
	uint32_t len = (uint32_t)(header_string_size(s) - sizeof(uint32_t));

	memcpy(p, &len, sizeof(len));
	p += sizeof(len);
	memset(p, 0, len);
	memcpy(p, s, strlen(s));
	return p + len;
}

int rsp_rec_feature_string(struct rsp_writer *w, int feat, const char *s)
{
	/* one string: the same layout as a list, without the count */
	return rsp_rec_feature_strings(w, feat, &s, 1);
}

int rsp_rec_feature_strings(struct rsp_writer *w, int feat, const char *const *s, size_t n)
{
	size_t len = feat == RSP_PF_FEAT_CMDLINE ? sizeof(uint32_t) : 0;
	unsigned char *buf, *p;
	int ret;

	for (size_t i = 0; i < n; i++)
		len += header_string_size(s[i]);
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	p = buf;
	if (feat == RSP_PF_FEAT_CMDLINE) {
		uint32_t nr = (uint32_t)n;

		memcpy(p, &nr, sizeof(nr));
		p += sizeof(nr);
	}
	for (size_t i = 0; i < n; i++)
		p = put_header_string(p, s[i]);
	ret = rsp_rec_feature(w, feat, buf, len);
	free(buf);
	return ret;
}

int rsp_rec_thread_map(struct rsp_writer *w, const int *pids, const char *const *comms, size_t n)
{
	size_t size = sizeof(struct rsp_pf_thread_map) + n * sizeof(struct rsp_pf_thread_map_entry);
	struct rsp_pf_thread_map *r = rec_begin(w, RSP_PF_RECORD_THREAD_MAP, size);

	if (!r)
		return -ENOMEM;
	r->nr = n;
	for (size_t i = 0; i < n; i++) {
		r->entries[i].pid = (uint64_t)(int64_t)pids[i];
		strncpy(r->entries[i].comm, comms[i] ? comms[i] : "", sizeof(r->entries[i].comm) - 1);
	}
	return 0;
}

int rsp_rec_tracing_data(struct rsp_writer *w, const void *data, size_t len)
{
	size_t padded = RSP_PF_ALIGN(len);
	struct rsp_pf_tracing_data *r;
	unsigned char *p;

	if (padded > UINT32_MAX)
		return -E2BIG;
	r = rec_begin(w, RSP_PF_RECORD_HEADER_TRACING_DATA, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->size = (uint32_t)padded;
	/* the payload follows the record, outside its header.size */
	p = rsp_writer_reserve(w, padded);
	if (!p)
		return -ENOMEM;
	memcpy(p, data, len);
	memset(p + len, 0, padded - len);
	return 0;
}

int rsp_rec_build_id(struct rsp_writer *w, int pid, const uint8_t *bid, size_t bid_len,
		     const char *filename, uint16_t misc)
{
	size_t flen = strlen(filename) + 1;
	size_t size = RSP_PF_ALIGN(sizeof(struct rsp_pf_build_id) + flen);
	struct rsp_pf_build_id *r;

	if (bid_len > sizeof(r->data))
		return -EINVAL;
	r = rec_begin(w, RSP_PF_RECORD_HEADER_BUILD_ID, size);
	if (!r)
		return -ENOMEM;
	r->header.misc = misc | PERF_RECORD_MISC_BUILD_ID_SIZE;
	r->pid = pid;
	memcpy(r->data, bid, bid_len);
	r->size = (uint8_t)bid_len;
	memcpy(r->filename, filename, flen);
	return 0;
}

int rsp_rec_finished_init(struct rsp_writer *w)
{
	return rec_begin(w, RSP_PF_RECORD_FINISHED_INIT, sizeof(struct perf_event_header)) ?
		       0 :
		       -ENOMEM;
}
