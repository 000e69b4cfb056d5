/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inflate.c -- one gzip member's inflate step, by zlib or by ISA-L (feedstream_inflate.h).
 *
 * With zlib, zlib does the whole member. With ISA-L, a member goes in three phases:
 *   header   zlib, asked to stop after the gzip header (Z_BLOCK): every header check and
 *            error is zlib's, and it takes exactly the header's bytes;
 *   body     ISA-L, raw deflate, computing the CRC-32 of what it writes (ISAL_GZIP_NO_HDR),
 *            into a stage of its own (STAGE, below) the caller's room is filled from;
 *   trailer  the 8 bytes after the deflate data, CRC-32 and length (mod 2^32), compared
 *            here as zlib compares them. ISA-L may have read some of them into its bit
 *            buffer already: they are taken from there.
 * ISA-L's own counter of bytes written is 32 bits and checked against look-back
 * distances (a distance past it is refused), so once past 2^31 it is brought back to
 * 64 KiB, still past any distance: a member longer than 4 GiB inflates as any other
 * (the trailer's length is compared with this file's own 64-bit count).
 */
#include "feedstream_inflate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#if !defined(FEEDSTREAM_NO_ISAL) && defined(__has_include)
#if __has_include(<isa-l/igzip_lib.h>)
#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
#define HAVE_ISAL 1
#endif
#endif

#ifdef HAVE_ISAL
static struct {
    void (*init)(struct inflate_state *);
    void (*reset)(struct inflate_state *);
    int (*inflate)(struct inflate_state *);
    /* deflate (cfs_deflate_block): all three, or none */
    void (*deflate_init)(struct isal_zstream *);
    int (*deflate_set_dict)(struct isal_zstream *, uint8_t *, uint32_t);
    int (*deflate)(struct isal_zstream *);
    uint32_t (*crc32)(uint32_t, const unsigned char *, uint64_t);   /* crc32_gzip_refl: zlib's CRC-32 */
} isal;
static int isal_deflate_loaded;
#ifdef __APPLE__
#define ISAL_LIBRARY "libisal.2.dylib"
#else
#define ISAL_LIBRARY "libisal.so.2"
#endif
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int isal_loaded;
static int default_engine = CFS_INFLATE_ZLIB;   /* set once, by load */

/* ISA-L's 32-bit output counter is brought back to ISAL_COUNTER_FLOOR once past
   isal_counter_ceiling (a variable so that a test can lower it). */
#define ISAL_COUNTER_FLOOR ((uint32_t)1 << 16)   /* past the 32 KiB window: no look-back is refused */
static _Atomic uint32_t isal_counter_ceiling = (uint32_t)1 << 31;

void cfs_inflate_set_isal_counter_ceiling(uint32_t ceiling) {
    atomic_store(&isal_counter_ceiling, ceiling > ISAL_COUNTER_FLOOR ? ceiling : ISAL_COUNTER_FLOOR);
}

static void load(void) {
    int engine = CFS_INFLATE_ZLIB;
#ifdef HAVE_ISAL
    void *h = dlopen(ISAL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (h != NULL) {
        *(void **)&isal.init = dlsym(h, "isal_inflate_init");
        *(void **)&isal.reset = dlsym(h, "isal_inflate_reset");
        *(void **)&isal.inflate = dlsym(h, "isal_inflate");
        *(void **)&isal.deflate_init = dlsym(h, "isal_deflate_init");
        *(void **)&isal.deflate_set_dict = dlsym(h, "isal_deflate_set_dict");
        *(void **)&isal.deflate = dlsym(h, "isal_deflate");
        *(void **)&isal.crc32 = dlsym(h, "crc32_gzip_refl");
        isal_deflate_loaded = isal.deflate_init && isal.deflate_set_dict && isal.deflate && isal.crc32;
        if (isal.init && isal.reset && isal.inflate) isal_loaded = 1;
        else if (!isal_deflate_loaded) dlclose(h);
    }
    const char *env = getenv("FEEDSTREAM_INFLATE");
    if (isal_loaded && env != NULL && strcmp(env, "isa-l") == 0)
        engine = CFS_INFLATE_ISAL;
#endif
    default_engine = engine;
}

cfs_inflate_engine cfs_inflate_default_engine(void) {
    pthread_once(&load_once, load);
    return (cfs_inflate_engine)default_engine;
}

const char *cfs_inflate_engine_name(cfs_inflate_engine engine) {
    return engine == CFS_INFLATE_ISAL ? "isa-l" : "zlib";
}

int cfs_inflate_isal_available(void) {
    pthread_once(&load_once, load);
    return isal_loaded;
}

cfs_inflate_engine cfs_inflate_usable_engine(cfs_inflate_engine engine) {
    pthread_once(&load_once, load);
    return engine == CFS_INFLATE_ISAL && isal_loaded ? CFS_INFLATE_ISAL : CFS_INFLATE_ZLIB;
}

enum phase { P_ZLIB, P_HEADER, P_BODY, P_TRAILER, P_DONE };

/* ISA-L inflates into a stage of its own, always this big, and the caller's room is
   filled from it: ISA-L decodes ahead of what it hands out (into its own buffer, up to
   its history's size), and on an error what it decoded before it but did not hand out
   is lost; given all the room every time, it hands out everything, so what comes out
   before an error does not depend on the caller's rooms (the input stage's checkpoints,
   the read-ahead thread's buffers). */
#define STAGE ((size_t)256 << 10)
/* ISA-L reads its input from a copy, at most this much at a time, followed by zeros:
   on malformed data it can read past the end of what it was given. */
#define IN_STAGE ((size_t)64 << 10)
#define IN_PADDING 64

struct cfs_inflate {
    z_stream z;
    cfs_inflate_engine engine;        /* the current member's */
    enum phase phase;
    uint8_t trailer[8];
    size_t trailer_len;
    uint64_t written;            /* this member's output (ISA-L) */
#ifdef HAVE_ISAL
    struct inflate_state *st;    /* allocated at the first ISA-L member, with the stage */
    uint8_t *stage;              /* ISA-L's output, handed out from staged_at to staged */
    uint8_t *in_stage;           /* ISA-L's input: IN_STAGE bytes and IN_PADDING zeros */
    size_t staged, staged_at;
    cfs_inflate_result after_stage;   /* what ISA-L said, once the stage is handed out */
#endif
};

cfs_inflate *cfs_inflate_new(void) {
    cfs_inflate *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
        free(s);
        return NULL;
    }
    s->phase = P_DONE;
    s->engine = CFS_INFLATE_ZLIB;
    return s;
}

void cfs_inflate_free(cfs_inflate *s) {
    if (s == NULL) return;
    inflateEnd(&s->z);
#ifdef HAVE_ISAL
    free(s->st);
    free(s->stage);
    free(s->in_stage);
#endif
    free(s);
}

cfs_inflate_result cfs_inflate_begin(cfs_inflate *s, cfs_inflate_engine engine) {
    if (inflateReset2(&s->z, 16 + MAX_WBITS) != Z_OK) return CFS_INFLATE_ERROR;
    s->engine = cfs_inflate_usable_engine(engine);
    s->trailer_len = 0;
    s->written = 0;
    s->phase = P_ZLIB;
#ifdef HAVE_ISAL
    if (s->engine == CFS_INFLATE_ISAL) {
        if (s->st == NULL) {
            if ((s->st = malloc(sizeof *s->st)) == NULL) return CFS_INFLATE_NOMEM;
            isal.init(s->st);
        }
        if (s->stage == NULL && (s->stage = malloc(STAGE)) == NULL) return CFS_INFLATE_NOMEM;
        if (s->in_stage == NULL && (s->in_stage = calloc(1, IN_STAGE + IN_PADDING)) == NULL) return CFS_INFLATE_NOMEM;
        s->staged = s->staged_at = 0;
        s->after_stage = CFS_INFLATE_OK;
        s->phase = P_HEADER;
    }
#endif
    return CFS_INFLATE_OK;
}

cfs_inflate_engine cfs_inflate_current_engine(const cfs_inflate *s) { return s->engine; }

/* zlib over in/out (the whole member, or with Z_BLOCK its header). */
static int zlib_step(cfs_inflate *s, const uint8_t *in, size_t in_len, size_t *used, uint8_t *out,
                     size_t out_len, size_t *written, int flush) {
    s->z.next_in = (Bytef *)in;
    s->z.avail_in = (uInt)in_len;
    s->z.next_out = out;
    s->z.avail_out = (uInt)out_len;
    int zr = inflate(&s->z, flush);
    *used = in_len - s->z.avail_in;
    *written = out_len - s->z.avail_out;
    s->z.next_in = NULL;   /* never keep the caller's pointers */
    s->z.avail_in = 0;
    s->z.next_out = NULL;
    s->z.avail_out = 0;
    return zr;
}

#ifdef HAVE_ISAL
static uint32_t le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
#endif

cfs_inflate_result cfs_inflate_step(cfs_inflate *s, const uint8_t *in, size_t in_len, size_t *used,
                                    uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    if (s->phase == P_DONE) return CFS_INFLATE_STALL;
    if (s->phase == P_ZLIB) {
        int zr = zlib_step(s, in, in_len, used, out, out_len, written, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            s->phase = P_DONE;
            return CFS_INFLATE_END;
        }
        if (zr == Z_BUF_ERROR) return CFS_INFLATE_STALL;
        return zr == Z_OK ? CFS_INFLATE_OK : CFS_INFLATE_ERROR;
    }
#ifdef HAVE_ISAL
    size_t u = 0, w = 0;
    if (s->phase == P_HEADER) {
        int zr = zlib_step(s, in, in_len, &u, out, out_len, &w, Z_BLOCK);
        *used = u;
        if (zr != Z_OK && zr != Z_BUF_ERROR) return CFS_INFLATE_ERROR;
        if (!(s->z.data_type & 128)) return u == 0 ? CFS_INFLATE_STALL : CFS_INFLATE_OK;
        /* The header is done; the deflate data starts at in[u]. */
        isal.reset(s->st);
        s->st->crc_flag = ISAL_GZIP_NO_HDR;
        s->phase = P_BODY;
    }
    if (s->phase == P_BODY && s->staged_at == s->staged) {
        /* The stage is empty: ISA-L inflates into all of it, whatever the caller's room. */
        struct inflate_state *st = s->st;
        size_t k = in_len - u < IN_STAGE ? in_len - u : IN_STAGE;
        if (k) memcpy(s->in_stage, in + u, k);
        memset(s->in_stage + k, 0, IN_PADDING);   /* what a read past it finds: the same every time */
        st->next_in = s->in_stage;
        st->avail_in = (uint32_t)k;
        st->next_out = s->stage;
        st->avail_out = STAGE;
        int r = isal.inflate(st);
        /* On some malformed data ISA-L counts past the input it was given (its count
           wraps): that input is corrupt, and only the padding was read past it. */
        if (st->avail_in > k || st->next_in != s->in_stage + (k - st->avail_in)) {
            r = -1;
            st->avail_in = 0;
        }
        u += k - st->avail_in;
        s->staged = STAGE - st->avail_out;
        s->staged_at = 0;
        st->next_in = NULL;
        st->avail_in = 0;
        st->next_out = NULL;
        st->avail_out = 0;
        s->written += s->staged;
        if (r < 0) {
            s->after_stage = CFS_INFLATE_ERROR;   /* once what came before it is handed out */
        } else if (st->block_state == ISAL_BLOCK_FINISH) {
            /* The deflate data ended: the whole bytes left in ISA-L's bit buffer, after
               the last byte's padding bits, are the trailer's first. */
            int bits = st->read_in_length;
            uint64_t held = st->read_in >> (bits % 8);
            for (int b = 0; b < bits / 8 && s->trailer_len < 8; b++) s->trailer[s->trailer_len++] = (uint8_t)(held >> (8 * b));
            s->after_stage = CFS_INFLATE_END;
        }
        if (st->total_out > atomic_load(&isal_counter_ceiling)) st->total_out = ISAL_COUNTER_FLOOR;
    }
    if (s->phase == P_BODY) {
        size_t n = s->staged - s->staged_at;
        if (n > out_len) n = out_len;
        memcpy(out, s->stage + s->staged_at, n);
        s->staged_at += n;
        w = n;
        *used = u;
        *written = w;
        if (s->staged_at < s->staged || s->after_stage == CFS_INFLATE_OK)
            return u == 0 && w == 0 ? CFS_INFLATE_STALL : CFS_INFLATE_OK;
        if (s->after_stage == CFS_INFLATE_ERROR) {
            s->phase = P_DONE;
            return CFS_INFLATE_ERROR;
        }
        s->phase = P_TRAILER;
    }
    /* P_TRAILER */
    while (s->trailer_len < 8 && u < in_len) s->trailer[s->trailer_len++] = in[u++];
    *used = u;
    if (s->trailer_len < 8) return u == 0 && w == 0 ? CFS_INFLATE_STALL : CFS_INFLATE_OK;
    s->phase = P_DONE;
    if (le32(s->trailer) != s->st->crc || le32(s->trailer + 4) != (uint32_t)s->written) return CFS_INFLATE_ERROR;
    return CFS_INFLATE_END;
#else
    return CFS_INFLATE_ERROR;
#endif
}

/* ---- deflate: one block of a gzip member (feedstream_inflate.h) ------------------------ */

struct cfs_deflate {
    cfs_inflate_engine engine;
    int level;
    z_stream z;             /* zlib, raw deflate, reset per block */
    int z_ready;
#ifdef HAVE_ISAL
    struct isal_zstream *is;
    uint8_t *level_buf;
    size_t level_buf_size;
#endif
};

int cfs_deflate_isal_available(void) {
    pthread_once(&load_once, load);
#ifdef HAVE_ISAL
    return isal_deflate_loaded;
#else
    return 0;
#endif
}

cfs_deflate *cfs_deflate_new(cfs_inflate_engine engine, int level) {
    cfs_deflate *d = calloc(1, sizeof *d);
    if (d == NULL) return NULL;
    d->engine = engine == CFS_INFLATE_ISAL && cfs_deflate_isal_available() ? CFS_INFLATE_ISAL : CFS_INFLATE_ZLIB;
    d->level = level;
#ifdef HAVE_ISAL
    if (d->engine == CFS_INFLATE_ISAL) {
        if (level < 1 || level > ISAL_DEF_MAX_LEVEL) { free(d); return NULL; }
        d->level_buf_size = level == 1 ? ISAL_DEF_LVL1_DEFAULT : level == 2 ? ISAL_DEF_LVL2_DEFAULT : ISAL_DEF_LVL3_DEFAULT;
        d->is = malloc(sizeof *d->is);
        d->level_buf = malloc(d->level_buf_size);
        if (d->is == NULL || d->level_buf == NULL) { cfs_deflate_free(d); return NULL; }
        return d;
    }
#endif
    if (level < 1 || level > 9 ||
        deflateInit2(&d->z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        return NULL;
    }
    d->z_ready = 1;
    return d;
}

void cfs_deflate_free(cfs_deflate *d) {
    if (d == NULL) return;
    if (d->z_ready) deflateEnd(&d->z);
#ifdef HAVE_ISAL
    free(d->is);
    free(d->level_buf);
#endif
    free(d);
}

cfs_inflate_engine cfs_deflate_engine(const cfs_deflate *d) { return d->engine; }

size_t cfs_deflate_bound(size_t len) {
    /* Stored blocks at worst (5 bytes per 16 KiB, zlib's and ISA-L's), a dynamic block
       header, the sync flush's empty stored block and the final block: with room. */
    return len + len / 8 + 1024;
}

size_t cfs_deflate_block(cfs_deflate *d, const uint8_t *dict, size_t dict_len, const uint8_t *in, size_t len,
                         int last, uint8_t *out, size_t cap) {
    if (cap < cfs_deflate_bound(len) || len > UINT32_MAX || dict_len > 32768) return 0;
#ifdef HAVE_ISAL
    if (d->engine == CFS_INFLATE_ISAL) {
        struct isal_zstream *s = d->is;
        isal.deflate_init(s);
        s->level = (uint32_t)d->level;
        s->level_buf = d->level_buf;
        s->level_buf_size = (uint32_t)d->level_buf_size;
        s->gzip_flag = IGZIP_DEFLATE;
        if (dict_len > 0 && isal.deflate_set_dict(s, (uint8_t *)dict, (uint32_t)dict_len) != COMP_OK) return 0;
        s->next_in = (uint8_t *)in;
        s->avail_in = (uint32_t)len;
        s->end_of_stream = last ? 1 : 0;
        s->flush = last ? NO_FLUSH : SYNC_FLUSH;
        s->next_out = out;
        s->avail_out = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
        if (isal.deflate(s) != COMP_OK || s->avail_in != 0) return 0;
        if (last && s->internal_state.state != ZSTATE_END) return 0;
        return (size_t)(s->next_out - out);
    }
#endif
    z_stream *z = &d->z;
    if (deflateReset(z) != Z_OK) return 0;
    if (dict_len > 0 && deflateSetDictionary(z, dict, (uInt)dict_len) != Z_OK) return 0;
    z->next_in = (Bytef *)in;
    z->avail_in = (uInt)len;
    z->next_out = out;
    z->avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    int r = deflate(z, last ? Z_FINISH : Z_SYNC_FLUSH);
    if (r != (last ? Z_STREAM_END : Z_OK) || z->avail_in != 0) return 0;
    return (size_t)(z->next_out - out);
}

uint32_t cfs_crc32(uint32_t crc, const uint8_t *data, size_t len) {
#ifdef HAVE_ISAL
    if (cfs_deflate_isal_available()) return isal.crc32(crc, data, len);
#endif
    while (len > 0) {
        uInt n = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
        crc = (uint32_t)crc32(crc, data, n);
        data += n;
        len -= n;
    }
    return crc;
}

