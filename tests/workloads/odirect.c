/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * odirect - a reader that is bound by blocking disk I/O.
 *
 * What it does:
 *   1. create_file(): writes a 32 MiB file
 *      "$RSP_WL_DIR|$TMPDIR|/tmp/rsp-odirect.<pid>.dat" with ordinary
 *      buffered write()s (1 MiB at a time; every 64 KiB block starts with
 *      its own block number), fsync()s it and drops it from the page cache
 *      with posix_fadvise(POSIX_FADV_DONTNEED).
 *   2. read_blocks(): opens it again with O_DIRECT and pread()s 600
 *      blocks of 64 KiB (into a posix_memalign()ed buffer) at pseudo-random
 *      64 KiB-aligned offsets from a fixed-seed 64-bit LCG; O_DIRECT
 *      bypasses the page cache, so every read is a block request to the
 *      device (the same offsets in the same order on every run). Each block
 *      is checked to start with its block number.
 *   3. unlinks the file and prints one summary line to stderr, with its
 *      voluntary context switches (getrusage RUSAGE_THREAD) during the
 *      reads (how many times it really slept there) and when the reads
 *      began and ended (CLOCK_MONOTONIC ns, the clock rsp record uses).
 *   The directory must be on a disk-backed filesystem that supports
 *   O_DIRECT (ext4/xfs/btrfs): on tmpfs/ramfs (where O_DIRECT, if
 *   accepted, never reaches a disk) it fails with a clear message.
 *
 *   usage: odirect [READS]        (default 600)
 *
 * Processes / threads: one, "odirect".
 *
 * Functions that appear in stacks (built WITHOUT frame pointers,
 * -fomit-frame-pointer; needs DWARF/.eh_frame unwinding):
 *   create_file()   buffered write() CPU (memcpy into the page cache), then
 *                   fsync() (blocking write-back of 32 MiB)
 *   read_blocks()   pread64() with O_DIRECT -> blocking disk reads
 *
 * Expected explanation shape (target: odirect):
 *   Blocking disk I/O dominates: the process sleeps (uninterruptible, D
 *   state) in read_blocks() -> pread64() once per read, and each sleep is
 *   explained by one block request on the disk (issue -> completion irq),
 *   one 64 KiB read request per pread. The create phase shows fsync() as
 *   a few larger write-back sleeps (explained by the disk and, on ext4,
 *   the jbd2 journal thread). CPU time is small.
 *   Reads are 64 KiB so that device time, not the per-request cost of
 *   submitting, dominates: on this VM every request traps to the
 *   hypervisor (virtio notify, ~50 us of system CPU charged to the
 *   reader), and with 4 KiB reads that CPU was as large as the disk time.
 *   Measured on the reference machine (2 vCPU VM, ext4 on a virtio disk),
 *   default run: ~0.13 s wall; rsp report: blocking disk I/O 56 % of the
 *   target's time, CPU (sampled and not) 42 %, scheduler delay 1.4 %.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define WL_NAME "odirect"
#include "wl.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/types.h>
#include <time.h>

#define DEFAULT_READS 600UL
#define MAX_READS 100000000UL
#define BLOCK_SIZE 65536UL
#define FILE_SIZE (32UL << 20)
#define NBLOCKS (FILE_SIZE / BLOCK_SIZE)
#define CHUNK_SIZE (1UL << 20)
#define LCG_SEED 0x5eed0ddfULL

static const char usage[] =
	"usage: odirect [READS]\n"
	"  Writes a 32 MiB file in $RSP_WL_DIR, else $TMPDIR, else /tmp,\n"
	"  fsyncs it, then does READS (default 600, about 0.1 s) O_DIRECT\n"
	"  64 KiB reads at fixed pseudo-random offsets, and removes the file.\n";

static char data_path[PATH_MAX];

void create_file(const char *path);
uint64_t read_blocks(int fd, unsigned char *buf, unsigned long nreads);

static void remove_data_file(void)
{
	unlink(data_path);
}

WL_STACK_FN void create_file(const char *path)
{
	unsigned char *chunk;
	unsigned long off, b;
	uint64_t blockno;
	ssize_t n;
	int fd, err;

	chunk = malloc(CHUNK_SIZE);
	if (!chunk)
		wl_die("malloc");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die("create data file");
	wl_on_die = remove_data_file;

	for (off = 0; off < FILE_SIZE; off += CHUNK_SIZE) {
		memset(chunk, 0xa5, CHUNK_SIZE);
		for (b = 0; b < CHUNK_SIZE; b += BLOCK_SIZE) {
			blockno = (off + b) / BLOCK_SIZE;
			memcpy(chunk + b, &blockno, sizeof(blockno));
		}
		n = write(fd, chunk, CHUNK_SIZE);
		if (n < 0)
			wl_die("write data file");
		if (n != (ssize_t)CHUNK_SIZE)
			wl_fail("short write on data file");
	}
	if (fsync(fd) < 0)
		wl_die("fsync data file");
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err != 0) {
		errno = err;
		wl_die("posix_fadvise(DONTNEED)");
	}
	if (close(fd) < 0)
		wl_die("close data file");
	free(chunk);
}

/* Returns a checksum of the blocks read (to keep the reads honest). */
WL_STACK_FN uint64_t read_blocks(int fd, unsigned char *buf,
				 unsigned long nreads)
{
	uint64_t state = LCG_SEED, sum = 0, block, got;
	unsigned long i;
	ssize_t n;

	for (i = 0; i < nreads; i++) {
		/* Knuth's MMIX LCG; the high bits are the good ones. */
		state = state * 6364136223846793005ULL +
			1442695040888963407ULL;
		block = (state >> 33) % NBLOCKS;
		do
			n = pread(fd, buf, BLOCK_SIZE, (off_t)(block * BLOCK_SIZE));
		while (n < 0 && errno == EINTR);
		if (n < 0)
			wl_die("O_DIRECT pread");
		if (n != (ssize_t)BLOCK_SIZE)
			wl_fail("short O_DIRECT read at block %llu",
				(unsigned long long)block);
		memcpy(&got, buf, sizeof(got));
		if (got != block)
			wl_fail("block %llu has wrong contents",
				(unsigned long long)block);
		sum += got;
	}
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long nreads;
	struct timespec t0, t1;
	struct statfs sfs;
	struct rusage ru0, ru1;
	struct timespec r0, r1;
	unsigned char *buf;
	void *mem;
	uint64_t sum;
	double secs;
	int fd, err;

	wl_catch_signals();
	alarm(60);
	nreads = wl_parse_count(argc, argv, DEFAULT_READS, MAX_READS, usage);
	if (prctl(PR_SET_NAME, "odirect", 0, 0, 0) < 0)
		wl_die("prctl(PR_SET_NAME)");
	clock_gettime(CLOCK_MONOTONIC, &t0);

	wl_path(data_path, "%s/rsp-odirect.%ld.dat", wl_scratch_dir(),
		(long)getpid());
	if (statfs(wl_scratch_dir(), &sfs) < 0)
		wl_die("statfs scratch directory");
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
		wl_fail("%s is in memory (tmpfs/ramfs), O_DIRECT reads would not "
			"reach a disk; set RSP_WL_DIR to a disk-backed directory",
			wl_scratch_dir());
	create_file(data_path);

	err = posix_memalign(&mem, BLOCK_SIZE, BLOCK_SIZE);
	if (err != 0) {
		errno = err;
		wl_die("posix_memalign");
	}
	buf = mem;
	fd = open(data_path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EINVAL)
			wl_die("open with O_DIRECT (filesystem does not support "
			       "it? set RSP_WL_DIR to a disk-backed directory)");
		wl_die("open data file with O_DIRECT");
	}
	/* the sleeps in the reads as the kernel counts them: a read whose
	 * completion is already there when it would sleep does not switch out */
	if (getrusage(RUSAGE_THREAD, &ru0) < 0)
		wl_die("getrusage");
	clock_gettime(CLOCK_MONOTONIC, &r0);
	sum = read_blocks(fd, buf, nreads);
	clock_gettime(CLOCK_MONOTONIC, &r1);
	if (getrusage(RUSAGE_THREAD, &ru1) < 0)
		wl_die("getrusage");
	if (close(fd) < 0)
		wl_die("close data file");
	free(buf);

	wl_on_die = NULL;
	if (unlink(data_path) < 0)
		wl_die("unlink data file");

	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr,
		"odirect: %lu O_DIRECT reads of %lu bytes from a %lu MiB file "
		"in %s, checksum %llu, %.3f s; the reads: %ld voluntary "
		"switches, from %llu to %llu ns\n",
		nreads, BLOCK_SIZE, FILE_SIZE >> 20, wl_scratch_dir(),
		(unsigned long long)sum, secs, ru1.ru_nvcsw - ru0.ru_nvcsw,
		(unsigned long long)r0.tv_sec * 1000000000ull + (unsigned long long)r0.tv_nsec,
		(unsigned long long)r1.tv_sec * 1000000000ull + (unsigned long long)r1.tv_nsec);
	return 0;
}
