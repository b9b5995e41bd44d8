// What an embedded ICC profile may ask of LittleCMS. Its tags are read lazily, but two things let a small
// profile cost minutes or gigabytes:
// - a float LUT ('mpet', ICC v4's D2Bx/B2Dx tags): LittleCMS reads its elements through a table of positions
//   whose lengths it ignores and whose offsets it checks against the whole profile, so entries may point at
//   the same bytes again and again (100,000 at one small matrix ran for minutes; 100 at one 3 MB colour table
//   took 917 MiB), and a colour table of 15 inputs costs 32,768 reads a colour. Photos' profiles do not use
//   them (they are for spectral and HDR workflows); a profile that has one is refused before it is opened — a
//   warning, and the samples are used as stored;
// - any colour table: LittleCMS allocates it from its header before it reads the data, so a 948-byte profile
//   declaring 255^3 entries of 15 outputs took 497 MiB for a moment. Every allocation LittleCMS makes for
//   yuvconv (in its own context, `yc_lcms_context`) goes through a budget here (`lcms_budget`): beyond it the
//   allocation fails, the profile cannot be read, and that is the same warning.
#include "yc_colour_internal.h"

#include <lcms2_plugin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

int yc_icc_within_limits(const uint8_t *icc, size_t length, char *why, size_t why_size) {
    if (length < 132) return 1;   // too short to be a profile: LittleCMS says so
    // The profile's own structure, checked as browsers' skcms checks it, before LittleCMS (which reads tags
    // lazily and used a profile whose header or a tag claimed 4 GB): its size at least a header and no more than
    // the bytes it came in (bytes after it are padding), its tag table and every tag inside it. libpng refuses such
    // a profile in a PNG; a JPEG's gets the same verdict, so one profile is one verdict in either container.
    const uint64_t size = be32(icc);
    if (size < 132 || size > length) {
        snprintf(why, why_size, "the embedded ICC profile is damaged (its header gives %llu bytes, it has %zu)",
                 (unsigned long long)size, length);
        return 0;
    }
    const uint64_t count = be32(icc + 128);
    if (count > (size - 132) / 12) {
        snprintf(why, why_size, "the embedded ICC profile is damaged (its tag table of %llu tags is longer than the "
                 "profile)", (unsigned long long)count);
        return 0;
    }
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *entry = icc + 132 + 12 * i;
        const uint64_t start = be32(entry + 4), bytes = be32(entry + 8);
        if (start > size || bytes > size - start) {
            snprintf(why, why_size, "the embedded ICC profile is damaged (tag %llu lies outside it)", (unsigned long long)(i + 1));
            return 0;
        }
    }
    const uint32_t tags = be32(icc + 128);
    for (uint64_t i = 0; i < tags && 132 + 12 * (i + 1) <= length; i++) {
        const uint8_t *entry = icc + 132 + 12 * i;
        const uint64_t offset = be32(entry + 4);
        if (offset + 4 > length) continue;   // LittleCMS refuses a tag it cannot read
        if (be32(icc + offset) == 0x6D706574 /* 'mpet' */) {
            snprintf(why, why_size, "the embedded ICC profile has a float LUT (ICC v4 multiProcessElements), which "
                     "yuvconv does not evaluate");
            return 0;
        }
    }
    return 1;
}

// LittleCMS's memory: a real transform needs well under 16 MiB (a 4-input table of 33^4 16-bit entries of 3
// outputs is 7 MiB). The budget is a conversion's own, not the process's: with one shared budget a batch's
// jobs took it from each other, and which file of a `-j 2` batch got its transform depended on timing (a
// large LUT profile was transformed alone, used as stored beside a copy of itself). Each conversion opens a
// scope (`yc_lcms_scope_begin`) on its thread; what LittleCMS allocates on that thread counts against the
// scope's account, and each block remembers its account, so a block freed on another thread, or after the
// scope ended, still pays back the right one. Outside any scope (the pipeline's workers, a library caller)
// the process-wide account is used. With -j N, LittleCMS holds at most N budgets at once.
enum { lcms_budget = 96 << 20 };

struct yc_lcms_account {
    atomic_size_t live;
    /// The scope while it is open, plus one a live block: the account is freed when the last goes.
    atomic_size_t refs;
};
static struct yc_lcms_account process_account = {0, 1};
static _Thread_local struct yc_lcms_account *current_account;

static void account_release(struct yc_lcms_account *a) {
    if (a != &process_account && atomic_fetch_sub(&a->refs, 1) == 1) free(a);
}

yc_lcms_scope *yc_lcms_scope_begin(void) {
    struct yc_lcms_account *a = malloc(sizeof *a);
    if (!a) return NULL;   // no account of its own: the process's is used
    atomic_init(&a->live, 0);
    atomic_init(&a->refs, 1);
    struct yc_lcms_account *previous = current_account;
    current_account = a;
    // The previous account rides in the scope, restored at its end (scopes nest on one thread).
    yc_lcms_scope *scope = malloc(sizeof *scope);
    if (!scope) {
        current_account = previous;
        free(a);
        return NULL;
    }
    scope->account = a;
    scope->previous = previous;
    return scope;
}

void yc_lcms_scope_end(yc_lcms_scope *scope) {
    if (!scope) return;
    // Ended on the thread that began it (a conversion is synchronous); on another, that thread's account stays.
    if (current_account == scope->account) current_account = scope->previous;
    account_release(scope->account);
    free(scope);
}

typedef union {
    struct { size_t size; struct yc_lcms_account *account; } h;
    max_align_t align;
} lcms_header;

static int account_take(struct yc_lcms_account *a, size_t size) {
    if (atomic_fetch_add(&a->live, size) + size > lcms_budget) {
        atomic_fetch_sub(&a->live, size);
        return 0;
    }
    return 1;
}

// The size of an allocation within the budget that the system itself refused on this thread (an address-space
// limit), 0 when none since it was last taken (`yc_lcms_take_refusal`). LittleCMS then fails as a broken profile
// fails (no profile, no transform); the callers ask, so that it is said as what it is — out of memory, the file
// failed — and never as a profile that cannot be used, with the colours used as stored and exit 0 (a hostile
// round's `ulimit -v` gave different bytes by the limit, with a warning that blamed the profile).
static _Thread_local size_t system_refusal;

size_t yc_lcms_take_refusal(void) {
    const size_t r = system_refusal;
    system_refusal = 0;
    return r;
}

void yc_lcms_note_refusal(size_t bytes) {
    if (system_refusal == 0) system_refusal = bytes ? bytes : 1;
}

static void *budget_malloc(cmsContext context, cmsUInt32Number size) {
    (void)context;
    struct yc_lcms_account *a = current_account ? current_account : &process_account;
    if (!account_take(a, size)) return NULL;
    lcms_header *h = malloc(sizeof *h + size);
    if (!h) {
        atomic_fetch_sub(&a->live, size);
        system_refusal = size;
        return NULL;
    }
    h->h.size = size;
    h->h.account = a;
    if (a != &process_account) atomic_fetch_add(&a->refs, 1);
    return h + 1;
}

static void budget_free(cmsContext context, void *p) {
    (void)context;
    if (!p) return;
    lcms_header *h = (lcms_header *)p - 1;
    struct yc_lcms_account *a = h->h.account;
    atomic_fetch_sub(&a->live, h->h.size);
    free(h);
    account_release(a);
}

static void *budget_realloc(cmsContext context, void *p, cmsUInt32Number size) {
    if (!p) return budget_malloc(context, size);
    lcms_header *h = (lcms_header *)p - 1;
    struct yc_lcms_account *a = h->h.account;
    const size_t old = h->h.size;
    if (size > old && !account_take(a, size - old)) return NULL;
    lcms_header *n = realloc(h, sizeof *n + size);
    if (!n) {
        if (size > old) atomic_fetch_sub(&a->live, size - old);
        system_refusal = size;
        return NULL;
    }
    if (size < old) atomic_fetch_sub(&a->live, old - size);
    n->h.size = size;
    return n + 1;
}

// The budget is yuvconv's LittleCMS context's memory handler, not the process's: every profile, curve and
// transform of yuvconv's is made in this context (the THR functions), so all its blocks carry the budget's
// header, and a program that uses LittleCMS itself beside the library keeps its own allocator and limits. (It
// was a plugin registered for the whole process before main: a host's own 90 MiB allocation then failed.)
static cmsContext lcms_context;
static void lcms_context_create(void) {
    static cmsPluginMemHandler handler = {
        {cmsPluginMagicNumber, 2000, cmsPluginMemHandlerSig, NULL}, budget_malloc, budget_free, budget_realloc,
        NULL, NULL, NULL};
    lcms_context = cmsCreateContext(&handler, NULL);
}

cmsContext yc_lcms_context(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lcms_context_create);
    return lcms_context;
}
