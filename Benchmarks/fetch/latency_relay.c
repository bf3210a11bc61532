/*
 * latency_relay: a user-space TCP relay that adds a fixed one-way delay, for Benchmarks/fetch/run.sh
 * (setting 3: HTTPS + HTTP/2 behind 25 ms each way). The kernel's netem is not available on the
 * benchmark machine, so the delay is added here.
 *
 * usage: latency_relay LISTEN_PORT TARGET_PORT DELAY_MS
 *
 * Listens on 127.0.0.1:LISTEN_PORT; for each accepted connection it connects to 127.0.0.1:TARGET_PORT
 * and hands every chunk read from either side to the other side DELAY_MS after it was read, in order,
 * in both directions, so a round trip costs 2 x DELAY_MS. Bandwidth is not limited otherwise (a
 * direction stops reading only while 8 MB wait in it). An end of stream is passed on the same way,
 * DELAY_MS later (shutdown(SHUT_WR): half-close works); once both directions have ended, both
 * sockets are closed. A reset or any other error closes both at once. TCP_NODELAY on both sockets.
 * The bytes pass untouched, so TLS runs end to end between client and nginx. The TCP handshake with
 * the relay itself is not delayed (the relay connects to nginx when it accepts): a new connection
 * costs no round trip, its TLS handshake and requests cost theirs.
 * Prints "ready PORT" on standard output once it listens; on SIGTERM/SIGINT prints one line of
 * statistics on standard error (connections, bytes, chunks, how late chunks were delivered) and exits.
 *
 * Why C and not Python (latency_relay.py, the same relay with asyncio, is kept as the readable
 * reference; run.sh --relay python uses it): measured on the 2-core benchmark machine, alternating the
 * two relays, 2,000 images (42 MB) over TLS + HTTP/2 with 25 ms each way:
 *                                   latency_relay.c                latency_relay.py
 *   curl --http2 --parallel-max 100  1.16-1.23 s wall, relay CPU   1.24-1.42 s wall, relay CPU
 *                                    0.08-0.12 s                   0.08-0.14 s
 *   wget2 --max-threads=16 --http2   3.65-3.92 s wall, relay CPU   3.88-4.04 s wall, relay CPU
 *                                    0.14-0.22 s                   0.17-0.24 s
 *   chunks delivered late, average   0.14 ms                       0.53 ms
 * The CPU cost is about the same (most of it is the kernel copying the bytes, a few % of one core),
 * but asyncio's timers (1 ms epoll resolution, interpreter overhead) deliver later, which shows as 5-15%
 * longer wall times for the fastest client. The C relay's deliveries are within 0.2 ms of the
 * target on average, so the latency really is 25 ms each way, not 25.5.
 *
 * One thread, epoll, a timerfd for the deliveries. Because the delay is the same for every chunk, the
 * chunks of all connections become due in the order they were read: one FIFO of (due time, direction)
 * entries is the whole timer queue.
 *
 * Build: gcc -O2 -Wall -o latency_relay latency_relay.c   (run.sh does this in its temp folder)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define READ_SIZE (256 * 1024)
#define HIGH_WATER (8u * 1024 * 1024)
#define LOW_WATER (4u * 1024 * 1024)

struct chunk {
    struct chunk *next;
    uint64_t due;
    size_t len, off;
    int eof;
    char data[];
};

struct conn;

/* One direction: bytes read from side `from` wait here for side 1 - from. */
struct dir {
    struct conn *c;
    int from;
    struct chunk *head, *tail;
    size_t queued;
    int read_eof;     /* the source sent its end of stream (or we stopped reading) */
    int write_eof;    /* the end of stream was passed on */
    int paused;       /* reading stopped: too much queued */
    int blocked;      /* the sink's send buffer is full: waiting for EPOLLOUT */
};

struct side {
    struct conn *c;
    int index;
};

struct conn {
    int fd[2];            /* 0: client, 1: nginx */
    struct side side[2];
    struct dir dir[2];    /* dir[i]: from fd[i] to fd[1 - i] */
    unsigned events[2];   /* epoll interest registered per fd */
    int removed[2];       /* fd taken out of the epoll set (hung up after its end of stream) */
    int dead;
    long refs;            /* timer entries still pointing here */
    struct conn *next_dead;
};

struct tev {
    struct tev *next;
    uint64_t due;
    struct dir *d;
};

static int ep, tfd;
static uint64_t delay_ns;
static struct tev *tq_head, *tq_tail;
static uint64_t armed_for;
static struct conn *graveyard;   /* closed connections, freed at the end of a loop iteration once unreferenced */
static volatile sig_atomic_t stop;
static char readbuf[READ_SIZE];

/* Statistics. */
static unsigned long long n_conns, n_chunks, bytes_up, bytes_down, n_late_samples;
static uint64_t late_max, late_sum;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void arm_timer(void) {
    uint64_t due = tq_head ? tq_head->due : 0;
    if (due == armed_for) return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (due) {
        its.it_value.tv_sec = (time_t)(due / 1000000000u);
        its.it_value.tv_nsec = (long)(due % 1000000000u);
    }
    if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) die("timerfd_settime");
    armed_for = due;
}

static void set_interest(struct conn *c, int i) {
    if (c->dead || c->removed[i]) return;
    unsigned ev = 0;
    /* fd[i] is the source of dir[i] and the sink of dir[1 - i]. */
    if (!c->dir[i].read_eof && !c->dir[i].paused) ev |= EPOLLIN;
    if (c->dir[1 - i].blocked) ev |= EPOLLOUT;
    if (ev == c->events[i]) return;
    struct epoll_event e = {.events = ev, .data.ptr = &c->side[i]};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd[i], &e) < 0) die("epoll_ctl MOD");
    c->events[i] = ev;
}

static void bury(void) {
    struct conn **p = &graveyard;
    while (*p) {
        struct conn *c = *p;
        if (c->refs == 0) {
            *p = c->next_dead;
            free(c);
        } else {
            p = &c->next_dead;
        }
    }
}

static void kill_conn(struct conn *c) {
    if (c->dead) return;
    c->dead = 1;
    c->next_dead = graveyard;
    graveyard = c;
    for (int i = 0; i < 2; i++) {
        close(c->fd[i]);   /* also removes it from the epoll set */
        struct chunk *k = c->dir[i].head;
        while (k) {
            struct chunk *next = k->next;
            free(k);
            k = next;
        }
        c->dir[i].head = c->dir[i].tail = NULL;
    }
}

static void maybe_finish(struct conn *c) {
    if (!c->dead && c->dir[0].write_eof && c->dir[1].write_eof) kill_conn(c);
}

/* Delivers what is due in d; returns after blocking, emptying, or reaching chunks not yet due. */
static void flush(struct dir *d, uint64_t now) {
    struct conn *c = d->c;
    if (c->dead) return;
    int sink = c->fd[1 - d->from];
    while (d->head && d->head->due <= now) {
        struct chunk *k = d->head;
        if (k->eof) {
            shutdown(sink, SHUT_WR);
            d->write_eof = 1;
        } else {
            while (k->off < k->len) {
                ssize_t n = send(sink, k->data + k->off, k->len - k->off, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n > 0) {
                    k->off += (size_t)n;
                    continue;
                }
                if (n < 0 && errno == EINTR) continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    d->blocked = 1;
                    set_interest(c, 1 - d->from);
                    return;
                }
                kill_conn(c);   /* EPIPE, ECONNRESET, ... */
                return;
            }
            if (d->from == 0) bytes_up += k->len; else bytes_down += k->len;
            d->queued -= k->len;
        }
        d->head = k->next;
        if (!d->head) d->tail = NULL;
        free(k);
    }
    if (d->blocked) {
        d->blocked = 0;
        set_interest(c, 1 - d->from);
    }
    if (d->paused && d->queued <= LOW_WATER) {
        d->paused = 0;
        set_interest(c, d->from);
    }
    maybe_finish(c);
}

static void enqueue(struct dir *d, const char *data, size_t len, int eof) {
    struct chunk *k = malloc(sizeof *k + len);
    struct tev *t = malloc(sizeof *t);
    if (!k || !t) die("malloc");
    uint64_t due = now_ns() + delay_ns;
    k->next = NULL;
    k->due = due;
    k->len = len;
    k->off = 0;
    k->eof = eof;
    if (len) memcpy(k->data, data, len);
    if (d->tail) d->tail->next = k; else d->head = k;
    d->tail = k;
    d->queued += len;
    n_chunks++;
    t->next = NULL;
    t->due = due;
    t->d = d;
    if (tq_tail) tq_tail->next = t; else tq_head = t;
    tq_tail = t;
    d->c->refs++;
}

static void on_readable(struct conn *c, int i) {
    struct dir *d = &c->dir[i];
    if (d->read_eof || d->paused) return;
    ssize_t n = recv(c->fd[i], readbuf, sizeof readbuf, MSG_DONTWAIT);
    if (n > 0) {
        enqueue(d, readbuf, (size_t)n, 0);
        if (d->queued > HIGH_WATER) {
            d->paused = 1;
            set_interest(c, i);
        }
    } else if (n == 0) {
        d->read_eof = 1;
        enqueue(d, NULL, 0, 1);
        set_interest(c, i);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        kill_conn(c);   /* ECONNRESET and the like: close both sides now */
    }
}

static void nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void on_accept(int lfd, int target_port) {
    for (;;) {
        int cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return;   /* EAGAIN, or out of descriptors: try again on the next event */
        }
        int sfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sfd < 0) {
            close(cfd);
            continue;
        }
        struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)target_port)};
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        /* A blocking connect on loopback takes microseconds; then non-blocking for the relaying. */
        if (connect(sfd, (struct sockaddr *)&to, sizeof to) < 0) {
            close(sfd);
            close(cfd);
            continue;
        }
        fcntl(sfd, F_SETFL, fcntl(sfd, F_GETFL) | O_NONBLOCK);
        nodelay(cfd);
        nodelay(sfd);
        struct conn *c = calloc(1, sizeof *c);
        if (!c) die("calloc");
        c->fd[0] = cfd;
        c->fd[1] = sfd;
        for (int i = 0; i < 2; i++) {
            c->side[i].c = c;
            c->side[i].index = i;
            c->dir[i].c = c;
            c->dir[i].from = i;
            c->events[i] = EPOLLIN;
            struct epoll_event e = {.events = EPOLLIN, .data.ptr = &c->side[i]};
            if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd[i], &e) < 0) die("epoll_ctl ADD");
        }
        n_conns++;
    }
}

static void on_timer(void) {
    uint64_t expirations;
    (void)!read(tfd, &expirations, sizeof expirations);
    armed_for = 0;
    uint64_t now = now_ns();
    while (tq_head && tq_head->due <= now) {
        struct tev *t = tq_head;
        tq_head = t->next;
        if (!tq_head) tq_tail = NULL;
        struct conn *c = t->d->c;
        c->refs--;
        uint64_t late = now - t->due;
        late_sum += late;
        n_late_samples++;
        if (late > late_max) late_max = late;
        if (!c->dead && !t->d->blocked) flush(t->d, now);   /* a blocked direction resumes on EPOLLOUT */
        free(t);
    }
}

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LISTEN_PORT TARGET_PORT DELAY_MS\n", argv[0]);
        return 64;
    }
    int listen_port = atoi(argv[1]), target_port = atoi(argv[2]);
    delay_ns = (uint64_t)(atof(argv[3]) * 1e6);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;   /* no SA_RESTART: epoll_wait returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (lfd < 0) die("socket");
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t)listen_port)};
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&at, sizeof at) < 0) die("bind");
    if (listen(lfd, 1024) < 0) die("listen");

    ep = epoll_create1(EPOLL_CLOEXEC);
    tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (ep < 0 || tfd < 0) die("epoll/timerfd");
    static int lmark, tmark;   /* epoll tags for the listening socket and the timer */
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &lmark};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e) < 0) die("epoll_ctl listen");
    e.data.ptr = &tmark;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e) < 0) die("epoll_ctl timer");

    printf("ready %d\n", listen_port);
    fflush(stdout);

    struct epoll_event evs[256];
    while (!stop) {
        int n = epoll_wait(ep, evs, 256, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        /* Deliveries first: a chunk due now goes out before newer input is read. */
        for (int k = 0; k < n; k++)
            if (evs[k].data.ptr == &tmark) on_timer();
        for (int k = 0; k < n; k++) {
            void *p = evs[k].data.ptr;
            if (p == &tmark) continue;
            if (p == &lmark) {
                on_accept(lfd, target_port);
                continue;
            }
            struct side *s = p;
            struct conn *c = s->c;
            if (c->dead) continue;   /* killed earlier in this batch; freed only once refs == 0 */
            unsigned ev = evs[k].events;
            if (ev & EPOLLOUT) {
                struct dir *d = &c->dir[1 - s->index];
                d->blocked = 0;
                flush(d, now_ns());
            }
            if (c->dead) continue;
            int i = s->index;
            if (ev & EPOLLERR) {
                kill_conn(c);   /* a reset: close both sides now */
            } else if (!c->dir[i].read_eof && (ev & (EPOLLIN | EPOLLHUP))) {
                on_readable(c, i);
            } else if ((ev & EPOLLHUP) && c->dir[i].read_eof) {
                /* Both ways shut on this socket: nothing more to read or send. Level-triggered HUP
                 * would fire on every wait, so take it out of the set; the other side finishes. */
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[i], NULL);
                c->removed[i] = 1;
            }
        }
        arm_timer();
        bury();
    }
    fprintf(stderr,
            "latency_relay: %llu connection(s), %llu bytes to the server, %llu bytes to the clients, %llu chunks; "
            "delivered late by %.2f ms on average, %.2f ms at most\n",
            n_conns, bytes_up, bytes_down, n_chunks,
            n_late_samples ? (double)late_sum / (double)n_late_samples / 1e6 : 0.0, (double)late_max / 1e6);
    return 0;
}
