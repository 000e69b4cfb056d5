/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedstream_inflate.h -- compressed input: one gzip member's inflate step, by zlib or
 * by ISA-L, and a stream of members, gzip members or zstd frames (cfs_unpack; zstd by
 * libzstd).
 *
 * The one place FeedStream decompresses: the input stage (input.c), the Swift
 * library's readers of JSON Feed, web archives and read-ahead chunks (InputStage.swift),
 * and the benchmark's "inflate only" all go through cfs_unpack, which calls
 * cfs_inflate_step for gzip. It inflates with zlib, or with Intel's ISA-L
 * (igzip, faster than zlib: docs/PERFORMANCE.md) when the library was built with ISA-L's header
 * (Debian's libisal-dev) and libisal.so.2 loads at run time: never a hard dependency.
 *
 * zlib is the default. ISA-L is chosen per reader: for a gzip stream
 * (cfs_unpack_set_engine), an input stage (cfs_input_set_inflater), a run of the command
 * line (--inflate isa-l); FEEDSTREAM_INFLATE=isa-l in the environment, read once, makes
 * it the default of the readers made without a choice.
 * On an intact stream the two give the same bytes and the same member boundaries:
 * zlib parses every member's gzip header (its checks, its errors), ISA-L inflates the
 * deflate data, and the trailer (CRC-32, length) is checked here as zlib checks it.
 * On a corrupt or truncated member they can stop a few bytes apart (each decoder notices
 * damage at its own point; ISA-L accepts some block headers zlib rejects, and its point
 * can move a little with how the input is cut into calls), which is why the faster one
 * is a choice, not a default: with zlib the output depends on neither the libraries a
 * machine has nor how the input was cut.
 */
#ifndef FEEDSTREAM_INFLATE_H
#define FEEDSTREAM_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CFS_INFLATE_ZLIB = 1,
    CFS_INFLATE_ISAL = 2,
} cfs_inflate_engine;

typedef enum {
    CFS_INFLATE_OK = 0,      /* progress, or waiting for more input */
    CFS_INFLATE_END = 1,     /* the member ended, its trailer checked; the next byte is after it */
    CFS_INFLATE_STALL = 2,   /* no progress possible with this input and output room */
    CFS_INFLATE_ERROR = -1,  /* corrupt data: what was written before it is good */
    CFS_INFLATE_NOMEM = -2,
} cfs_inflate_result;

typedef struct cfs_inflate cfs_inflate;

/* The engine of readers made without a choice: zlib, unless FEEDSTREAM_INFLATE=isa-l
   (read once) chose ISA-L and it is available. */
cfs_inflate_engine cfs_inflate_default_engine(void);
/* "zlib" or "isa-l". */
const char *cfs_inflate_engine_name(cfs_inflate_engine engine);
/* 1 when ISA-L was built in and libisal.so.2 loaded. */
int cfs_inflate_isal_available(void);
/* `engine` where it can be used: ISA-L only when available, else zlib. */
cfs_inflate_engine cfs_inflate_usable_engine(cfs_inflate_engine engine);

/* Tests only: ISA-L's 32-bit output counter is brought back once past `ceiling` (by
   default 2^31) so that members past 4 GiB inflate; a test lowers it to see that done. */
void cfs_inflate_set_isal_counter_ceiling(uint32_t ceiling);

cfs_inflate *cfs_inflate_new(void);
void cfs_inflate_free(cfs_inflate *s);
/* A new gzip member starts with the next byte, inflated by `engine` (zlib when ISA-L is
   not available). */
cfs_inflate_result cfs_inflate_begin(cfs_inflate *s, cfs_inflate_engine engine);
/* The engine inflating the current member (cfs_inflate_begin's, where usable). */
cfs_inflate_engine cfs_inflate_current_engine(const cfs_inflate *s);
/* Inflates from in[0..in_len) into out[0..out_len) (each below 4 GiB): *used bytes of
   the input taken, *written bytes of output. After CFS_INFLATE_END, *used stops at the
   member's last byte. */
cfs_inflate_result cfs_inflate_step(cfs_inflate *s, const uint8_t *in, size_t in_len, size_t *used,
                                    uint8_t *out, size_t out_len, size_t *written);

/* ---- a compressed stream: members one after another --------------------------------- */

/* The compressed formats read: gzip (RFC 1952) and zstd (RFC 8878). */
typedef enum {
    CFS_PACK_NONE = 0,
    CFS_PACK_GZIP = 1,
    CFS_PACK_ZSTD = 2,
} cfs_pack_format;

/* Which format a stream's first bytes b[0..n) say: gzip (1F 8B), zstd (28 B5 2F FD) or
   none (plain). Returns 1 once they tell (*format set), 0 when more bytes are needed
   (a prefix of a magic number); with `at_end` (no more bytes will come) always 1. */
int cfs_pack_detect(const uint8_t *b, size_t n, int at_end, cfs_pack_format *format);
/* "gzip" or "zstd", as the messages name them. */
const char *cfs_pack_name(cfs_pack_format format);

/* What cfs_unpack_step did. */
typedef enum {
    CFS_UNPACK_OK = 0,       /* progress: call again (more output may come from this input) */
    CFS_UNPACK_NEED = 1,     /* this input is used up, or no progress is possible with it */
    CFS_UNPACK_GAP = 2,      /* reading resumed after a gap (cfs_unpack_gap): the output
                                from the next step on is the next member's, not a
                                continuation of the bytes before */
    CFS_UNPACK_CORRUPT = -2, /* the inflater could not start, or a failure before: every step fails */
    CFS_UNPACK_NOMEM = -3,   /* out of memory: every step fails */
} cfs_unpack_result;

typedef struct cfs_unpack cfs_unpack;

cfs_unpack *cfs_unpack_new(void);
void cfs_unpack_free(cfs_unpack *g);
/* A new stream of `format` (gzip or zstd) starts with the next byte, the first of its
   first member (whose magic bytes the caller has seen): the counts start again.
   CFS_UNPACK_OK, CFS_UNPACK_NOMEM or CFS_UNPACK_CORRUPT (the decoder could not start).
   A member is a gzip member or a zstd frame (zstd's skippable frames are members that
   give no bytes); zero bytes between members are padding in both. */
cfs_unpack_result cfs_unpack_begin(cfs_unpack *g, cfs_pack_format format);
/* The format begun. */
cfs_pack_format cfs_unpack_format(const cfs_unpack *g);
/* One step: between members, skips padding zeros and begins the next member; then
   inflates from in[0..in_len) into out[0..out_len): *used bytes of the input taken,
   *written bytes of output.
   A member that cannot be read (a bad header, data that cannot be decoded, a checksum
   or length that does not match) or bytes between members that are neither zeros nor a
   member do not end the stream: what the member inflated to before the failure is
   written, then the following bytes are searched for the next member (the first
   place after the failed member's start that begins as a member does and inflates,
   tried apart (gzip with zlib), to its end or 16 KiB without an error, looked for also in the failed
   member's own last MiB: a member cut short runs on into the next). Once one is found
   the step returns CFS_UNPACK_GAP (nothing written), and the skipped bytes are
   cfs_unpack_gap's. Every choice depends on the bytes only, not on how they were cut
   into calls. */
cfs_unpack_result cfs_unpack_step(cfs_unpack *g, const uint8_t *in, size_t in_len, size_t *used,
                                  uint8_t *out, size_t out_len, size_t *written);
/* The input ended. CFS_UNPACK_OK when bytes are held (a zstd frame's last piece): call
   cfs_unpack_step with no input until CFS_UNPACK_NEED, then cfs_unpack_finish again.
   CFS_UNPACK_GAP when a search for the next member was under way:
   either a member was found in the bytes kept (call cfs_unpack_step with no input until
   CFS_UNPACK_NEED to read it, then cfs_unpack_finish again), or none was and the gap
   runs to the end (the next call returns CFS_UNPACK_NEED). Otherwise CFS_UNPACK_NEED
   (cfs_unpack_in_member tells whether the stream was cut short), or CFS_UNPACK_NOMEM. */
cfs_unpack_result cfs_unpack_finish(cfs_unpack *g);
/* The last gap: the compressed bytes [*from, *to) of the stream that were not read as
   a member (from the failed member's first byte, or from the first byte that was not
   one), and why ("corrupt gzip data", "trailing garbage after gzip data", the same
   with zstd).
   Static strings. */
void cfs_unpack_gap(const cfs_unpack *g, uint64_t *from, uint64_t *to, const char **why);
/* The engine of the members begun from now on (cfs_inflate_usable_engine's); the
   default's (cfs_inflate_default_engine) until set. */
void cfs_unpack_set_engine(cfs_unpack *g, cfs_inflate_engine engine);
/* The engine of the last member begun (or of the next, before the first). */
cfs_inflate_engine cfs_unpack_engine(const cfs_unpack *g);
/* 1 inside a member (the stream ending now is truncated), 0 between members or in a gap. */
int cfs_unpack_in_member(const cfs_unpack *g);
/* 1 while the bytes after a failure are searched for the next member. */
int cfs_unpack_in_gap(const cfs_unpack *g);
/* Compressed bytes inflate consumed, over all members (padding and gaps not counted). */
uint64_t cfs_unpack_consumed(const cfs_unpack *g);
/* Padding zeros skipped between members. */
uint64_t cfs_unpack_padding(const cfs_unpack *g);
/* Bytes of the input taken by the steps (every *used), gaps included. */
uint64_t cfs_unpack_taken(const cfs_unpack *g);
/* Members begun (the first included), and where the last one begun starts in the
   compressed input. */
uint64_t cfs_unpack_members(const cfs_unpack *g);
uint64_t cfs_unpack_member_start(const cfs_unpack *g);

/* ---- deflate: one block of a gzip member ------------------------------------------- */

/* Deflates blocks of one gzip member that are compressed apart (on several threads)
   and joined (pigz's layout): each block is raw deflate primed with the 32 KiB before
   it as dictionary, ending on a byte boundary (an empty stored block: a sync flush),
   the last with the final block. The bytes depend only on the input, the engine and the
   level. With ISA-L (levels 1 to 3; much faster than zlib at a ratio near zlib's
   levels 1 to 3) when it is available and asked for, else zlib (levels 1 to 9). */
typedef struct cfs_deflate cfs_deflate;

/* 1 when ISA-L's deflate was built in and loaded. */
int cfs_deflate_isal_available(void);
/* A deflater with `engine` (ISA-L only where available) at `level`; NULL when out of
   memory or the level is not the engine's. One thread uses one. */
cfs_deflate *cfs_deflate_new(cfs_inflate_engine engine, int level);
void cfs_deflate_free(cfs_deflate *d);
/* The engine it deflates with. */
cfs_inflate_engine cfs_deflate_engine(const cfs_deflate *d);
/* The room cfs_deflate_block needs for `len` input bytes. */
size_t cfs_deflate_bound(size_t len);
/* Deflates in[0..len) primed with dict[0..dict_len) (at most 32 KiB), as the member's
   last block when `last`, into out (cap >= cfs_deflate_bound(len)). Returns the bytes
   written; 0 on failure (out of memory). */
size_t cfs_deflate_block(cfs_deflate *d, const uint8_t *dict, size_t dict_len, const uint8_t *in, size_t len,
                         int last, uint8_t *out, size_t cap);
/* The gzip CRC-32 of data[0..len) continuing `crc` (0 to start), as zlib's crc32():
   ISA-L's where it is loaded (several times faster), else zlib's. */
uint32_t cfs_crc32(uint32_t crc, const uint8_t *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
