/* The testbed's propagation delay: a user-space delay line on two TUN devices.
 *
 *   delayline FWD_TUN REV_TUN CAPACITY FWD_US,FWD_US,... REV_US,REV_US,...
 *
 * Creates the two TUN devices (IFF_TUN | IFF_NO_PI: bare IPv4 packets); they
 * vanish when this process exits, so nothing outlives it. The router routes
 * left-to-right traffic out of FWD_TUN and right-to-left traffic out of
 * REV_TUN; every packet read is held for its pair's one-way delay and written
 * back into the same device, where the router forwards it on. The pair is the
 * last octet of the IPv4 address of the sender side (source on FWD, destination
 * on REV) minus 10, as the testbed numbers hosts. One FIFO per pair and
 * direction: a constant delay keeps order, so no heap.
 *
 * One thread per direction, each on its own core where there are two or more:
 * writing a packet back runs the kernel's whole path beyond it (the router,
 * HTB, the veth, the receiving host's TCP and what it sends in answer) in the
 * writing thread, so a single thread for both directions filled one core and
 * carried 0.75 of 500 Mbit/s while the other core idled at times. A packet's
 * delay runs from when it is read, at most READ_EVERY_NS (plus the timer's
 * lateness) after the kernel queued it: see run_dir.
 *
 * Runs SCHED_FIFO with its memory locked when allowed (`delayline --probe`: only
 * the clock's resolution and the timer probe, then exit). Prints "ready" once both
 * devices exist and, after SIGTERM/SIGINT, one JSON line: per direction the
 * packets delayed, how late they left (max, count > 1 ms, a histogram), and
 * packets dropped because a FIFO was full or belonged to no pair; plus the
 * timer probe made at start (how late 1 ms sleeps wake).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 64
#define SLOT 2048 /* > MTU 1500 */
#define READ_EVERY_NS 50000ull /* while packets keep coming: read at the next due time or within 50 us */
#define HOST_BASE 10

typedef struct {
    uint64_t due;
    uint32_t len;
} meta_t;

typedef struct {
    uint64_t delay_ns;
    uint32_t cap, head, n;
    meta_t *meta;
    uint8_t *data;
} fifo_t;

/* Lateness histogram edges in microseconds: <100, <1000, <5000, <10000, <50000, rest. */
static const uint64_t EDGES_US[] = {100, 1000, 5000, 10000, 50000};
#define NBUCKETS 6

typedef struct {
    int fd;
    int reverse;
    int npairs;
    fifo_t fifo[MAX_PAIRS];
    uint64_t packets, late_1ms, max_late_ns, overflow, unknown, write_errors;
    uint64_t hist[NBUCKETS];
} dir_t;

static int stop_fd; /* an eventfd: readable once SIGTERM or SIGINT came */

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int open_tun(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { perror("open /dev/net/tun"); exit(1); }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) { fprintf(stderr, "TUNSETIFF %s: %s\n", name, strerror(errno)); exit(1); }
    return fd;
}

static int parse_delays(const char *s, fifo_t *f, uint32_t cap) {
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == MAX_PAIRS) { fprintf(stderr, "at most %d pairs\n", MAX_PAIRS); exit(2); }
        f[n].delay_ns = strtoull(tok, NULL, 10) * 1000ull;
        f[n].cap = cap;
        f[n].meta = calloc(cap, sizeof(meta_t));
        f[n].data = malloc((size_t)cap * SLOT);
        if (!f[n].meta || !f[n].data) { fprintf(stderr, "out of memory for %u packets\n", cap); exit(1); }
        memset(f[n].data, 0, (size_t)cap * SLOT); /* touch now: no page faults later */
        n++;
    }
    free(copy);
    return n;
}

/* The pair a packet belongs to, or -1. */
static int pair_of(const uint8_t *p, uint32_t len, int reverse, int npairs) {
    if (len < 20 || (p[0] >> 4) != 4) return -1;
    int host = reverse ? p[19] : p[15];
    int pair = host - HOST_BASE;
    return pair >= 0 && pair < npairs ? pair : -1;
}

/* Read every packet waiting in the device into its pair's FIFO; how many were read. */
static int drain_reads(dir_t *d) {
    uint8_t buf[SLOT];
    for (int n = 0;; n++) {
        ssize_t len = read(d->fd, buf, sizeof buf);
        if (len <= 0) return n; /* EAGAIN: empty */
        int pair = pair_of(buf, (uint32_t)len, d->reverse, d->npairs);
        if (pair < 0) { d->unknown++; continue; }
        fifo_t *f = &d->fifo[pair];
        if (f->n == f->cap) { d->overflow++; continue; }
        uint32_t slot = (f->head + f->n) % f->cap;
        f->meta[slot].due = now_ns() + f->delay_ns;
        f->meta[slot].len = (uint32_t)len;
        memcpy(f->data + (size_t)slot * SLOT, buf, (size_t)len);
        f->n++;
    }
}

static void release_due(dir_t *d, uint64_t now) {
    for (int p = 0; p < d->npairs; p++) {
        fifo_t *f = &d->fifo[p];
        while (f->n && f->meta[f->head].due <= now) {
            meta_t *m = &f->meta[f->head];
            if (write(d->fd, f->data + (size_t)f->head * SLOT, m->len) < 0) d->write_errors++;
            uint64_t late = now - m->due;
            d->packets++;
            if (late > 1000000ull) d->late_1ms++;
            if (late > d->max_late_ns) d->max_late_ns = late;
            int b = 0;
            while (b < NBUCKETS - 1 && late >= EDGES_US[b] * 1000ull) b++;
            d->hist[b]++;
            f->head = (f->head + 1) % f->cap;
            f->n--;
        }
    }
}

static uint64_t next_due(const dir_t *d) {
    uint64_t best = UINT64_MAX;
    for (int p = 0; p < d->npairs; p++)
        if (d->fifo[p].n && d->fifo[p].meta[d->fifo[p].head].due < best) best = d->fifo[p].meta[d->fifo[p].head].due;
    return best;
}

/* One direction until stop_fd is readable. After a wake-up that read packets, it sleeps until the next
 * is due or READ_EVERY_NS has passed, and arriving packets wait in the device until then; after one that
 * read none (or with nothing held), an arriving packet wakes it. At high rates every wake-up finds packets,
 * so arrivals never wake it (a wake-up of a thread on another core, for each packet, cost more than the
 * packet) and a packet is read at most READ_EVERY_NS late; at low rates each arrival is read at once. */
static void *run_dir(void *arg) {
    dir_t *d = arg;
    struct pollfd pfd[2] = {{.fd = stop_fd, .events = POLLIN}, {.fd = d->fd, .events = POLLIN}};
    for (;;) {
        uint64_t now = now_ns();
        int got = drain_reads(d);
        release_due(d, now);
        uint64_t due = next_due(d);
        struct timespec timeout, *tp = NULL;
        if (due != UINT64_MAX) {
            uint64_t wait = due > now ? due - now : 0;
            if (got && wait > READ_EVERY_NS) wait = READ_EVERY_NS;
            timeout.tv_sec = (time_t)(wait / 1000000000ull);
            timeout.tv_nsec = (long)(wait % 1000000000ull);
            tp = &timeout;
        }
        int r = ppoll(pfd, got && tp ? 1 : 2, tp, NULL); /* the device too unless packets just came */
        if (r < 0 && errno != EINTR) { perror("ppoll"); break; }
        if (r > 0 && (pfd[0].revents & POLLIN)) break;
    }
    return NULL;
}

/* Start a direction's thread, on core `cpu` when the machine has more than one. */
static pthread_t start_dir(dir_t *d, int cpu) {
    pthread_t t;
    if (pthread_create(&t, NULL, run_dir, d) != 0) { perror("pthread_create"); exit(1); }
    if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        pthread_setaffinity_np(t, sizeof set, &set); /* a hint: where it fails, the scheduler places it */
    }
    return t;
}

static void print_dir(const char *name, const dir_t *d) {
    printf("\"%s\":{\"packets\":%llu,\"late_1ms\":%llu,\"max_late_s\":%.6f,\"overflow\":%llu,\"unknown\":%llu,\"write_errors\":%llu,\"late_hist_us\":{",
           name, (unsigned long long)d->packets, (unsigned long long)d->late_1ms, d->max_late_ns / 1e9,
           (unsigned long long)d->overflow, (unsigned long long)d->unknown, (unsigned long long)d->write_errors);
    for (int b = 0; b < NBUCKETS; b++)
        printf("%s\"%s%llu\":%llu", b ? "," : "", b < NBUCKETS - 1 ? "<" : ">=",
               (unsigned long long)EDGES_US[b < NBUCKETS - 1 ? b : NBUCKETS - 2], (unsigned long long)d->hist[b]);
    printf("}}");
}

/* How late 1 ms sleeps wake, in this process's scheduling class: 200 of them. */
static void timer_probe(double *median_us, double *max_us) {
    enum { N = 200 };
    double late[N];
    for (int i = 0; i < N; i++) {
        uint64_t t0 = now_ns();
        struct timespec ts = {0, 1000000};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
        late[i] = (now_ns() - t0 - 1000000) / 1e3;
    }
    double mx = 0;
    for (int i = 0; i < N; i++) mx = late[i] > mx ? late[i] : mx;
    /* median by counting: N is small */
    for (int i = 0; i < N; i++) {
        int below = 0;
        for (int j = 0; j < N; j++) below += late[j] < late[i];
        if (below == N / 2) { *median_us = late[i]; break; }
    }
    *max_us = mx;
}

/* SCHED_FIFO with locked memory and a 1 ns timer slack, when allowed; 1 if real time. */
static int realtime(void) {
    struct sched_param sp = {.sched_priority = 50};
    int rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    mlockall(MCL_CURRENT | MCL_FUTURE);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    return rt;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--probe") == 0) { /* the clock and timers only */
        int rt = realtime();
        struct timespec res;
        clock_getres(CLOCK_MONOTONIC, &res);
        double median_us = 0, max_us = 0;
        timer_probe(&median_us, &max_us);
        printf("{\"realtime\":%s,\"clock_res_ns\":%ld,\"timer_probe_1ms\":{\"median_late_us\":%.1f,\"max_late_us\":%.1f}}\n",
               rt ? "true" : "false", res.tv_nsec, median_us, max_us);
        return 0;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: %s FWD_TUN REV_TUN CAPACITY FWD_US,... REV_US,...  |  %s --probe\n", argv[0], argv[0]);
        return 2;
    }
    static dir_t fwd, rev;
    uint32_t cap = (uint32_t)strtoul(argv[3], NULL, 10);
    if (cap < 16) cap = 16;
    fwd.npairs = parse_delays(argv[4], fwd.fifo, cap);
    rev.npairs = parse_delays(argv[5], rev.fifo, cap);
    if (fwd.npairs != rev.npairs || fwd.npairs == 0) { fprintf(stderr, "give one delay per pair in each direction\n"); return 2; }

    /* Only the main thread takes SIGTERM and SIGINT (sigwait below); the directions' threads inherit the mask. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    stop_fd = eventfd(0, EFD_CLOEXEC);
    if (stop_fd < 0) { perror("eventfd"); return 1; }

    int rt = realtime();
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    double probe_median_us = 0, probe_max_us = 0;
    timer_probe(&probe_median_us, &probe_max_us);

    fwd.fd = open_tun(argv[1]);
    rev.fd = open_tun(argv[2]);
    rev.reverse = 1;
    pthread_t tf = start_dir(&fwd, 0), tr = start_dir(&rev, 1);
    printf("ready\n");
    fflush(stdout);

    int sig;
    sigwait(&sigs, &sig);
    uint64_t one = 1;
    if (write(stop_fd, &one, sizeof one) != sizeof one) perror("eventfd");
    pthread_join(tf, NULL);
    pthread_join(tr, NULL);
    printf("{\"realtime\":%s,\"clock_res_ns\":%ld,\"timer_probe_1ms\":{\"median_late_us\":%.1f,\"max_late_us\":%.1f},",
           rt ? "true" : "false", res.tv_nsec, probe_median_us, probe_max_us);
    print_dir("fwd", &fwd);
    printf(",");
    print_dir("rev", &rev);
    printf("}\n");
    fflush(stdout);
    return 0;
}
