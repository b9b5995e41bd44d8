#include "yc_signals.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 256
#define PATH_MAX_LEN 4096

static char paths[SLOTS][PATH_MAX_LEN];
static atomic_int used[SLOTS];

static atomic_int graceful;
static atomic_int interrupted;

static void on_signal(int sig) {
    // In a batch, the first SIGINT/SIGTERM only asks the run to stop (no new files; files in flight are
    // abandoned at their next band and their temporary files removed); a second one ends it at once.
    if ((sig == SIGINT || sig == SIGTERM) && atomic_load(&graceful) && atomic_exchange(&interrupted, sig) == 0)
        return;
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&used[i])) unlink(paths[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void yc_set_graceful_interrupt(int on) { atomic_store(&graceful, on); }
int yc_interrupted(void) { return atomic_load(&interrupted); }

void yc_install_signal_cleanup(void) {
    static atomic_int installed;
    if (atomic_exchange(&installed, 1)) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    // A crash must not leave a partial file either.
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int yc_register_temp(const char *path) {
    if (strlen(path) >= PATH_MAX_LEN) return -1;
    for (int i = 0; i < SLOTS; i++) {
        int expected = 0;
        if (atomic_load(&used[i]) == 0) {
            strcpy(paths[i], path);
            if (atomic_compare_exchange_strong(&used[i], &expected, 1)) return i;
        }
    }
    return -1;
}

void yc_unregister_temp(int slot) {
    if (slot >= 0 && slot < SLOTS) atomic_store(&used[slot], 0);
}
