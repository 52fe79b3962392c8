/* Preloaded into nimbusd by OutputAllocationTests (LD_PRELOAD): counts the calls to the
 * allocator each thread makes, into a file the test maps too, so it can read how many times
 * one thread (an output's) allocated or freed while it changes the daemon's settings.
 * glibc's own entry points (__libc_malloc, …) do the work: nothing is looked up with dlsym,
 * which itself allocates. Slots are indexed by thread id modulo SLOTS; a slot records the id
 * that owns it so the reader can tell a collision from a count. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define SLOTS 65536

struct slot {
    _Atomic uint64_t tid;
    _Atomic uint64_t allocations;
    _Atomic uint64_t frees;
    uint64_t unused;
};

static struct slot *table;
static __thread struct slot *mine __attribute__((tls_model("initial-exec")));

static struct slot *slot(void) {
    if (table == NULL) return NULL;
    if (mine == NULL) {
        uint64_t tid = (uint64_t)syscall(SYS_gettid);
        mine = &table[tid % SLOTS];
        atomic_store(&mine->tid, tid);
    }
    return mine;
}

static void allocated(void) {
    struct slot *s = slot();
    if (s) atomic_fetch_add_explicit(&s->allocations, 1, memory_order_relaxed);
}

__attribute__((constructor)) static void map_counts(void) {
    const char *path = getenv("NIMBUS_ALLOCATION_COUNTS");
    if (path == NULL) return;
    int fd = open(path, O_RDWR | O_CREAT, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, sizeof(struct slot) * SLOTS) == 0) {
        void *mapped = mmap(NULL, sizeof(struct slot) * SLOTS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapped != MAP_FAILED) table = mapped;
    }
    close(fd);
}

void *malloc(size_t size) { allocated(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { allocated(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { allocated(); return __libc_realloc(pointer, size); }
void *memalign(size_t alignment, size_t size) { allocated(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { allocated(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    allocated();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}

void free(void *pointer) {
    if (pointer != NULL) {
        struct slot *s = slot();
        if (s) atomic_fetch_add_explicit(&s->frees, 1, memory_order_relaxed);
    }
    __libc_free(pointer);
}
