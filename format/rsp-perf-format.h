/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The perf.data layouts rsp writes and reads: perf's own format, described
 * here once for the writer (collector/) and the reader (model/).  The spec is
 * docs/perf-data.md; perf's is tools/perf/Documentation/perf.data-file-format.txt.
 *
 * Kernel record types and struct perf_event_attr come from <linux/perf_event.h>.
 * The "user" record types (>= 64) and the file/feature framing are perf-tool
 * conventions that no system header carries, so they are defined here, with a
 * static assertion on every size and trailing-array offset.  Everything is
 * host-endian on the writer; the reader checks the magic to detect a swap.
 */
#ifndef RSP_PERF_FORMAT_H
#define RSP_PERF_FORMAT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* "PERFILE2" read as a little-endian u64 */
#define RSP_PF_MAGIC		 0x32454c4946524550ULL
#define RSP_PF_MAGIC_SWAPPED	 0x50455246494c4532ULL

/* Pipe-mode header: the stream follows immediately. */
struct rsp_pf_pipe_header {
	uint64_t magic;
	uint64_t size; /* == sizeof(struct rsp_pf_pipe_header) */
};
_Static_assert(sizeof(struct rsp_pf_pipe_header) == 16, "pipe header");

struct rsp_pf_section {
	uint64_t offset;
	uint64_t size;
};

#define RSP_PF_FEAT_BITS 256

/* File-mode header (perf record without -o -). */
struct rsp_pf_file_header {
	uint64_t magic;
	uint64_t size; /* == sizeof(struct rsp_pf_file_header) */
	uint64_t attr_size; /* size of one entry of the attrs section */
	struct rsp_pf_section attrs;
	struct rsp_pf_section data;
	struct rsp_pf_section event_types; /* unused since 2011 */
	uint64_t adds_features[RSP_PF_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct rsp_pf_file_header) == 104, "file header");
_Static_assert(offsetof(struct rsp_pf_file_header, adds_features) == 72, "features bitmap");

/* One entry of the attrs section: the attr (attr_size bytes) then this. */
struct rsp_pf_file_attr_tail {
	struct rsp_pf_section ids; /* array of u64 event ids */
};

/* perf-tool record types, above any kernel type */
enum rsp_pf_user_type {
	RSP_PF_RECORD_HEADER_ATTR = 64,
	RSP_PF_RECORD_HEADER_EVENT_TYPE = 65,
	RSP_PF_RECORD_HEADER_TRACING_DATA = 66,
	RSP_PF_RECORD_HEADER_BUILD_ID = 67,
	RSP_PF_RECORD_FINISHED_ROUND = 68,
	RSP_PF_RECORD_ID_INDEX = 69,
	RSP_PF_RECORD_AUXTRACE_INFO = 70,
	RSP_PF_RECORD_AUXTRACE = 71,
	RSP_PF_RECORD_AUXTRACE_ERROR = 72,
	RSP_PF_RECORD_THREAD_MAP = 73,
	RSP_PF_RECORD_CPU_MAP = 74,
	RSP_PF_RECORD_STAT_CONFIG = 75,
	RSP_PF_RECORD_STAT = 76,
	RSP_PF_RECORD_STAT_ROUND = 77,
	RSP_PF_RECORD_EVENT_UPDATE = 78,
	RSP_PF_RECORD_TIME_CONV = 79,
	RSP_PF_RECORD_HEADER_FEATURE = 80,
	RSP_PF_RECORD_COMPRESSED = 81,
	RSP_PF_RECORD_FINISHED_INIT = 82,
	RSP_PF_RECORD_HEADER_MAX
};

/* Feature ids (bits of adds_features; feat_id of HEADER_FEATURE records) */
enum rsp_pf_feature {
	RSP_PF_FEAT_TRACING_DATA = 1,
	RSP_PF_FEAT_BUILD_ID = 2,
	RSP_PF_FEAT_HOSTNAME = 3,
	RSP_PF_FEAT_OSRELEASE = 4,
	RSP_PF_FEAT_VERSION = 5,
	RSP_PF_FEAT_ARCH = 6,
	RSP_PF_FEAT_NRCPUS = 7,
	RSP_PF_FEAT_CPUDESC = 8,
	RSP_PF_FEAT_CPUID = 9,
	RSP_PF_FEAT_TOTAL_MEM = 10,
	RSP_PF_FEAT_CMDLINE = 11,
	RSP_PF_FEAT_EVENT_DESC = 12,
	RSP_PF_FEAT_CPU_TOPOLOGY = 13,
	RSP_PF_FEAT_NUMA_TOPOLOGY = 14,
	RSP_PF_FEAT_BRANCH_STACK = 15,
	RSP_PF_FEAT_PMU_MAPPINGS = 16,
	RSP_PF_FEAT_GROUP_DESC = 17,
	RSP_PF_FEAT_AUXTRACE = 18,
	RSP_PF_FEAT_STAT = 19,
	RSP_PF_FEAT_CACHE = 20,
	RSP_PF_FEAT_SAMPLE_TIME = 21,
	RSP_PF_FEAT_MEM_TOPOLOGY = 22,
	RSP_PF_FEAT_CLOCKID = 23,
	RSP_PF_FEAT_DIR_FORMAT = 24,
	RSP_PF_FEAT_BPF_PROG_INFO = 25,
	RSP_PF_FEAT_BPF_BTF = 26,
	RSP_PF_FEAT_COMPRESSED = 27,
	RSP_PF_FEAT_CPU_PMU_CAPS = 28,
	RSP_PF_FEAT_CLOCK_DATA = 29,
	RSP_PF_FEAT_LAST = 32,
};

struct rsp_pf_header_attr {
	struct perf_event_header header;
	/* struct perf_event_attr (attr.size bytes), then u64 ids to the end */
	unsigned char attr[];
};
_Static_assert(offsetof(struct rsp_pf_header_attr, attr) == 8, "header_attr");

#define RSP_PF_EVENT_UPDATE_NAME 2
struct rsp_pf_event_update {
	struct perf_event_header header;
	uint64_t type;
	uint64_t id;
	char data[]; /* NUL-terminated name for EVENT_UPDATE_NAME, padded to 8 */
};
_Static_assert(offsetof(struct rsp_pf_event_update, data) == 24, "event_update");

/* The tracing data (perf's trace-event-info layout) follows this record. */
struct rsp_pf_tracing_data {
	struct perf_event_header header;
	uint32_t size; /* payload bytes after this record, padded to 8 */
	uint32_t pad;
};
_Static_assert(sizeof(struct rsp_pf_tracing_data) == 16, "tracing_data");

struct rsp_pf_build_id {
	struct perf_event_header header;
	int32_t pid;
	uint8_t data[20];
	uint8_t size;
	uint8_t reserved1;
	uint16_t reserved2;
	char filename[]; /* NUL-terminated, padded to 8 */
};
_Static_assert(offsetof(struct rsp_pf_build_id, filename) == 36, "build_id");

struct rsp_pf_thread_map_entry {
	uint64_t pid;
	char comm[16];
};
_Static_assert(sizeof(struct rsp_pf_thread_map_entry) == 24, "thread_map entry");

struct rsp_pf_thread_map {
	struct perf_event_header header;
	uint64_t nr;
	struct rsp_pf_thread_map_entry entries[];
};
_Static_assert(offsetof(struct rsp_pf_thread_map, entries) == 16, "thread_map");

struct rsp_pf_feature_rec {
	struct perf_event_header header;
	uint64_t feat_id;
	unsigned char data[];
};
_Static_assert(offsetof(struct rsp_pf_feature_rec, data) == 16, "feature");

struct rsp_pf_stat {
	struct perf_event_header header;
	uint64_t id;
	uint32_t cpu;
	uint32_t thread;
	uint64_t val;
	uint64_t ena;
	uint64_t run;
};
_Static_assert(sizeof(struct rsp_pf_stat) == 48, "stat");

/* Kernel records with a fixed head (the sample_id trailer follows). */
struct rsp_pf_comm {
	struct perf_event_header header;
	uint32_t pid, tid;
	char comm[]; /* NUL-terminated, padded to 8 */
};
_Static_assert(offsetof(struct rsp_pf_comm, comm) == 16, "comm");

struct rsp_pf_fork {
	struct perf_event_header header;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
};
_Static_assert(sizeof(struct rsp_pf_fork) == 32, "fork/exit");

struct rsp_pf_mmap2 {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	union {
		struct {
			uint32_t maj;
			uint32_t min;
			uint64_t ino;
			uint64_t ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot;
	uint32_t flags;
	char filename[]; /* NUL-terminated, padded to 8 */
};
_Static_assert(offsetof(struct rsp_pf_mmap2, filename) == 72, "mmap2");

struct rsp_pf_mmap {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	char filename[];
};
_Static_assert(offsetof(struct rsp_pf_mmap, filename) == 40, "mmap");

struct rsp_pf_lost {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};
_Static_assert(sizeof(struct rsp_pf_lost) == 24, "lost");

struct rsp_pf_lost_samples {
	struct perf_event_header header;
	uint64_t lost;
};
_Static_assert(sizeof(struct rsp_pf_lost_samples) == 16, "lost_samples");
/* rsp's flag on a LOST_SAMPLES record: a shed span of its stream begins here
 * (lost 0); the span ends at the next LOST_SAMPLES of that stream and CPU
 * without it (docs/perf-data.md, "Shed spans").  perf defines only bit 15
 * (PERF_RECORD_MISC_LOST_SAMPLES_BPF) for this record type. */
#define RSP_PF_MISC_SHED_BEGIN (1 << 14)

/*
 * The sample_id trailer every rsp attr uses (sample_id_all with
 * PERF_SAMPLE_IDENTIFIER|TID|TIME|CPU): appended to non-sample kernel records.
 */
struct rsp_pf_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};
_Static_assert(sizeof(struct rsp_pf_sample_id) == 32, "sample_id trailer");

/* perf-tool flag on HEADER_BUILD_ID records: the size field is valid */
#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#endif

/* Alignment of every record and of string payloads. */
#define RSP_PF_ALIGN(x) (((x) + 7) & ~(uint64_t)7)

/* Magic of the tracing-data payload: "\027\010\104tracing" */
#define RSP_PF_TRACING_MAGIC "\027\010\104tracing"
#define RSP_PF_TRACING_MAGIC_LEN 10

#endif /* RSP_PERF_FORMAT_H */
