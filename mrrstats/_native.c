/* mrrstats._native: the file path's kernels compiled ahead of time (C, no numba).
 *
 * Line for line the numba kernels of mrrstats/io/tokenizer.py (the TREC run
 * tokenizer), mrrstats/model/ranking.py (rank_run's block kernels) and
 * mrrstats/metrics/kernels.py (the measures): the same arguments (numpy arrays,
 * read through the buffer protocol), the same results to the last bit. Kernels
 * that numba runs with ``prange`` take a last argument ``threads`` and share
 * their independent tasks (chunks, queries, groups) among that many POSIX
 * threads, the GIL released; each task writes only its own outputs, so the
 * results do not depend on the number of threads.
 *
 * One departure from line for line: the tokenizer finds the fields of a short plain
 * ASCII line (under 64 bytes, no byte below 32 but the separators, none >= 128) from
 * bit masks of its bytes, 16 at a time (SSE2), then copies and hashes them by words;
 * every other line goes through the numba kernel's byte loop. Both give the same
 * columns (tests/test_native.py, tests/io/test_tokenizer.py: odd lines in long files).
 *
 * Floating point: every operation is the IEEE double operation the numba kernel
 * performs, in the same order (built with -ffp-contract=off: no fused
 * multiply-add). tests/test_native.py compares both on the bundled runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct {
    Py_buffer view[24];
    int n;
} Bufs;

static void bufs_release(Bufs *b) {
    for (int i = 0; i < b->n; i++) PyBuffer_Release(&b->view[i]);
    b->n = 0;
}

/* A C-contiguous buffer of ``obj`` with items of ``itemsize`` bytes; NULL (and an
 * exception) otherwise. */
static void *buf_get(Bufs *b, PyObject *obj, Py_ssize_t itemsize, int writable,
                     Py_ssize_t *len) {
    Py_buffer *v = &b->view[b->n];
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, v, flags) < 0) return NULL;
    b->n++;
    if (v->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "mrrstats._native: items of %zd bytes expected, got %zd",
                     itemsize, v->itemsize);
        return NULL;
    }
    if (len) *len = v->len / itemsize;
    return v->buf ? v->buf : (void *)b; /* an empty array: any non-NULL pointer */
}

/* an unsigned 64-bit argument given as a Python int or a numpy integer */
static int as_u64(PyObject *obj, void *out) {
    PyObject *i = PyNumber_Index(obj);
    if (!i) return 0;
    unsigned long long v = PyLong_AsUnsignedLongLong(i);
    Py_DECREF(i);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return 0;
    *(unsigned long long *)out = v;
    return 1;
}

/* ---- threads: tasks 0..ntasks-1 taken in turn from a shared counter ---------- */
typedef void (*task_fn)(void *ctx, int64_t task);
typedef struct {
    task_fn fn;
    void *ctx;
    int64_t ntasks;
    int64_t next;
} Pool;

static void *pool_worker(void *arg) {
    Pool *p = (Pool *)arg;
    for (;;) {
        int64_t t = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
        if (t >= p->ntasks) break;
        p->fn(p->ctx, t);
    }
    return NULL;
}

static void run_tasks(task_fn fn, void *ctx, int64_t ntasks, int threads) {
    Pool p = {fn, ctx, ntasks, 0};
    if (threads > ntasks) threads = (int)ntasks;
    if (threads <= 1) {
        for (int64_t t = 0; t < ntasks; t++) fn(ctx, t);
        return;
    }
    pthread_t *ids = malloc(sizeof(pthread_t) * (size_t)(threads - 1));
    int started = 0;
    Py_BEGIN_ALLOW_THREADS
    if (ids) {
        for (int i = 0; i < threads - 1; i++) {
            if (pthread_create(&ids[i], NULL, pool_worker, &p) != 0) break;
            started++;
        }
    }
    pool_worker(&p);
    for (int i = 0; i < started; i++) pthread_join(ids[i], NULL);
    Py_END_ALLOW_THREADS
    free(ids);
}

/* ---- hashing (mrrstats.io.hashing.hash_strings) ----------------------------- */
#define M1 0x9E3779B97F4A7C15ULL
#define M2 0xBF58476D1CE4E5B9ULL
#define M3 0x94D049BB133111EBULL
#define HKEY 0x632BE59BD9B4E019ULL

static inline uint64_t word_term(uint64_t w, int64_t j) {
    w ^= (uint64_t)(j + 1) * HKEY;
    w *= M1;
    w ^= w >> 32;
    w *= M2;
    return w;
}

static uint64_t hash_bytes(const uint8_t *buf, int64_t s, int64_t n) {
    uint64_t h = (uint64_t)n * M3;
    int64_t nw = (n + 7) / 8;
    for (int64_t j = 0; j < nw; j++) {
        uint64_t w = 0;
        int64_t m = n - 8 * j;
        if (m > 8) m = 8;
        for (int64_t k = 0; k < m; k++) w |= (uint64_t)buf[s + 8 * j + k] << (8 * k);
        h += word_term(w, j) - word_term(0, j);
    }
    h ^= h >> 30;
    h *= M2;
    h ^= h >> 27;
    h *= M3;
    h ^= h >> 31;
    return h;
}

/* ---- the tokenizer ------------------------------------------------------------ */
static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define TWO53 (1ULL << 53)
enum { P_OK = 0, P_FIELDS = 1, P_NUMBER = 2, P_TAGS = 3, P_ENCODING = 4, P_CR = 5 };

/* status 0 parsed exactly, 1 needs Python's float, 2 not a number */
static inline int parse_score(const uint8_t *buf, int64_t s, int64_t e, double *out) {
    int64_t i = s;
    int neg = 0;
    uint8_t c = buf[i];
    if (c == 43 || c == 45) {
        neg = c == 45;
        i++;
    }
    uint64_t m = 0;
    int nd = 0;
    int64_t exp = 0;
    int digits = 0, dropped = 0;
    while (i < e && buf[i] >= 48 && buf[i] <= 57) {
        int d = buf[i] - 48;
        digits = 1;
        if (nd < 19) {
            if (m != 0 || d != 0) {
                m = m * 10 + (uint64_t)d;
                nd++;
            }
        } else {
            exp++;
            dropped = 1;
        }
        i++;
    }
    if (i < e && buf[i] == 46) {
        i++;
        while (i < e && buf[i] >= 48 && buf[i] <= 57) {
            int d = buf[i] - 48;
            digits = 1;
            if (nd < 19) {
                if (m != 0 || d != 0) {
                    m = m * 10 + (uint64_t)d;
                    nd++;
                }
                exp--;
            } else {
                dropped = 1;
            }
            i++;
        }
    }
    *out = 0.0;
    if (!digits) return 2;
    if (i < e && (buf[i] == 101 || buf[i] == 69)) {
        i++;
        int eneg = 0;
        if (i < e && (buf[i] == 43 || buf[i] == 45)) {
            eneg = buf[i] == 45;
            i++;
        }
        if (i >= e) return 2;
        int64_t ev = 0;
        while (i < e && buf[i] >= 48 && buf[i] <= 57) {
            if (ev < 100000) ev = ev * 10 + (buf[i] - 48);
            i++;
        }
        exp += eneg ? -ev : ev;
    }
    if (i != e) return 2;
    if (dropped) return 1;
    if (m == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (m > TWO53) return 1;
    double v = (double)m;
    if (exp > 0) {
        if (exp > 22) return 1;
        v = v * POW10[exp];
    } else if (exp < 0) {
        if (exp < -22) return 1;
        v = v / POW10[-exp];
    }
    *out = neg ? -v : v;
    return 0;
}

static int utf8_ok(const uint8_t *buf, int64_t s, int64_t e) {
    int64_t i = s;
    while (i < e) {
        uint8_t c = buf[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int n;
        uint8_t lo, hi;
        if (c >= 0xC2 && c <= 0xDF) {
            n = 1;
            lo = 0x80;
            hi = 0xBF;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return 0;
        }
        if (i + n >= e) return 0;
        if (!(lo <= buf[i + 1] && buf[i + 1] <= hi)) return 0;
        for (int k = 2; k <= n; k++)
            if (!(buf[i + k] >= 0x80 && buf[i + k] <= 0xBF)) return 0;
        i += n + 1;
    }
    return 1;
}

#define IS_SEP(x) ((x) == 32 || (x) == 9 || (x) == 11 || (x) == 12)
/* a byte ending a field: separator, newline or carriage return */
/* In the line loop of tokenize_chunk: past the separators after a field to the next
   one; a line that ends there has too few fields (problem set, the loop left). */
#define NEXT_FIELD_OR_BREAK                 \
    x = buf[p];                             \
    while (IS_SEP(x)) x = buf[++p];         \
    if (x == 10 || x == 13) {               \
        problem = P_FIELDS;                 \
        break;                              \
    }
#define ENDS_FIELD(x) ((x) <= 32 && (IS_SEP(x) || (x) == 10 || (x) == 13))

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_WORDS 1
#endif

/* End of the field starting at ``p``: the first field-ending byte (the chunk ends with
 * a newline before ``lim``); ``*high`` set where a byte >= 128 comes before it. Where
 * SSE2 is at hand, 16 bytes at a time: a byte <= 32 or >= 128 stops the block, and is
 * then looked at on its own (a control byte other than the six enders belongs to the
 * field). The scalar loop is the numba kernel's. */
static inline int64_t field_end(const uint8_t *buf, int64_t p, int64_t lim, int *high) {
#ifdef __SSE2__
    const __m128i k33 = _mm_set1_epi8(33), km1 = _mm_set1_epi8(-1);
    while (p + 16 <= lim) {
        __m128i v = _mm_loadu_si128((const __m128i *)(buf + p));
        unsigned lm = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpgt_epi8(v, km1), _mm_cmplt_epi8(v, k33)));
        unsigned hm = (unsigned)_mm_movemask_epi8(v);
        while (lm) {
            int i = __builtin_ctz(lm);
            uint8_t x = buf[p + i];
            if (ENDS_FIELD(x)) {
                if (hm & ((1u << i) - 1u)) *high = 1;
                return p + i;
            }
            lm &= lm - 1u;
        }
        if (hm) *high = 1;
        p += 16;
    }
#endif
    for (;;) {
        uint8_t x = buf[p];
        if (x <= 32) {
            if (ENDS_FIELD(x)) return p;
        } else if (x >= 128) {
            *high = 1;
        }
        p++;
    }
}

/* ``n`` bytes from ``src`` to ``dst``; 16 at a time (over-writing up to 15 bytes after
 * the field, which later fields or nothing read) where ``src + n + 16 <= lim``. The
 * destination never runs ahead of the source in its own array (a chunk's field bytes
 * go from its first byte on), so those stores stay inside the chunk's part. */
static inline void copy_field(uint8_t *dst, const uint8_t *src, int64_t n, const uint8_t *lim) {
#ifdef __SSE2__
    if (src + n + 16 <= lim) {
        for (int64_t i = 0; i < n; i += 16)
            _mm_storeu_si128((__m128i *)(dst + i), _mm_loadu_si128((const __m128i *)(src + i)));
        return;
    }
#endif
    memcpy(dst, src, (size_t)n);
}

/* hash_bytes(src, 0, n), reading 8 bytes a word where ``src + 8 * ceil(n / 8) <= lim``
 * (little-endian loads: the words hash_bytes assembles byte by byte). */
static inline uint64_t hash_field(const uint8_t *src, int64_t n, const uint8_t *lim) {
#ifdef LITTLE_ENDIAN_WORDS
    int64_t nw = (n + 7) >> 3;
    if (src + 8 * nw <= lim) {
        uint64_t h = (uint64_t)n * M3;
        for (int64_t j = 0; j < nw; j++) {
            uint64_t w;
            memcpy(&w, src + 8 * j, 8);
            int64_t m = n - 8 * j;
            if (m < 8) w &= ~0ULL >> (64 - 8 * m);
            h += word_term(w, j) - word_term(0, j);
        }
        h ^= h >> 30;
        h *= M2;
        h ^= h >> 27;
        h *= M3;
        h ^= h >> 31;
        return h;
    }
#endif
    return hash_bytes(src, 0, n);
}

/* whether the ``n`` bytes at ``a`` and at ``b`` are equal (no read past either) */
static inline int same_bytes(const uint8_t *a, const uint8_t *b, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return 0;
    }
    for (; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

typedef struct {
    const uint8_t *buf;
    const int64_t *cstart, *cend, *rowbase;
    uint8_t *qdata, *ddata, *rdata;
    int32_t *qoff, *doff, *roff;
    int64_t *starts;
    double *score;
    uint64_t *dhash;
    int64_t *stats;
} TokCtx;

#ifdef __SSE2__
/* Bit i of the three masks: byte i of p[0:64] is a separator (space, tab, vertical tab,
 * form feed); a newline; something the fast line path leaves to the byte loop (any
 * other byte below 32, carriage return included, or a byte >= 128). */
static inline void line_masks(const uint8_t *p, uint64_t *sep, uint64_t *nl, uint64_t *odd) {
    const __m128i sp = _mm_set1_epi8(32), tab = _mm_set1_epi8(9), vt = _mm_set1_epi8(11),
                  ff = _mm_set1_epi8(12), lf = _mm_set1_epi8(10), k32 = _mm_set1_epi8(32);
    uint64_t s = 0, n = 0, o = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * i));
        __m128i is = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, vt), _mm_cmpeq_epi8(v, ff)));
        __m128i in = _mm_cmpeq_epi8(v, lf);
        /* signed: bytes >= 128 are below 32 too */
        __m128i io = _mm_andnot_si128(_mm_or_si128(is, in), _mm_cmplt_epi8(v, k32));
        s |= (uint64_t)(uint32_t)_mm_movemask_epi8(is) << (16 * i);
        n |= (uint64_t)(uint32_t)_mm_movemask_epi8(in) << (16 * i);
        o |= (uint64_t)(uint32_t)_mm_movemask_epi8(io) << (16 * i);
        if (n) break; /* the line ends in these 16 bytes: the rest is not looked at */
    }
    *sep = s;
    *nl = n;
    *odd = o;
}
#endif

static void tokenize_chunk(void *vctx, int64_t c) {
    TokCtx *t = (TokCtx *)vctx;
    const uint8_t *buf = t->buf;
    int64_t a = t->cstart[c], b = t->cend[c];
    const uint8_t *lim = buf + b;
    uint8_t *qdata = t->qdata + a, *ddata = t->ddata + a;
    uint8_t *rdata = t->rdata ? t->rdata + a : NULL; /* NULL: no rank column wanted */
    const int64_t rb = t->rowbase[c];
    double *score = t->score;
    uint64_t *dhash = t->dhash;
    int64_t *starts = t->starts + rb;
    int32_t *qoff = t->qoff + rb + c, *doff = t->doff + rb + c;
    int32_t *roff = rdata ? t->roff + rb + c : NULL;
    int64_t row = rb;
    qoff[0] = 0;
    doff[0] = 0;
    if (roff) roff[0] = 0;
    int64_t qp = 0, dp = 0, rp = 0, slow = 0, problem = 0;
    int64_t tag_s = -1, tag_n = 0, prev_s = -1, prev_n = 0, nrun = 0, rise = 0;
    int64_t p = a;
    while (p < b) {
        int64_t s0, e0, s2, e2, s3, e3, s4, e4, s5, e5;
#ifdef __SSE2__
        /* The fast path: a line of plain ASCII shorter than 64 bytes with six fields or
         * more, its fields found from bit masks of its bytes at once (no byte loop).
         * Anything else (blank, comment, long, near the chunk's end, odd bytes) takes
         * the byte loop below, which is the numba kernel's. */
        if (p + 64 <= b) {
            uint64_t sepm, nlm, oddm;
            line_masks(buf + p, &sepm, &nlm, &oddm);
            if (nlm) {
                int k = __builtin_ctzll(nlm);
                uint64_t valid = (1ULL << k) - 1ULL; /* k <= 63 */
                uint64_t ns = ~sepm & valid;
                uint64_t fs = ns & ~(ns << 1), fe = ns & ~(ns >> 1);
                if (!(oddm & valid) && __builtin_popcountll(fs) >= 6 &&
                    buf[p + __builtin_ctzll(fs)] != 35) {
                    s0 = p + __builtin_ctzll(fs);
                    fs &= fs - 1;
                    e0 = p + __builtin_ctzll(fe) + 1;
                    fe &= fe - 1;
                    fs &= fs - 1; /* field 2 */
                    fe &= fe - 1;
                    s2 = p + __builtin_ctzll(fs);
                    fs &= fs - 1;
                    e2 = p + __builtin_ctzll(fe) + 1;
                    fe &= fe - 1;
                    s3 = p + __builtin_ctzll(fs);
                    fs &= fs - 1;
                    e3 = p + __builtin_ctzll(fe) + 1;
                    fe &= fe - 1;
                    s4 = p + __builtin_ctzll(fs);
                    fs &= fs - 1;
                    e4 = p + __builtin_ctzll(fe) + 1;
                    fe &= fe - 1;
                    s5 = p + __builtin_ctzll(fs);
                    e5 = p + __builtin_ctzll(fe) + 1;
                    p += k + 1;
                    goto fields;
                }
            }
        }
#endif
        {
            int64_t line = p;
            int high = 0;
            uint8_t x = buf[p];
            while (IS_SEP(x)) x = buf[++p];
            if (x == 10) {
                p++;
                continue;
            }
            if (x == 13) {
                if (buf[p + 1] == 10) {
                    p += 2;
                    continue;
                }
                problem = P_CR;
                break;
            }
            if (x == 35) {
                for (;;) {
                    x = buf[p];
                    if (x == 10) break;
                    if (x == 13) {
                        if (buf[p + 1] != 10) problem = P_CR;
                        break;
                    }
                    if (x >= 128) high = 1;
                    p++;
                }
                if (problem != 0) break;
                if (high && !utf8_ok(buf, line, p)) {
                    problem = P_ENCODING;
                    break;
                }
                p += x == 10 ? 1 : 2;
                continue;
            }
            /* field 1: the query */
            s0 = p;
            p = e0 = field_end(buf, p, b, &high);
            NEXT_FIELD_OR_BREAK;
            /* field 2 skipped */
            p = field_end(buf, p, b, &high);
            NEXT_FIELD_OR_BREAK;
            /* field 3: the document */
            s2 = p;
            p = e2 = field_end(buf, p, b, &high);
            NEXT_FIELD_OR_BREAK;
            /* field 4: the rank */
            s3 = p;
            p = e3 = field_end(buf, p, b, &high);
            NEXT_FIELD_OR_BREAK;
            /* field 5: the score */
            s4 = p;
            p = e4 = field_end(buf, p, b, &high);
            NEXT_FIELD_OR_BREAK;
            /* field 6: the tag */
            s5 = p;
            p = e5 = field_end(buf, p, b, &high);
            x = buf[p];
            /* fields after the sixth: ignored, the line checked to its end */
            while (x != 10) {
                if (x == 13) {
                    if (buf[p + 1] != 10) problem = P_CR;
                    break;
                }
                if (x >= 128) high = 1;
                x = buf[++p];
            }
            if (problem != 0) break;
            if (high && !utf8_ok(buf, line, p)) {
                problem = P_ENCODING;
                break;
            }
            p += x == 10 ? 1 : 2;
        }
#ifdef __SSE2__
    fields:;
#endif
        int64_t nq = e0 - s0, nd = e2 - s2, nr = e3 - s3, n5 = e5 - s5;
        double v;
        int st = parse_score(buf, s4, e4, &v);
        if (st == 2) {
            problem = P_NUMBER;
            break;
        }
        if (st == 1) {
            slow++;
            v = NAN;
        }
        if (tag_s < 0) {
            tag_s = s5;
            tag_n = n5;
        } else if (n5 != tag_n || !same_bytes(buf + s5, buf + tag_s, n5)) {
            problem = P_TAGS;
            break;
        }
        /* the fields copied (the query, document and rank), the document hashed */
        copy_field(qdata + qp, buf + s0, nq, lim);
        copy_field(ddata + dp, buf + s2, nd, lim);
        if (rdata) copy_field(rdata + rp, buf + s3, nr, lim);
        score[row] = v;
        int eq = nq == prev_n && same_bytes(buf + s0, buf + prev_s, nq);
        if (eq) {
            if (v > score[row - 1]) rise = 1;
        } else {
            starts[nrun] = row - rb;
            nrun++;
        }
        prev_s = s0;
        prev_n = nq;
        qp += nq;
        dhash[row] = hash_field(buf + s2, nd, lim);
        dp += nd;
        rp += nr;
        row++;
        qoff[row - rb] = (int32_t)qp;
        doff[row - rb] = (int32_t)dp;
        if (roff) roff[row - rb] = (int32_t)rp;
    }
    int64_t *st = t->stats + 10 * c;
    st[0] = row - rb;
    st[1] = qp;
    st[2] = dp;
    st[3] = rp;
    st[4] = slow;
    st[5] = problem;
    st[6] = tag_s;
    st[7] = tag_n;
    st[8] = nrun;
    st[9] = rise;
}

static PyObject *py_tokenize(PyObject *self, PyObject *args) {
    PyObject *o[14];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &threads))
        return NULL;
    Bufs b = {.n = 0};
    TokCtx t;
    Py_ssize_t nchunk, nc2, nrb, nstats, nrdata, nroff;
    if (!(t.buf = buf_get(&b, o[0], 1, 0, NULL)) ||
        !(t.cstart = buf_get(&b, o[1], 8, 0, &nchunk)) ||
        !(t.cend = buf_get(&b, o[2], 8, 0, &nc2)) ||
        !(t.rowbase = buf_get(&b, o[3], 8, 0, &nrb)) ||
        !(t.qdata = buf_get(&b, o[4], 1, 1, NULL)) || !(t.ddata = buf_get(&b, o[5], 1, 1, NULL)) ||
        !(t.rdata = buf_get(&b, o[6], 1, 1, &nrdata)) ||
        !(t.qoff = buf_get(&b, o[7], 4, 1, NULL)) || !(t.doff = buf_get(&b, o[8], 4, 1, NULL)) ||
        !(t.roff = buf_get(&b, o[9], 4, 1, &nroff)) ||
        !(t.starts = buf_get(&b, o[10], 8, 1, NULL)) ||
        !(t.score = buf_get(&b, o[11], 8, 1, NULL)) ||
        !(t.dhash = buf_get(&b, o[12], 8, 1, NULL)) ||
        !(t.stats = buf_get(&b, o[13], 8, 1, &nstats))) {
        bufs_release(&b);
        return NULL;
    }
    if (nc2 < nchunk || nrb < nchunk || nstats < 10 * nchunk) {
        bufs_release(&b);
        PyErr_SetString(PyExc_ValueError, "mrrstats._native.tokenize: arrays too short");
        return NULL;
    }
    if (nrdata == 0 || nroff == 0) { /* empty rdata / roff: no rank column (as numba's) */
        t.rdata = NULL;
        t.roff = NULL;
    }
    run_tasks(tokenize_chunk, &t, nchunk, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

typedef struct {
    const uint8_t *buf;
    const int64_t *cstart, *cend;
    int64_t *out;
} CountCtx;

/* newline bytes in p[0:n] (16 at a time where SSE2 is at hand: byte counters summed
 * every 255 steps, before they could overflow) */
static int64_t count_newlines(const uint8_t *p, int64_t n) {
    int64_t total = 0, i = 0;
#ifdef __SSE2__
    const __m128i nl = _mm_set1_epi8(10), zero = _mm_setzero_si128();
    while (i + 16 <= n) {
        __m128i acc = zero;
        int64_t stop = i + 16 * 255;
        if (stop > n) stop = n;
        for (; i + 16 <= stop; i += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + i)), nl));
        __m128i s = _mm_sad_epu8(acc, zero);
        total += _mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
    }
#endif
    for (; i < n; i++) total += p[i] == 10;
    return total;
}

static void count_chunk(void *vctx, int64_t c) {
    CountCtx *t = (CountCtx *)vctx;
    t->out[c] = count_newlines(t->buf + t->cstart[c], t->cend[c] - t->cstart[c]);
}

static PyObject *py_count_lines(PyObject *self, PyObject *args) {
    PyObject *o[4];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOi", &o[0], &o[1], &o[2], &o[3], &threads)) return NULL;
    Bufs b = {.n = 0};
    CountCtx t;
    Py_ssize_t n;
    if (!(t.buf = buf_get(&b, o[0], 1, 0, NULL)) || !(t.cstart = buf_get(&b, o[1], 8, 0, &n)) ||
        !(t.cend = buf_get(&b, o[2], 8, 0, NULL)) || !(t.out = buf_get(&b, o[3], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    run_tasks(count_chunk, &t, n, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

static inline int bytes_equal(const uint8_t *data, int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
    return a1 - a0 == b1 - b0 && memcmp(data + a0, data + b0, (size_t)(a1 - a0)) == 0;
}

static PyObject *py_intern(PyObject *self, PyObject *args) {
    PyObject *o[13];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8], &o[9], &o[10], &o[11], &o[12]))
        return NULL;
    Bufs b = {.n = 0};
    const uint8_t *data;
    const int32_t *offs;
    const int64_t *cstart, *obase, *rowstart, *starts, *sbase, *nstarts;
    const double *score;
    int64_t *run_row, *first_row, *blocks;
    int32_t *run_code;
    Py_ssize_t runs, nchunk;
    if (!(data = buf_get(&b, o[0], 1, 0, NULL)) || !(offs = buf_get(&b, o[1], 4, 0, NULL)) ||
        !(cstart = buf_get(&b, o[2], 8, 0, &nchunk)) || !(obase = buf_get(&b, o[3], 8, 0, NULL)) ||
        !(rowstart = buf_get(&b, o[4], 8, 0, NULL)) || !(starts = buf_get(&b, o[5], 8, 0, NULL)) ||
        !(sbase = buf_get(&b, o[6], 8, 0, NULL)) || !(nstarts = buf_get(&b, o[7], 8, 0, NULL)) ||
        !(score = buf_get(&b, o[8], 8, 0, NULL)) || !(run_row = buf_get(&b, o[9], 8, 1, &runs)) ||
        !(run_code = buf_get(&b, o[10], 4, 1, NULL)) ||
        !(first_row = buf_get(&b, o[11], 8, 1, NULL)) ||
        !(blocks = buf_get(&b, o[12], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    int64_t cap = 16;
    while (cap < 2 * runs) cap *= 2;
    uint64_t mask = (uint64_t)(cap - 1);
    int64_t *table = malloc(sizeof(int64_t) * (size_t)cap);
    uint64_t *hashes = calloc((size_t)cap, sizeof(uint64_t));
    int64_t *first_s = malloc(sizeof(int64_t) * (size_t)(runs + 1));
    int64_t *first_e = malloc(sizeof(int64_t) * (size_t)(runs + 1));
    if (!table || !hashes || !first_s || !first_e) {
        free(table);
        free(hashes);
        free(first_s);
        free(first_e);
        bufs_release(&b);
        return PyErr_NoMemory();
    }
    for (int64_t i = 0; i < cap; i++) table[i] = -1;
    int64_t ncodes = 0, nblocks = 0, code = -1, i = 0;
    int descending = 1;
    for (int64_t c = 0; c < nchunk; c++) {
        for (int64_t j = 0; j < nstarts[c]; j++) {
            int64_t t = starts[sbase[c] + j];
            int64_t r = rowstart[c] + t;
            int64_t previous = code;
            int64_t s = cstart[c] + offs[obase[c] + t];
            int64_t e = cstart[c] + offs[obase[c] + t + 1];
            uint64_t h = hash_bytes(data, s, e - s);
            uint64_t slot = h & mask;
            for (;;) {
                int64_t k = table[slot];
                if (k < 0) {
                    table[slot] = ncodes;
                    hashes[slot] = h;
                    first_row[ncodes] = r;
                    first_s[ncodes] = s;
                    first_e[ncodes] = e;
                    code = ncodes;
                    ncodes++;
                    break;
                }
                if (hashes[slot] == h && bytes_equal(data, first_s[k], first_e[k], s, e)) {
                    code = k;
                    break;
                }
                slot = (slot + 1) & mask;
            }
            if (code != previous) {
                blocks[nblocks] = r;
                nblocks++;
            } else if (score[r] > score[r - 1]) {
                descending = 0;
            }
            run_row[i] = r;
            run_code[i] = (int32_t)code;
            i++;
        }
    }
    free(table);
    free(hashes);
    free(first_s);
    free(first_e);
    bufs_release(&b);
    return Py_BuildValue("LLO", (long long)ncodes, (long long)nblocks,
                         descending ? Py_True : Py_False);
}

typedef struct {
    const int64_t *run_row;
    const int32_t *run_code;
    int32_t *codes;
    int64_t nruns, n;
} FillCtx;

static void fill_task(void *vctx, int64_t i) {
    FillCtx *t = (FillCtx *)vctx;
    int64_t hi = i + 1 < t->nruns ? t->run_row[i + 1] : t->n;
    for (int64_t r = t->run_row[i]; r < hi; r++) t->codes[r] = t->run_code[i];
}

static PyObject *py_fill_codes(PyObject *self, PyObject *args) {
    PyObject *o[3], *codes_o;
    long long n;
    int threads;
    if (!PyArg_ParseTuple(args, "OOLOi", &o[0], &o[1], &n, &codes_o, &threads)) return NULL;
    Bufs b = {.n = 0};
    FillCtx t;
    Py_ssize_t nruns;
    if (!(t.run_row = buf_get(&b, o[0], 8, 0, &nruns)) ||
        !(t.run_code = buf_get(&b, o[1], 4, 0, NULL)) ||
        !(t.codes = buf_get(&b, codes_o, 4, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    t.nruns = nruns;
    t.n = n;
    run_tasks(fill_task, &t, nruns, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

typedef struct {
    const int64_t *rows, *bounds;
    Py_ssize_t nrows;
    const uint64_t *dhash;
    const uint8_t *data;
    const int32_t *offs;
    const int64_t *cstart, *obase, *rowstart;
    Py_ssize_t nchunk;
    uint8_t *out;
    int failed;
} RepCtx;

static void span(const RepCtx *t, int64_t r, int64_t *s, int64_t *e) {
    /* searchsorted(rowstart, r, side="right") - 1 */
    int64_t lo = 0, hi = t->nchunk;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (t->rowstart[mid] <= r)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t c = lo - 1;
    int64_t k = r - t->rowstart[c];
    *s = t->cstart[c] + t->offs[t->obase[c] + k];
    *e = t->cstart[c] + t->offs[t->obase[c] + k + 1];
}

static void repeat_task(void *vctx, int64_t g) {
    RepCtx *t = (RepCtx *)vctx;
    int64_t lo = t->bounds[g], hi = t->bounds[g + 1];
    int64_t n = hi - lo, cap = 16;
    while (cap < 2 * n) cap *= 2;
    uint64_t mask = (uint64_t)(cap - 1);
    int64_t *slots = malloc(sizeof(int64_t) * (size_t)cap);
    if (!slots) {
        __atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t i = 0; i < cap; i++) slots[i] = -1;
    uint8_t found = 0;
    for (int64_t u = lo; u < hi && !found; u++) {
        int64_t r = t->nrows ? t->rows[u] : u;
        uint64_t h = t->dhash[r];
        uint64_t slot = h & mask;
        for (;;) {
            int64_t k = slots[slot];
            if (k < 0) {
                slots[slot] = r;
                break;
            }
            if (t->dhash[k] == h) {
                int64_t a0, a1, b0, b1;
                span(t, k, &a0, &a1);
                span(t, r, &b0, &b1);
                if (bytes_equal(t->data, a0, a1, b0, b1)) {
                    found = 1;
                    break;
                }
            }
            slot = (slot + 1) & mask;
        }
    }
    free(slots);
    t->out[g] = found;
}

static PyObject *py_repeats(PyObject *self, PyObject *args) {
    PyObject *o[9];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8], &threads))
        return NULL;
    Bufs b = {.n = 0};
    RepCtx t;
    Py_ssize_t nb;
    if (!(t.rows = buf_get(&b, o[0], 8, 0, &t.nrows)) ||
        !(t.bounds = buf_get(&b, o[1], 8, 0, &nb)) || !(t.dhash = buf_get(&b, o[2], 8, 0, NULL)) ||
        !(t.data = buf_get(&b, o[3], 1, 0, NULL)) || !(t.offs = buf_get(&b, o[4], 4, 0, NULL)) ||
        !(t.cstart = buf_get(&b, o[5], 8, 0, NULL)) ||
        !(t.obase = buf_get(&b, o[6], 8, 0, NULL)) ||
        !(t.rowstart = buf_get(&b, o[7], 8, 0, &t.nchunk)) ||
        !(t.out = buf_get(&b, o[8], 1, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    t.failed = 0;
    if (nb > 1) run_tasks(repeat_task, &t, nb - 1, threads);
    bufs_release(&b);
    if (t.failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *py_group_rows(PyObject *self, PyObject *args) {
    PyObject *codes_o, *rows_o, *bounds_o;
    long long ncodes;
    if (!PyArg_ParseTuple(args, "OLOO", &codes_o, &ncodes, &rows_o, &bounds_o)) return NULL;
    Bufs b = {.n = 0};
    const int32_t *codes;
    int64_t *rows, *bounds;
    Py_ssize_t n;
    if (!(codes = buf_get(&b, codes_o, 4, 0, &n)) || !(rows = buf_get(&b, rows_o, 8, 1, NULL)) ||
        !(bounds = buf_get(&b, bounds_o, 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    int64_t *count = calloc((size_t)ncodes + 1, sizeof(int64_t));
    if (!count) {
        bufs_release(&b);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t r = 0; r < n; r++) count[codes[r] + 1]++;
    for (int64_t k = 0; k < ncodes; k++) count[k + 1] += count[k];
    for (int64_t k = 0; k <= ncodes; k++) bounds[k] = count[k];
    for (Py_ssize_t r = 0; r < n; r++) rows[count[codes[r]]++] = r;
    free(count);
    bufs_release(&b);
    Py_RETURN_NONE;
}

/* ---- rank_run's block kernels (mrrstats.model.ranking) ------------------------ */
static inline uint64_t pair_key(int64_t code, uint64_t h) {
    uint64_t k = (uint64_t)code * M2;
    k += h;
    k ^= k >> 31;
    return k;
}

typedef struct {
    const int32_t *codes;
    const double *key;
    const int64_t *cuts, *base;
    uint8_t *bad;
    int64_t *nstart, *starts;
} ScanCtx;

static void scan_task(void *vctx, int64_t c) {
    ScanCtx *t = (ScanCtx *)vctx;
    int64_t n = 0;
    uint8_t bad = 0;
    for (int64_t i = t->cuts[c]; i < t->cuts[c + 1]; i++) {
        if (i == 0 || t->codes[i] != t->codes[i - 1])
            n++;
        else if (t->key[i] > t->key[i - 1])
            bad = 1;
    }
    t->nstart[c] = n;
    t->bad[c] = bad;
}

static PyObject *py_block_scan(PyObject *self, PyObject *args) {
    PyObject *o[5];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &threads))
        return NULL;
    Bufs b = {.n = 0};
    ScanCtx t;
    Py_ssize_t ncuts;
    if (!(t.codes = buf_get(&b, o[0], 4, 0, NULL)) || !(t.key = buf_get(&b, o[1], 8, 0, NULL)) ||
        !(t.cuts = buf_get(&b, o[2], 8, 0, &ncuts)) || !(t.bad = buf_get(&b, o[3], 1, 1, NULL)) ||
        !(t.nstart = buf_get(&b, o[4], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    if (ncuts > 1) run_tasks(scan_task, &t, ncuts - 1, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

static void starts_task(void *vctx, int64_t c) {
    ScanCtx *t = (ScanCtx *)vctx;
    int64_t j = t->base[c];
    for (int64_t i = t->cuts[c]; i < t->cuts[c + 1]; i++)
        if (i == 0 || t->codes[i] != t->codes[i - 1]) t->starts[j++] = i;
}

static PyObject *py_block_starts(PyObject *self, PyObject *args) {
    PyObject *o[4];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOi", &o[0], &o[1], &o[2], &o[3], &threads)) return NULL;
    Bufs b = {.n = 0};
    ScanCtx t;
    Py_ssize_t ncuts;
    if (!(t.codes = buf_get(&b, o[0], 4, 0, NULL)) ||
        !(t.cuts = buf_get(&b, o[1], 8, 0, &ncuts)) || !(t.base = buf_get(&b, o[2], 8, 0, NULL)) ||
        !(t.starts = buf_get(&b, o[3], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    if (ncuts > 1) run_tasks(starts_task, &t, ncuts - 1, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

static PyObject *py_build_table(PyObject *self, PyObject *args) {
    PyObject *o[3];
    unsigned long long mask;
    if (!PyArg_ParseTuple(args, "OOOO&", &o[0], &o[1], &o[2], as_u64, &mask)) return NULL;
    Bufs b = {.n = 0};
    const uint64_t *keys;
    uint64_t *table_key;
    int64_t *table_idx;
    Py_ssize_t n;
    if (!(keys = buf_get(&b, o[0], 8, 0, &n)) || !(table_key = buf_get(&b, o[1], 8, 1, NULL)) ||
        !(table_idx = buf_get(&b, o[2], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    int ok = 1;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        uint64_t slot = keys[i] & mask;
        while (table_idx[slot] >= 0) {
            if (table_key[slot] == keys[i]) {
                ok = 0;
                break;
            }
            slot = (slot + 1) & mask;
        }
        if (ok) {
            table_idx[slot] = i;
            table_key[slot] = keys[i];
        }
    }
    bufs_release(&b);
    return PyBool_FromLong(ok);
}

typedef struct {
    const int32_t *codes;
    const int64_t *rank_of;
    const uint64_t *dhash;
    const double *key;
    const int64_t *bstart, *blen, *border, *offsets, *qbounds;
    const uint64_t *qdh, *table_key;
    const int64_t *table_idx;
    uint64_t mask;
    const double *qgrade;
    double *grades_s;
    const int64_t *hbase;
    int64_t *hit_at, *hit_row, *glo, *ghi, *nhit;
} PlaceCtx;

static inline int64_t probe(const PlaceCtx *t, uint64_t k) {
    uint64_t slot = k & t->mask;
    for (;;) {
        int64_t idx = t->table_idx[slot];
        if (idx < 0 || t->table_key[slot] == k) return idx;
        slot = (slot + 1) & t->mask;
    }
}

static void place_task(void *vctx, int64_t q) {
    PlaceCtx *t = (PlaceCtx *)vctx;
    const double *key = t->key;
    double *gs = t->grades_s;
    int64_t b = t->border[q];
    int64_t s = t->bstart[b];
    int64_t o0 = t->offsets[q], o1 = t->offsets[q + 1];
    int64_t d = s - o0;
    int64_t j0 = t->qbounds[q], j1 = t->qbounds[q + 1];
    int64_t h = 0;
    if (j1 - j0 <= 16) {
        for (int64_t u = 0; u < t->blen[b]; u++) {
            uint64_t x = t->dhash[s + u];
            double g = NAN;
            for (int64_t j = j0; j < j1; j++) {
                if (t->qdh[j] == x) {
                    g = t->qgrade[j];
                    h++;
                    break;
                }
            }
            gs[o0 + u] = g;
        }
    } else {
        for (int64_t u = 0; u < t->blen[b]; u++) {
            int64_t i = s + u;
            int64_t idx = probe(t, pair_key(t->rank_of[t->codes[i]], t->dhash[i]));
            if (idx >= 0) {
                gs[o0 + u] = t->qgrade[idx];
                h++;
            } else {
                gs[o0 + u] = NAN;
            }
        }
    }
    if (h > j1 - j0) {
        t->nhit[q] = -1;
        return;
    }
    t->nhit[q] = h;
    if (h == 0) return;
    int64_t j = t->hbase[q];
    for (int64_t p = o0; p < o1; p++) {
        double g = gs[p];
        if (g == g) {
            t->hit_at[j] = p;
            t->hit_row[j] = p + d;
            double kp = key[p + d];
            int tied = (p > o0 && key[p + d - 1] == kp && !(gs[p - 1] == g)) ||
                       (p + 1 < o1 && key[p + d + 1] == kp && !(gs[p + 1] == g));
            if (tied) {
                int64_t lo = p;
                while (lo > o0 && key[lo - 1 + d] == kp) lo--;
                int64_t hi = p + 1;
                while (hi < o1 && key[hi + d] == kp) hi++;
                t->glo[j] = lo;
                t->ghi[j] = hi;
            } else {
                t->glo[j] = -1;
                t->ghi[j] = -1;
            }
            j++;
        }
    }
}

static PyObject *py_place(PyObject *self, PyObject *args) {
    PyObject *o[21];
    unsigned long long mask;
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOO&OOOOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4],
                          &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], as_u64, &mask, &o[13],
                          &o[14], &o[15], &o[16], &o[17], &o[18], &o[19], &o[20], &threads))
        return NULL;
    Bufs b = {.n = 0};
    PlaceCtx t;
    Py_ssize_t nq;
    t.mask = mask;
    if (!(t.codes = buf_get(&b, o[0], 4, 0, NULL)) ||
        !(t.rank_of = buf_get(&b, o[1], 8, 0, NULL)) ||
        !(t.dhash = buf_get(&b, o[2], 8, 0, NULL)) || !(t.key = buf_get(&b, o[3], 8, 0, NULL)) ||
        !(t.bstart = buf_get(&b, o[4], 8, 0, NULL)) || !(t.blen = buf_get(&b, o[5], 8, 0, NULL)) ||
        !(t.border = buf_get(&b, o[6], 8, 0, &nq)) ||
        !(t.offsets = buf_get(&b, o[7], 8, 0, NULL)) ||
        !(t.qbounds = buf_get(&b, o[8], 8, 0, NULL)) || !(t.qdh = buf_get(&b, o[9], 8, 0, NULL)) ||
        !(t.table_key = buf_get(&b, o[10], 8, 0, NULL)) ||
        !(t.table_idx = buf_get(&b, o[11], 8, 0, NULL)) ||
        !(t.qgrade = buf_get(&b, o[13], 8, 0, NULL)) ||
        !(t.grades_s = buf_get(&b, o[14], 8, 1, NULL)) ||
        !(t.hbase = buf_get(&b, o[15], 8, 0, NULL)) ||
        !(t.hit_at = buf_get(&b, o[16], 8, 1, NULL)) ||
        !(t.hit_row = buf_get(&b, o[17], 8, 1, NULL)) ||
        !(t.glo = buf_get(&b, o[18], 8, 1, NULL)) || !(t.ghi = buf_get(&b, o[19], 8, 1, NULL)) ||
        !(t.nhit = buf_get(&b, o[20], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    run_tasks(place_task, &t, nq, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

/* ---- the measures (mrrstats.metrics.kernels) ------------------------------------ */
typedef struct {
    const int64_t *offsets;
    const double *grades;
    const int64_t *kind, *depth;
    const double *thresh, *cut, *num_rel, *ideal, *log2v;
    double *out;
    int64_t n_m, n_q, deepest;
    int failed;
} MeasCtx;

static void measures_task(void *vctx, int64_t q) {
    MeasCtx *t = (MeasCtx *)vctx;
    int64_t n_m = t->n_m, n_q = t->n_q;
    int64_t o0 = t->offsets[q], stop = t->offsets[q + 1];
    if (stop - o0 > t->deepest) stop = o0 + t->deepest;
    int64_t *first = calloc((size_t)(2 * n_m), sizeof(int64_t));
    double *acc = calloc((size_t)n_m, sizeof(double));
    if (!first || !acc) {
        free(first);
        free(acc);
        __atomic_store_n(&t->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    int64_t *count = first + n_m;
    for (int64_t p = o0; p < stop; p++) {
        double g = t->grades[p];
        if (!(g > 0)) continue;
        int64_t pos = p - o0 + 1;
        for (int64_t m = 0; m < n_m; m++) {
            if (pos > t->depth[m]) continue;
            if (t->kind[m] == 6) {
                acc[m] += g / t->log2v[pos];
            } else if (g >= t->thresh[m]) {
                count[m]++;
                if (first[m] == 0) first[m] = pos;
                if (t->kind[m] == 5) acc[m] += (double)count[m] / (double)pos;
            }
        }
    }
    for (int64_t m = 0; m < n_m; m++) {
        int64_t k = t->kind[m];
        double *o = &t->out[m * n_q + q];
        if (k == 0) {
            *o = first[m] > 0 ? 1.0 / (double)first[m] : 0.0;
        } else if (k == 1) {
            *o = first[m] > 0 ? (double)first[m] : INFINITY;
        } else if (k == 2) {
            *o = first[m] > 0 ? 1.0 : 0.0;
        } else if (k == 3) {
            *o = (double)count[m] / t->cut[m];
        } else if (k == 4) {
            double r = t->num_rel[m * n_q + q];
            *o = r > 0 ? (double)count[m] / r : 0.0;
        } else if (k == 5) {
            double r = t->num_rel[m * n_q + q];
            *o = r > 0 ? acc[m] / r : 0.0;
        } else {
            double dd = t->ideal[m * n_q + q];
            *o = dd > 0 ? acc[m] / dd : 0.0;
        }
    }
    free(first);
    free(acc);
}

static PyObject *py_measures(PyObject *self, PyObject *args) {
    PyObject *o[10];
    int threads;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8], &o[9], &threads))
        return NULL;
    Bufs b = {.n = 0};
    MeasCtx t;
    Py_ssize_t noff, nm, nrel, nout;
    if (!(t.offsets = buf_get(&b, o[0], 8, 0, &noff)) ||
        !(t.grades = buf_get(&b, o[1], 8, 0, NULL)) || !(t.kind = buf_get(&b, o[2], 8, 0, &nm)) ||
        !(t.depth = buf_get(&b, o[3], 8, 0, NULL)) || !(t.thresh = buf_get(&b, o[4], 8, 0, NULL)) ||
        !(t.cut = buf_get(&b, o[5], 8, 0, NULL)) || !(t.num_rel = buf_get(&b, o[6], 8, 0, &nrel)) ||
        !(t.ideal = buf_get(&b, o[7], 8, 0, NULL)) || !(t.log2v = buf_get(&b, o[8], 8, 0, NULL)) ||
        !(t.out = buf_get(&b, o[9], 8, 1, &nout))) {
        bufs_release(&b);
        return NULL;
    }
    t.n_m = nm;
    t.n_q = noff - 1;
    if (nout < t.n_m * t.n_q || nrel < t.n_m * t.n_q) {
        bufs_release(&b);
        PyErr_SetString(PyExc_ValueError, "mrrstats._native.measures: arrays too short");
        return NULL;
    }
    t.deepest = 0;
    for (int64_t m = 0; m < nm; m++)
        if (t.depth[m] > t.deepest) t.deepest = t.depth[m];
    t.failed = 0;
    if (t.n_q > 0) run_tasks(measures_task, &t, t.n_q, threads);
    bufs_release(&b);
    if (t.failed) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

typedef struct {
    const int64_t *offsets;
    const double *grades;
    double rel;
    int64_t depth;
    int64_t *out;
} RelCtx;

static void rel_task(void *vctx, int64_t q) {
    RelCtx *t = (RelCtx *)vctx;
    int64_t stop = t->offsets[q + 1];
    if (stop - t->offsets[q] > t->depth) stop = t->offsets[q] + t->depth;
    int64_t n = 0;
    for (int64_t p = t->offsets[q]; p < stop; p++) n += t->grades[p] >= t->rel;
    t->out[q] = n;
}

static PyObject *py_relevant_retrieved(PyObject *self, PyObject *args) {
    PyObject *o[3];
    double rel;
    long long depth;
    int threads;
    if (!PyArg_ParseTuple(args, "OOdLOi", &o[0], &o[1], &rel, &depth, &o[2], &threads))
        return NULL;
    Bufs b = {.n = 0};
    RelCtx t;
    Py_ssize_t noff;
    t.rel = rel;
    t.depth = depth;
    if (!(t.offsets = buf_get(&b, o[0], 8, 0, &noff)) ||
        !(t.grades = buf_get(&b, o[1], 8, 0, NULL)) || !(t.out = buf_get(&b, o[2], 8, 1, NULL))) {
        bufs_release(&b);
        return NULL;
    }
    if (noff > 1) run_tasks(rel_task, &t, noff - 1, threads);
    bufs_release(&b);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"count_lines", py_count_lines, METH_VARARGS, "tokenizer._count_lines_py, threads last"},
    {"tokenize", py_tokenize, METH_VARARGS, "tokenizer._tokenize_py, threads last"},
    {"intern", py_intern, METH_VARARGS, "tokenizer._intern_py"},
    {"fill_codes", py_fill_codes, METH_VARARGS, "tokenizer._fill_codes_py, threads last"},
    {"repeats", py_repeats, METH_VARARGS, "tokenizer._repeats_py, threads last"},
    {"group_rows", py_group_rows, METH_VARARGS, "tokenizer._group_rows_py"},
    {"block_scan", py_block_scan, METH_VARARGS, "ranking._block_scan_py, threads last"},
    {"block_starts", py_block_starts, METH_VARARGS, "ranking._block_starts_py, threads last"},
    {"build_table", py_build_table, METH_VARARGS, "ranking._build_table_py"},
    {"place", py_place, METH_VARARGS, "ranking._place_py, threads last"},
    {"measures", py_measures, METH_VARARGS, "kernels._measures_py, threads last"},
    {"relevant_retrieved", py_relevant_retrieved, METH_VARARGS,
     "kernels._relevant_retrieved_py, threads last"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_native",
                                       "The file path's kernels compiled ahead of time.", -1,
                                       methods};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&moduledef); }
