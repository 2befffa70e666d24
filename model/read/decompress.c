/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A perf.data compressed whole (`gzip perf.data`, `zstd perf.data`; not perf
 * record -z, whose records are compressed inside the file: inflate.c), known
 * by its first bytes whatever its name: gzip, bzip2, xz, lzma or zstd.  It is
 * decompressed at open, the compressed bytes read once in order, into one
 * anonymous mapping that the rest of the reader reads as the file.
 *
 * A stream that ends early (the file cut short) or goes on with something
 * else yields what it decompressed to, and the scan reports the cut.  A
 * corrupt one is an error: what it decompressed to before the damage showed
 * (at a checksum, often the end) may already be wrong.  (Damage the library
 * cannot tell from a cut, a stream that ends inside itself, reads as a cut;
 * lzma has no checksum at all.)  Formats rsp knows but does not read
 * (archives, other compressors, other tracers' files) are named, outside or
 * inside a compressed file.
 */
#include "read/reader-private.h"

#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
/* ZSTD_d_stableOutBuffer is still "experimental" in libzstd 1.5 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

/* ---- the decompressors ------------------------------------------------------------------ */

/* How a decompressor ended. */
enum {
	U_END, /* every stream whole, nothing after them but zeros */
	U_CUT, /* the input ended inside a stream */
	U_JUNK, /* a stream ended, and what follows is no stream */
	U_CORRUPT, /* the library says the data is wrong (why) */
	U_FULL, /* the output reached the limit */
	U_NOMEM,
	U_MEMLIMIT, /* the stream needs more memory to decompress than is allowed (need) */
	U_MORE = -1, /* a stream ended, another follows */
};

struct unpacker {
	const unsigned char *in;
	size_t in_len, pos; /* the compressed bytes; consumed */
	unsigned char *img;
	size_t len, limit; /* written; reserved */
	struct rsp_warmer warm;
	const char *why;
	size_t why_end; /* the library names no byte: the damage is in [pos, why_end) */
	uint64_t need;
};

#define IN_STEP (1u << 20)
#define OUT_STEP (8u << 20)
/* zstd tells no byte where the data is wrong: fed a block's bound at a time */
#define ZSTD_IN_STEP (128u << 10)
/* an image this small is copied to the heap (changes to a mapping are dear: see image.c) */
#define SMALL_IMAGE (1u << 20)
/* xz and lzma: the dictionary; xz -9's needs 65 MB */
#define XZ_MEMLIMIT (1ull << 30)

static size_t in_step(const struct unpacker *u)
{
	return u->in_len - u->pos < IN_STEP ? u->in_len - u->pos : IN_STEP;
}

/* The pages ahead of the output mapped, once it is more than a small image. */
static void warm(struct unpacker *u)
{
	if (u->len > SMALL_IMAGE)
		_rsp_warm_follow(&u->warm, u->len);
}

/* Room for the next call's output (0: the limit is reached). */
static size_t out_step(struct unpacker *u)
{
	warm(u);
	return u->limit - u->len < OUT_STEP ? u->limit - u->len : OUT_STEP;
}

/* After a stream's end: the end (zeros may pad it), another stream (@magic), or junk. */
static int after_stream(struct unpacker *u, const void *magic, size_t n)
{
	size_t p = u->pos;

	while (p < u->in_len && !u->in[p])
		p++;
	if (p == u->in_len)
		return U_END;
	if (magic && u->in_len - p >= n && !memcmp(u->in + p, magic, n)) {
		u->pos = p;
		return U_MORE;
	}
	return U_JUNK;
}

static int gunzip(struct unpacker *u)
{
	z_stream z = { 0 };
	int st = U_MORE;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return U_NOMEM;
	while (st == U_MORE) {
		size_t in = in_step(u), out = out_step(u);
		int e;

		if (!out) {
			st = U_FULL;
			break;
		}
		z.next_in = (Bytef *)(u->in + u->pos);
		z.avail_in = (uInt)in;
		z.next_out = u->img + u->len;
		z.avail_out = (uInt)out;
		e = inflate(&z, Z_NO_FLUSH);
		u->pos += in - z.avail_in;
		u->len += out - z.avail_out;
		switch (e) {
		case Z_OK:
			break;
		case Z_STREAM_END: /* a member, its CRC and length checked */
			st = after_stream(u, "\x1f\x8b", 2);
			if (st == U_MORE && inflateReset(&z) != Z_OK)
				st = U_NOMEM;
			break;
		case Z_BUF_ERROR: /* no progress with room to write: no input left */
			st = U_CUT;
			break;
		case Z_MEM_ERROR:
			st = U_NOMEM;
			break;
		default:
			u->why = z.msg ? z.msg : "invalid data";
			st = U_CORRUPT;
			break;
		}
	}
	inflateEnd(&z);
	return st;
}

static int bunzip2(struct unpacker *u)
{
	bz_stream b = { 0 };
	int st = U_MORE;

	if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
		return U_NOMEM;
	while (st == U_MORE) {
		size_t in = in_step(u), out = out_step(u);
		int e;

		if (!out) {
			st = U_FULL;
			break;
		}
		b.next_in = (char *)(u->in + u->pos);
		b.avail_in = (unsigned)in;
		b.next_out = (char *)(u->img + u->len);
		b.avail_out = (unsigned)out;
		e = BZ2_bzDecompress(&b);
		u->pos += in - b.avail_in;
		u->len += out - b.avail_out;
		switch (e) {
		case BZ_OK:
			if (!in && b.avail_out == out)
				st = U_CUT; /* no input left, nothing more came out */
			break;
		case BZ_STREAM_END: /* a stream, its blocks' and its own CRC checked */
			st = after_stream(u, "BZh", 3);
			if (st == U_MORE) {
				BZ2_bzDecompressEnd(&b);
				memset(&b, 0, sizeof(b));
				if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK)
					return U_NOMEM;
			}
			break;
		case BZ_MEM_ERROR:
			st = U_NOMEM;
			break;
		case BZ_DATA_ERROR_MAGIC:
			u->why = "bad stream header";
			st = U_CORRUPT;
			break;
		default:
			u->why = "a block fails its check";
			st = U_CORRUPT;
			break;
		}
	}
	BZ2_bzDecompressEnd(&b);
	return st;
}

static const char *xz_why(lzma_ret e)
{
	switch (e) {
	case LZMA_FORMAT_ERROR:
		return "bad stream header";
	case LZMA_OPTIONS_ERROR:
		return "options this liblzma does not know";
	case LZMA_DATA_ERROR:
		return "bad data";
	default:
		return "invalid data";
	}
}

/* xz (@alone false) or the older lzma format */
static int unxz(struct unpacker *u, bool alone)
{
	lzma_stream s = LZMA_STREAM_INIT;
	int st = U_MORE;
	lzma_ret e;

	e = alone ? lzma_alone_decoder(&s, XZ_MEMLIMIT) : lzma_stream_decoder(&s, XZ_MEMLIMIT, 0);
	if (e != LZMA_OK)
		return U_NOMEM;
	while (st == U_MORE) {
		size_t in = in_step(u), out = out_step(u);

		if (!out) {
			st = U_FULL;
			break;
		}
		s.next_in = u->in + u->pos;
		s.avail_in = in;
		s.next_out = u->img + u->len;
		s.avail_out = out;
		e = lzma_code(&s, u->pos + in == u->in_len ? LZMA_FINISH : LZMA_RUN);
		u->pos += in - s.avail_in;
		u->len += out - s.avail_out;
		switch (e) {
		case LZMA_OK:
			break;
		case LZMA_STREAM_END: /* xz: a stream, its blocks' checks verified */
			st = after_stream(u, alone ? NULL : "\xfd" "7zXZ", 6);
			if (st == U_MORE) {
				lzma_end(&s);
				s = (lzma_stream)LZMA_STREAM_INIT;
				if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
					return U_NOMEM;
			}
			break;
		case LZMA_BUF_ERROR: /* no progress: the input ended */
			st = U_CUT;
			break;
		case LZMA_MEM_ERROR:
			st = U_NOMEM;
			break;
		case LZMA_MEMLIMIT_ERROR:
			u->need = lzma_memusage(&s);
			st = U_MEMLIMIT;
			break;
		default:
			u->why = xz_why(e);
			st = U_CORRUPT;
			break;
		}
	}
	lzma_end(&s);
	return st;
}

static bool zstd_magic(const unsigned char *p, size_t n)
{
	return n >= 4 && ((p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) ||
			  ((p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18));
}

/* zstd: every frame in turn (skippable ones skipped), straight into the image */
static int unzstd(struct unpacker *u)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_outBuffer out = { u->img, u->limit, 0 };
	size_t hint = 1; /* 0 at a frame's end */
	size_t frame_at = 0, frame_out = 0; /* where the frame began, in and out */
	unsigned long long bound;
	int st = U_MORE;

	if (!d)
		return U_NOMEM;
	/* the image is the window: a large one costs no memory of its own */
	if (!ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_stableOutBuffer, 1)))
		(void)ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX);
	while (st == U_MORE) {
		ZSTD_inBuffer in;
		size_t ret;

		if (!hint && u->pos) {
			/* a frame ended (its checksum, if it has one, verified) */
			st = after_stream(u, NULL, 0);
			if (st == U_JUNK && zstd_magic(u->in + u->pos, u->in_len - u->pos))
				st = U_MORE;
			if (st != U_MORE)
				break;
			frame_at = u->pos;
			frame_out = out.pos;
		}
		if (u->pos == u->in_len) {
			st = U_CUT;
			break;
		}
		if (out.pos == out.size) {
			st = U_FULL;
			break;
		}
		in = (ZSTD_inBuffer){ u->in, u->pos + (in_step(u) < ZSTD_IN_STEP ? in_step(u)
										: ZSTD_IN_STEP),
				      u->pos };
		warm(u);
		ret = ZSTD_decompressStream(d, &out, &in);
		u->pos = in.pos;
		u->len = out.pos;
		if (ZSTD_isError(ret)) {
			switch (ZSTD_getErrorCode(ret)) {
			case ZSTD_error_memory_allocation:
				st = U_NOMEM;
				break;
			case ZSTD_error_dstSize_tooSmall:
			case ZSTD_error_noForwardProgress_destFull:
				/*
				 * The image is full, or a block says it is larger than
				 * blocks are (corrupt).  zstd moves no position when it
				 * fails: full if what is left could outgrow the room.
				 */
				bound = ZSTD_decompressBound(u->in + frame_at, u->in_len - frame_at);
				if (out.size - out.pos < ZSTD_BLOCKSIZE_MAX ||
				    (bound != ZSTD_CONTENTSIZE_ERROR && bound > out.size - frame_out)) {
					st = U_FULL;
					break;
				}
				/* fall through */
			default:
				u->why = ZSTD_getErrorName(ret);
				u->why_end = in.size;
				st = U_CORRUPT;
				break;
			}
			break;
		}
		hint = ret;
	}
	ZSTD_freeDCtx(d);
	return st;
}

/* ---- what the bytes are ------------------------------------------------------------------ */

enum packer { PK_NONE, PK_GZIP, PK_BZIP2, PK_XZ, PK_LZMA, PK_ZSTD };

static const struct {
	const char *name, *tool; /* the tool that decompresses it to a file */
} packers[] = {
	[PK_GZIP] = { "gzip", "gzip -dk" },
	[PK_BZIP2] = { "bzip2", "bzip2 -dk" },
	[PK_XZ] = { "xz", "xz -dk" },
	[PK_LZMA] = { "lzma", "unlzma -k" },
	[PK_ZSTD] = { "zstd", "zstd -d" },
};

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static enum packer packer_of(const unsigned char *p, size_t n)
{
	if (n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
		return PK_GZIP;
	if (n >= 4 && !memcmp(p, "BZh", 3) && p[3] >= '1' && p[3] <= '9')
		return PK_BZIP2;
	if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return PK_XZ;
	if (zstd_magic(p, n))
		return PK_ZSTD;
	/*
	 * lzma has no magic: its header is the properties byte every tool
	 * writes (lc 3, lp 0, pb 2), a dictionary size of 2^n or 2^n + 2^(n-1),
	 * and the size, unknown (all ones) or below 256 GB (as xz's own test).
	 */
	if (n >= 13 && p[0] == 0x5d) {
		uint32_t dict = le32(p + 1), hi = le32(p + 9);
		uint32_t low = dict & -dict; /* its lowest bit */

		if (dict >= 4096 && (dict == low || dict == 3 * low) &&
		    ((hi == 0xffffffffu && le32(p + 5) == 0xffffffffu) || hi < 64))
			return PK_LZMA;
	}
	return PK_NONE;
}

/* Files rsp knows and does not read: what they are, what to do. */
static const struct foreign {
	size_t off, n;
	const char *magic, *what, *todo;
} foreign[] = {
	{ 0, 4, "PK\3\4", "a zip archive", "extract the perf.data from it (unzip) and open that" },
	{ 0, 6, "7z\xbc\xaf\x27\x1c", "a 7-Zip archive",
	  "extract the perf.data from it (7z x) and open that" },
	{ 0, 6, "Rar!\x1a\x07", "a RAR archive", "extract the perf.data from it and open that" },
	{ 257, 5, "ustar", "a tar archive",
	  "rsp archive's FILE.archive and perf archive's .tar.bz2 hold the binaries the "
	  "recording needs, not the recording: open the trace itself (FILE: its archive is "
	  "read beside it), or extract a trace from the tar (tar -xf) and open that" },
	{ 0, 4, "\x04\x22\x4d\x18", "lz4-compressed data",
	  "rsp reads gzip, bzip2, xz, lzma and zstd; decompress it (lz4 -d) and open that" },
	{ 0, 4, "LZIP", "lzip-compressed data",
	  "rsp reads gzip, bzip2, xz, lzma and zstd; decompress it (lzip -dk) and open that" },
	{ 0, 9, "\x89LZO\0\r\n\x1a\n", "lzop-compressed data",
	  "rsp reads gzip, bzip2, xz, lzma and zstd; decompress it (lzop -d) and open that" },
	{ 0, 2, "\x1f\x9d", "compress'd data (.Z)",
	  "rsp reads gzip, bzip2, xz, lzma and zstd; decompress it (uncompress) and open that" },
	{ 0, 4, "\x7f" "ELF", "an ELF file (a program or a library)",
	  "record it with `rsp record -- PROGRAM` or `perf record`" },
	{ 0, 10, "\x17\x08\x44tracing", "a trace-cmd trace.dat file",
	  "rsp reads perf.data, from `rsp record` or `perf record`" },
	{ 0, 4, "\x5e\x97\xca\xfd", "a sysprof capture",
	  "rsp reads perf.data, from `rsp record` or `perf record`" },
};

static const struct foreign *foreign_of(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		const struct foreign *f = &foreign[i];

		if (n >= f->off + f->n && !memcmp(p + f->off, f->magic, f->n))
			return f;
	}
	return NULL;
}

/* ---- the file decompressed ------------------------------------------------------------ */

/* What the stream's end says, for the reader's warning and the errors after it. */
static void note_end(struct rsp_reader *r, const char *name, int st, const struct unpacker *u)
{
	if (st == U_CUT)
		snprintf(r->unpack_note, sizeof(r->unpack_note),
			 "%s stream cut short at byte %zu (the end of the file), %zu bytes "
			 "decompressed",
			 name, u->pos, u->len);
	else
		snprintf(r->unpack_note, sizeof(r->unpack_note),
			 "%s stream ends at byte %zu of %zu, the rest is not %s data: %zu bytes "
			 "decompressed",
			 name, u->pos, u->in_len, name, u->len);
	r->unpack_cut = true;
	r->unpack_cut_at = u->pos;
	r->info.packed_cut = r->unpack_note;
}

int _rsp_reader_decompress(struct rsp_reader *r, char *err, size_t errlen)
{
	enum packer pk = packer_of(r->buf, r->size), inner;
	const struct foreign *f = NULL;
	struct unpacker u = { .in = r->buf, .in_len = r->size };
	const char *name;
	uint64_t limit;
	size_t keep, psize = (size_t)sysconf(_SC_PAGESIZE);
	int st, ret = 0;

	if (pk == PK_NONE) {
		f = foreign_of(r->buf, r->size);
		return f ? rsp_errf(err, errlen, -EINVAL, "not a perf.data file: %s; %s", f->what,
		                    f->todo)
		         : 0;
	}
	name = packers[pk].name;
	u.img = _rsp_image_reserve(&limit);
	if (!u.img)
		return rsp_errf(err, errlen, -ENOMEM,
		                "cannot decompress the %s file: no room for it in this process "
		                "(memory, or a ulimit -v)",
		                name);
	u.limit = (size_t)limit;
	u.warm.img = u.img;
	u.warm.limit = limit;
	switch (pk) {
	case PK_GZIP:
		st = gunzip(&u);
		break;
	case PK_BZIP2:
		st = bunzip2(&u);
		break;
	case PK_XZ:
	case PK_LZMA:
		st = unxz(&u, pk == PK_LZMA);
		break;
	default:
		st = unzstd(&u);
		break;
	}
	_rsp_warm_stop(&u.warm);
	switch (st) {
	case U_END:
		break;
	case U_CUT:
	case U_JUNK:
		note_end(r, name, st, &u);
		break;
	case U_CORRUPT:
		if (u.why_end > u.pos)
			ret =
			    rsp_errf(err, errlen, -EINVAL,
			             "%s data corrupt in bytes %zu-%zu of the file (%s): the file "
			             "is damaged",
			             name, u.pos, u.why_end - 1, u.why);
		else
			ret = rsp_errf(err, errlen, -EINVAL,
			               "%s data corrupt at byte %zu of the file (%s): the file is "
			               "damaged",
			               name, u.pos, u.why);
		goto fail;
	case U_FULL:
		ret = rsp_errf(err, errlen, -EFBIG,
		               "the %s file decompresses to more than %zu MB, more than this "
		               "process can hold (half the memory, or a ulimit -v): decompress "
		               "it to a file (%s) and open that",
		               name, u.limit >> 20, packers[pk].tool);
		goto fail;
	case U_MEMLIMIT:
		ret = rsp_errf(err, errlen, -EFBIG,
		               "the %s stream needs %llu MB of memory to decompress, more than "
		               "rsp allows (%llu MB): decompress it to a file (%s) and open that",
		               name, (unsigned long long)(u.need >> 20),
		               (unsigned long long)(XZ_MEMLIMIT >> 20), packers[pk].tool);
		goto fail;
	default:
		ret =
		    rsp_errf(err, errlen, -ENOMEM, "out of memory decompressing the %s file", name);
		goto fail;
	}
	if (!u.len) {
		if (st == U_CUT)
			ret = rsp_errf(err, errlen, -EINVAL,
			               "%s stream cut short at byte %zu (the end of the file), "
			               "before any of it could be decompressed",
			               name, u.pos);
		else
			ret = rsp_errf(err, errlen, -EINVAL, "the %s file decompresses to nothing",
			               name);
		goto fail;
	}
	inner = packer_of(u.img, u.len);
	f = foreign_of(u.img, u.len);
	if (inner != PK_NONE)
		ret = rsp_errf(err, errlen, -EINVAL,
		               "not a perf.data file: %s-compressed %s-compressed data; decompress "
		               "it (%s, then %s) and open that: rsp takes off one layer",
		               name, packers[inner].name, packers[pk].tool, packers[inner].tool);
	else if (f)
		ret = rsp_errf(err, errlen, -EINVAL, "not a perf.data file: %s-compressed, %s; %s",
		               name, f->what, f->todo);
	if (ret)
		goto fail;
	if (u.len <= SMALL_IMAGE) {
		/* on the heap: one unmapping of the reservation, not three changes to it */
		r->unpack_copy = malloc(u.len);
		if (!r->unpack_copy) {
			ret = rsp_errf(err, errlen, -ENOMEM,
			               "out of memory decompressing the %s file", name);
			goto fail;
		}
		memcpy(r->unpack_copy, u.img, u.len);
		munmap(u.img, u.limit);
		r->buf = r->unpack_copy;
	} else {
		/* give back the reservation past the image */
		keep = (u.len + psize - 1) / psize * psize;
		if (keep < u.limit)
			munmap(u.img + keep, u.limit - keep);
		mprotect(u.img, keep, PROT_READ);
		r->buf = u.img;
		r->mapped = true;
	}
	r->size = u.len;
	r->info.packed = name;
	r->info.packed_size = u.in_len;
	return 0;
fail:
	munmap(u.img, u.limit);
	r->unpack_cut = false;
	r->info.packed_cut = NULL;
	return ret;
}

int _rsp_reader_decompressed_error(const struct rsp_reader *r, int ret, char *err, size_t errlen)
{
	char what[256];

	if (!r->info.packed || !err || !errlen)
		return ret;
	snprintf(what, sizeof(what), "%s", err);
	if (r->unpack_cut)
		return rsp_errf(err, errlen, ret, "%s: %s", r->unpack_note, what);
	return rsp_errf(err, errlen, ret, "%s-compressed file: %s", r->info.packed, what);
}
